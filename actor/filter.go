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
// An Add sets it under the batch inbox's lock, as it puts its request
// (inbox.go), and the owner clears it once it has applied that Add; so an
// Add that finds it set comes after that one in the order of requests,
// and would change nothing after it, unless the item was handed out in
// between: a hand-out clears the flag too (the owner as it hands out, the
// consumer as it claims a slot), so an Add made after it is sent. One
// order escapes that: an Add that sets the flag after the consumer cleared
// it but before its claim is applied before the owner sees the claim, as
// a duplicate, while an Add made after the claim found the flag set. So
// the owner, once it has cleared the flag of an Add applied while its
// item was popped, looks at the item's slot: if it is claimed already, the
// owner applies one more add as it sees the claim (lane.addedWhilePopped,
// state.Queue.AddSeenLate: the item runs again after its Done). Clearing
// it early only sends more Adds. The owner sets the flag
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
// with their states.

// added follows an add of item that the state applied: an item the queue
// knew gets an entry, and the entry's flag follows the item's state.
func (o *owner[T]) added(item T, known bool) {
	f := o.c.filter
	if f == nil || !known && f.table.Load() == nil {
		return
	}
	e := f.entry(item)
	if e == nil {
		if !known && !f.cameBack(item) {
			return
		}
		e = f.insert(item, func(it T) bool { return o.q.Status(it) == state.Absent })
	}
	e.noop.Store(o.noop(item))
}

// noop is the flag of item's entry as its state has it: an Add at 0
// changes nothing, and the item is not popped (an item in the lane gets
// its flag with its slot, see filterOffer).
func (o *owner[T]) noop(item T) bool {
	noop, popped := o.q.NoopAdd(item)
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

// leave notes that item left the queue. Owner only, once the table
// exists.
func (f *filter[T]) leave(item T) {
	h := maphash.Comparable(f.seed, item) | 1
	f.left[h&(filterSize-1)] = h
}

// filterSync sets the flag of item's entry, if it has one, from its state:
// after a Done, and after an item came back to the ready order. An item
// without one that left the queue is noted (see cameBack).
func (o *owner[T]) filterSync(item T) {
	f := o.c.filter
	if f == nil || f.table.Load() == nil {
		return
	}
	if e := f.entry(item); e != nil {
		e.noop.Store(o.noop(item))
	} else if o.q.Status(item) == state.Absent {
		f.leave(item)
	}
}

// filterOff clears the flags of item's entry, if it has one, before item
// is handed out.
func (o *owner[T]) filterOff(item T) {
	if f := o.c.filter; f != nil {
		if e := f.entry(item); e != nil {
			e.noop.Store(false)
			e.sent.Store(false)
		}
	}
}

// filterOffer gives sl, which offers item in the lane, item's entry, if it
// has one, for the consumer to clear its flag as it claims sl; meanwhile
// the item is ready, and an Add at 0 changes nothing unless its priority
// is below 0.
func (o *owner[T]) filterOffer(item T, sl *slot[T]) {
	if f := o.c.filter; f != nil {
		if sl.hot = f.entry(item); sl.hot != nil {
			sl.hot.noop.Store(sl.place.Prio >= 0)
		}
	}
}

// unsend clears the sent flag that the Add r set, once the owner applied
// it (or ignored it).
func (r *request[T]) unsend() {
	if r.hot != nil {
		r.hot.sent.Store(false)
	}
}
