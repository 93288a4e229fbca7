package actor

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/state"
)

// The duplicate filter lets Add return at once, without a request, when
// the Add would change nothing: what a de-duplication storm (many
// producers re-adding a few hot keys) is made of. A hot item has an entry
// with two flags, and an Add that finds either set returns. Its
// invariant:
//
//	noop is true only while an Add of the item at priority 0 would
//	change nothing (it is ready, or processing and marked to run
//	again); sent is true only while an Add that set it is in the inbox;
//	an evicted entry (dead) is trusted by nobody.
//
// The owner sets noop after an event leaves the item ready or dirty
// (state.Queue.NoopAdd), or as it offers the item in the lane, and clears
// it before it hands the item out; a consumer that claims the item from
// the lane clears it just before its claim. No request takes an item out
// of those states, only a hand-out does. An Add sets sent under the
// inbox's lock as it puts its request, so an Add that finds it set comes
// after that one in the order of requests; the owner clears it once it
// applied that Add, and every hand-out clears it too. One order escapes
// that: an Add that sets sent after a consumer cleared it, but before the
// owner saw the claim, is applied as a duplicate while later Adds trusted
// it; the owner then adds the item again (owner.unmark), so that it runs
// after its Done. Clearing a flag early only sends more Adds.
//
// An item gets an entry once an Add of it reaches the owner while the
// queue knows it, or soon after it left (a table of departures: a key
// that consumers keep up with is re-added without being known at its
// adds). The entries are a fixed, set-associative cache of hot items,
// allocated at the first duplicate; the owner clears an evicted entry's
// flags before it replaces it. A custom Storage has no filter, since it
// must see every Touch.
type filter[T comparable] struct {
	seed  maphash.Seed
	table atomic.Pointer[[filterSize]atomic.Pointer[hotEntry[T]]] // nil until the first item re-added
	left  *[filterSize]uint64                                     // owner only: the hash of the last item that left at each index, or 0
}

// filterSize is the number of table slots, filterWays the number in a
// bucket.
const (
	filterSize = 1 << 12
	filterWays = 4
)

// hotEntry is an item's entry in the filter.
type hotEntry[T comparable] struct {
	item T // written before the entry is published, never after
	noop atomic.Bool
	sent atomic.Bool
	dead atomic.Bool // evicted: its flags may be stale
}

func newFilter[T comparable]() *filter[T] { return &filter[T]{seed: maphash.MakeSeed()} }

// skip reports whether an Add of item would change nothing now, or after
// an Add of it already in the inbox. If not, it returns item's entry, if
// it has one, for the Add to set its sent flag. Any goroutine may call it;
// f may be nil.
func (f *filter[T]) skip(item T) (*hotEntry[T], bool) {
	if f == nil {
		return nil, false
	}
	t := f.table.Load()
	if t == nil {
		return nil, false
	}
	e := find(t, f.bucket(item), item)
	if e == nil {
		return nil, false
	}
	if !e.noop.Load() && !e.sent.Load() {
		return e, false
	}
	if e.dead.Load() { // read last: flags read before the eviction were true then
		return nil, false
	}
	return e, true
}

// bucket returns the index of the first of item's slots.
func (f *filter[T]) bucket(item T) uint64 {
	return maphash.Comparable(f.seed, item) & (filterSize - filterWays)
}

// find returns item's entry in the bucket at b of t, or nil.
func find[T comparable](t *[filterSize]atomic.Pointer[hotEntry[T]], b uint64, item T) *hotEntry[T] {
	for i := b; i < b+filterWays; i++ {
		if e := t[i].Load(); e != nil && e.item == item {
			return e
		}
	}
	return nil
}

// entry returns item's entry, or nil. Owner only.
func (f *filter[T]) entry(item T) *hotEntry[T] {
	t := f.table.Load()
	if t == nil {
		return nil
	}
	return find(t, f.bucket(item), item)
}

