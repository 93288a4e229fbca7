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
