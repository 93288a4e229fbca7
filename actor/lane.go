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
// bits and the gate's word; offers.go is the owner's side. The ring has
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
	top    topPrio
	off    atomic.Bool // Items was called: Get asks the owner
	stamp  bool        // a claim reads the clock: the state needs the instant of a hand-out
	wake   bool        // with metrics: a claim wakes the owner, which records the hand-out at once
}

// laneSize is the ring's size: the most items the owner keeps offered.
// maxSlots bounds the slots it makes: those in the ring, and those that
// consumers took and have not claimed or given back.
const (
	laneSize = 256
	maxSlots = 1024
)

const (
	slotOffered uint32 = iota
	slotClaimed
	slotRevoked // taken back: no one may claim it
)

// slot carries one item through the lane. The owner writes it before
// sending it; the consumer that receives it reads it, writes at, and
// claims it; the owner reuses it once it has seen the claim, or has the
// slot back (from its own channel, or from a consumer that gave it back).
type slot[T comparable] struct {
	item  T
	place order.Place
	at    int64        // with stamp: the consumer's clock reading at its claim
	after uint64       // the requests put before its claim (inbox.puts): it comes after them
	hot   *hotEntry[T] // the item's filter entry, which the claim tells (filter.go)
	idx   int          // its index in offers.all; never changes
	num   uint64       // owner only: its number in the lane, as offered
	state atomic.Uint32
}

// receive takes a slot offered in the lane, or returns nil if there is
// none or the lane is off. It never waits. l may be nil.
func (l *lane[T]) receive() *slot[T] {
	if l == nil || l.off.Load() {
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

// put offers sls at the tail of the ring, which must have room for them,
// and moves the tail once. Owner only.
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

// drain takes every slot left in the ring and calls f with each. Owner
// only.
func (l *lane[T]) drain(f func(*slot[T])) {
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

// claim claims sl, which the consumer received from the lane, and returns
// its item and priority; ok is false, and the item the zero value, if sl
// is below top or was revoked first. The item is read before the
// compare-and-swap, since the owner may reuse the slot once it sees the
// claim.
func (l *lane[T]) claim(c *shared[T], sl *slot[T]) (item T, prio int, ok bool) {
	if !l.top.claimable(sl.place.Prio) {
		return item, 0, false
	}
	claimed, p := sl.item, sl.place.Prio
	if l.stamp {
		sl.at = c.since()
	}
	sl.hot.claiming() // before the item is processing (filter.go)
	sl.after = c.inbox.puts.Load()
	if !sl.state.CompareAndSwap(slotOffered, slotClaimed) {
		return item, 0, false
	}
	l.publish(sl)
	if l.wake {
		c.ring() // the owner records the hand-out as soon as it runs
	}
	return claimed, p, true
}

// claimed claims sl for the owner itself, unless it was revoked first,
// and reports whether it did.
func (l *lane[T]) claimed(sl *slot[T]) bool {
	if !sl.state.CompareAndSwap(slotOffered, slotClaimed) {
		return false
	}
	l.publish(sl)
	return true
}

// publish sets the bit of sl, just claimed, for the owner to see
// (offers.see).
func (l *lane[T]) publish(sl *slot[T]) { l.claims[sl.idx/64].Or(1 << (sl.idx % 64)) }

// added raises top after an add of items ready now at priority p was
// sent. l may be nil.
func (l *lane[T]) added(p int) {
	if l != nil {
		l.top.raise(p)
	}
}

// turnOff turns the lane off for good (Items): Gets ask the owner, which
// takes back what the lane offers. l may be nil.
func (l *lane[T]) turnOff() {
	if l != nil {
		l.off.Store(true)
	}
}
