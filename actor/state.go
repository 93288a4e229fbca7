package actor

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// itemState is where an item is. Every item a queue knows is in exactly one
// state, stored in its entry; an item the queue does not know is absent.
//
// The events that move items between states are the methods of state in
// this file, one method per event (add, addAt, due, stage, offer, claim
// seen, take back, done, drop delays), and each performs every side effect
// of its transitions: the ready order, the delay heap, the lane slot,
// metrics. The duplicate filter's flag is not a side effect anyone has to
// remember: it is a function of the state ([itemState.noop]), written by
// [state.set] whenever an item with a filter entry changes state.
type itemState uint8

const (
	absent            itemState = iota // not known to the queue: not stored
	ready                              // in the ready order, waiting to be handed out
	staged                             // taken from the ready order, offered on the items channel
	offered                            // in a lane slot, which a consumer may have claimed (the slot says)
	processing                         // handed out, Done not yet called
	processingDirty                    // processing, and added again: ready again at Done
	delayed                            // waiting for its deadline
	processingDelayed                  // processing, with a deadline: dirty once it passes
)

var stateNames = [...]string{"absent", "ready", "staged", "offered", "processing", "processing+dirty", "delayed", "processing+delayed"}

func (st itemState) String() string { return stateNames[st] }

// noop reports whether an Add of an item in this state changes nothing, and
// goes on changing nothing until the owner goroutine itself acts on the
// item. It is the filter's rule (see filter.go): ready and dirty items stay
// so until the owner hands them out or applies their Done. An offered item
// can be claimed by a consumer at any instant, so its flag is set before
// the slot is sent and the consumer clears it before its claim; a staged
// item is received at an instant only the owner sees, so it is not noop.
func (st itemState) noop() bool {
	return st == ready || st == offered || st == processingDirty
}

// entry is what a queue knows of one item: its state, whether it has an
// entry in the duplicate filter, while offered its lane slot, and its
// priority. It is one machine word, the value of the item map.
type entry uint64

const (
	stateMask entry = 0x0f
	hotBit    entry = 1 << 4 // the item has an entry in the filter
	wideBit   entry = 1 << 5 // the priority does not fit: state.wide holds it
	keysBit   entry = 1 << 6 // with fairness: state.keys holds the item's keys
	slotShift       = 8
	slotMask  entry = 0xffff << slotShift
	prioShift       = 32
)

func (e entry) state() itemState { return itemState(e & stateMask) }

func (e entry) hot() bool { return e&hotBit != 0 }

// slot is the index of the item's lane slot; it means something only while
// the item is offered.
func (e entry) slot() uint32 { return uint32(e&slotMask) >> slotShift }

func (e entry) withSlot(idx uint32) entry { return e&^slotMask | entry(idx)<<slotShift }

// prio is the item's priority, if it fits in the entry's 32 bits;
// otherwise (wideBit set) the nearest one that does, which has the right
// sign, and state.prioOf has the priority.
func (e entry) prio() int { return int(int32(e >> prioShift)) }

func (e entry) withPrio(p int) entry {
	return e&(1<<prioShift-1) | entry(uint32(clampPrio(p)))<<prioShift
}

// clampPrio keeps a priority within the int32 an entry holds.
func clampPrio(p int) int32 {
	return int32(min(max(p, math.MinInt32), math.MaxInt32))
}

// prioOf returns the priority of item, whose entry is e. Priorities are
// any int, as in controller-runtime; the few that do not fit in an entry
// are kept in a map of their own.
func (s *state[T]) prioOf(item T, e entry) int {
	if e&wideBit != 0 {
		return s.wide[item]
	}
	return e.prio()
}

// withPrio returns e with item's priority p.
func (s *state[T]) withPrio(item T, e entry, p int) entry {
	if int(int32(p)) == p {
		if e&wideBit != 0 {
			delete(s.wide, item)
		}
		return e.withPrio(p) &^ wideBit
	}
	if s.wide == nil {
		s.wide = make(map[T]int)
	}
	s.wide[item] = p
	return e.withPrio(p) | wideBit
}

