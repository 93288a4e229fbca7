package order

import "weak"

// The entries of the leaves. Every leaf of every band keeps its entries,
// first in first out, in a list through one slab the order owns, rather
// than in a buffer of its own: a key that comes and goes with each of its
// items then costs no buffer, and a key whose backlog swings costs no
// buffer to grow again. The invariant:
//
//	a leaf's entries are the list from its head through next to its
//	tail (0 is no entry: an empty leaf has neither); every other slot
//	the slab has handed out is on its free list; a free slot holds the
//	zero item, so that the collector can reclaim what items point to.
//
// The slab grows by chunks of slabChunk slots, which it never moves. Once
// it holds no entry after handing out more than shrinkFloor slots, it
// starts anew, and holds its chunks weakly: the garbage collector takes
// them unless entries come first (a queue that drains between bursts
// reuses them, one left idle gives their memory back). An entry's
// instant (for the starvation bound) is kept beside it, in chunks of
// their own, only with a bound.

// slabChunk is how many slots a chunk of the slab holds.
const slabChunk = 256

// entry is a leaf's entry: an item, its sequence number in its priority,
// and, with a starvation bound, the instant it became ready.
type entry[T comparable] struct {
	item T
	seq  uint64
	at   int64
}

// slot is an entry in the slab, and the next in its list.
type slot[T comparable] struct {
	item T
	seq  uint64
	next uint32
}

// entries is the slab. Slot 0 is never handed out: a reference of 0 is no
// entry.
type entries[T comparable] struct {
	chunks []*[slabChunk]slot[T]
	ats    []*[slabChunk]int64 // with a bound (timed): the instants, by slot
	timed  bool
	free   uint32 // the first free slot, 0 if none
	top    uint32 // slots handed out before ever freed: the next new one
	n      int    // slots in use
	old    weak.Pointer[oldChunks[T]]
}

// oldChunks are the chunks of a slab that emptied, held weakly.
type oldChunks[T comparable] struct {
	slots []*[slabChunk]slot[T]
	ats   []*[slabChunk]int64
}

// chain is a leaf's entries in the slab: its first and its last.
type chain struct{ head, tail uint32 }

func (l *chain) empty() bool { return l.head == 0 }

func (s *entries[T]) at(i uint32) *slot[T] { return &s.chunks[i/slabChunk][i%slabChunk] }

// get returns the entry in slot i.
func (s *entries[T]) get(i uint32) entry[T] {
	x := s.at(i)
	e := entry[T]{item: x.item, seq: x.seq}
	if s.timed {
		e.at = s.ats[i/slabChunk][i%slabChunk]
	}
	return e
}

// alloc puts e in a free slot, or a new one, and returns it.
func (s *entries[T]) alloc(e entry[T], next uint32) uint32 {
	i := s.free
	if i != 0 {
		s.free = s.at(i).next
	} else {
		if s.top == 0 {
			s.top = 1 // slot 0 is no entry
		}
		i = s.top
		s.top++
		if int(i/slabChunk) == len(s.chunks) {
			s.grow()
		}
	}
	*s.at(i) = slot[T]{item: e.item, seq: e.seq, next: next}
	if s.timed {
		s.ats[i/slabChunk][i%slabChunk] = e.at
	}
	s.n++
	return i
}

// grow adds a chunk: one the slab held weakly, if the collector has not
// taken it, or a new one.
func (s *entries[T]) grow() {
	if c := s.old.Value(); c != nil && len(c.slots) > 0 {
		s.chunks = append(s.chunks, c.slots[0])
		c.slots = c.slots[1:]
		if s.timed {
			s.ats = append(s.ats, c.ats[0])
			c.ats = c.ats[1:]
		}
		return
	}
	s.chunks = append(s.chunks, new([slabChunk]slot[T]))
	if s.timed {
		s.ats = append(s.ats, new([slabChunk]int64))
	}
}

// release puts slot i on the free list; the slab starts anew once it
// holds no entry, if it handed out more than shrinkFloor slots, and holds
// its chunks weakly. (Every slot of them is free, and holds the zero
// item: a chunk taken back is as new but for the links of its free list,
// which alloc overwrites.)
func (s *entries[T]) release(i uint32) {
	*s.at(i) = slot[T]{next: s.free}
	s.free = i
	s.n--
	if s.n == 0 && int(s.top) > shrinkFloor {
		old := &oldChunks[T]{slots: s.chunks, ats: s.ats}
		if c := s.old.Value(); c != nil { // the chunks not taken back since
			old.slots, old.ats = append(old.slots, c.slots...), append(old.ats, c.ats...)
		}
		s.old = weak.Make(old)
		s.chunks, s.ats, s.free, s.top = nil, nil, 0, 0
	}
}

// push adds e at the back of l.
func (s *entries[T]) push(l *chain, e entry[T]) {
	i := s.alloc(e, 0)
	if l.tail == 0 {
		l.head = i
	} else {
		s.at(l.tail).next = i
	}
	l.tail = i
}

// pushFront adds e at the front of l.
func (s *entries[T]) pushFront(l *chain, e entry[T]) {
	l.head = s.alloc(e, l.head)
	if l.tail == 0 {
		l.tail = l.head
	}
}

// pop removes and returns the first entry of l, which must not be empty.
func (s *entries[T]) pop(l *chain) entry[T] {
	i := l.head
	e := s.get(i)
	l.head = s.at(i).next
	if l.head == 0 {
		l.tail = 0
	}
	s.release(i)
	return e
}

// front returns the first entry of l, which must not be empty.
func (s *entries[T]) front(l *chain) entry[T] { return s.get(l.head) }

// seqAt returns the sequence number of the entry in slot i.
func (s *entries[T]) seqAt(i uint32) uint64 { return s.at(i).seq }
