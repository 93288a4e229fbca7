package bench

import (
	"fmt"
	"testing"
)

// pipelineShapes are the (producers, consumers) pairs of BenchmarkPipeline.
var pipelineShapes = []struct{ p, c int }{
	{1, 1}, {4, 4}, {16, 16}, {64, 64}, {1, 16}, {16, 1},
}

func TestPipeline(t *testing.T) {
	const n = 10_000
	for _, im := range pipelineImpls {
		for _, s := range pipelineShapes {
			for _, n := range []int{0, n} {
				t.Run(fmt.Sprintf("p=%d,c=%d,n=%d/impl=%s", s.p, s.c, n, im.name), func(t *testing.T) {
					started, stopped := 0, 0
					res := runPipeline(im.newQueue(), s.p, s.c, n, true, func() { started++ }, func() { stopped++ })
					if res.got != n {
						t.Errorf("items got = %d; want %d", res.got, n)
					}
					for i, k := range res.seen {
						if k != 1 {
							t.Errorf("item %d got %d times; want 1", i, k)
						}
					}
					if started != 1 || stopped != 1 {
						t.Errorf("start, stop called %d, %d times; want 1, 1", started, stopped)
					}
				})
			}
		}
	}
}

// BenchmarkPipeline moves b.N distinct items through each queue: one op is
// one item's Add, Get and Done. allocs/item is allocs/op unrounded (the
// testing package truncates allocs/op to an integer).
func BenchmarkPipeline(b *testing.B) { benchPipeline(b, pipelineShapes, pipelineImpls) }

// benchPipeline runs runPipeline for each shape and implementation, as
// sub-benchmarks p=P,c=C/impl=NAME, with b.N items per run.
func benchPipeline(b *testing.B, shapes []struct{ p, c int }, impls []impl) {
	for _, s := range shapes {
		b.Run(fmt.Sprintf("p=%d,c=%d", s.p, s.c), func(b *testing.B) {
			for _, im := range impls {
				b.Run("impl="+im.name, func(b *testing.B) { pipelineRun(b, im, s.p, s.c) })
			}
		})
	}
}

// pipelineRun runs runPipeline with p producers and c consumers on a new
// queue of im, b.N items timed from the producers' release to the last
// Done, and reports allocs/item.
func pipelineRun(b *testing.B, im impl, p, c int) {
	b.ReportAllocs()
	var m0, m1 uint64
	runPipeline(im.newQueue(), p, c, b.N, false,
		func() { m0 = mallocs(); b.ResetTimer() },
		func() { b.StopTimer(); m1 = mallocs() })
	b.ReportMetric(float64(m1-m0)/float64(b.N), "allocs/item")
}