// noop is the filter's flag for an item with this entry: an Add (at the
// default priority, 0) changes nothing in a noop state, unless it would
// raise a negative priority.
func (e entry) noop() bool { return e.state().noop() && e.prio() >= 0 }

// Requeue says where an item that was added again while it was being
// processed takes its place among the ready items, and with it a few rules
// that follow from the same view of such an item.
type Requeue uint8

const (
	// RequeueAtDone, the default, is client-go's rule: the item becomes
	// ready at its Done, after the items already ready; until then Len
	// does not count it. An item waiting on a delay that an Add makes
	// ready goes after the items already ready.
	RequeueAtDone Requeue = iota
	// RequeueAtAdd is controller-runtime's priority queue's rule: the
	// item is ready from the Add, only locked until its Done, so it keeps
	// the place that Add gave it (ahead of items that became ready after
	// the Add), and Len counts it. An item keeps the place its first Add
	// gave it while it waits on a delay that an Add cuts short; a raised
	// priority, or a deadline passing, gives it a new place.
	RequeueAtAdd
)

// phase is how far a queue is into its shutdown.
type phase uint8

const (
	running  phase = iota
	draining       // ShutDownWithDrain: no delays, waiters are answered at once
	ended          // the owner goroutine has ended; callers keep the state
)

// shrinkFloor is the map size below which the item map is never rebuilt.
const shrinkFloor = 1024

// state is everything a queue knows, as plain methods with no goroutines and
// no channels but the replies to waiting calls. The owner goroutine alone
// uses it while it runs; after it ends, callers take turns with it (see
// lifetime.go).
//
// One map holds the entry of every item the queue knows: ready, staged,
// offered, processing and delayed alike, so one lookup answers any question
// and de-duplication spans all of them. The deadlines of delayed items are
// in a second map (delay.go) that only they pay for; so are, with
// fairness, the keys of items that wait for something (see keep), and with
// RequeueAtAdd the places of items not yet ready.
type state[T comparable] struct {
	items map[T]entry
	peak  int // largest len(items) since the map was last rebuilt

	order     readyOrder[T] // the ready items, in hand-out order (order.go, prio.go)
	fifo      *fifo[T]      // order, while it is the default one
	head      T             // the staged item, while isStaged
	headPlace place         // its place in the order
	isStaged  bool
	preempt   bool // an item became ready ahead of the staged one: stage again

	lane   slots[T]  // the lane's slots (lane.go)
	delays delays[T] // deadlines and their heap (delay.go)
	nproc  int       // items processing, processingDirty or processingDelayed
	ndirty int       // items processingDirty

	seq     uint64         // the last sequence number given: places within a priority
	requeue Requeue        // where an item added again while processing goes
	places  map[T]uint64   // RequeueAtAdd: the places of delayed and dirty items
	wide    map[T]int      // the priorities that do not fit in an entry (see prioOf)
	dueBuf  []dueItem[T]   // RequeueAtAdd: scratch for the items due at once
	keys    map[T][]string // with fairness: the keys of the items with keysBit (see keep)
	allKeys bool           // with fairness, once priorities are used or with a starvation bound: every ready item has keysBit
	timed   bool           // the order needs the time each item became ready
	prio    prioConfig     // how to make a priority order, once one is needed

	filter *filter[T]  // nil with a custom Storage, which sees every Add
	m      *metrics[T] // nil when metrics are off
	since  func() int64

	phase    phase
	heldWait bool          // waiting calls wait for a slot a Get holds (lane.go)
	waiting  []*waiter[T]  // Get and GetBatch calls waiting for an item, oldest first
	idle     chan struct{} // after the owner ended: closed when nothing is processing
}

// want is what an add asks for: a priority, and with fairness the item's
// keys (nil when the caller already gave them for this item).
type want struct {
	prio int
	keys []string
}

// prioConfig is what a priority order is made of.
type prioConfig struct {
	fair  bool          // items have fairness keys
	bound time.Duration // the starvation bound; 0 for none
}

