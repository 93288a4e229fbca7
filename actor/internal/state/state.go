package state

import (
	"hash/maphash"
	"time"

	"github.com/actorq/actorq/actor/internal/delay"
	"github.com/actorq/actorq/actor/internal/order"
)

// Status is where an item is (see the package doc).
type Status uint8

const (
	Absent Status = iota
	Ready
	Popped
	Processing
	ProcessingDirty
	Delayed
	ProcessingDelayed
)

var statusNames = [...]string{"absent", "ready", "popped", "processing", "processing+dirty", "delayed", "processing+delayed"}

func (st Status) String() string { return statusNames[st] }

// processing reports whether an item in this state is being processed.
func (st Status) processing() bool {
	return st == Processing || st == ProcessingDirty || st == ProcessingDelayed
}

// out reports whether an item in this state is out of the ready order and
// the delays, on its way to a consumer or with one: it is in proc.
func (st Status) out() bool { return st == Popped || st.processing() }

// Requeue says where an item added again while it was processing takes
// its place (actor.Requeue documents both).
type Requeue uint8

const (
	RequeueAtDone Requeue = iota // client-go's rule
	RequeueAtAdd                 // controller-runtime's rule
)

// Phase is how far the queue is into its shutdown.
type Phase uint8

const (
	Running  Phase = iota
	Draining       // ShutDownWithDrain began: adds and delays are ignored
	Ended          // the owner goroutine ended: callers keep the state
)

// Config is what a queue is made of.
type Config[T comparable] struct {
	Storage order.Storage[T] // a caller's order; nil for the default
	Requeue Requeue
	Fair    bool          // items carry fairness keys (Opts.Keys)
	Bound   time.Duration // the starvation bound; 0 for none
	Metrics *Metrics[T]   // nil records nothing
	// With fairness: flow control of the keys (flow.go). ByWork makes
	// keys take turns by work time; Limits are the keys' first limits;
	// Levels[i] are the limits of every key of level i+1 without limits
	// of its own.
	ByWork bool
	Limits []KeyLimit
	Levels []order.Limit
}

// Opts are what an add asks for.
type Opts struct {
	Prio  int
	Keys  []string // with fairness: the item's keys
	Retry bool     // count a retry in the metrics, if the add is applied
	Seq   uint64   // the add's place in the order of calls (see Queue)
}

// shrinkFloor is the map size below which a map is never rebuilt.
const shrinkFloor = 1024

// handed is what the table of items out keeps of an item processing: the
// place of its hand-out in the order of calls, and its instant (which
// fairness by work time charges from).
type handed struct {
	seq uint64
	at  int64
}

// Queue is the state of a queue. Its zero value is not usable: make one
// with New.
//
// Two tables (index.go) hold the entry of every item the queue knows:
// proc those popped or processing (few: about as many as there are
// consumers), items the others (ready or delayed: a backlog may hold
// millions). An item is in one of them, so de-duplication spans every
// state, and the events of an item's usual life (added, handed out, done)
// touch the big table twice: an insert and a delete, as client-go's dirty
// set; proc keeps beside the entry of an item out its hand-out (handed).
// The deadlines of delayed items are in a map of their own (package
// delay) that only they pay for; so are, with RequeueAtAdd, the places of
// items added again while processing or delayed. An item's fairness keys
// are an id in its entry. Every table and map of items is made anew once
// it empties after a burst (shrunk).
//
// Every event has a place in the order of the calls that made it (seq:
// Opts.Seq, and the seq given to Done, Received and HandOut). A
// transport may apply an Add, AddAt or Done after a hand-out that came
// after it in that order (a consumer took the item offered ahead of the
// owner): the event found the item ready, and acts so. An add is a
// duplicate and a Done does nothing; Add reports the item Popped.
type Queue[T comparable] struct {
	items index[T, struct{}] // ready and delayed items
	proc  index[T, handed]   // popped and processing items (dirty and delayed ones too), with each one's hand-out

	order  order.Order[T]
	fifo   *order.FIFO[T] // order, while it is the default one
	prio   *order.Prio[T] // order, once it has priorities
	delays delay.Deadlines[T]

	nproc   int // items processing, dirty or delayed while processing
	ndirty  int // items processing+dirty
	transit int // items popped

	seq       uint64        // the last sequence number given
	requeue   Requeue       //
	fair      bool          // items carry fairness keys: their entries hold their ids
	bound     time.Duration //
	places    map[T]uint64  // RequeueAtAdd: the places of dirty and delayed items
	wide      map[T]int     // the priorities that do not fit in an entry
	dueBuf    []dueItem[T]  // RequeueAtAdd: scratch for the items due at once
	byWork    bool          // fairness by work time: a Done charges the item's work time
	placePeak int           // the peaks of places and wide since each was made
	widePeak  int

	phase Phase
	m     *Metrics[T]

	snapBuf []procRef[T] // Snapshot's scratch
}

// New returns an empty queue.
func New[T comparable](cfg Config[T]) *Queue[T] {
	seed := maphash.MakeSeed()
	q := &Queue[T]{
		items:   newIndex[T, struct{}](seed),
		proc:    newIndex[T, handed](seed),
		delays:  delay.New[T](),
		requeue: cfg.Requeue,
		fair:    cfg.Fair,
		bound:   max(cfg.Bound, 0),
		m:       cfg.Metrics,
	}
	switch {
	case cfg.Storage != nil:
		q.order = &order.StorageOrder[T]{S: cfg.Storage}
	case q.fair || q.bound > 0 || q.requeue == RequeueAtAdd:
		q.usePrioOrder()
	default:
		q.fifo = new(order.FIFO[T])
		q.order = q.fifo
	}
	if q.fair {
		q.prio.UseFlows(cfg.ByWork)
		if q.m != nil && q.m.keyed() {
			q.prio.CountKeys()
		}
		q.byWork = cfg.ByWork
		q.prio.SetLevels(cfg.Levels)
		for _, l := range cfg.Limits {
			q.prio.SetLimit(l.Keys, l.Limit)
		}
	}
	if q.requeue == RequeueAtAdd {
		q.places = make(map[T]uint64)
	}
	return q
}

