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
// slot's state whenever it next needs to know, that is when the item is
// added, delayed or Done, when Len is asked, and at shutdown:
//
//   - offered: the item is still ready, so an Add is a duplicate and a Done
//     is the Done of an item that is not processing (both do nothing);
//   - claimed: the item is processing ("settled" from then on), so an Add
//     marks it to run again after Done.
//
// Reading the state either before or after the consumer's store gives an
// order of events that the contract allows, so the lane keeps every rule of
// the unbuffered hand-off. Slots are reused, so the lane allocates nothing
// per item. The owner takes offered slots back (receiving them from its own
// lane, so no consumer can have them) when it must hand out in another way:
// to a GetBatch, to an Items consumer, when draining and at shutdown.
//
// The owner fills the lane only once a Get has found it empty (and rung the
// bell), and stops after serving a GetBatch, so that batch consumers do not
// make it move items into the lane and back.
//
// With metrics on, the consumer also reads the queue's clock as it claims
// and rings the bell, and the owner settles claims in lane order on every
// round, so the depth, queue latency and work duration are those of the
// claim, recorded as soon as the owner runs.
//
// The lane is off, from its first call, once Items is used, since a
// select-based consumer receives from the unbuffered channel.

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
	hot   *hotEntry[T] // the item's filter entry, whose noop the claim clears
	at    time.Time    // with metrics: the consumer's clock reading at its claim
	state atomic.Uint32
	used  bool   // owner only: in the lane, or claimed and not yet settled
	gen   uint32 // owner only: counts the slot's trips through the lane
}

// sent is a slot as it was sent on the lane, for settling claims in the
// order the lane hands them out.
type sent struct {
	idx, gen uint32
}

// claim is called by the consumer that received sl from the lane.
// With metrics on, it stamps the claim and rings the bell, so that the
// owner records the hand-out at once even if it was asleep.
func (c *core[T]) claim(sl *slot[T]) T {
	if c.m == nil {
		return sl.claim()
	}
	sl.at = c.clock.Now()
	item := sl.claim()
	c.ring()
	return item
}

// claim marks sl claimed and returns its item. Everything the consumer
// writes to sl must come before, since the owner may reuse sl after. If the
// item has a filter entry, claim first clears its noop flag (filter.go), so
// the claim is one atomic store, or two for an item added while waiting.
func (sl *slot[T]) claim() T {
	item := sl.item
	if sl.hot != nil {
		sl.hot.noop.Store(false) // before the item is processing
	}
	sl.state.Store(slotClaimed)
	return item
}

// toLane moves the next ready item into a slot, marks it fLane, and returns
// the slot for the owner to send. It reports false if nothing is ready.
func (s *state[T]) toLane() (*slot[T], bool) {
	if !s.stage() {
		return nil, false
	}
	item, hot := s.head, s.headHot
	var zero T
	s.head, s.staged, s.headHot = zero, false, nil
	var idx uint32
	if n := len(s.free); n > 0 {
		idx = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		idx = uint32(len(s.slots))
		s.slots = append(s.slots, new(slot[T]))
	}
	sl := s.slots[idx]
	sl.item, sl.hot, sl.used = item, hot, true
	if hot != nil {
		hot.noop.Store(true) // still ready; the claim clears it
	}
	sl.gen++
	sl.state.Store(slotOffered)
	s.items[item] = fLane | flags(idx)<<slotShift
	s.inUse++
	if s.m != nil {
		s.sent = append(s.sent, sent{idx, sl.gen})
	}
	return sl, true
}

// settleClaimed settles the claimed slots at the head of the lane, in the
// order the lane handed them out, and stops at the first one still offered.
// With metrics on, the owner calls it on every round, so that depth and
// latency follow claims closely even though no one tells it of them.
func (s *state[T]) settleClaimed() {
	for s.sentHead < len(s.sent) {
		e := s.sent[s.sentHead]
		sl := s.slots[e.idx]
		if sl.used && sl.gen == e.gen {
			if sl.state.Load() != slotClaimed {
				if s.sentHead >= 64 && 2*s.sentHead >= len(s.sent) {
					n := copy(s.sent, s.sent[s.sentHead:])
					s.sent, s.sentHead = s.sent[:n], 0
				}
				return
			}
			s.settle(e.idx)
		}
		s.sentHead++
	}
	s.sent, s.sentHead = s.sent[:0], 0 // reuse the array: no allocation per item
}

// resolve returns the flags of an item, settling it first if it is in the
// lane and has been claimed. The caller must store the flags it returns
// (or the flags it derives from them): resolve does not.
func (s *state[T]) resolve(f flags) flags {
	if f&fLane == 0 {
		return f
	}
	idx := uint32(f >> slotShift)
	sl := s.slots[idx]
	if sl.state.Load() != slotClaimed {
		return f
	}
	s.claimed(idx)
	return fProcessing
}

// settle turns a claimed slot's item into a processing item and frees the
// slot.
func (s *state[T]) settle(idx uint32) {
	s.items[s.slots[idx].item] = fProcessing
	s.claimed(idx)
}

// claimed does the bookkeeping of settle except the store of the flags.
func (s *state[T]) claimed(idx uint32) {
	sl := s.slots[idx]
	s.nproc++
	if s.m != nil {
		s.m.getAt(sl.item, sl.at)
	}
	s.release(idx)
}

// reclaim takes back an offered slot that the owner received from its own
// lane, and returns its item, which is ready again.
func (s *state[T]) reclaim(sl *slot[T]) T {
	item := sl.item
	idx := uint32(s.items[item] >> slotShift)
	s.items[item] = fReady
	s.release(idx)
	return item
}

// takeBack puts items taken back from the lane, oldest first, ahead of
// every other ready item: they were offered before any of those.
func (s *state[T]) takeBack(back []T) {
	if len(back) == 0 {
		return
	}
	if s.staged {
		var zero T
		back = append(back, s.head)
		s.head, s.staged, s.headHot = zero, false, nil
	}
	s.front = append(back, s.front...)
}

func (s *state[T]) release(idx uint32) {
	var zero T
	sl := s.slots[idx]
	sl.item, sl.hot, sl.used, sl.at = zero, nil, false, time.Time{}
	s.free = append(s.free, idx)
	s.inUse--
}

// laneReady counts the items offered in the lane and not yet claimed, and
// settles the claimed ones on the way.
func (s *state[T]) laneReady() int {
	n := 0
	for idx, sl := range s.slots {
		if !sl.used {
			continue
		}
		if sl.state.Load() == slotClaimed {
			s.settle(uint32(idx))
		} else {
			n++
		}
	}
	return n
}