func newState[T comparable](order readyOrder[T], f *filter[T], m *metrics[T], since func() int64) *state[T] {
	s := &state[T]{
		items:  make(map[T]entry),
		order:  order,
		delays: newDelays[T](),
		filter: f,
		m:      m,
		since:  since,
	}
	s.fifo, _ = order.(*fifo[T])
	return s
}

// lookup returns item's entry. An offered item whose slot a consumer has
// claimed is processing from the instant of the claim; lookup applies that
// event first, so every other event sees the item's true state.
func (s *state[T]) lookup(item T) entry {
	e := s.items[item]
	if s.claimedUnseen(e) {
		e = s.claimSeen(item, e)
	}
	return e
}

// claimedUnseen reports whether an item with entry e is offered and a
// consumer has claimed its slot, which the owner has not seen yet.
func (s *state[T]) claimedUnseen(e entry) bool {
	return e.state() == offered && s.lane.claimed(e.slot())
}

// set moves item to state st, keeping e's other fields. It is the only
// writer of the item map (but for markHot, which clears the hot bit of an
// item whose filter entry another took), and keeps in step with the state
// the filter's flag, the count of dirty items, and what is kept of an item
// that left.
func (s *state[T]) set(item T, e entry, st itemState) entry {
	if e.state() == processingDirty {
		s.ndirty--
	}
	if st == absent {
		if s.filter != nil {
			s.filter.depart(item, e.hot()) // an entry stays: see filter.go
		}
		if e&keysBit != 0 {
			delete(s.keys, item)
		}
		if e&wideBit != 0 {
			delete(s.wide, item)
		}
		s.remove(item)
		return 0
	}
	if st == processingDirty {
		s.ndirty++
	}
	if e.state() == absent && s.filter != nil && s.filter.comeBack(item, s.gone) { // a new item (its entry may hold a priority, keysBit)
		e |= hotBit // an item that was hot before it left the queue, or came back soon
	}
	if st != processing && s.lane.ch != nil {
		s.lane.lift(e) // before the filter's flag says noop (see topPrio)
	}
	e = e&^stateMask | entry(st)
	s.items[item] = e
	if n := len(s.items); n > s.peak {
		s.peak = n
	}
	if e.hot() {
		s.filter.flag(item, e.noop())
	}
	return e
}

// know returns the entry of an item the queue does not know yet, at the
// priority an add asks for (with its keys kept, if every item's are).
func (s *state[T]) know(item T, w want) entry {
	if w.prio != 0 {
		s.usePrio()
	}
	e := s.withPrio(item, 0, w.prio)
	if s.allKeys {
		e = s.keep(item, e, w)
	}
	return e
}

// Fairness keys. A ready item's keys are its leaf's in the ready order
// (prio.go), which gives them back with the item's place when it is
// handed out, and every add carries its item's keys; so the queue keeps
// an item's keys only while nothing else holds them for it and it will be
// ready again without an add: added again while processing, or delayed.
// An item that only comes, runs and goes costs no map operation for its
// keys. Finding a ready item in the order, to raise its priority or (with
// a starvation bound) to hand it out from the middle, takes the keys it
// was queued with: the keys a later add carries are the same only if
// Config.Fairness keeps its contract, and a queue must not break when it
// does not. So from the first add at a priority other than 0 (before it,
// every item is at 0 and nothing can be raised), or from the start with a
// starvation bound, every ready item's keys are kept (allKeys).

// keepAll starts keeping the keys of every ready item, taking those
// already in the order from their leaves; the order holds no stale entry
// yet, since nothing was raised before.
func (s *state[T]) keepAll() {
	s.allKeys = true
	o, ok := s.order.(*prioOrder[T])
	if !ok {
		return
	}
	var walk func(n *node[T])
	walk = func(n *node[T]) {
		for _, c := range n.children {
			walk(c)
		}
		for i := range n.fifo.len() {
			s.keepFrom(n.fifo.at(i).item, n.path)
		}
		for _, e := range n.late {
			s.keepFrom(e.item, n.path)
		}
	}
	for _, b := range o.bands {
		walk(&b.root)
	}
}

// keepFrom keeps keys for item, ready in a leaf whose keys they are.
func (s *state[T]) keepFrom(item T, keys []string) {
	if e := s.items[item]; e.state() == ready && e&keysBit == 0 {
		s.set(item, s.keep(item, e, want{keys: keys}), ready)
	}
}