// Len is the number of items ready to be handed out: in the ready order,
// and popped; with RequeueAtAdd, also those added again while processing
// (ready, but locked until Done).
func (q *Queue[T]) Len() int {
	n := q.order.Len() + q.transit
	if q.requeue == RequeueAtAdd {
		n += q.ndirty
	}
	return n
}

// ready reports whether an item may be handed out: one is ready, and its
// keys are not at their caps.
func (q *Queue[T]) ready() bool {
	if q.prio != nil {
		return q.prio.Ready()
	}
	return q.order.Len() > 0
}

// readyAt is ready at instant now: the keys whose token came, or whose
// pause ended, by now may take their turns.
func (q *Queue[T]) readyAt(now int64) bool {
	if q.fair {
		q.prio.Tick(now)
	}
	return q.ready()
}

// Processing is the number of items being processed.
func (q *Queue[T]) Processing() int { return q.nproc }

// Popped is the number of items popped, neither received nor returned.
func (q *Queue[T]) Popped() int { return q.transit }

// Dirty is the number of items added again while processing.
func (q *Queue[T]) Dirty() int { return q.ndirty }

// Head returns the place of the item Pop would return at instant now,
// leaving it where it is; ok is false if nothing is ready. The default
// order's places are all Place{}; a Storage has none (ok is false).
func (q *Queue[T]) Head(now int64) (p order.Place, ok bool) {
	switch {
	case !q.readyAt(now):
		return p, false
	case q.prio != nil:
		return q.prio.Peek(now), true
	}
	return p, q.fifo != nil
}

// TopPrio returns the highest priority of a ready item, if any.
func (q *Queue[T]) TopPrio() (int, bool) {
	switch {
	case !q.ready():
		return 0, false
	case q.prio != nil:
		return q.prio.TopPrio(), true
	}
	return 0, true
}

// Changes counts, with fairness, the events after which the items popped
// may no longer be the first that Pop would take (order.Prio's Changes;
// 0 without fairness). A transport that pops items ahead of their
// hand-out with fairness returns them when it changes.
func (q *Queue[T]) Changes() uint64 {
	if q.prio == nil {
		return 0
	}
	return q.prio.Changes()
}

// Delayed is the number of items waiting on a delay.
func (q *Queue[T]) Delayed() int { return q.delays.Len() }

// Phase returns how far the queue is into its shutdown.
func (q *Queue[T]) Phase() Phase { return q.phase }

// Status returns where item is.
func (q *Queue[T]) Status(item T) Status { return q.entryOf(item).status() }

// NoopAdd reports whether an Add of item at priority 0 changes nothing
// until the item is handed out: it is ready or dirty, at a priority of 0
// or more. (An Add of a popped item changes nothing either, but its
// hand-out may be under way.)
func (q *Queue[T]) NoopAdd(item T) bool {
	e := q.entryOf(item)
	st := e.status()
	return (st == Ready || st == ProcessingDirty) && e.prio() >= 0
}

// nextSeq returns a new sequence number: a place after every place given
// before.
func (q *Queue[T]) nextSeq() uint64 {
	q.seq++
	return q.seq
}

// enqueue puts item, which has just become ready with entry e, into the
// ready order at sequence number seq of its priority, at instant now.
func (q *Queue[T]) enqueue(item T, e entry, seq uint64, now int64) {
	if q.fifo != nil {
		q.fifo.Push(item, order.Place{})
		return
	}
	q.order.Push(item, q.placeOf(e, q.prioOf(item, e), seq, now))
}

// placeOf returns the place at priority prio and sequence number seq,
// having become ready at now, of the item whose entry is e.
func (q *Queue[T]) placeOf(e entry, prio int, seq uint64, now int64) order.Place {
	p := order.Place{Prio: prio, Seq: seq, Key: e.key()}
	if q.bound > 0 {
		p.At = now
	}
	return p
}

// usePrio turns the default first-in-first-out order into a priority order,
// once an item asks for a priority other than 0. The items ready so far
// keep their order, at priority 0. A custom Storage orders items itself.
func (q *Queue[T]) usePrio() {
	if q.fifo == nil {
		return
	}
	f := q.fifo
	q.usePrioOrder()
	for f.Len() > 0 {
		item, _ := f.Pop(0)
		q.prio.Push(item, order.Place{Seq: q.nextSeq()})
	}
}

func (q *Queue[T]) usePrioOrder() {
	q.prio = order.NewPrio[T](q.bound)
	if q.fair && q.bound > 0 {
		q.prio.KeyOf = func(item T) uint32 { return q.entryOf(item).key() }
	}
	q.order, q.fifo = q.prio, nil
}

// setPlace records the place of an item that is not ready yet (delayed,
// or added again while processing), which RequeueAtAdd keeps for it.
func (q *Queue[T]) setPlace(item T, seq uint64) {
	if q.places != nil {
		put(q.places, item, seq, &q.placePeak)
	}
}

// takePlace returns and forgets the place recorded for item, 0 if none.
func (q *Queue[T]) takePlace(item T) uint64 {
	if q.places == nil {
		return 0
	}
	seq := q.places[item]
	if seq != 0 {
		delete(q.places, item)
		q.places = shrunk(q.places, &q.placePeak)
	}
	return seq
}
