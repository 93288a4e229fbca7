package actor

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/state"
)

// The duplicate filter lets Add return at once, without a request, when
// the Add would change nothing: the item is already waiting to be handed
// out, or is being processed and already marked to run again. That is
// what a de-duplication storm (many producers re-adding a few hot keys)
// is made of. Its invariant:
//
//	an entry's noop flag is true only while an Add of its item (at
//	priority 0) would change nothing.
//
// A false flag merely sends the Add to the owner. A second flag, sent,
// covers an item that producers re-add while it is absent or processing
// (noop false), as in a storm whose consumers keep up:
//
//	sent is true only while an Add of the item that set it is in the
//	inbox, or once the entry was evicted (dead), whose flags nobody
//	trusts.
//
// An Add sets it under the inbox's lock, as it puts its request
// (inbox.go), and the owner clears it once it has applied that Add; so an
// Add that finds it set comes after that one in the order of requests,
// and would change nothing after it, unless the item was handed out in
// between: a hand-out clears the flag too (the owner as it hands out, the
// consumer as it claims a slot), so an Add made after it is sent. One
// order escapes that: an Add that sets the flag after the consumer cleared
// it but before its claim is applied before the owner sees the claim, as
// a duplicate, while an Add made after the claim found the flag set. So
// the owner, once it has cleared the flag of an Add applied while its
// item was popped, looks at the item's slot: if it is claimed already, it
// hears of the claim at once and adds the item again, so that it runs
// again after its Done (serve.go, unmark). Clearing it early only sends
// more Adds. The owner sets the flag
// after an event leaves the item ready or dirty at a priority of 0 or
// more (state.Queue.NoopAdd), or as it offers it in the lane in a slot
// that carries the entry (not for an item popped before it had one, whose
// consumer could not clear it), and clears it before
// the item is handed out: before it answers a waiting call with it or
// offers it on the items channel, and, for an item in the lane, the
// consumer that claims it clears it just before its claim. No request can
// take an item out of those states (only a hand-out does), so an Add that
// finds the flag true has made an Add that changed nothing at that
// instant, which is what it would have been had the owner applied it; and
// every later call of its caller comes after that instant.
//
// An item gets an entry once an Add of it reached the owner while the
// queue knew it (ready, processing, dirty or delayed: re-added), or soon
// after it left the queue (the last item that left at its index of a
// table of departures: a key that consumers keep up with is re-added
// again and again without being known at its adds), and keeps it after it
// leaves, so that such a key is filtered too. Departures and come-backs
// are noted only once the table exists: a queue whose items never come
// back pays nothing for them. The table is a fixed cache of hot items, allocated on the
// first duplicate, so a queue that sees none never pays for it. It is
// set-associative: an item's hash picks a bucket of filterWays slots, any
// of which may hold its entry. One more item evicts one of them (an entry
// whose item the queue no longer knows goes first): the owner clears the
// evicted entry's flag before it replaces it, so that a caller still
// holding it sends its Add. A custom Storage has no filter, since it must
// see every Touch.
//
// Figure: see bench/RESULTS.md, "Fast paths".
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