// keep returns e with keysBit, keeping the keys w carries for item, if
// the queue has fairness and does not keep them yet.
func (s *state[T]) keep(item T, e entry, w want) entry {
	if s.keys == nil || e&keysBit != 0 {
		return e
	}
	s.keys[item] = w.keys
	return e | keysBit
}

// keysOf returns the keys of item, whose entry is e, during an add that
// carries w: those kept for it, or those w carries.
func (s *state[T]) keysOf(item T, e entry, w want) []string {
	if e&keysBit != 0 {
		return s.keys[item]
	}
	return w.keys
}

// kept returns the keys kept for item, whose entry is e (nil without
// fairness).
func (s *state[T]) kept(item T, e entry) []string {
	return s.keysOf(item, e, want{})
}

// raise gives item, whose entry is e, the priority w asks for if it is
// higher, and reports whether it did.
func (s *state[T]) raise(item T, e *entry, w want) bool {
	if w.prio <= s.prioOf(item, *e) {
		return false
	}
	s.usePrio()
	*e = s.withPrio(item, *e, w.prio)
	return true
}

// reprioritize gives a processing item that is added again the priority w
// asks for: its next run's, whatever the priority of the run under way.
func (s *state[T]) reprioritize(item T, e entry, w want) entry {
	if w.prio != 0 {
		s.usePrio()
	}
	return s.withPrio(item, e, w.prio)
}

// prioritized notes an add at the priority w asks for: from the first at
// a priority other than 0, with fairness, every ready item's keys are kept
// (see keep).
func (s *state[T]) prioritized(w want) {
	if w.prio != 0 && s.keys != nil && !s.allKeys {
		s.keepAll()
	}
}

// add is an immediate Add of item at the priority w asks for. Once
// shutdown has begun it does nothing, however the request reached the
// state: the owner applies what was sent before the shutdown before it
// begins (flush), so an add that arrives later was concurrent with it and
// is ignored, as client-go ignores an Add once shutting down; a consumer
// told "shutdown" never finds an item made ready after it.
func (s *state[T]) add(item T, w want) {
	if s.phase != running {
		return
	}
	s.prioritized(w)
	e := s.lookup(item)
	if e.state() == offered && w.prio > s.prioOf(item, e) && s.prio.fair && len(s.lane.ch) > 0 {
		// With fairness, taking the lane back first gives back the turns
		// that offering took; then the item is raised as a ready one,
		// unless a consumer has received its slot.
		s.reclaimLane()
		e = s.lookup(item)
	}
	if e.state() == offered && w.prio > s.prioOf(item, e) {
		if s.lane.revoke(e.slot()) {
			// Nobody can claim it now: ready again, at the back of its
			// new priority. Its slot comes back later (see giveBack).
			old := s.prioOf(item, e)
			s.raise(item, &e, w)
			s.m.moveDepth(old, s.prioOf(item, e))
			s.enqueue(item, s.set(item, e.withSlot(0), ready), s.nextSeq(), s.keysOf(item, e, w))
			return
		}
		e = s.claimSeen(item, e) // claimed before the raise could revoke it
	}
	old := s.prioOf(item, e)
	switch e.state() {
	case absent:
		e = s.know(item, w)
		s.m.add(item, s.prioOf(item, e))
		s.enqueue(item, s.set(item, e, ready), s.nextSeq(), w.keys)
	case ready:
		if s.raise(item, &e, w) { // to the back of its new priority
			keys := s.keysOf(item, e, w)
			s.order.remove(item, s.placeOf(old, 0, keys))
			s.m.moveDepth(old, s.prioOf(item, e))
			s.enqueue(item, s.set(item, e, ready), s.nextSeq(), keys)
			return
		}
		s.order.touch(item)
		s.markHot(item, e)
	case staged, offered:
		// Staged: still waiting to be handed out, a duplicate, unless it
		// raises the priority; then it goes back to the order at its new
		// one. (An offered item is raised above.)
		if s.raise(item, &e, w) {
			s.m.moveDepth(old, s.prioOf(item, e))
			s.set(item, e, e.state())
			s.preempt = e.state() == staged
		}
	case processing:
		e = s.reprioritize(item, e, w) // the priority of its next run
		s.m.add(item, s.prioOf(item, e))
		s.setPlace(item, s.nextSeq())
		s.set(item, s.keep(item, e, w), processingDirty)
	case processingDirty:
		if s.raise(item, &e, w) { // counted in the depth since the Add that made it dirty
			s.m.moveDepth(old, s.prioOf(item, e))
			s.setPlace(item, s.nextSeq())
			s.set(item, e, processingDirty)
			return
		}
		s.markHot(item, e)
	case delayed:
		raised := s.raise(item, &e, w)
		s.delays.cancel(item)
		s.m.setDelayed(s.delays.len())
		s.m.add(item, s.prioOf(item, e))
		s.enqueue(item, s.set(item, e, ready), s.placeOnAdd(item, raised), s.kept(item, e))
	case processingDelayed:
		raised := s.raise(item, &e, w)
		s.delays.cancel(item)
		s.m.setDelayed(s.delays.len())
		s.m.add(item, s.prioOf(item, e))
		s.setPlace(item, s.placeOnAdd(item, raised))
		s.set(item, e, processingDirty)
	}
}

