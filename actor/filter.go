package actor

import (
	"hash/maphash"
	"sync/atomic"
)

// The filter lets Add return at once, without a message to the owner
// goroutine, when the Add would change nothing: the item is already waiting
// to be handed out, or is being processed and already marked to run again.
// That is what a de-duplication storm (many producers re-adding a few hot
// keys) is made of, and it is the one case where a mutex queue's caller
// beats a channel send: the lookup is a hash and a few atomic loads
// from one cache line.
//
// The owner gives an item an entry once it has seen an Add of it that was
// a duplicate, or an Add of it soon after it left the queue (comeBack: a
// key that consumers keep up with is never a duplicate, yet is re-added
// again and again): the item (never changed after publication) and a noop
// flag.
// The rule that keeps the filter exact is
//
//	noop is true only while an Add of the item would do nothing.
//
// A false noop merely sends the Add to the owner, as without a filter. The
// flag is a function of the item's state ([itemState.noop]), written by
// state.set on every change of state of an item that has an entry, so
// nothing else has to remember it. It is true only in states that the
// item leaves by an act of the owner itself (ready, processing and dirty),
// and in one more: offered in the lane, which the consumer who claims the
// slot leaves; so the slot carries the entry, and the consumer clears the
// flag before its claim store makes the item processing, and the owner sets
// it only before it sends the slot (an offered item changes state only
// when the owner sees the claim or receives the slot back).
//
// A caller that finds noop true has made an Add that changed nothing at
// that instant, which is what it would have been had the owner applied it.
//
// An entry has a second flag, sent, for the item that is absent or
// processing (noop false) and re-added by many producers at once, as in a
// de-duplication storm whose consumers keep up: the first Add sends its
// request, and the others, until the owner has applied it, would change
// nothing after it. The rule is
//
//	sent is true only while an Add of the item that set it is in the inbox,
//	or once the entry is dead (evicted), whose flags nobody trusts.
//
// A sender sets it by compare-and-swap once its request has its place in
// the order of requests (a ticket, or a fence for the spill) and before
// the owner can take it; the owner clears it after applying that Add
// (an opAddHot request), through the table, which no longer holds an
// evicted entry: hence the second half of the rule (see filter.put).
// Every request a caller makes after it found sent true comes later in
// the order than that Add, so a caller that skips its own Add on sent
// sees it applied by its next call, as if the owner had applied its own
// as a duplicate right after the first. After
// an Add is applied, the item is ready or dirty (or the queue is shutting
// down and ignores Adds), so the skipped Adds lose nothing.
//
// An Add that sets sent never waits for room in the inbox: it spills, as
// AddWithOpts does (mailbox.go). Such Adds need no other bound, since an
// entry has at most one in the inbox (an Add holding an entry evicted since
// its lookup spills as a plain Add, at most one per caller that looked it
// up before: see filter.put). A producer re-adding hot items thus
// runs on without the owner, as a mutex queue's would, while its Adds find
// the items already added.
//
// The table is a fixed cache of hot items, allocated on the first
// duplicate or come-back, so a queue that sees neither never pays for it
// (the notes of departures take another 32 KiB once items leave). It is
// set-associative: an item's hash picks a bucket of filterWays
// neighbouring slots (one cache line), and any of them may hold its entry,
// so that hot items that share a bucket all have one (with one slot per
// item, a storm of 1,000 keys left a fifth of them without an entry, each
// of them an Add that waits for the owner). One more item evicts one of
// them, which costs only filtering: an entry whose item left the queue
// goes first. A come-back evicts only such an entry, and only once its
// item has been idle for idleEvict departures, so that a queue cycling
// through more keys than the table holds does not allocate an entry per
// come-back, while entries of keys that stopped coming back still make
// room for new ones. An evicted entry is marked dead, has its noop flag
// cleared, and its item loses its entry (see filter.put). An item that
// leaves the queue keeps its entry, with the flag false (the absent state
// is not noop), so that a hot key that comes back is filtered again at
// once; the table therefore keeps up to filterSize items alive that the
// queue has otherwise forgotten, until other hot items evict them. It is
// used only with the default FIFO order: a custom Storage is told of every
// duplicate through Touch.

