package actor

// flags say where an item is. Ready and Dirty never combine with each other
// or with Delayed; Processing combines with Dirty or Delayed.
type flags uint8

const (
	fReady      flags = 1 << iota // stored (or staged) to be handed out
	fProcessing                   // handed out, Done not yet called
	fDirty                        // added again while processing: runs again after Done
	fDelayed                      // waiting in the delay heap until meta.at
)

// meta is an item's entry in the single map from item to state.
type meta struct {
	at  int64  // deadline while fDelayed, in nanoseconds since the epoch
	seq uint32 // while fDelayed: the low bits of the live heap entry's seq
	f   flags
}

// shrinkFloor is the map size below which the map is never rebuilt.
const shrinkFloor = 1024

// state is everything a queue knows, as plain methods with no goroutines and
// no channels. Only the owner goroutine touches it.
//
// One map holds every item the queue knows: ready, processing, dirty and
// delayed alike, so one lookup answers any question and de-duplication
// spans all of them. The ready items wait in store, in hand-out order; the
// oldest is popped early into head ("staged") so the owner can offer it on
// its output channel.
type state[T comparable] struct {
	items map[T]meta
	peak  int // largest len(items) since the map was last rebuilt

	store  Storage[T]
	head   T
	staged bool

	delay   delayHeap[T]
	delayed int // live entries in delay (items with fDelayed)
	stale   int // superseded entries still in delay

	nproc int // items with fProcessing

	m *metrics[T] // nil when metrics are off
}

func newState[T comparable](store Storage[T], m *metrics[T]) *state[T] {
	if store == nil {
		store = new(ring[T])
	}
	return &state[T]{items: make(map[T]meta), store: store, m: m}
}

// len is the number of items ready to be handed out.
func (s *state[T]) len() int {
	if s.staged {
		return s.store.Len() + 1
	}
	return s.store.Len()
}

// stage pops the next ready item into head, if there is one and head is
// free. It reports whether an item is staged.
func (s *state[T]) stage() bool {
	if !s.staged && s.store.Len() > 0 {
		s.head, s.staged = s.store.Pop(), true
	}
	return s.staged
}

// add makes item ready now, or marks it to run again after Done if it is
// processing. A duplicate costs one lookup; a pending delay is superseded.
func (s *state[T]) add(item T) {
	st := s.items[item]
	switch {
	case st.f&fReady != 0:
		if !s.staged || s.head != item {
			s.store.Touch(item)
		}
		return
	case st.f&fDirty != 0:
		return
	case st.f&fDelayed != 0:
		st.f &^= fDelayed
		s.delayed--
		s.stale++
		s.m.setDelayed(s.delayed)
	}
	s.m.add(item)
	if st.f&fProcessing != 0 {
		st.f |= fDirty
	} else {
		st.f |= fReady
		s.store.Push(item)
	}
	s.put(item, st)
	s.compactDelay()
}

// addAt makes item ready at deadline at, unless it is already waiting to
// run sooner: ready, dirty, or delayed to an earlier or equal deadline.
// at must be in the future; the caller turns due deadlines into add.
func (s *state[T]) addAt(item T, at int64) {
	st := s.items[item]
	switch {
	case st.f&(fReady|fDirty) != 0:
		return
	case st.f&fDelayed != 0:
		if at >= st.at {
			return
		}
		s.stale++ // the later entry stays in the heap until it surfaces
	default:
		s.delayed++
		s.m.setDelayed(s.delayed)
	}
	st.f |= fDelayed
	st.at = at
	st.seq = s.delay.push(item, at)
	s.put(item, st)
	s.compactDelay()
}

// handOut marks the staged head as processing and frees the stage. It is
// called exactly when a consumer has received the head.
func (s *state[T]) handOut() T {
	item := s.head
	var zero T
	s.head, s.staged = zero, false
	s.items[item] = meta{f: fProcessing} // a ready item has no other flag
	s.nproc++
	s.m.get(item)
	return item
}

// done ends the processing of item. If the item was added again meanwhile
// it becomes ready. Done of an item that is not processing does nothing and
// reports false.
func (s *state[T]) done(item T) bool {
	st, ok := s.items[item]
	if !ok || st.f&fProcessing == 0 {
		return false
	}
	s.nproc--
	s.m.done(item)
	st.f &^= fProcessing
	if st.f&fDirty != 0 {
		st.f = st.f&^fDirty | fReady
		s.store.Push(item)
	}
	if st.f == 0 {
		s.remove(item)
	} else {
		s.items[item] = st
	}
	return true
}

// due makes ready every delayed item whose deadline is at or before now.
func (s *state[T]) due(now int64) {
	for s.delay.len() > 0 && s.delay.top().at <= now {
		e := s.delay.pop()
		st := s.items[e.item]
		if !isLive(st, &e) {
			s.stale = max(s.stale-1, 0)
			continue
		}
		st.f &^= fDelayed
		s.delayed--
		s.m.setDelayed(s.delayed)
		s.items[e.item] = st
		s.add(e.item)
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
	for i := range s.delay.e {
		e := &s.delay.e[i]
		st := s.items[e.item]
		if !isLive(st, e) {
			continue
		}
		st.f &^= fDelayed
		if st.f == 0 {
			s.remove(e.item)
		} else {
			s.items[e.item] = st
		}
	}
	s.delay = delayHeap[T]{}
	s.delayed, s.stale = 0, 0
	s.m.setDelayed(0)
}

// leftovers removes and returns the ready items, in hand-out order. Items
// that were added again while processing are not among them: handing them
// out would let two consumers hold one item.
func (s *state[T]) leftovers() []T {
	out := make([]T, 0, s.len())
	if s.staged {
		out = append(out, s.head)
		var zero T
		s.head, s.staged = zero, false
	}
	for s.store.Len() > 0 {
		out = append(out, s.store.Pop())
	}
	return out
}

// put stores st for item and tracks the map's peak size.
func (s *state[T]) put(item T, st meta) {
	s.items[item] = st
	if n := len(s.items); n > s.peak {
		s.peak = n
	}
}

// remove deletes item and, once the map holds an eighth of its peak,
// rebuilds it: Go maps never give memory back on their own.
func (s *state[T]) remove(item T) {
	delete(s.items, item)
	if s.peak >= shrinkFloor && len(s.items) <= s.peak/8 {
		m := make(map[T]meta, 2*len(s.items))
		for k, v := range s.items {
			m[k] = v
		}
		s.items, s.peak = m, len(m)
	}
}

// compactDelay drops stale heap entries once they outnumber live ones.
func (s *state[T]) compactDelay() {
	if s.stale <= 64 || s.stale <= s.delayed {
		return
	}
	s.delay.filter(func(e *delayEntry[T]) bool { return isLive(s.items[e.item], e) })
	s.stale = 0
}

// isLive reports whether heap entry e is the delay st refers to, rather
// than a superseded one.
func isLive[T comparable](st meta, e *delayEntry[T]) bool {
	return st.f&fDelayed != 0 && st.at == e.at && st.seq == uint32(e.seq)
}