// addAt is an Add of item that takes effect at deadline at (nanoseconds
// since the queue's epoch), at the priority w asks for. A delay can be
// shortened, never lengthened, and an item that will run anyway keeps its
// place (only its priority may rise). Once shutdown has begun, delays are
// dropped. A deadline already due is made ready by the next due.
func (s *state[T]) addAt(item T, at int64, w want) {
	if s.phase != running {
		return
	}
	s.prioritized(w)
	e := s.lookup(item)
	switch e.state() {
	case absent:
		e = s.know(item, w)
		s.delays.set(item, at)
		s.m.setDelayed(s.delays.len())
		s.setPlace(item, s.nextSeq())
		s.set(item, s.keep(item, e, w), delayed)
	case processing:
		e = s.reprioritize(item, e, w) // the priority of its next run
		s.delays.set(item, at)
		s.m.setDelayed(s.delays.len())
		s.setPlace(item, s.nextSeq())
		s.set(item, s.keep(item, e, w), processingDelayed)
	case delayed, processingDelayed:
		s.delays.shorten(item, at)
		if s.raise(item, &e, w) {
			s.setPlace(item, s.nextSeq())
			s.set(item, e, e.state())
		}
	default:
		// Ready, staged, offered or dirty: it runs sooner anyway, at the
		// higher of the two priorities.
		s.add(item, w)
	}
}

// due makes ready every delayed item whose deadline is at or before now,
// in a new place: as of now. Items due at the same instant take their
// places in the order their deadlines were set (client-go's), or, with
// RequeueAtAdd, as controller-runtime's queue orders them: by priority,
// then by the place of their first add or last raise.
func (s *state[T]) due(now int64) {
	n := s.delays.len()
	s.m.stampAt(now)
	if s.requeue == RequeueAtAdd {
		s.dueInPlaceOrder(now)
	} else {
		for {
			item, _, ok := s.delays.popDue(now)
			if !ok {
				break
			}
			s.isDue(item)
		}
	}
	if s.delays.len() != n {
		s.m.setDelayed(s.delays.len())
	}
}

// dueItem is an item whose deadline, at, has passed, with what orders it
// among the items due at once.
type dueItem[T comparable] struct {
	item  T
	at    int64
	prio  int
	place uint64
}

// dueInPlaceOrder makes the items due at now ready in controller-runtime's
// order: by deadline, then priority (highest first), then place.
func (s *state[T]) dueInPlaceOrder(now int64) {
	due := s.dueBuf[:0]
	for {
		item, at, ok := s.delays.popDue(now)
		if !ok {
			break
		}
		due = append(due, dueItem[T]{item, at, s.prioOf(item, s.items[item]), s.places[item]})
	}
	if len(due) > 1 {
		slices.SortStableFunc(due, func(a, b dueItem[T]) int {
			if c := cmp.Compare(a.at, b.at); c != 0 {
				return c
			}
			if c := cmp.Compare(b.prio, a.prio); c != 0 {
				return c
			}
			return cmp.Compare(a.place, b.place)
		})
	}
	for i := range due {
		s.isDue(due[i].item)
		due[i] = dueItem[T]{}
	}
	s.dueBuf = due[:0]
}

