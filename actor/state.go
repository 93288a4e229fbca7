package actor

import "sync/atomic"

// flags say where an item is. Ready and Dirty never combine with each other
// or with Delayed; Processing combines with Dirty or Delayed. An item in the
// lane has fLane and its slot's index in the bits above slotShift, and no
// other flag.
type flags uint32

const (
	fReady      flags = 1 << iota // stored (or staged) to be handed out
	fProcessing                   // handed out, Done not yet called
	fDirty                        // added again while processing: runs again after Done
	fDelayed                      // waiting in the delay heap; see state.delays
	fLane                         // offered in the lane, or claimed from it unbeknown to the owner

	slotShift = 8
)

// delay is the live delay of an item: its deadline, in nanoseconds since the
// queue's epoch, and the sequence number of its heap entry.
type delay struct {
	at  int64
	seq uint64
}

// shrinkFloor is the map size below which the map is never rebuilt.
const shrinkFloor = 1024

// state is everything a queue knows, as plain methods with no goroutines and
// no channels. Only the owner goroutine touches it.
//
// One map holds the flags of every item the queue knows: ready, processing,
// dirty and delayed alike, so one lookup answers any question and
// de-duplication spans all of them. Its values are four bytes (the flags,
// and a lane slot's index), which keeps the map small for a million queued
// items; the deadlines of delayed items are in a second map that only they
// pay for. The ready items wait in front
// (items taken back from the lane, oldest first) and then in store, in
// hand-out order; the oldest is popped early into head ("staged") so the
// owner can offer it on its output channel or move it to the lane.
type state[T comparable] struct {
	items map[T]flags
	peak  int // largest len(items) since the map was last rebuilt

	front  []T // ready items taken back from the lane: handed out before store
	store  Storage[T]
	head   T
	staged bool

	slots    []*slot[T] // lane slots by index; see lane.go
	free     []uint32   // indices of unused slots
	inUse    int        // slots in the lane or claimed and not yet settled
	sent     []sent     // with metrics: slots in the order sent on the lane,
	sentHead int        // from sent[sentHead] on

	delay  delayHeap[T]
	delays map[T]delay // the live delay of each item with fDelayed
	stale  int         // superseded entries still in the heap

	nproc int // items with fProcessing

	// The filter of Adds that would change nothing; see filter.go. It is
	// nil until the first duplicate Add. publish is nil with a custom
	// Storage, which gets no filter.
	filter  *filter[T]
	publish *atomic.Pointer[filter[T]] // where callers find filter
	headHot *hotEntry[T]               // the staged head's entry, if any

	m *metrics[T] // nil when metrics are off
}

func newState[T comparable](store Storage[T], m *metrics[T]) *state[T] {
	s := &state[T]{items: make(map[T]flags), delays: make(map[T]delay), store: store, m: m}
	if store == nil {
		s.store = new(ring[T])
		s.publish = new(atomic.Pointer[filter[T]])
	}
	return s
}

// len is the number of items ready to be handed out, apart from those in
// the lane (see laneReady).
func (s *state[T]) len() int {
	n := len(s.front) + s.store.Len()
	if s.staged {
		n++
	}
	return n
}

// stage pops the next ready item into head, if there is one and head is
// free. It reports whether an item is staged.
func (s *state[T]) stage() bool {
	if s.staged {
		return true
	}
	if len(s.front) > 0 {
		var zero T
		s.head, s.staged = s.front[0], true
		s.front[0] = zero
		s.front = s.front[1:]
		if len(s.front) == 0 {
			s.front = nil
		}
	} else if s.store.Len() > 0 {
		s.head, s.staged = s.store.Pop(), true
	}
	if s.staged && s.filter != nil {
		// The head is about to be handed out: Adds must reach the owner.
		if s.headHot = s.filter.lookup(s.head); s.headHot != nil {
			s.headHot.noop.Store(false)
		}
	}
	return s.staged
}

// add makes item ready now, or marks it to run again after Done if it is
// processing. A duplicate costs one lookup; a pending delay is superseded.
func (s *state[T]) add(item T) {
	f := s.resolve(s.items[item])
	switch {
	case f&fLane != 0: // offered in the lane: still ready
		return
	case f&fReady != 0:
		if !s.staged || s.head != item {
			s.store.Touch(item)
			s.markHot(item)
		}
		return
	case f&fDirty != 0:
		s.markHot(item)
		return
	case f&fDelayed != 0:
		f &^= fDelayed
		delete(s.delays, item)
		s.stale++
		s.m.setDelayed(len(s.delays))
		s.enqueue(item, f)
		s.compactDelay()
		return
	}
	s.enqueue(item, f)
}

// enqueue makes an item with flags f (neither ready, dirty, delayed nor in
// the lane) ready, or marks it to run again after Done if it is processing.
func (s *state[T]) enqueue(item T, f flags) {
	s.m.add(item)
	if f&fProcessing != 0 {
		f |= fDirty
	} else {
		f |= fReady
		s.store.Push(item)
	}
	s.put(item, f)
	if s.filter != nil {
		if e := s.filter.lookup(item); e != nil {
			e.noop.Store(true)
		}
	}
}