// insert gives item an entry, unless it has one, and returns it: an empty
// slot of its bucket goes first, then one whose item gone reports the
// queue no longer knows, then the last. Owner only.
func (f *filter[T]) insert(item T, gone func(T) bool) *hotEntry[T] {
	t := f.table.Load()
	if t == nil {
		t = new([filterSize]atomic.Pointer[hotEntry[T]])
		f.left = new([filterSize]uint64)
		f.table.Store(t)
	}
	b := f.bucket(item)
	if e := find(t, b, item); e != nil {
		return e
	}
	slot := b + filterWays - 1
	for i := b; i < b+filterWays; i++ {
		if t[i].Load() == nil {
			slot = i
			break
		}
		if slot == b+filterWays-1 && gone(t[i].Load().item) {
			slot = i // unless an empty slot comes
		}
	}
	if old := t[slot].Load(); old != nil {
		old.dead.Store(true) // before it leaves the table: see the invariant
		old.noop.Store(false)
	}
	e := &hotEntry[T]{item: item}
	t[slot].Store(e)
	return e
}

// The owner's side: it keeps the flags of the items with an entry in step
// with their states. Every method is for the owner alone, and does
// nothing on a nil filter.

// added follows an add of item that the state applied: an item the queue
// knew gets an entry, and the entry's flag follows the item's state.
func (f *filter[T]) added(q *state.Queue[T], item T, known bool) {
	if f == nil || !known && f.table.Load() == nil {
		return
	}
	e := f.entry(item)
	if e == nil {
		if !known && !f.cameBack(item) {
			return
		}
		e = f.insert(item, func(it T) bool { return q.Status(it) == state.Absent })
	}
	e.noop.Store(noop(q, item))
}

// noop is the flag of item's entry as its state has it: an Add at 0
// changes nothing, and the item is not popped (an item in the lane gets
// its flag with its slot, see offered).
func noop[T comparable](q *state.Queue[T], item T) bool {
	noop, popped := q.NoopAdd(item)
	return noop && !popped
}

// cameBack reports whether item is the last item that left the queue at
// its index of the departures. Owner only, once the table exists.
func (f *filter[T]) cameBack(item T) bool {
	h := maphash.Comparable(f.seed, item) | 1 // never 0
	i := h & (filterSize - 1)
	if f.left[i] != h {
		return false
	}
	f.left[i] = 0
	return true
}

// sync sets the flag of item's entry, if it has one, from its state:
// after a Done, and after an item came back to the ready order. An item
// without one that left the queue is noted (see cameBack).
func (f *filter[T]) sync(q *state.Queue[T], item T) {
	if f == nil || f.table.Load() == nil {
		return
	}
	if e := f.entry(item); e != nil {
		e.noop.Store(noop(q, item))
	} else if q.Status(item) == state.Absent {
		h := maphash.Comparable(f.seed, item) | 1
		f.left[h&(filterSize-1)] = h
	}
}

// off clears the flags of item's entry, if it has one, before the owner
// hands item out.
func (f *filter[T]) off(item T) {
	if f == nil {
		return
	}
	if e := f.entry(item); e != nil {
		e.noop.Store(false)
		e.sent.Store(false)
	}
}

// offered returns the entry of item, which the lane offers at priority
// prio, if it has one, for the consumer that claims it to clear its
// flags; meanwhile the item is ready, and an Add at 0 changes nothing
// unless prio is below 0.
func (f *filter[T]) offered(item T, prio int) *hotEntry[T] {
	if f == nil {
		return nil
	}
	e := f.entry(item)
	if e != nil {
		e.noop.Store(prio >= 0)
	}
	return e
}

// The callers' side of an entry.

// mark takes the entry's sent flag for an Add that the inbox puts,
// under its lock, so that the flag's Add has a place in the order of
// requests. It reports whether the Add took the flag. e may be nil.
func (e *hotEntry[T]) mark() bool { return e != nil && e.sent.CompareAndSwap(false, true) }

// unmark clears the sent flag that an Add took, once the owner applied
// (or ignored) the Add. e may be nil.
func (e *hotEntry[T]) unmark() {
	if e != nil {
		e.sent.Store(false)
	}
}

// claiming clears the entry's flags as a consumer claims the item from
// the lane, just before its claim: an Add made after the claim must reach
// the owner. e may be nil.
func (e *hotEntry[T]) claiming() {
	if e != nil {
		e.noop.Store(false)
		e.sent.Store(false) // an Add on its way may be applied before this claim
	}
}