// isDue is the event of item's deadline passing: a delayed item becomes
// ready, a processing one dirty, in a new place.
func (s *state[T]) isDue(item T) {
	e := s.items[item] // delayed or processingDelayed: never offered
	s.m.add(item, s.prioOf(item, e))
	if e.state() == processingDelayed {
		s.setPlace(item, s.nextSeq())
		s.set(item, e, processingDirty)
	} else {
		s.takePlace(item)
		s.enqueue(item, s.set(item, e, ready), s.nextSeq(), s.kept(item, e))
	}
}

// serveDue makes due items ready, reading the clock only if a deadline may
// have passed.
func (s *state[T]) serveDue() {
	if at, ok := s.delays.next(); ok {
		if now := s.since(); at <= now {
			s.due(now)
		}
	}
}

// next takes the next ready item out of the ready order, for the caller to
// move to its new state, and returns its place in the order.
func (s *state[T]) next() (item T, e entry, p place, ok bool) {
	if s.order.len() == 0 {
		return item, 0, p, false
	}
	if s.fifo != nil {
		item = s.fifo.r.pop()
		if s.filter.has(item) {
			return item, readyEntry | hotBit, p, true
		}
		return item, readyEntry, p, true
	}
	item, p = s.order.pop()
	if _, ok := s.order.(*prioOrder[T]); !ok || s.allKeys {
		// A custom Storage has no places; with every ready item's keys
		// kept, the keys map is as big as the item map.
		return item, s.items[item], p, true
	}
	e = readyEntry.withPrio(p.prio)
	if int(int32(p.prio)) != p.prio {
		e |= wideBit
	}
	if s.filter.has(item) {
		e |= hotBit
	}
	if len(s.keys) > 0 { // with fairness, the keys of dirty and delayed items: a small map
		if _, ok := s.keys[item]; ok {
			e |= keysBit // an item that was dirty or delayed
		}
	}
	return item, e, p, true
}

// readyEntry is the entry of every ready item in the default order (all at
// priority 0), but for the hot bit, which says whether the item has a
// filter entry; in a priority order, the entry of a ready item also holds
// the priority of its place (with wideBit if it does not fit), and with
// fairness keysBit if the keys map holds the item. next builds it instead
// of reading the item map, which leaves the map one access per hand-out
// (the write that offers or hands out the item). The state tests check it
// (verify).
const readyEntry = entry(ready)

// nextPrio returns the priority of the item next returns, which must
// exist; with the default order, 0.
func (s *state[T]) nextPrio() int {
	if o, ok := s.order.(*prioOrder[T]); ok {
		return o.prios[0]
	}
	return 0
}

// stage takes the next ready item out of the ready order to offer it on the
// items channel. It reports whether an item is staged.
func (s *state[T]) stage() bool {
	if s.isStaged {
		return true
	}
	item, e, p, ok := s.next()
	if !ok {
		return false
	}
	s.head, s.headPlace, s.isStaged = item, p, true
	s.set(item, e, staged)
	return true
}

// unstage puts the staged item, if any, back at the front of the ready
// order: it is handed out another way (to a waiting call, or after
// shutdown).
func (s *state[T]) unstage() {
	if !s.isStaged {
		return
	}
	item, p := s.head, s.headPlace
	var zero T
	s.head, s.headPlace, s.isStaged = zero, place{}, false
	s.putBack(item, s.items[item], p)
}

// handedOut is the event of a consumer receiving the staged item from the
// items channel.
func (s *state[T]) handedOut() {
	item := s.head
	var zero T
	s.head, s.headPlace, s.isStaged = zero, place{}, false
	s.m.stampNow()
	s.start(item, s.items[item])
}