// markHot publishes that an Add of item, which is ready in the store or
// dirty, changes nothing until the owner acts on it (see filter.go).
func (s *state[T]) markHot(item T) {
	if s.publish == nil {
		return
	}
	if s.filter == nil {
		s.filter = newFilter[T]()
		s.publish.Store(s.filter)
	}
	s.filter.insert(item).noop.Store(true)
}

// addAt makes item ready at deadline at, unless it is already waiting to
// run sooner: ready, dirty, or delayed to an earlier or equal deadline.
// Deadlines already due are made ready by the caller's next due call.
func (s *state[T]) addAt(item T, at int64) {
	f := s.resolve(s.items[item])
	switch {
	case f&(fReady|fDirty|fLane) != 0:
		return
	case f&fDelayed != 0:
		if at >= s.delays[item].at {
			return
		}
		s.stale++ // the later entry stays in the heap until it surfaces
	}
	s.delays[item] = delay{at: at, seq: s.delay.push(item, at)}
	if f&fDelayed == 0 {
		s.put(item, f|fDelayed)
		s.m.setDelayed(len(s.delays))
	}
	s.compactDelay()
}

// handOut marks the staged head as processing and frees the stage. It is
// called exactly when a consumer has received the head.
func (s *state[T]) handOut() T {
	item := s.head
	var zero T
	s.head, s.staged, s.headHot = zero, false, nil
	s.items[item] = fProcessing // a ready item has no other flag
	s.nproc++
	s.m.get(item)
	return item
}

// done ends the processing of item. If the item was added again meanwhile
// it becomes ready. Done of an item that is not processing does nothing and
// reports false.
func (s *state[T]) done(item T) bool {
	f := s.resolve(s.items[item])
	if f&fProcessing == 0 {
		return false
	}
	s.nproc--
	s.m.done(item)
	f &^= fProcessing
	if f&fDirty != 0 {
		f = f&^fDirty | fReady
		s.store.Push(item)
	}
	if f == 0 {
		s.remove(item)
	} else {
		s.items[item] = f
	}
	return true
}

// due makes ready every delayed item whose deadline is at or before now.
func (s *state[T]) due(now int64) {
	for s.delay.len() > 0 && s.delay.top().at <= now {
		e := s.delay.pop()
		if !s.isLive(&e) {
			s.stale = max(s.stale-1, 0)
			continue
		}
		delete(s.delays, e.item)
		s.m.setDelayed(len(s.delays))
		s.enqueue(e.item, s.items[e.item]&^fDelayed) // a delayed item is at most also processing
	}
}

// next returns the earliest deadline in the delay heap. The entry may be
// stale; waking for it early is harmless.
func (s *state[T]) next() (at int64, ok bool) {
	if s.delay.len() == 0 {
		return 0, false
	}
	return s.delay.top().at, true
}

// dropDelayed forgets every pending delay, as a queue does when it starts
// shutting down.
func (s *state[T]) dropDelayed() {
	for item := range s.delays {
		if f := s.items[item] &^ fDelayed; f == 0 {
			s.remove(item)
		} else {
			s.items[item] = f
		}
	}
	s.delay = delayHeap[T]{}
	s.delays = make(map[T]delay)
	s.stale = 0
	s.m.setDelayed(0)
}

// leftovers removes and returns the ready items, in hand-out order. Items
// that were added again while processing are not among them: handing them
// out would let two consumers hold one item.
func (s *state[T]) leftovers() []T {
	out := make([]T, 0, s.len())
	for s.stage() {
		out = append(out, s.head)
		var zero T
		s.head, s.staged, s.headHot = zero, false, nil
	}
	return out
}

// dirtyDropped returns how many items were added again while processing:
// they are dropped when the queue ends.
func (s *state[T]) dirtyDropped() int {
	n := 0
	for _, f := range s.items {
		if f&fDirty != 0 {
			n++
		}
	}
	return n
}

// put stores f for item and tracks the map's peak size.
func (s *state[T]) put(item T, f flags) {
	s.items[item] = f
	if n := len(s.items); n > s.peak {
		s.peak = n
	}
}

// remove deletes item and, once the map holds an eighth of its peak,
// rebuilds it: Go maps never give memory back on their own.
func (s *state[T]) remove(item T) {
	delete(s.items, item)
	if s.peak >= shrinkFloor && len(s.items) <= s.peak/8 {
		m := make(map[T]flags, 2*len(s.items))
		for k, v := range s.items {
			m[k] = v
		}
		s.items, s.peak = m, len(m)
	}
}

// compactDelay drops stale heap entries once they outnumber live ones.
func (s *state[T]) compactDelay() {
	if s.stale <= 64 || s.stale <= len(s.delays) {
		return
	}
	s.delay.filter(s.isLive)
	s.stale = 0
}

// isLive reports whether heap entry e is its item's live delay, rather than
// a superseded one.
func (s *state[T]) isLive(e *delayEntry[T]) bool {
	d, ok := s.delays[e.item]
	return ok && d.seq == e.seq
}
