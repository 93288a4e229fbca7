package bench

import (
	"fmt"
	"testing"
)

func TestController(t *testing.T) {
	const n = 10_000
	for _, im := range controllerImpls {
		for _, s := range pipelineShapes {
			for _, n := range []int{0, n} {
				t.Run(fmt.Sprintf("p=%d,c=%d,n=%d/impl=%s", s.p, s.c, n, im.name), func(t *testing.T) {
					p := new(atomicProvider)
					started, stopped := 0, 0
					res := runController(im.newQueue(newQueueName(), p), s.p, s.c, n, true,
						func() { started++ }, func() { stopped++ })
					fails := (n + failEvery - 1) / failEvery
					if res.got != n+fails {
						t.Errorf("items got = %d; want %d", res.got, n+fails)
					}
					if len(res.seen) != n || len(res.succeeded) != n {
						t.Fatalf("len(seen), len(succeeded) = %d, %d; want %d", len(res.seen), len(res.succeeded), n)
					}
					for i := range n {
						want := int32(1)
						if i%failEvery == 0 {
							want = 2
						}
						if res.seen[i] != want || res.succeeded[i] != 1 {
							t.Errorf("item %d got %d times, succeeded %d times; want %d, 1", i, res.seen[i], res.succeeded[i], want)
						}
					}
					if res.overlaps != 0 {
						t.Errorf("items got while another worker held them = %d; want 0", res.overlaps)
					}
					if started != 1 || stopped != 1 {
						t.Errorf("start, stop called %d, %d times; want 1, 1", started, stopped)
					}
					// The queue recorded its metrics with p: one retry per
					// failure, and an add at least per item.
					if r := p.retries.n.Load(); r != int64(fails) {
						t.Errorf("retries metric calls = %d; want %d", r, fails)
					}
					if a := p.adds.n.Load(); a < int64(n) {
						t.Errorf("adds metric calls = %d; want at least %d", a, n)
					}
				})
			}
		}
	}
}

// BenchmarkController runs the path controllers run: b.N distinct items
// through a named rate-limiting queue that records metrics (through a
// provider whose metrics only count, with atomics), made by each
// implementation's constructor as its users get it. Producers Add the
// items; workers Get each, reconcile it and Done it. The first reconcile
// of one item in ten (i%10 == 0) fails: AddRateLimited, with an
// exponential limiter from 1µs to 1ms, so the item comes back at once;
// every other succeeds: Forget. One op is one item, reconciled
// successfully, one in ten after a failure. allocs/item is allocs/op
// unrounded.
func BenchmarkController(b *testing.B) {
	for _, s := range pipelineShapes {
		b.Run(fmt.Sprintf("p=%d,c=%d", s.p, s.c), func(b *testing.B) {
			for _, im := range controllerImpls {
				b.Run("impl="+im.name, func(b *testing.B) {
					b.ReportAllocs()
					var m0, m1 uint64
					runController(im.newQueue(newQueueName(), new(atomicProvider)), s.p, s.c, b.N, false,
						func() { m0 = mallocs(); b.ResetTimer() },
						func() { b.StopTimer(); m1 = mallocs() })
					b.ReportMetric(float64(m1-m0)/float64(b.N), "allocs/item")
				})
			}
		})
	}
}