// filterSize is the number of table slots, filterWays the number in a
// bucket.
const (
	filterSize = 1 << 12
	filterWays = 4
)

// hotEntry is an item's entry in the filter.
type hotEntry[T comparable] struct {
	item T           // written before the entry is published, never after
	noop atomic.Bool // an Add of item would change nothing
	sent atomic.Bool // an Add of item is in the inbox
	dead atomic.Bool // evicted: its flags may be stale (see filter.put)
	used uint64      // owner only: the filter's clock when item last came back or left
}

// filter is the table of hot entries. Callers read it; only the owner
// goroutine writes it.
type filter[T comparable] struct {
	seed  maphash.Seed
	table atomic.Pointer[[filterSize]atomic.Pointer[hotEntry[T]]]
	// left holds, at an item's table index, the hash of the last item
	// without an entry that left the queue there and was noted, or zero;
	// leaves counts departures, since one in leaveSample is noted, and
	// burst how many of the next ones are all noted. Owner only.
	left   *[filterSize]uint64
	leaves uint32
	burst  uint32
	// clock counts departures (of every item), the time by which an
	// entry's idleness is told. Owner only.
	clock uint64
}

// idleEvict is how many departures an entry's item must have been idle
// for (neither back nor leaving) before a come-back may take its slot.
const idleEvict = 4 * filterSize

// leaveSample is how many departures of items without an entry make one
// that [filter.leave] notes. Noting costs a hash per item, which a queue
// whose items never come back (a pipeline of distinct keys) should not pay
// on every one. Each item that comes back while noted and finds an empty
// slot makes the next leaveSample departures noted too (burst), so a storm
// over many keys has them all noted within a few rounds of departures
// rather than after about leaveSample departures of each. Once the table
// is full, a come-back only takes the slot of an item that left long ago
// (idleEvict), and allocates its entry; so then, as in a controller that
// re-adds more keys than the table holds, only one departure in
// leaveSample is noted.
const leaveSample = 8

func newFilter[T comparable]() *filter[T] {
	return &filter[T]{seed: maphash.MakeSeed()}
}

// skip reports whether an Add of item would change nothing now, or after
// an Add of item already in the inbox. If not, it returns item's entry, if
// it has one, for the Add to set its sent flag. It is called by Add, in
// the caller's goroutine.
func (f *filter[T]) skip(item T) (*hotEntry[T], bool) {
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
	return bucketOf(maphash.Comparable(f.seed, item))
}

// bucketOf returns the index of the first slot of the bucket of an item
// whose hash is h.
func bucketOf(h uint64) uint64 { return h & (filterSize - filterWays) }

// find returns item's entry in the bucket at b of t, or nil.
func find[T comparable](t *[filterSize]atomic.Pointer[hotEntry[T]], b uint64, item T) *hotEntry[T] {
	for i := b; i < b+filterWays; i++ {
		if e := t[i].Load(); e != nil && e.item == item {
			return e
		}
	}
	return nil
}

// room returns the slot of the bucket at b that a new entry may take
// without evicting an item still in the queue (empty, or its item gone
// and used at or before idle on the clock), or -1, and whether that slot
// is empty.
func (f *filter[T]) room(b uint64, gone func(T) bool, idle uint64) (int, bool) {
	t := f.table.Load()
	gb := -1
	for i := b; i < b+filterWays; i++ {
		e := t[i].Load()
		if e == nil {
			return int(i), true
		}
		if gb < 0 && e.used <= idle && gone(e.item) {
			gb = int(i)
		}
	}
	return gb, false
}

// depart records that item left the queue: its entry, if hot, stays with
// the flag false; else the departure may be noted (leave). Owner only.
func (f *filter[T]) depart(item T, hot bool) {
	f.clock++
	if !hot {
		f.leave(item)
	} else if e := f.lookup(item); e != nil {
		e.noop.Store(false)
		e.used = f.clock
	}
}

