package order

import (
	"cmp"
	"slices"
	"time"
	"weak"
)

// Prio is the order with priorities: higher first, and within a priority
// in sequence order. With fairness keys, each priority hands out
// round-robin across the first-level keys, then across the second level
// within each, and in sequence order within one key (a tree whose leaves
// hold the items, tree.go). With a starvation bound, an item that has
// waited longer than the bound goes before every item of a higher
// priority.
//
// An item's place can be abandoned (Remove, when its priority is raised;
// with a bound, a hand-out from the middle of a priority, and every
// hand-out abandons the entry's copy in the band's log): the entry stays
// where it is, and dead counts it, per item and per container (a leaf, or
// a band's log), until it is reached and skipped, or its container goes.
// An entry reached is live unless dead counts one for its item there, so
// that while nothing is abandoned (the common case, and always without
// raises or a bound) telling the live from the stale costs no map
// operation at all. If an item has a stale and a live entry in one
// container, the first reached counts as the stale one: either way the
// item is handed out once and every count stays right.
//
// Every count is of live entries only, and a node with none is removed
// with whatever stale entries it still holds, so a key with nothing ready
// has no node, and a key that has gone costs no memory but that of the
// spares kept for the next keys (spares.go).
type Prio[T comparable] struct {
	bands map[int]*band[T]
	ents  entries[T] // the entries of every leaf (entries.go)
	prios []int      // priorities with live items, highest first
	top   *band[T]   // the band of prios[0], nil if none: most pushes and every pop use it
	n     int

	dead    map[deadKey[T]]int // stale entries not yet reached, per item and container
	peak    int                // the most keys dead held since it was last made
	bound   int64              // the starvation bound in nanoseconds; 0 for none
	now     int64              // the instant of the Pop under way (for the bound)
	changes uint64             // the events after which items popped ahead may not come first (Changes)

	// KeyOf returns the key id a ready item was queued with; with
	// fairness and a bound, Pop needs it to hand out an item from the
	// middle of its priority (popStarving).
	KeyOf func(T) uint32

	// What the bands, keys and flows that went leave for the next ones
	// (spares.go); after a drain, held weakly (weakly: weak is set).
	sp     spares[T]
	weak   weak.Pointer[spares[T]]
	weakly bool
	fresh  fresh[T]

	// Fairness keys and their flow control (flow.go): the root of the
	// flows, nil without fairness.
	flows     *flow[T]
	byWork    bool      // keys take turns by work time
	capsOff   bool      // shutdown began: nothing is blocked
	ids       keyIDs[T] // the flows that items hold, by id
	nout      int       // items out (popped or processing)
	undos     []undo[T] // the notes of the pops ahead, by id-1 (undo.go)
	freeUndos []uint32
	rec       *undo[T] // the notes of the pop ahead under way, or nil
	back      int64    // the last turn number given at the back of a heap of turns
	busy      *busy[T] // the first-level keys by load, if counted (CountKeys)

	// Rates and pauses (rate.go).
	levels  []Limit    // the limits of the keys of each level without their own
	rated   bool       // a key has or had a rate or a pause
	clock   int64      // the latest instant of a Pop or Tick
	wakes   keyHeap[T] // the keys whose buckets are not full, or that wait
	wakeSeq uint64     // the last Seq given in wakes

	// Adaptive caps (adaptive.go).
	adaptive  bool       // a key has or had an adaptive cap's state: the transport dates its events
	adaptCfg  bool       // a key has or may get an adaptive cap: Throttle looks for them
	adapts    keyHeap[T] // the heap of window ends
	learnt    []*flow[T] // the keys whose adaptive caps learnt something
	dueAdapts []*flow[T] // tickAdapt's keys of one instant
}

// band is the items of one priority.
type band[T comparable] struct {
	root node[T]
	log  ring[entry[T]] // with a starvation bound: every entry, in the order it became ready
}

const (
	// maxSpare is how many empty bands an order keeps.
	maxSpare = 2
	// maxSpareNodes is how many nodes of keys with nothing ready it
	// keeps (and flows of keys with nothing at all, and the children's
	// lists and maps of inner nodes and flows), each with buffers of at
	// most spareRing entries or children (spares.go).
	maxSpareNodes = 1024
	spareRing     = 32
)

// shrinkFloor is the size below which a map or slab of items or keys is
// never dropped to shrink it: one that once held more is made anew when
// it empties, since Go maps never give memory back.
const shrinkFloor = 1024

