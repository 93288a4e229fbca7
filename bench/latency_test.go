package bench

import (
	"slices"
	"testing"
	"time"
)

// The paced run: latencyRate items per second from one producer,
// latencyConsumers consumers, latencyItems measured items per op after
// latencyWarmup unmeasured ones.
const (
	latencyRate      = 135_000
	latencyConsumers = 2
	latencyItems     = 20_000
	latencyWarmup    = 1_000
)

func TestLatency(t *testing.T) {
	const n, warmup = 2_000, 100
	for _, im := range impls {
		t.Run("impl="+im.name, func(t *testing.T) {
			res := runLatency(im.newQueue(), n, warmup, latencyConsumers, latencyRate)
			if len(res.latency) != n-warmup {
				t.Fatalf("len(latency) = %d; want %d", len(res.latency), n-warmup)
			}
			if !slices.IsSorted(res.latency) {
				t.Errorf("latency not sorted")
			}
			if res.latency[0] < 0 {
				t.Errorf("smallest latency = %v; want >= 0", res.latency[0])
			}
			if res.rate <= 0 {
				t.Errorf("rate = %v; want > 0", res.rate)
			}
		})
	}
}

// BenchmarkLatency adds items at a steady rate and reports the Add-to-Get
// latency percentiles over all items of all ops (us-p50, us-p90, us-p99)
// and the add rate achieved (items/s). Its time per op is set by the pacing,
// so it reports none.
func BenchmarkLatency(b *testing.B) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			var (
				all  []time.Duration
				rate float64
				ops  int
			)
			for b.Loop() {
				res := runLatency(im.newQueue(), latencyWarmup+latencyItems, latencyWarmup, latencyConsumers, latencyRate)
				all = append(all, res.latency...)
				rate += res.rate
				ops++
			}
			slices.Sort(all)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(us(percentile(all, 50)), "us-p50")
			b.ReportMetric(us(percentile(all, 90)), "us-p90")
			b.ReportMetric(us(percentile(all, 99)), "us-p99")
			b.ReportMetric(rate/float64(ops), "items/s")
		})
	}
}