// start makes a ready or staged item processing, handed out at the
// instant of the event being applied.
func (s *state[T]) start(item T, e entry) {
	s.nproc++
	if s.m != nil {
		s.m.get(item, s.prioOf(item, e), s.m.at)
	}
	s.set(item, e, processing)
}

// offer moves the next ready item into a lane slot and returns the slot for
// the owner to send on the lane. The item's filter flag says noop before
// the slot is sent (set does it), and the slot carries the filter entry so
// that the consumer who claims it clears the flag first.
func (s *state[T]) offer() (*slot[T], bool) {
	if s.prio.fair && len(s.lane.ch) == 0 {
		s.order.(*prioOrder[T]).laneEmpty()
	}
	if s.order.len() == 0 || len(s.lane.ch) > 0 && !s.lane.top.claimable(s.nextPrio()) {
		return nil, false
	}
	var o *prioOrder[T]
	if s.prio.fair {
		if o = s.order.(*prioOrder[T]); !s.fairTurn(o) {
			return nil, false
		}
		o.offering = true
	}
	item, e, p, _ := s.next()
	if s.fifo != nil {
		p.seq = s.nextSeq() // the order in which the lane offers, for giveBack
	} else if s.goesBefore(p) {
		// Offered behind what the lane holds, it would be out of order:
		// take the lane back, and offer everything again in order.
		if s.prio.fair { // taken back newest first, in front: item goes before them
			s.reclaimLane()
			s.order.pushFront(item, p)
		} else {
			s.order.pushFront(item, p)
			s.reclaimLane()
		}
		item, e, p, _ = s.next()
	}
	var hot *hotEntry[T]
	if e.hot() {
		hot = s.filter.lookup(item)
	}
	idx, sl := s.lane.take(item, hot, p, s.m != nil)
	if o != nil {
		o.offering = false
		o.offered(sl)
	}
	s.set(item, e.withSlot(idx), offered)
	return sl, true
}

// fairTurn reports whether, with fairness, the lane may offer the next
// item: an offer that would take a key's second turn while its first
// offer is still in the lane (so that a key that joins the turns must
// take the lane back) waits until the lane holds fewer than fairLaneSize
// items.
func (s *state[T]) fairTurn(o *prioOrder[T]) bool {
	if len(o.lingering) >= maxLingering {
		o.sweep(false)
	}
	if !o.nextRepeats() {
		return true
	}
	if len(s.lane.ch) >= fairLaneSize {
		return false
	}
	o.repeat = true
	return true
}

// claimSeen is the event of the owner finding that a consumer claimed an
// offered item's slot: the item has been processing since the claim.
func (s *state[T]) claimSeen(item T, e entry) entry {
	s.seeClaim(item, e)
	return s.set(item, e.withSlot(0), processing)
}

// seeClaim is claimSeen's bookkeeping, but for the item's state: it frees
// the slot, and counts the item processing from the instant of its claim.
func (s *state[T]) seeClaim(item T, e entry) {
	at := s.lane.release(e.slot())
	s.nproc++
	if s.m != nil {
		s.m.get(item, s.prioOf(item, e), at)
	}
}

// takeBack puts offered items that the owner received back from its own
// lane (so no consumer has them), oldest first, back where they were.
func (s *state[T]) takeBack(slots []*slot[T]) {
	for i := len(slots) - 1; i >= 0; i-- {
		sl := slots[i]
		if sl.state.Load() == slotRevoked { // its item is back in the order
			s.lane.release(sl.idx)
			continue
		}
		s.unoffer(sl.item, sl.place)
	}
}

// unoffer returns an item offered in the lane and not claimed to the ready
// order, at place p, the place it was offered from. The default order has
// no places: it takes the item back at its front, which is right as long
// as items come back newest first (takeBack; giveBack turns it into a
// priority order first). A priority order puts it back by its sequence
// number, since items can also come back one by one in any order
// (giveBack), or at the back of its new priority if it was raised. With
// fairness it puts the item back at the front of its keys' turns, which
// undoes its offer: items come back newest first (takeBack), and a given
// back one after the lane is taken back (giveBack).
func (s *state[T]) unoffer(item T, p place) {
	e := s.items[item]
	s.lane.release(e.slot())
	e = s.set(item, e.withSlot(0), ready)
	switch {
	case s.fifo != nil:
		s.fifo.r.pushFront(item)
	case s.prioOf(item, e) != p.prio:
		s.enqueue(item, e, s.nextSeq(), p.keys)
	case s.prio.fair:
		s.order.pushFront(item, p) // newest first: its keys get back their turns
	default:
		s.order.push(item, p)
	}
}