// leave notes that item, which has no entry, left the queue. Owner only.
func (f *filter[T]) leave(item T) {
	if f.burst > 0 {
		f.burst--
	} else if f.leaves++; f.leaves%leaveSample != 0 {
		return
	}
	if f.left == nil {
		f.left = new([filterSize]uint64)
	}
	h := maphash.Comparable(f.seed, item)
	f.left[h&(filterSize-1)] = h | 1 // never zero
}

// comeBack reports whether item has an entry, or else gives it one if it
// is the last item without one that left the queue at its index: an item
// re-added after it was processed, as a de-duplication storm re-adds its
// keys when consumers keep up. It takes only an empty slot or one whose
// item has left the queue too (gone reports whether it has), so that such
// items, when they share a bucket, do not keep evicting each other's
// entries; so no item the queue knows loses its entry. Owner only.
func (f *filter[T]) comeBack(item T, gone func(T) bool) bool {
	t := f.table.Load()
	if t == nil && f.left == nil {
		return false
	}
	h := maphash.Comparable(f.seed, item)
	b := bucketOf(h)
	if t != nil {
		if e := find(t, b, item); e != nil {
			e.used = f.clock
			return true
		}
	}
	i := h & (filterSize - 1)
	if f.left == nil || f.left[i] != h|1 {
		return false
	}
	slot, empty := int(b), true
	if t != nil {
		if slot, empty = f.room(b, gone, f.clock-min(f.clock, idleEvict)); slot < 0 {
			return false
		}
	}
	f.left[i] = 0
	if empty {
		f.burst = min(f.burst+leaveSample, filterSize)
	}
	f.put(slot, item)
	return true
}

// lookup returns item's entry, or nil. Owner only.
func (f *filter[T]) lookup(item T) *hotEntry[T] {
	t := f.table.Load()
	if t == nil {
		return nil
	}
	return find(t, f.bucket(item), item)
}

// unsend clears the sent flag of item's entry, once the owner has applied
// the Add that set it. Owner only.
func (f *filter[T]) unsend(item T) {
	if e := f.lookup(item); e != nil {
		e.sent.Store(false)
	}
}

// flag sets item's noop flag. Owner only.
func (f *filter[T]) flag(item T, noop bool) {
	if e := f.lookup(item); e != nil {
		e.noop.Store(noop)
	}
}

// insert gives item an entry, with its flag false, unless it has one, and
// returns the item whose entry it evicted, if any: an empty slot of its
// bucket goes first, then one whose item is gone (however recently), then
// the last. Owner only.
func (f *filter[T]) insert(item T, gone func(T) bool) (evicted T, ok bool) {
	b := f.bucket(item)
	slot := int(b)
	if t := f.table.Load(); t != nil {
		if find(t, b, item) != nil {
			return evicted, false
		}
		if slot, _ = f.room(b, gone, f.clock); slot < 0 {
			slot = int(b + filterWays - 1)
		}
	}
	return f.put(slot, item)
}

// put gives item an entry at slot, evicting whatever entry is there, and
// returns the item whose entry it evicted, if any. Owner only.
//
// An evicted entry is marked dead before it leaves the table. Callers that
// looked it up before may still hold it, and its sent flag may never
// clear: the owner clears sent through the table (unsend), so an Add that
// set it and is applied after the eviction leaves it set. A dead entry's
// flags therefore mean nothing: skip ignores them, and an Add holding a
// dead entry whose sent flag it cannot set goes in as a plain Add instead
// of being dropped (mailbox.spillHot).
func (f *filter[T]) put(slot int, item T) (evicted T, ok bool) {
	t := f.table.Load()
	if t == nil {
		t = new([filterSize]atomic.Pointer[hotEntry[T]])
		f.table.Store(t)
	}
	p := &t[slot]
	if old := p.Load(); old != nil {
		old.dead.Store(true)
		old.noop.Store(false)
		evicted, ok = old.item, true
	}
	p.Store(&hotEntry[T]{item: item, used: f.clock})
	return evicted, ok
}

// has reports whether item has an entry. It costs nothing until the table
// exists. Owner only; f may be nil.
func (f *filter[T]) has(item T) bool {
	return f != nil && f.lookup(item) != nil
}
