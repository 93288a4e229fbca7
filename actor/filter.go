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
// The owner gives an item an entry once it has seen an Add of it that was
// a duplicate: the item (never changed after publication) and a noop flag.
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
// The table is a fixed cache of hot items, allocated on the first
// duplicate, so a queue that never sees one never pays for it. Items that
// share a slot evict each other, which costs only filtering: an evicted
// entry has its flag cleared and its item loses its entry. An item that
// leaves the queue keeps its entry, with the flag false (the absent state
// is not noop), so that a hot key that comes back is filtered again at
// once; the table therefore keeps up to filterSize items alive that the
// queue has otherwise forgotten, until other hot items evict them. It is
// used only with the default FIFO order: a custom Storage is told of every
// duplicate through Touch.

// filterSize is the number of table slots.
const filterSize = 1 << 12

// hotEntry is an item's entry in the filter.
type hotEntry[T comparable] struct {
	item T           // written before the entry is published, never after
	noop atomic.Bool // an Add of item would change nothing
}

// filter is the table of hot entries. Callers read it; only the owner
// goroutine writes it.
type filter[T comparable] struct {
	seed  maphash.Seed
	table atomic.Pointer[[filterSize]atomic.Pointer[hotEntry[T]]]
}

func newFilter[T comparable]() *filter[T] {
	return &filter[T]{seed: maphash.MakeSeed()}
}

// skip reports whether an Add of item would change nothing now. It is
// called by Add, in the caller's goroutine.
func (f *filter[T]) skip(item T) bool {
	t := f.table.Load()
	if t == nil {
		return false
	}
	e := t[f.index(item)].Load()
	return e != nil && e.item == item && e.noop.Load()
}

func (f *filter[T]) index(item T) uint64 {
	return maphash.Comparable(f.seed, item) & (filterSize - 1)
}

// lookup returns item's entry, or nil. Owner only.
func (f *filter[T]) lookup(item T) *hotEntry[T] {
	t := f.table.Load()
	if t == nil {
		return nil
	}
	if e := t[f.index(item)].Load(); e != nil && e.item == item {
		return e
	}
	return nil
}

// flag sets item's noop flag. Owner only.
func (f *filter[T]) flag(item T, noop bool) {
	if e := f.lookup(item); e != nil {
		e.noop.Store(noop)
	}
}

// insert gives item an entry, with its flag false, and returns the item
// whose entry it evicted, if any. Owner only.
func (f *filter[T]) insert(item T) (evicted T, ok bool) {
	t := f.table.Load()
	if t == nil {
		t = new([filterSize]atomic.Pointer[hotEntry[T]])
		f.table.Store(t)
	}
	p := &t[f.index(item)]
	if old := p.Load(); old != nil {
		if old.item == item {
			return evicted, false
		}
		old.noop.Store(false)
		evicted, ok = old.item, true
	}
	p.Store(&hotEntry[T]{item: item})
	return evicted, ok
}

// has reports whether item has an entry. It costs nothing until the table
// exists. Owner only; f may be nil.
func (f *filter[T]) has(item T) bool {
	return f != nil && f.table.Load() != nil && f.lookup(item) != nil
}