// NewPrio returns an empty priority order with the starvation bound bound
// (0 for none).
func NewPrio[T comparable](bound time.Duration) *Prio[T] {
	o := &Prio[T]{bands: make(map[int]*band[T]), bound: int64(bound)}
	o.wakes.place = wakePlace[T]
	o.adapts.place = adaptPlace[T]
	o.ents.timed = bound > 0
	return o
}

func (o *Prio[T]) Len() int     { return o.n }
func (o *Prio[T]) Touch(item T) {}

// Push adds item at its place.
func (o *Prio[T]) Push(item T, p Place) { o.insert(item, p, false) }

// PushFront adds back item, which PopAhead took at place p and nobody
// received: its keys get back the places in the turns its pop took from
// them (undo.go), and within its keys it goes by sequence number (first,
// unless an item placed before it was pushed since its pop).
func (o *Prio[T]) PushFront(item T, p Place) { o.insert(item, p, true) }

func (o *Prio[T]) insert(item T, p Place, front bool) {
	b := o.band(p.Prio)
	if b == nil {
		b = o.newBand(p.Prio)
	}
	e := entry[T]{item: item, seq: p.Seq, at: p.At}
	o.n++
	if o.bound > 0 {
		b.log.push(e) // pushed-back entries too: an older entry for the item may be stale
	}
	leaf := o.leafOf(b, p.Key)
	switch {
	case front && (leaf.fifo.empty() || o.ents.seqAt(leaf.fifo.head) >= p.Seq):
		o.ents.pushFront(&leaf.fifo, e)
	case front:
		leaf.pushLate(e) // an item placed before it came meanwhile
	case !leaf.fifo.empty() && o.ents.seqAt(leaf.fifo.tail) > p.Seq:
		leaf.pushLate(e) // placed before entries already there
		o.changes++
	default:
		o.ents.push(&leaf.fifo, e)
	}
	for x := leaf; x != nil; x = x.parent {
		x.n++
	}
	if o.flows == nil {
		return
	}
	switch {
	case front && p.Undo != 0:
		o.undoPop(leaf, &o.undos[p.Undo-1])
		o.freeUndo(p.Undo)
	case front: // a pop from the middle (popStarving) noted nothing
		o.moveOut(leaf.flow, -1)
		o.settle(leaf)
	default:
		o.load(leaf.flow, 1)
		o.settle(leaf)
	}
}

// newBand makes the band of priority prio: a spare one, or a new one.
func (o *Prio[T]) newBand(prio int) *band[T] {
	b := o.newBandObject()
	b.root.flow = o.flows
	o.bands[prio] = b
	o.listBand(prio, b)
	return b
}

// band returns the band of priority prio, nil if it has none.
func (o *Prio[T]) band(prio int) *band[T] {
	if len(o.prios) > 0 && o.prios[0] == prio {
		return o.top
	}
	return o.bands[prio]
}

// listBand puts prio, whose band is b, among the priorities with live
// items.
func (o *Prio[T]) listBand(prio int, b *band[T]) {
	i, _ := slices.BinarySearchFunc(o.prios, prio, func(a, b int) int { return cmp.Compare(b, a) }) // highest first
	o.prios = slices.Insert(o.prios, i, prio)
	if i == 0 {
		o.top = b
	}
}

// unlistBand takes prio out of the priorities with live items.
func (o *Prio[T]) unlistBand(prio int) {
	i := slices.Index(o.prios, prio)
	o.prios = slices.Delete(o.prios, i, i+1)
	if i == 0 {
		o.top = nil
		if len(o.prios) > 0 {
			o.top = o.bands[o.prios[0]]
		}
	}
}

// Remove abandons item's place: its entry goes stale, and so does its
// copy in the band's log.
func (o *Prio[T]) Remove(item T, p Place) {
	o.n--
	b := o.band(p.Prio)
	if o.bound > 0 {
		o.kill(deadKey[T]{item: item, log: b})
	}
	if o.flows != nil {
		o.load(o.ids.flow(p.Key), -1)
	}
	o.drop(b, item, p.Key)
	if b.root.n == 0 {
		o.dropBand(p.Prio, b)
	}
}

// Pop removes the next item and returns it with its place; now is the
// instant of the hand-out, which the starvation bound compares with the
// instants items became ready.
func (o *Prio[T]) Pop(now int64) (T, Place) { return o.pop(now) }

