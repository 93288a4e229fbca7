package state

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/actorq/actorq/actor/internal/order"
)

// checkEmpty fails t if q, which knows no item, keeps anything for the
// items it has seen: every map of items back to a new one (or below
// shrinkFloor at its peak), and the order holding no item and ranking no
// key. That the order then keeps nothing per key beyond its bounded
// spares is order's TestDrainLeavesNoKeys; TestDrainedBytes weighs it
// here.
func (q *Queue[T]) checkEmpty(t *testing.T) {
	t.Helper()
	maps := []struct {
		name      string
		len, peak int
	}{
		{"items", q.items.len(), q.items.peak},
		{"proc", q.proc.len(), q.proc.peak},
		{"places", len(q.places), q.placePeak},
		{"wide", len(q.wide), q.widePeak},
	}
	if q.m != nil {
		maps = append(maps,
			struct {
				name      string
				len, peak int
			}{"addTimes", len(q.m.addTimes), q.m.addPeak},
			struct {
				name      string
				len, peak int
			}{"startTimes", len(q.m.startTimes), q.m.startPeak})
	}
	for _, m := range maps {
		if m.len != 0 || m.peak >= shrinkFloor {
			t.Errorf("%s: %d entries, peak %d since made; want none, and the map made anew", m.name, m.len, m.peak)
		}
	}
	if q.delays.Len() != 0 || q.Len() != 0 || q.nproc != 0 {
		t.Errorf("%d delayed, %d ready, %d processing; want none", q.delays.Len(), q.Len(), q.nproc)
	}
	if q.prio != nil {
		if keys, ready, out := q.prio.Busiest(0, func(order.KeyCount) {}); q.prio.Len() != 0 || keys != 0 || ready != 0 || out != 0 {
			t.Errorf("the order holds %d items, ranks %d keys, counts %d ready and %d out; want none", q.prio.Len(), keys, ready, out)
		}
	}
}

// TestDrainLeavesNoKeys: after bursts over thousands of distinct keys
// drain (added, some delayed, some raised, some added again while
// processing, all handed out and done), the queue holds nothing per item
// it has seen, and its order no item (checkEmpty), with fairness by turns
// and by work time, one and two levels of keys, caps and weights, a
// starvation bound, both requeue rules, and per-key gauges. What the
// order keeps per key is order's TestDrainLeavesNoKeys.
func TestDrainLeavesNoKeys(t *testing.T) {
	limits := []KeyLimit{{Keys: []string{"t1"}, Limit: order.Limit{Cap: 3, Weight: 2}}}
	for _, c := range []struct {
		name   string
		cfg    Config[int]
		levels int
	}{
		{"turns", Config[int]{Fair: true}, 1},
		{"turns/2 levels", Config[int]{Fair: true}, 2},
		{"work", Config[int]{Fair: true, ByWork: true}, 1},
		{"work/2 levels", Config[int]{Fair: true, ByWork: true}, 2},
		{"caps", Config[int]{Fair: true, Limits: limits}, 2},
		{"bound", Config[int]{Fair: true, Bound: time.Nanosecond}, 2},
		{"requeue at add", Config[int]{Fair: true, Requeue: RequeueAtAdd, ByWork: true}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Metrics = NewMetrics[int](MetricSet{KeyDepth: nopKeyGauge{}, KeyLimit: 5})
			q := New(cfg)
			for burst := range 4 {
				n := 3000
				if burst >= 2 {
					n = 150
				}
				drainBurst(t, q, n, c.levels, burst)
				q.checkEmpty(t)
			}
		})
	}
}

// drainBurst adds n items of n distinct keys (some delayed, some at a
// priority raised later), hands them all out, adds some again while
// processing, and finishes them all.
func drainBurst(t *testing.T, q *Queue[int], n, levels, burst int) {
	t.Helper()
	keys := func(i int) []string {
		k := fmt.Sprint("k", burst, "-", i)
		if levels == 1 {
			return []string{k}
		}
		return []string{fmt.Sprint("t", i%7), k}
	}
	var now int64
	for i := range n {
		o := Opts{Keys: keys(i), Prio: i % 3}
		if i%5 == 0 {
			q.AddAt(i, now+10, o, now)
		} else {
			q.Add(i, o, now)
		}
		if i%11 == 0 {
			q.Add(i, Opts{Keys: keys(i), Prio: 5}, now) // raised
		}
	}
	again := map[int]bool{}
	for done := 0; done < n; {
		now += 3
		q.Due(now)
		item, _, ok := q.HandOut(now, 0)
		if !ok {
			t.Fatalf("nothing to hand out, %d of %d done", done, n)
		}
		if item%13 == 0 && !again[item] {
			again[item] = true
			q.Add(item, Opts{Keys: keys(item)}, now) // runs again after its Done
			n++
		}
		q.Done(item, now+int64(item%4), 0)
		q.Refresh(now)
		done++
	}
	q.Refresh(now + int64(UpdatePeriod))
	q.verify(t)
}

