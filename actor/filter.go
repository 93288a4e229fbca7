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
// beats a channel send: the lookup is a hash and two atomic loads.
//
// The owner publishes a hot entry per item that it has seen added while
// the Add was a duplicate: the item (never changed after publication) and
// a noop flag. The rule that keeps the filter exact is
//
//	noop is true only while an Add of the item would do nothing.
//
// A false noop merely sends the Add to the owner, as without a filter. So
// the owner sets noop only in states where the item stays "no-op" until
// the owner itself acts (ready in its store, or processing and dirty, whose
// Done the owner applies), and everything that takes the item out of those
// states clears noop first:
//
//   - The owner clears it as it stages the item to be handed out (to Items,
//     to a GetBatch, or into the lane).
//   - An item moved into the lane gets noop set again before its slot is
//     sent, and the slot carries the entry; the consumer that receives the
//     slot clears noop before its claim store makes the item processing.
//     The owner never sets noop for an item that is already in the lane,
//     since a claim may be under way.
//   - An entry that loses its table slot to another item has noop cleared
//     as it is evicted, and is never set again.
//
// A caller that finds noop true has made an Add that changed nothing at
// that instant, which is what it would have been had the owner applied it.
// The filter is created on the first duplicate Add, so a queue that never
// sees one never pays for it; it is used only with the default Storage,
// whose Touch (called for a duplicate of a ready item) does nothing.

// filterSize is the number of table slots: a fixed cache of hot items.
// Items that share a slot evict each other, which costs only filtering.
const filterSize = 1 << 12

// hotEntry is an item's entry in the filter.
type hotEntry[T comparable] struct {
	item T           // written before the entry is published, never after
	noop atomic.Bool // an Add of item would change nothing
}

// filter is the table of hot entries. Callers read it; only the owner
// goroutine stores into it.
type filter[T comparable] struct {
	seed  maphash.Seed
	slots [filterSize]atomic.Pointer[hotEntry[T]]
}

func newFilter[T comparable]() *filter[T] {
	return &filter[T]{seed: maphash.MakeSeed()}
}

func (f *filter[T]) slot(item T) *atomic.Pointer[hotEntry[T]] {
	return &f.slots[maphash.Comparable(f.seed, item)&(filterSize-1)]
}

// skip reports whether an Add of item would change nothing now. It is
// called by Add, in the caller's goroutine.
func (f *filter[T]) skip(item T) bool {
	e := f.slot(item).Load()
	return e != nil && e.item == item && e.noop.Load()
}

// lookup returns item's entry, or nil. Owner only.
func (f *filter[T]) lookup(item T) *hotEntry[T] {
	if e := f.slot(item).Load(); e != nil && e.item == item {
		return e
	}
	return nil
}

// insert returns item's entry, creating it (and evicting the slot's other
// entry) if there is none. Owner only.
func (f *filter[T]) insert(item T) *hotEntry[T] {
	p := f.slot(item)
	old := p.Load()
	if old != nil {
		if old.item == item {
			return old
		}
		old.noop.Store(false)
	}
	e := &hotEntry[T]{item: item}
	p.Store(e)
	return e
}
