package state

// Where the queue keeps what it knows of each item: one word per item
// (entry), in the table of its state (Queue.items or Queue.proc), and
// what does not fit in the word in maps beside it.

// entry is what a queue knows of one item: its state, its priority and,
// with fairness, the id of its keys (order.Prio.Hold), which the item
// holds while the queue knows it. It is one word, the value of the item
// map: bits 0-2 the state, 3 a flag, 5-31 the priority, 32-63 the key
// id.
type entry uint64

const (
	statusMask entry = 0x07
	wideBit    entry = 1 << 3 // the priority does not fit: Queue.wide holds it
	prioShift        = 5
	keyShift         = 32
	keyMask    entry = 1<<64 - 1<<keyShift

	// The priorities that fit in an entry's 27 bits.
	minPrio, maxPrio = -1 << 26, 1<<26 - 1
)

func (e entry) status() Status { return Status(e & statusMask) }

func (e entry) with(st Status) entry { return e&^statusMask | entry(st) }

// prio is the item's priority if it fits in 27 bits; otherwise (wideBit)
// the nearest that does, of the right sign, and Queue.wide has it.
func (e entry) prio() int { return int(int32(uint32(e)) >> prioShift) }

// key is the id of the item's fairness keys; 0 without fairness.
func (e entry) key() uint32 { return uint32(e >> keyShift) }

// prioOf returns the priority of item, whose entry is e.
func (q *Queue[T]) prioOf(item T, e entry) int {
	if e&wideBit != 0 {
		return q.wide[item]
	}
	return e.prio()
}

// entryAt returns item's entry at priority p, in state st, with the key
// of its entry e (p in the wide map if it does not fit).
func (q *Queue[T]) entryAt(item T, e entry, st Status, p int) entry {
	fit := min(max(p, minPrio), maxPrio)
	e = e&keyMask | entry(uint32(int32(fit)<<prioShift)) | entry(st)
	if fit == p {
		if len(q.wide) > 0 {
			delete(q.wide, item)
			q.wide = shrunk(q.wide, &q.widePeak)
		}
	} else {
		if q.wide == nil {
			q.wide = make(map[T]int)
		}
		put(q.wide, item, p, &q.widePeak)
		e |= wideBit
	}
	return e
}

// lookup returns item's entry (0, absent, if the queue does not know it),
// and its hash, which the other operations of the event on the tables
// take.
func (q *Queue[T]) lookup(item T) (entry, uint32) {
	h := q.items.hash(item)
	if e := q.proc.get(item, h); e != 0 {
		return e, h
	}
	return q.items.get(item, h), h
}

// entryOf returns item's entry (0, absent, if the queue does not know it).
func (q *Queue[T]) entryOf(item T) entry {
	e, _ := q.lookup(item)
	return e
}

// set stores item's entry e in the table of its state (proc while it is
// popped or processing, items otherwise), old being its entry before (h
// is its hash), and keeps the dirty count in step.
func (q *Queue[T]) set(item T, h uint32, old, e entry) {
	if old.status() == ProcessingDirty {
		q.ndirty--
	}
	if e.status() == ProcessingDirty {
		q.ndirty++
	}
	if e.status().out() {
		q.proc.set(item, h, e)
		if old.status() != Absent && !old.status().out() {
			q.items.del(item, h)
		}
		return
	}
	q.items.set(item, h, e)
	if old.status().out() {
		q.proc.del(item, h)
	}
}

// forget removes item, whose entry is e (h is its hash), and what is kept
// of it elsewhere.
func (q *Queue[T]) forget(item T, h uint32, e entry) {
	if e.status() == ProcessingDirty {
		q.ndirty--
	}
	if e.status().out() {
		q.proc.del(item, h)
	} else {
		q.items.del(item, h)
	}
	q.drop(item, e)
}

// drop forgets what is kept of item, whose entry is e, beside its table.
func (q *Queue[T]) drop(item T, e entry) {
	if id := e.key(); id != 0 {
		q.prio.Release(id)
	}
	if e&wideBit != 0 {
		delete(q.wide, item)
		q.wide = shrunk(q.wide, &q.widePeak)
	}
}

// shrunk returns m, or a new empty map if m is empty and once held
// shrinkFloor items or more (its peak), and resets peak. A Go map never
// gives back its buckets; a queue that drains a burst gives them back this
// way. It waits for the map to empty because a copy at any other size
// costs the owner a rehash of what is left.
func shrunk[K comparable, V any](m map[K]V, peak *int) map[K]V {
	if len(m) > 0 || *peak < shrinkFloor {
		return m
	}
	*peak = 0
	return make(map[K]V)
}

// put sets m[k] = v, and raises peak to the map's length.
func put[K comparable, V any](m map[K]V, k K, v V, peak *int) {
	m[k] = v
	*peak = max(*peak, len(m))
}
