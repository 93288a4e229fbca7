package actor

import (
	"math"
	"sync/atomic"
)

// The priority gate lets a Get claim an item from the lane without waiting
// for the owner, yet never pass over an item that its caller's own earlier
// add made ready at a higher priority. Its invariant:
//
//	top is at least the priority of every ready, dirty or delayed item,
//	and of every add of a ready item that has returned and that the
//	owner has not applied; a consumer claims a slot only if its priority
//	is at least top.
//
// Callers raise top after they send an add (shared.top), the owner as it
// applies one (offers.prepare). A consumer that may not claim its slot
// gives it back in a Get request, after every request it sent before, and
// the owner hands it what goes first then. A queue whose items are all at
// one priority never finds a slot below top.
//
// The owner lowers top, once the lane has nothing at top left to offer, to
// the next item's priority, if nothing it cannot see may be above it: no
// request in the inbox, no dirty or delayed item, no slot above it that a
// consumer may give back (offers.lower). Lowering must not lose an add on
// its way, whose raise found top high enough and did nothing: the owner
// marks top, looks at the inbox, and only then swaps the lower value in
// with a compare-and-swap that fails if a raise saw the mark and cleared
// it. The atomics are sequentially consistent, so an add is in the inbox
// when the owner looks, or its raise sees the mark, or it comes after the
// lowering and raises top itself.
//
// The word holds the priority shifted left by one, and the mark in bit 0.
// Priorities beyond ±2^62 are stored rounded up (2^62-1 stands for every
// priority above), which only makes top higher: safe.
type topPrio struct {
	w atomic.Int64
}

const (
	topMax = 1<<62 - 1 // stands for every priority from here up
	topMin = -1 << 62
)

// topWord returns the word for top p, without the mark.
func topWord(p int) int64 { return int64(min(max(p, topMin), topMax)) << 1 }

// topOf returns the top priority a word stands for.
func topOf(w int64) int64 {
	if v := w >> 1; v != topMax {
		return v
	}
	return math.MaxInt64
}

// claimable reports whether a consumer may claim a slot at priority p.
func (t *topPrio) claimable(p int) bool { return int64(p) >= topOf(t.w.Load()) }

// raise makes top at least p, and clears a lowering's mark. Any goroutine
// may call it; t may be nil, for a queue without the lane.
func (t *topPrio) raise(p int) {
	for t != nil {
		w := t.w.Load()
		if w&1 == 0 && topOf(w) >= int64(p) {
			return
		}
		if t.w.CompareAndSwap(w, max(w&^1, topWord(p))) {
			return
		}
	}
}

// lower lowers top to p if it is higher, unless quiet, called once top is
// marked, reports that the inbox holds something the owner has not
// applied, or a caller's raise cleared the mark. It reports whether it
// did. Owner only.
func (t *topPrio) lower(p int, quiet func() bool) bool {
	w, nw := t.w.Load(), topWord(p)
	if nw >= w || !t.w.CompareAndSwap(w, w|1) {
		return false
	}
	if quiet() && t.w.CompareAndSwap(w|1, nw) {
		return true
	}
	t.w.CompareAndSwap(w|1, w) // fails only if a raise cleared the mark
	return false
}
