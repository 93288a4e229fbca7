package actor

import (
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/order"
)

// The lane lets Get take a ready item without a round trip to the owner
// goroutine. The owner pops ready items from the state, in hand-out order,
// into slots that it puts in a ring; a Get takes one and claims it with a
// compare-and-swap, or, if the lane is empty or its claim fails, asks the
// owner as it would without the lane. Its invariant:
//
//	a slot in the lane holds an item popped from the state (ready by the
//	rules until a consumer claims it); a claim notes how many requests
//	were put before it (after), and the state hears of it (Received)
//	after those requests and before the others; a slot not claimed is
//	revoked before its item goes back (state.Return, newest first, which
//	undoes the pops exactly).
//
// So an Add of an item in the lane is a duplicate, a Done of one does
// nothing, Len counts it, and a claim takes effect where its caller's
// calls put it: after those it made before, before its Done. The owner
// takes the lane back whenever what it offers might no longer come first
// (offers.go), and the gate (gate.go) keeps a Get from claiming past an
// item at a higher priority that its caller's own earlier add made ready.
// With fairness the lane offers only to consumers that contend (a claim
// made before the owner applied its caller's add would take its key's
// turn before that add's), a few items per consumer asking, so a key that
// joins the turns waits behind those at most.
//
// This file is what consumers and the owner share: the ring, the claim
// bits and the slots' states; offers.go is the owner's side. The ring has
// one writer, the owner, and many takers:
//
//	head <= tail <= head+laneSize, and ring[i%laneSize] holds the slot
//	offered i-th for every i in [head, tail); the owner writes ring[t]
//	and then moves tail to t+1; a taker reads ring[h%laneSize] and then
//	moves head from h to h+1 with a compare-and-swap, which fails if h is
//	stale, since head only grows. The owner takes the rest back by moving
//	head to tail the same way.
type lane[T comparable] struct {
	head atomic.Uint64 // the next index to take
	_    [56]byte      // head and tail on cache lines of their own
	tail atomic.Uint64 // the next index the owner writes
	_    [56]byte
	ring [laneSize]atomic.Pointer[slot[T]]

	claims [maxSlots / 64]atomic.Uint64 // a bit per slot index: claimed, and not yet seen
	phase  *atomic.Uint32               // the queue's lifecycle word: the lane is off once laneOffBits are set
}

// laneSize is the ring's size: the most items the owner keeps offered.
// maxSlots bounds the slots it makes: those in the ring, and those that
// consumers took and have not claimed or given back.
const (
	laneSize = 256
	maxSlots = 1024
)

// slot carries one item through the lane. The owner writes it before it
// puts it in the ring; the taker reads it, writes at and after, and
// claims it; the owner reuses it once it has seen the claim, or has the
// slot back (from the ring, or from a consumer that gave it back).
type slot[T comparable] struct {
	item  T
	place order.Place
	at    int64  // the instant of its claim (receiveInstant)
	after uint64 // the requests put before its claim (inbox.puts): it comes after them
	// hot is the item's filter entry, whose flags the claim clears
	// (filter.go): the owner sets it as it offers the slot, and again
	// if it gives the popped item an entry. cleared is the entry the
	// claim cleared, written by the taker before its claim.
	hot     atomic.Pointer[hotEntry[T]]
	cleared *hotEntry[T]
	idx     int    // its index in offers.all; never changes
	num     uint64 // owner only: its number in the lane, as offered
	// taken is false while the slot is offered (from the owner's
	// release) and set by whoever comes first: a taker's claim, or the
	// owner's revoke. The claim bit says which.
	taken atomic.Bool
}

// receive takes a slot from the ring, or returns nil if there is none or
// the lane is off. It never waits. l may be nil.
func (l *lane[T]) receive() *slot[T] {
	if l == nil || l.closed() {
		return nil
	}
	for {
		h := l.head.Load()
		if h == l.tail.Load() {
			return nil
		}
		sl := l.ring[h%laneSize].Load()
		if l.head.CompareAndSwap(h, h+1) {
			return sl
		}
	}
}

// claim claims sl, which its taker received, at the instant at and after
// the first after requests, unless the owner revoked it first, and
// reports whether it did. The taker reads the item before: the owner
// reuses the slot once it has seen the claim.
func (l *lane[T]) claim(sl *slot[T], at int64, after uint64) bool {
	sl.at, sl.after, sl.cleared = at, after, sl.hot.Load()
	sl.cleared.off() // before the item is processing (filter.go)
	if !sl.taken.CompareAndSwap(false, true) {
		return false
	}
	l.claims[sl.idx/64].Or(1 << (sl.idx % 64))
	return true
}

// The owner's side of the lane.

// put offers sls at the tail of the ring, which must have room for them,
// and moves the tail once.
func (l *lane[T]) put(sls []*slot[T]) {
	if len(sls) == 0 {
		return
	}
	t := l.tail.Load()
	for i, sl := range sls {
		l.ring[(t+uint64(i))%laneSize].Store(sl)
	}
	l.tail.Store(t + uint64(len(sls)))
}

// len returns how many slots the ring holds.
func (l *lane[T]) len() int { return int(l.tail.Load() - l.head.Load()) }

// revoke takes sl back, unless a taker claimed it first, and reports
// whether it did.
func (sl *slot[T]) revoke() bool {
	return sl.taken.CompareAndSwap(false, true)
}

// unclaimed reports whether sl is still offered: neither claimed nor
// revoked.
func (sl *slot[T]) unclaimed() bool { return !sl.taken.Load() }

// empty takes every slot left in the ring and calls f with each.
func (l *lane[T]) empty(f func(*slot[T])) {
	for {
		h, t := l.head.Load(), l.tail.Load()
		if h == t {
			return
		}
		if l.head.CompareAndSwap(h, t) {
			for i := h; i < t; i++ {
				f(l.ring[i%laneSize].Load())
			}
			return
		}
	}
}

// takeClaims returns the bits of the slots 64w to 64w+63 claimed since it
// was last called, and clears them.
func (l *lane[T]) takeClaims(w int) uint64 {
	if l.claims[w].Load() == 0 {
		return 0
	}
	return l.claims[w].Swap(0)
}

// closed reports whether the lane is off for good (laneOffBits): Gets
// ask the owner, which takes back what the lane offers.
func (l *lane[T]) closed() bool { return l.phase.Load()&laneOffBits != 0 }
