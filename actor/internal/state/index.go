package state

import "hash/maphash"

// index holds the entry of every item of one kind a queue knows (the
// items ready or delayed; the items popped or processing): a hash table
// with open addressing and linear probing, whose deletions shift the
// entries after them back instead of leaving tombstones. Its invariant:
//
//	every item in the table is reached by probing from its home slot
//	(its hash, masked) without meeting an empty slot, and at most three
//	quarters of the slots are full.
//
// So an operation looks at a few slots on average, however many items
// came and went before: a Go map, whose deletions leave tombstones until
// it grows, probes further and further under a queue's churn of distinct
// items. An entry of 0 (Absent) marks an empty slot. The table grows by
// doubling, and is made anew once it empties after holding shrinkFloor
// items or more, as the maps of the queue are (shrunk).
//
// The caller hashes an item (hash) and passes the hash to every operation
// of one event: the queue's two tables share their seed, so that an event
// that looks in both, or moves an item from one to the other, hashes it
// once.
type index[T comparable, V any] struct {
	seed  maphash.Seed
	slots []islot[T, V] // a power of two of them (at most 1<<32), or none
	n     int
	peak  int // the most items held since the table was last made
}

// islot is a slot: an item, its entry, and what the table keeps beside
// the entry (V: nothing for the items ready or delayed, the instant of a
// hand-out for those processing), first so that nothing costs no room.
type islot[T comparable, V any] struct {
	v    V
	item T
	e    entry
}

// minSlots is the size of a table when it is first needed.
const minSlots = 8

func newIndex[T comparable, V any](seed maphash.Seed) index[T, V] { return index[T, V]{seed: seed} }

// hash returns the hash of item, for the tables that share x's seed.
func (x *index[T, V]) hash(item T) uint32 { return uint32(maphash.Comparable(x.seed, item)) }

// find returns the slot of item, whose hash is h, or of the empty slot
// where its probe ends; ok reports whether it holds item.
func (x *index[T, V]) find(item T, h uint32) (i uint32, ok bool) {
	mask := uint32(len(x.slots) - 1)
	for i = h & mask; x.slots[i].e != 0; i = (i + 1) & mask {
		if x.slots[i].item == item {
			return i, true
		}
	}
	return i, false
}

// slot returns item's slot (h is its hash), to read and change in place,
// or nil if the table does not hold it. It is good until the next add,
// set or del.
func (x *index[T, V]) slot(item T, h uint32) *islot[T, V] {
	if x.n == 0 {
		return nil
	}
	i, ok := x.find(item, h)
	if !ok {
		return nil
	}
	return &x.slots[i]
}

// get returns item's entry (h is its hash), 0 if the table does not hold
// it.
func (x *index[T, V]) get(item T, h uint32) entry {
	if s := x.slot(item, h); s != nil {
		return s.e
	}
	return 0
}

// set stores e, which must not be 0, as item's entry (h is its hash),
// keeping what the table keeps beside it if it holds item.
func (x *index[T, V]) set(item T, h uint32, e entry) {
	x.insert(item, h, e, true)
}

// put stores e, which must not be 0, as item's entry (h is its hash), and
// v beside it.
func (x *index[T, V]) put(item T, h uint32, e entry, v V) {
	i, _, _ := x.insert(item, h, e, true)
	x.slots[i].v = v
}

// add stores e, which must not be 0, as item's entry (h is its hash) if
// the table does not hold item, and reports whether it did; otherwise it
// returns the entry item has.
func (x *index[T, V]) add(item T, h uint32, e entry) (old entry, added bool) {
	_, old, added = x.insert(item, h, e, false)
	return old, added
}

// insert stores e as item's entry (h is its hash) if the table does not
// hold item, or if replace is set, and returns its slot, the entry it had
// and whether the table did not hold it.
func (x *index[T, V]) insert(item T, h uint32, e entry, replace bool) (i uint32, old entry, added bool) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow()
	}
	i, ok := x.find(item, h)
	if ok {
		old = x.slots[i].e
		if replace {
			x.slots[i].e = e
		}
		return i, old, false
	}
	x.slots[i] = islot[T, V]{item: item, e: e}
	x.n++
	x.peak = max(x.peak, x.n)
	return i, 0, true
}

// grow doubles the table, or makes its first slots.
func (x *index[T, V]) grow() {
	old := x.slots
	x.slots = make([]islot[T, V], max(2*len(old), minSlots))
	mask := uint32(len(x.slots) - 1)
	for _, s := range old {
		if s.e == 0 {
			continue
		}
		i := x.hash(s.item) & mask
		for x.slots[i].e != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = s
	}
}

// del removes item (h is its hash) and returns the entry it had, 0 if the
// table did not hold it, and what the table kept beside it.
func (x *index[T, V]) del(item T, h uint32) (entry, V) {
	var v V
	if x.n == 0 {
		return 0, v
	}
	i, ok := x.find(item, h)
	if !ok {
		return 0, v
	}
	e, v := x.slots[i].e, x.slots[i].v
	x.n--
	if x.n == 0 && x.peak >= shrinkFloor {
		x.slots, x.peak = nil, 0 // a drained burst leaves no memory behind
		return e, v
	}
	x.shiftBack(i)
	return e, v
}

// shiftBack empties slot i, moving back into it each entry after it whose
// probe passes through it, and so on, until an empty slot.
func (x *index[T, V]) shiftBack(i uint32) {
	mask := uint32(len(x.slots) - 1)
	for j := (i + 1) & mask; x.slots[j].e != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i if its probe starts at or
		// before i (cyclically): its home is at least as far from j.
		if (j-x.hash(x.slots[j].item))&mask >= (j-i)&mask {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = islot[T, V]{}
}

// all calls yield for each item and its entry, in no order, until yield
// returns false. The table must not change meanwhile.
func (x *index[T, V]) all(yield func(T, entry) bool) {
	for _, s := range x.slots {
		if s.e != 0 && !yield(s.item, s.e) {
			return
		}
	}
}
