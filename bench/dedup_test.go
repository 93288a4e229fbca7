package bench

import (
	"fmt"
	"testing"
	"time"
)

// dedupShapes are the (producers, consumers) pairs of BenchmarkDedupStorm.
var dedupShapes = []struct{ p, c int }{{4, 4}, {16, 16}}

// dedupKeys is how many distinct keys the storm re-adds.
const dedupKeys = 1000

// dedupWork is how long the consumers of BenchmarkDedupStormWork work on
// each item.
const dedupWork = 20 * time.Microsecond

func TestDedupStorm(t *testing.T) {
	const adds = 20_000
	for _, work := range []time.Duration{0, dedupWork} {
		for _, im := range impls {
			for _, s := range dedupShapes {
				t.Run(fmt.Sprintf("work=%v/p=%d,c=%d/impl=%s", work, s.p, s.c, im.name), func(t *testing.T) {
					testDedupStorm(t, im.newQueue(), s.p, s.c, adds, work)
				})
			}
		}
	}
}

// testDedupStorm runs one storm of adds over dedupKeys keys and checks
// that every key was got and no add was got twice.
func testDedupStorm(t *testing.T, q queue, producers, consumers, adds int, work time.Duration) {
	t.Helper()
	res := runDedupStorm(q, producers, consumers, adds, dedupKeys, work, true, nil, nil)
	// Every key was got (runDedupStorm waited for it), and no add was got
	// twice.
	if res.total < dedupKeys || res.total > adds {
		t.Errorf("items got = %d; want between %d and %d", res.total, dedupKeys, adds)
	}
	if res.processings > res.total {
		t.Errorf("items got during the storm = %d; want at most the %d got in all", res.processings, res.total)
	}
}

// BenchmarkDedupStorm re-adds 1,000 keys b.N times in all, with consumers
// that take items as fast as they come: one op is one Add. adds/s is the
// producers' rate until every add took effect; processings/op is the share
// of adds that consumers got meanwhile.
func BenchmarkDedupStorm(b *testing.B) { benchDedupStorm(b, 0) }

// BenchmarkDedupStormWork is BenchmarkDedupStorm with consumers that work
// dedupWork (20µs) on each item, so that keys wait and most adds are
// duplicates.
func BenchmarkDedupStormWork(b *testing.B) { benchDedupStorm(b, dedupWork) }

// benchDedupStorm runs the storm for every shape and implementation, with
// consumers that work for work on each item.
func benchDedupStorm(b *testing.B, work time.Duration) {
	for _, s := range dedupShapes {
		b.Run(fmt.Sprintf("p=%d,c=%d", s.p, s.c), func(b *testing.B) {
			for _, im := range impls {
				b.Run("impl="+im.name, func(b *testing.B) {
					b.ReportAllocs()
					var (
						t0      time.Time
						elapsed time.Duration
					)
					res := runDedupStorm(im.newQueue(), s.p, s.c, b.N, dedupKeys, work, false,
						func() { b.ResetTimer(); t0 = time.Now() },
						func() { b.StopTimer(); elapsed = time.Since(t0) })
					b.ReportMetric(float64(b.N)/elapsed.Seconds(), "adds/s")
					b.ReportMetric(float64(res.processings)/float64(b.N), "processings/op")
				})
			}
		})
	}
}
