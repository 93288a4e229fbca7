package actor

import (
	"fmt"
	"testing"
)

// BenchmarkOwnerWork measures the owner goroutine's own work per item, in
// one goroutine with no scheduling in it: the state's events of an item
// handed out through the lane, as the owner applies them, and a consumer's
// claim in between. The lane is kept full (laneSize slots), so that an
// item's Done comes laneSize offers after its offer, as when one consumer
// drains a backlog.
//
//   - stream: each item is added, offered and done, with nothing else
//     ready: the owner's share of the pipeline;
//   - backlog: items are offered and done from a backlog of 2^20 ready
//     items (refilled, off the clock, when it runs out): the owner's share
//     of the one-consumer drain, where the item map does not fit in the
//     processor's caches;
//   - stream-filter: stream, once a duplicate Add gave one item a filter
//     entry, as happens in any queue that sees duplicates: the items
//     handed out are not in the filter, but the owner has to look.
//
// The bench module's benchmarks measure whole workloads against client-go;
// this one isolates what the owner pays, without their scheduling noise.
func BenchmarkOwnerWork(b *testing.B) {
	for _, c := range []struct {
		name    string
		backlog int
		filter  bool
	}{{"stream", 0, false}, {"backlog", 1 << 20, false}, {"stream-filter", 0, true}} {
		b.Run(c.name, func(b *testing.B) {
			s := newTestState[int]()
			s.lane.ch, s.lane.top = make(chan *slot[int], laneSize), new(topPrio)
			next := 0
			if c.filter {
				s.add(-1, want{})
				s.add(-1, want{}) // a duplicate: -1 gets a filter entry
				if s.filter.table.Load() == nil {
					b.Fatal("no filter entry was made")
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if c.backlog == 0 {
					s.add(next, want{})
					next++
				} else if s.order.len() == 0 {
					b.StopTimer()
					for range c.backlog {
						s.add(next, want{})
						next++
					}
					b.StartTimer()
				}
				if len(s.lane.ch) == cap(s.lane.ch) {
					item, _, ok := (<-s.lane.ch).claim(nil)
					if !ok {
						b.Fatal("a slot was revoked")
					}
					s.done(item)
				}
				sl, ok := s.offer()
				if !ok {
					b.Fatal("nothing to offer")
				}
				s.lane.ch <- sl
			}
			if n := len(s.items); n > laneSize+c.backlog+1 {
				b.Fatalf("%d items known; want at most %d", n, laneSize+c.backlog+1)
			}
		})
	}
}

// BenchmarkOwnerWorkFair is BenchmarkOwnerWork with fairness, on a state
// without a lane, so that every item is handed out by the owner: each op
// adds an item, hands one out and applies its Done. The items go to 100 tenants
// as in bench's PipelineFair (tenant 0 owns every other item, tenants 1
// to 99 share the rest), with a backlog of the given size of tenant 0's,
// as PipelineFair builds up: the other tenants' items come and go, each
// making its tenant's node and leaving it with nothing ready.
func BenchmarkOwnerWorkFair(b *testing.B) {
	var keys [100][]string
	for t := range keys {
		keys[t] = []string{fmt.Sprintf("tenant-%02d", t)}
	}
	keysOf := func(i int) []string {
		if i%2 == 0 {
			return keys[0]
		}
		return keys[1+(i/2)%99]
	}
	for _, backlog := range []int{0, 1 << 17} {
		b.Run(fmt.Sprintf("backlog=%d", backlog), func(b *testing.B) {
			var now int64
			s := prioTestState(true, 0, RequeueAtDone, &now)
			next := 0
			for i := range backlog {
				s.add(-1-i, want{keys: keys[0]})
			}
			b.ReportAllocs()
			for b.Loop() {
				s.add(next, want{keys: keysOf(next)})
				next++
				s.done(s.handOut())
			}
			if n := len(s.items); n != backlog {
				b.Fatalf("%d items known; want %d", n, backlog)
			}
		})
	}
}

// BenchmarkOwnerWorkPrio is BenchmarkOwnerWork's stream through a
// priority order, as in bench's PipelinePrio:
//
//   - low=0: every item at 0, so what it adds to stream is the priority
//     order's own cost;
//   - low=10: one item in ten at -100 (controller-runtime's
//     handler.LowPriority), which the lane, full of items at 0, does not
//     offer: they pile up, as they do in PipelinePrio, and are handed out
//     off the clock once 2^17 of them wait.
func BenchmarkOwnerWorkPrio(b *testing.B) {
	const maxLow = 1 << 17
	for _, every := range []int{0, 10} {
		b.Run(fmt.Sprintf("low=%d", every), func(b *testing.B) {
			s := newTestState[int]()
			s.usePrio()
			withLane(s, laneSize, 0)
			claimOne := func() {
				item, _, ok := (<-s.lane.ch).claim(nil)
				if !ok {
					b.Fatal("a slot was revoked")
				}
				s.done(item)
			}
			next, low := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				w := want{}
				if every > 0 && next%every == 0 {
					w.prio = -100
					low++
				}
				s.add(next, w)
				next++
				if len(s.lane.ch) == cap(s.lane.ch) {
					claimOne()
				}
				if sl, ok := s.offer(); ok {
					s.lane.ch <- sl
				} else if w.prio == 0 {
					b.Fatal("nothing to offer")
				}
				if low == maxLow {
					b.StopTimer()
					for s.order.len() > 0 || len(s.lane.ch) > 0 {
						for len(s.lane.ch) > 0 {
							claimOne()
						}
						for len(s.lane.ch) < cap(s.lane.ch) {
							sl, ok := s.offer()
							if !ok {
								break
							}
							s.lane.ch <- sl
						}
					}
					low = 0
					b.StartTimer()
				}
			}
			if n := len(s.items); n > laneSize+maxLow {
				b.Fatalf("%d items known; want at most %d", n, laneSize+maxLow)
			}
		})
	}
}
