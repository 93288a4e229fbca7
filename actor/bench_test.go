package actor_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/actorq/actorq/actor"
)

// BenchmarkPipeline measures Add, Get and Done of distinct items through
// producers and consumers, per item. The bench module runs the same
// workload next to client-go's queue.
func BenchmarkPipeline(b *testing.B) {
	for _, pc := range [][2]int{{1, 1}, {4, 4}, {16, 16}, {64, 64}, {1, 16}, {16, 1}} {
		b.Run(fmt.Sprintf("p=%d,c=%d", pc[0], pc[1]), func(b *testing.B) {
			pipeline(b, pc[0], pc[1])
		})
	}
}

func pipeline(b *testing.B, producers, consumers int) {
	q := actor.New(actor.Config[int]{})
	defer q.ShutDown()
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	n := b.N
	for c := range consumers {
		share := n / consumers
		if c < n%consumers {
			share++
		}
		wg.Go(func() {
			for range share {
				item, _ := q.Get()
				q.Done(item)
			}
		})
	}
	for p := range producers {
		wg.Go(func() {
			for i := p; i < n; i += producers {
				q.Add(i)
			}
		})
	}
	wg.Wait()
}

// BenchmarkAddWithOpts measures a producer's AddWithOpts at priority -100
// (controller-runtime's handler.LowPriority), per item, of one item per
// call (as controller-runtime's handlers add them) or of lists of 100. The
// items are 4,096 keys over and over, so that after the first round the
// owner goroutine only finds each one ready already: what is measured is
// mostly the call and its request.
func BenchmarkAddWithOpts(b *testing.B) {
	for _, per := range []int{1, 100} {
		b.Run(fmt.Sprintf("items=%d", per), func(b *testing.B) {
			q := actor.New(actor.Config[int]{})
			defer q.ShutDown()
			opts := actor.AddOpts{Priority: -100}
			items := make([]int, per)
			next := 0
			b.ReportAllocs()
			for b.Loop() {
				for i := range items {
					items[i] = next % 4096
					next++
				}
				q.AddWithOpts(opts, items...)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/item")
			if n := q.Len(); n != min(next, 4096) {
				b.Fatalf("Len() = %d; want %d", n, min(next, 4096))
			}
		})
	}
}
