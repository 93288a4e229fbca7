package actor_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
)

// BenchmarkSnapshot is a Snapshot(100) of a named queue holding 1M items:
// all ready (FIFO), with priorities and fairness keys, or half of them
// delayed.
// Its cost does not grow with the items queued: compare size=1000.
func BenchmarkSnapshot(b *testing.B) {
	tenant := func(i int) []string { return []string{fmt.Sprint("t", i%100)} }
	for _, size := range []int{1000, 1_000_000} {
		for _, kind := range []string{"fifo", "prio+fair", "delayed"} {
			b.Run(fmt.Sprintf("size=%d/%s", size, kind), func(b *testing.B) {
				cfg := actor.Config[int]{Name: "bench-snapshot"}
				if kind == "prio+fair" {
					cfg.Fairness = tenant
				}
				q := actor.New(cfg)
				defer q.ShutDown()
				items := make([]int, 0, 500)
				for i := 0; i < size; i += len(items) {
					items = items[:0]
					for j := i; j < min(i+500, size); j++ {
						items = append(items, j)
					}
					o := actor.AddOpts{Priority: i % 7}
					if kind == "delayed" && i%1000 != 0 { // every other 500
						o.After = time.Hour
					}
					q.AddWithOpts(o, items...)
				}
				for range 8 { // a few processing, as workers hold them
					q.Get()
				}
				s := q.Snapshot(100)
				if len(s.ReadyItems) != 100 || s.Ready+s.Delayed+s.Processing != size {
					b.Fatalf("snapshot of %d items: %d ready listed, %d+%d+%d counted", size, len(s.ReadyItems), s.Ready, s.Delayed, s.Processing)
				}
				b.ReportAllocs()
				for b.Loop() {
					q.Snapshot(100)
				}
			})
		}
	}
}

// BenchmarkPipelineWithSnapshots is the pipeline of 200,000 items (4
// producers, 4 consumers) with a snapshot of 100 items taken every
// millisecond meanwhile, or none: what the snapshots cost the adds and
// gets.
func BenchmarkPipelineWithSnapshots(b *testing.B) {
	for _, every := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprint("every=", every), func(b *testing.B) {
			const n = 200_000
			for b.Loop() {
				q := actor.New(actor.Config[int]{Name: "bench-pipeline"})
				stop := make(chan struct{})
				var snaps sync.WaitGroup
				if every > 0 {
					snaps.Go(func() {
						t := time.NewTicker(every)
						defer t.Stop()
						for {
							select {
							case <-stop:
								return
							case <-t.C:
								q.Snapshot(100)
							}
						}
					})
				}
				var wg sync.WaitGroup
				for p := range 4 {
					wg.Go(func() {
						for i := p; i < n; i += 4 {
							q.Add(i)
						}
					})
				}
				var got sync.WaitGroup
				got.Add(n)
				for range 4 {
					wg.Go(func() {
						for {
							item, shutdown := q.Get()
							if shutdown {
								return
							}
							q.Done(item)
							got.Done()
						}
					})
				}
				got.Wait()
				close(stop)
				snaps.Wait()
				q.ShutDown()
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
		})
	}
}