// TestDrainedBytes: a fair queue through which a burst of 20,000 items
// went, each of a key of its own (all added, then each handed out and
// done), keeps less than a byte per key seen once it has drained, by
// turns and by work time, at one level of keys and two: what its spares
// keep does not make it fat.
func TestDrainedBytes(t *testing.T) {
	const n = 20_000
	for _, byWork := range []bool{false, true} {
		for _, levels := range []int{1, 2} {
			keys := make([][]string, n)
			for i := range keys {
				keys[i] = []string{fmt.Sprint("k", i)}
				if levels == 2 {
					keys[i] = []string{fmt.Sprint("t", i%100), keys[i][0]}
				}
			}
			q := New(Config[int]{Fair: true, ByWork: byWork})
			before := heapBytes()
			for i := range n {
				q.Add(i, Opts{Keys: keys[i]}, 0)
			}
			for now := int64(1); ; now++ {
				item, _, ok := q.HandOut(now, 0)
				if !ok {
					break
				}
				q.Done(item, now+int64(item%7), 0)
			}
			after := heapBytes()
			q.checkEmpty(t)
			perKey := float64(after-before) / n
			if perKey >= 1 {
				t.Errorf("work=%v, %d levels: %.2f B per key seen after the drain (%d B); want less than 1", byWork, levels, perKey, after-before)
			}
			t.Logf("work=%v, %d levels: %.2f B per key seen after the drain (%d B)", byWork, levels, perKey, after-before)
			runtime.KeepAlive(q)
			runtime.KeepAlive(keys)
		}
	}
}

type nopKeyGauge struct{}

func (nopKeyGauge) Set(string, float64) {}
func (nopKeyGauge) Delete(string)       {}

// heapBytes returns the bytes of live heap objects, after collecting.
func heapBytes() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// BenchmarkFootprint measures the heap a fair queue holds (the core's:
// items, keys and flows; each key's path is made before and kept outside
// the queue): per key seen after a burst over 1,000,000 distinct keys
// drains, per item queued with 100 keys and with one key per item (of
// 1,000,000 and of 200,000), and per item after a burst of 200,000 items
// over 100 keys drains; by turns and by work time, one and two levels.
// Run it once:
//
//	go test -run='^$' -bench=Footprint -benchtime=1x ./actor/internal/state
func BenchmarkFootprint(b *testing.B) {
	for _, byWork := range []bool{false, true} {
		for _, levels := range []int{1, 2} {
			b.Run(fmt.Sprintf("work=%v/levels=%d/keys=1M", byWork, levels), func(b *testing.B) {
				queued, after := footprint(b, 1_000_000, 1_000_000, levels, byWork)
				b.ReportMetric(queued, "B/item-queued")
				b.ReportMetric(after, "B/key-seen-after")
			})
		}
		b.Run(fmt.Sprintf("work=%v/levels=1/keys=200k", byWork), func(b *testing.B) {
			queued, after := footprint(b, 200_000, 200_000, 1, byWork)
			b.ReportMetric(queued, "B/item-queued")
			b.ReportMetric(after, "B/key-seen-after")
		})
		b.Run(fmt.Sprintf("work=%v/levels=1/keys=100", byWork), func(b *testing.B) {
			queued, after := footprint(b, 200_000, 100, 1, byWork)
			b.ReportMetric(queued, "B/item-queued")
			b.ReportMetric(after, "B/item-after")
		})
	}
}

// footprint adds n items over a keys, measures the heap, drains them, and
// measures it again; it returns the bytes per item queued, and per item
// after the drain.
func footprint(b *testing.B, n, a, levels int, byWork bool) (queued, after float64) {
	keys := make([][]string, a)
	for i := range keys {
		keys[i] = []string{fmt.Sprint("k", i)}
		if levels == 2 {
			keys[i] = []string{fmt.Sprint("t", i%1000), fmt.Sprint("k", i)}
		}
	}
	for b.Loop() {
		q := New(Config[int]{Fair: true, ByWork: byWork})
		h0 := heapBytes()
		for i := range n {
			q.Add(i, Opts{Keys: keys[i%a]}, 0)
		}
		h1 := heapBytes()
		for {
			item, _, ok := q.HandOut(0, 0)
			if !ok {
				break
			}
			q.Done(item, int64(item%7), 0)
		}
		h2 := heapBytes()
		queued, after = float64(h1-h0)/float64(n), float64(h2-h0)/float64(n)
		runtime.KeepAlive(q)
	}
	runtime.KeepAlive(keys)
	return queued, after
}
