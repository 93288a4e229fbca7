package actor

import (
	"sync/atomic"
	"time"
)

// The lane lets Get take a ready item without waiting for the owner
// goroutine. The owner moves ready items, oldest first, into slots that it
// sends on a buffered channel (the lane). A consumer that receives a slot
// claims it with one atomic store, and that store is the instant the item
// becomes processing. The owner does not hear of the claim; it reads the
// slot whenever it next needs to know, that is whenever an event concerns
// the item (state.lookup), when Len is asked, and when shutdown begins:
//
//   - offered: the item is still ready, so an Add is a duplicate and a Done
//     is the Done of an item that is not processing (both do nothing);
//   - claimed: the item is processing ("claim seen" from then on), so an
//     Add marks it to run again after Done.
//
// Reading the slot either before or after the consumer's store gives an
// order of events that the contract allows, so the lane keeps every rule of
// a hand-off through the owner. Slots are reused, so the lane allocates
// nothing per item. The owner takes offered slots back (receiving them
// from its own lane, so no consumer can have them) when it must hand out in
// another way: to a GetBatch.
//
// The owner fills the lane only once a Get has found it empty (and rung the
// bell), and stops after serving a GetBatch, so that batch consumers do not
// make it move items into the lane and back.
//
// With metrics on, the consumer also reads the queue's clock as it claims
// and rings the bell, and the owner sees claims in lane order on every
// round, so the depth, queue latency and work duration are those of the
// claim, recorded as soon as the owner runs.
//
// The lane offers items in first-in-first-out order only: everything that
// becomes ready later goes behind what it offers, so a consumer that takes
// from it never passes over an item its own earlier calls made ready. So it
// is off for good, and its channel closed, once an item has a priority
// other than 0 (AddWithOpts says so before it sends, so the caller's next
// Get asks the owner), and from the start with fairness, a starvation
// bound or RequeueAtAdd; also once Items is called, once shutdown begins,
// and from the start with a custom Storage (which must see each Pop when a
// consumer asks). A consumer that finds it off asks the owner instead (see
// Queue.Get).

// laneSize is how many ready items the owner keeps offered in the lane.
const laneSize = 256

const (
	slotOffered uint32 = iota
	slotClaimed
)

// slot carries one item through the lane. The owner writes item before
// sending the slot; the one consumer that receives it reads item and then
// stores slotClaimed; the owner reuses the slot only after loading
// slotClaimed, or after receiving the slot back itself.
type slot[T comparable] struct {
	item  T
	place place        // the item's place in the ready order, for GetWithPriority and taking it back
	hot   *hotEntry[T] // the item's filter entry, whose flag the claim clears
	at    time.Time    // with metrics: the consumer's clock reading at its claim
	state atomic.Uint32
	used  bool   // owner only: in the lane, or claimed and not yet seen
	gen   uint32 // owner only: counts the slot's trips through the lane
}

// claim is called by the consumer that received sl from the lane. It marks
// sl claimed and returns its item and the item's priority. If the item has a filter entry, claim
// first clears its flag (filter.go), so the claim is one atomic store, or
// two for an item added while it waited. Everything the consumer writes to
// sl comes before the claim store, since the owner may reuse sl after it.
func (sl *slot[T]) claim(now func() time.Time) (T, int) {
	item, prio := sl.item, sl.place.prio
	if now != nil {
		sl.at = now()
	}
	if sl.hot != nil {
		sl.hot.noop.Store(false) // before the item is processing
	}
	sl.state.Store(slotClaimed)
	return item, prio
}

// slots are the lane's slots, owned by the owner goroutine.
type slots[T comparable] struct {
	all      []*slot[T] // by index
	free     []uint32   // indices of unused slots
	inUse    int        // slots offered, or claimed and not yet seen
	sent     []sent     // with metrics: slots in the order sent on the lane,
	sentHead int        // from sent[sentHead] on
}

// sent is a slot as it was sent on the lane, for seeing claims in the order
// the lane hands them out.
type sent struct {
	idx, gen uint32
}

// take fills a free slot with item, at place p, and returns it with its
// index.
func (l *slots[T]) take(item T, hot *hotEntry[T], p place, ordered bool) (uint32, *slot[T]) {
	var idx uint32
	if n := len(l.free); n > 0 {
		idx = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		idx = uint32(len(l.all))
		l.all = append(l.all, new(slot[T]))
	}
	sl := l.all[idx]
	sl.item, sl.place, sl.hot, sl.used = item, p, hot, true
	sl.gen++
	sl.state.Store(slotOffered)
	l.inUse++
	if ordered {
		l.sent = append(l.sent, sent{idx, sl.gen})
	}
	return idx, sl
}

// claimed reports whether the slot at idx has been claimed.
func (l *slots[T]) claimed(idx uint32) bool {
	return l.all[idx].state.Load() == slotClaimed
}

// release frees the slot at idx and returns the consumer's clock reading
// at its claim (zero without metrics, or if it was not claimed).
func (l *slots[T]) release(idx uint32) time.Time {
	var zero T
	sl := l.all[idx]
	at := sl.at
	sl.item, sl.place, sl.hot, sl.used, sl.at = zero, place{}, nil, false, time.Time{}
	l.free = append(l.free, idx)
	l.inUse--
	return at
}

// seeClaims applies the claims at the head of the lane, in the order the
// lane handed them out, and stops at the first slot still offered. With
// metrics on, the owner calls it on every round, so that depth and latency
// follow claims closely even though no one tells it of them.
func (s *state[T]) seeClaims() {
	l := &s.lane
	for l.sentHead < len(l.sent) {
		e := l.sent[l.sentHead]
		sl := l.all[e.idx]
		if sl.used && sl.gen == e.gen {
			if sl.state.Load() != slotClaimed {
				if l.sentHead >= 64 && 2*l.sentHead >= len(l.sent) {
					n := copy(l.sent, l.sent[l.sentHead:])
					l.sent, l.sentHead = l.sent[:n], 0
				}
				return
			}
			s.lookup(sl.item) // sees the claim
		}
		l.sentHead++
	}
	l.sent, l.sentHead = l.sent[:0], 0 // reuse the array: no allocation per item
}

// laneReady counts the items offered in the lane and not yet claimed, and
// sees the claimed ones on the way.
func (s *state[T]) laneReady() int {
	if s.lane.inUse == 0 {
		return 0
	}
	n := 0
	for _, sl := range s.lane.all {
		if !sl.used {
			continue
		}
		if sl.state.Load() == slotClaimed {
			s.lookup(sl.item)
		} else {
			n++
		}
	}
	return n
}
