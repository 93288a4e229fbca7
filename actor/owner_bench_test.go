package actor

import "testing"

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
