package bench

import (
	"testing"
	"time"
)

// The AddAfter storm: stormItems calls from stormProducers goroutines,
// delays uniform in [0, stormMaxDelay), stormConsumers consumers.
const (
	stormItems     = 100_000
	stormProducers = 8
	stormConsumers = 4
	stormMaxDelay  = 50 * time.Millisecond
	stormSeed      = 1
)

func TestStormDelays(t *testing.T) {
	d := stormDelays(stormItems, stormMaxDelay, stormSeed)
	if len(d) != stormItems {
		t.Fatalf("len(stormDelays()) = %d; want %d", len(d), stormItems)
	}
	var lo, hi int
	for i, x := range d {
		if x < 0 || x >= stormMaxDelay {
			t.Fatalf("delay %d = %v; want in [0, %v)", i, x, stormMaxDelay)
		}
		if x < stormMaxDelay/2 {
			lo++
		} else {
			hi++
		}
	}
	// A uniform draw puts about half below the middle; 49% is 6 sigma off.
	if lo < stormItems*49/100 || hi < stormItems*49/100 {
		t.Errorf("delays below, above %v = %d, %d; want about half each", stormMaxDelay/2, lo, hi)
	}
	if e := stormDelays(stormItems, stormMaxDelay, stormSeed); e[12345] != d[12345] {
		t.Errorf("stormDelays()[12345] = %v, then %v; want the same for the same seed", d[12345], e[12345])
	}
}

func TestAddAfterStorm(t *testing.T) {
	delays := stormDelays(stormItems, stormMaxDelay, stormSeed)
	for _, im := range impls {
		t.Run("impl="+im.name, func(t *testing.T) {
			res := runAddAfterStorm(im.newDelaying(), delays, stormProducers, stormConsumers, nil, nil)
			if res.got != stormItems {
				t.Errorf("items got = %d; want %d", res.got, stormItems)
			}
			if len(res.lateness) != stormItems {
				t.Fatalf("len(lateness) = %d; want %d", len(res.lateness), stormItems)
			}
			// No item may arrive before its deadline: the deadline is taken
			// before the AddAfter call, on the same monotonic clock.
			if early := res.lateness[0]; early < 0 {
				t.Errorf("earliest lateness = %v; want >= 0", early)
			}
			if res.deliver <= 0 || res.slowestAdd <= 0 {
				t.Errorf("deliver, slowest add = %v, %v; want > 0", res.deliver, res.slowestAdd)
			}
		})
	}
}

// BenchmarkAddAfterStorm runs the storm once per op, on a new queue each
// time, and reports the means over the storms run: ms-deliver from
// releasing the producers to the last item received, us-slowest-add the
// longest single AddAfter call, ms-lateness-p50 and -p99 the median and
// 99th percentile of receive time minus deadline.
func BenchmarkAddAfterStorm(b *testing.B) {
	delays := stormDelays(stormItems, stormMaxDelay, stormSeed)
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			b.ReportAllocs()
			var deliver, slowest, p50, p99 time.Duration
			storms := 0
			for b.Loop() {
				b.StopTimer()
				res := runAddAfterStorm(im.newDelaying(), delays, stormProducers, stormConsumers, b.StartTimer, b.StopTimer)
				deliver += res.deliver
				slowest += res.slowestAdd
				p50 += percentile(res.lateness, 50)
				p99 += percentile(res.lateness, 99)
				storms++
				b.StartTimer()
			}
			k := time.Duration(storms)
			b.ReportMetric(ms(deliver/k), "ms-deliver")
			b.ReportMetric(us(slowest/k), "us-slowest-add")
			b.ReportMetric(ms(p50/k), "ms-lateness-p50")
			b.ReportMetric(ms(p99/k), "ms-lateness-p99")
		})
	}
}