// PopAhead is Pop for an item that may come back (PushFront) if nobody
// receives it: with fairness, the pop notes what it moves, so that
// PushFront undoes it exactly (undo.go), until Kept says the item was
// received.
func (o *Prio[T]) PopAhead(now int64) (T, Place) {
	if o.flows == nil {
		return o.pop(now)
	}
	id := o.beginUndo()
	item, p := o.pop(now)
	o.rec = nil
	p.Undo = id
	return item, p
}

func (o *Prio[T]) pop(now int64) (T, Place) {
	o.Tick(now)
	if o.bound > 0 && len(o.prios) > 1 {
		o.now = now
		if item, p, ok := o.popStarving(); ok {
			return item, p
		}
	}
	prio, b := o.prios[0], o.top
	if o.flows != nil && !o.eligibleBand(b) {
		prio, b = o.firstEligible()
	}
	e, f := o.popNode(&b.root)
	o.tookOut(f)
	if o.bound > 0 {
		o.kill(deadKey[T]{item: e.item, log: b})
		o.sweepLog(b)
	}
	o.popped(prio, b)
	return e.item, Place{Prio: prio, Seq: e.seq, At: e.at, Key: f.idOf()}
}

// Changes counts the events after which the items popped ahead may no
// longer be the first the order would hand out, whatever the level and
// the band: a key entering its parent's turns at the back (a new key, or
// one below its cap again), an item placed before items of its key
// already there (an item added again while processing, with its place
// kept, say), and a key's limits set. Putting back what a pop ahead took
// does not count. A transport that pops items ahead compares it before
// and after an event, and puts back what it popped if it changed.
func (o *Prio[T]) Changes() uint64 { return o.changes }

// Ready reports whether Pop may be called: an item is ready whose keys
// are not at their caps.
func (o *Prio[T]) Ready() bool {
	if o.flows == nil || o.n == 0 {
		return o.n > 0
	}
	_, b := o.firstEligible()
	return b != nil
}

// eligibleBand reports whether band b has an item that may be handed out.
func (o *Prio[T]) eligibleBand(b *band[T]) bool {
	return b.root.n > 0 && (!b.root.inner || b.root.kids.any())
}

// firstEligible returns the highest band that has an item that may be
// handed out, if any.
func (o *Prio[T]) firstEligible() (int, *band[T]) {
	if len(o.prios) > 0 && o.eligibleBand(o.top) {
		return o.prios[0], o.top // most often: no key of the top band blocked
	}
	for _, prio := range o.prios[min(1, len(o.prios)):] {
		if b := o.bands[prio]; o.eligibleBand(b) {
			return prio, b
		}
	}
	return 0, nil
}

// TopPrio returns the highest priority with a ready item that may be
// handed out. Ready must be true.
func (o *Prio[T]) TopPrio() int {
	if o.flows != nil {
		prio, _ := o.firstEligible()
		return prio
	}
	return o.prios[0]
}

// popped takes the entry just handed out from b, the band of prio, off
// the count.
func (o *Prio[T]) popped(prio int, b *band[T]) {
	o.n--
	if b.root.n == 0 {
		o.dropBand(prio, b)
	}
}

// dropBand takes b, the band of prio, which has no live entry left, out
// of the order, and keeps it for the next priority that needs one, with
// its heap of turns (spares.go).
func (o *Prio[T]) dropBand(prio int, b *band[T]) {
	for b.log.len() > 0 {
		o.stale(deadKey[T]{item: b.log.pop().item, log: b})
	}
	o.discard(&b.root)
	b.root.inner = false
	delete(o.bands, prio)
	o.unlistBand(prio)
	o.keepBand(b)
}

// Peek returns the place of the next item, leaving it where it is; now is
// as for Pop. The order must not be empty.
func (o *Prio[T]) Peek(now int64) Place {
	if len(o.dead) > 0 || o.bound > 0 || o.flows != nil {
		item, p := o.PopAhead(now)
		o.PushFront(item, p)
		p.Undo = 0
		return p
	}
	e := o.front(&o.top.root) // without fairness the root is the one leaf
	return Place{Prio: o.prios[0], Seq: e.seq, At: e.at}
}

// Counts calls yield for each priority with ready items, highest first,
// and their number.
func (o *Prio[T]) Counts(yield func(prio, n int)) {
	for _, prio := range o.prios {
		yield(prio, o.bands[prio].root.n)
	}
}
