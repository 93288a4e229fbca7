package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// latencyConsumers is how many consumers the paced runs have.
const latencyConsumers = 2

// latencyRates are BenchmarkLatency's paced runs: rate items per second
// from one producer, items measured items per op after warmup unmeasured
// ones (each op lasts about a tenth of a second at 200k/s, two seconds at
// 1k/s).
var latencyRates = []struct {
	name          string
	rate          float64
	items, warmup int
}{
	{"1k", 1_000, 2_000, 100},
	{"200k", 200_000, 20_000, 1_000},
}

func TestLatency(t *testing.T) {
	const n, warmup = 200, 10
	for _, rate := range []float64{20_000, 200_000} { // sleeping and spinning
		for _, im := range impls {
			t.Run(fmt.Sprintf("rate=%v/impl=%s", rate, im.name), func(t *testing.T) {
				testLatency(t, im.newQueue(), n, warmup, rate)
			})
		}
	}
}

// testLatency runs one paced run and checks its result.
func testLatency(t *testing.T, q queue, n, warmup int, rate float64) {
	t.Helper()
	res := runLatency(q, n, warmup, latencyConsumers, rate)
	if len(res.latency) != n-warmup {
		t.Fatalf("len(latency) = %d; want %d", len(res.latency), n-warmup)
	}
	if !slices.IsSorted(res.latency) {
		t.Errorf("latency not sorted")
	}
	if res.latency[0] < 0 {
		t.Errorf("smallest latency = %v; want >= 0", res.latency[0])
	}
	// The producer never adds ahead of schedule.
	if res.rate <= 0 || res.rate > rate*1.01 {
		t.Errorf("rate = %v; want > 0 and at most %v", res.rate, rate)
	}
}

// BenchmarkLatency adds items at a steady rate, 1k/s and 200k/s, and
// reports the Add-to-Get latency percentiles over all items of all ops
// (us-p50, us-p90, us-p99) and the add rate achieved (items/s). Its time per
// op is set by the pacing, so it reports none.
func BenchmarkLatency(b *testing.B) {
	for _, r := range latencyRates {
		b.Run("rate="+r.name, func(b *testing.B) { benchLatency(b, r.rate, r.items, r.warmup) })
	}
}

// benchLatency runs the paced run at rate for every implementation.
func benchLatency(b *testing.B, rate float64, items, warmup int) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			var (
				all      []time.Duration
				achieved float64 // sum of the ops' rates
				ops      int
			)
			for b.Loop() {
				res := runLatency(im.newQueue(), warmup+items, warmup, latencyConsumers, rate)
				all = append(all, res.latency...)
				achieved += res.rate
				ops++
			}
			slices.Sort(all)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(us(percentile(all, 50)), "us-p50")
			b.ReportMetric(us(percentile(all, 90)), "us-p90")
			b.ReportMetric(us(percentile(all, 99)), "us-p99")
			b.ReportMetric(achieved/float64(ops), "items/s")
		})
	}
}