// putBack returns an item that was taken out of the ready order to be
// handed out, but was not, to its place p; or, if its priority was raised
// meanwhile, to the back of its new priority.
func (s *state[T]) putBack(item T, e entry, p place) {
	e = s.set(item, e, ready)
	if s.prioOf(item, e) != p.prio {
		s.enqueue(item, e, s.nextSeq(), p.keys)
		return
	}
	s.order.pushFront(item, p)
}

// done is a Done of item: it ends the item's processing, and an item added
// again meanwhile becomes ready, at the place its Requeue rule gives.
// Done of an item that is not processing does nothing (client-go would
// queue a duplicate).
func (s *state[T]) done(item T) {
	e := s.items[item]
	if s.claimedUnseen(e) {
		// Claimed and done before the owner saw the claim: both events at
		// once, without storing the state between them (processing).
		s.seeClaim(item, e)
		s.finish(item)
		s.set(item, e.withSlot(0), absent)
		return
	}
	switch e.state() {
	case processing:
		s.finish(item)
		s.set(item, e, absent)
	case processingDirty:
		s.finish(item)
		seq, ok := s.takePlace(item)
		if !ok {
			seq = s.nextSeq()
		}
		s.enqueue(item, s.set(item, e, ready), seq, s.kept(item, e))
	case processingDelayed:
		s.finish(item)
		s.set(item, e, delayed)
	}
}

// finish is done's bookkeeping of an item that stops processing.
func (s *state[T]) finish(item T) {
	s.nproc--
	s.m.done(item)
	if s.nproc == 0 && s.idle != nil {
		close(s.idle) // releases ShutDownWithDrain calls made after the owner ended
		s.idle = nil
	}
}

// dropDelays forgets every pending delay, as the queue does when its
// shutdown begins.
func (s *state[T]) dropDelays() {
	for item := range s.delays.deadlines {
		e := s.items[item]
		s.takePlace(item)
		if e.state() == processingDelayed {
			s.set(item, e, processing)
		} else {
			s.set(item, e, absent)
		}
	}
	s.delays.reset()
	s.m.setDelayed(0)
}

// gone reports whether the queue does not know item.
func (s *state[T]) gone(item T) bool {
	_, known := s.items[item]
	return !known
}

// markHot gives item a filter entry once an Add of it was found to be a
// duplicate (see filter.go), and clears the hot bit of the item whose
// entry it took, if any. A queue with a custom Storage has no filter.
func (s *state[T]) markHot(item T, e entry) {
	if e.hot() || s.filter == nil {
		return
	}
	if evicted, ok := s.filter.insert(item, s.gone); ok {
		if ee, known := s.items[evicted]; known {
			s.items[evicted] = ee &^ hotBit
		}
	}
	s.set(item, e|hotBit, e.state())
}

// len is the number of items ready to be handed out: in the ready order,
// staged, or offered in the lane and not yet claimed; with RequeueAtAdd,
// also those added again while processing (ready, but locked).
func (s *state[T]) len() int {
	n := s.order.len() + s.laneReady()
	if s.isStaged {
		n++
	}
	if s.requeue == RequeueAtAdd {
		n += s.ndirty
	}
	return n
}

// remove deletes item and, once the map holds an eighth of its peak,
// rebuilds it: Go maps never give memory back on their own.
func (s *state[T]) remove(item T) {
	delete(s.items, item)
	if s.peak >= shrinkFloor && len(s.items) <= s.peak/8 {
		m := make(map[T]entry, 2*len(s.items))
		for k, v := range s.items {
			m[k] = v
		}
		s.items, s.peak = m, len(m)
	}
}
