package bench

import (
	"fmt"
	"testing"
)

// handOutKeyCounts are the key counts of BenchmarkFairHandOut.
var handOutKeyCounts = []int{100, 1_000, 10_000, 100_000}

// TestHandOut checks the hand-out workload: the queue keeps every key's
// handOutDepth items ready, and by turns, the first keys hand-outs take
// one item of each key.
func TestHandOut(t *testing.T) {
	const keys = 300
	for _, work := range []bool{false, true} {
		for _, batch := range []bool{false, true} {
			t.Run(fmt.Sprintf("work=%v/batch=%v", work, batch), func(t *testing.T) {
				h := newHandOut(keys, work, batch)
				defer h.q.ShutDown()
				if l := h.q.Len(); l != handOutDepth*keys {
					t.Fatalf("Len() = %d after the fill; want %d", l, handOutDepth*keys)
				}
				got := 0
				for got < 3*keys {
					n := h.step()
					if n == 0 {
						t.Fatal("step() = 0; the queue reported shutdown")
					}
					got += n
				}
				if l := h.q.Len(); l != handOutDepth*keys {
					t.Errorf("Len() = %d after %d hand-outs; want %d", l, got, handOutDepth*keys)
				}
			})
		}
	}
	h := newHandOut(keys, false, false)
	defer h.q.ShutDown()
	seen := make(map[int]bool)
	for range keys {
		item, shutdown := h.q.Get()
		if shutdown {
			t.Fatal("Get() reported shutdown")
		}
		if seen[item%keys] {
			t.Fatalf("Get() = %d of key %d twice in the first %d items; want round-robin", item, item%keys, keys)
		}
		seen[item%keys] = true
		h.q.Done(item)
	}
}

// BenchmarkFairHandOut measures the cost of a hand-out of a fair queue
// against the number of keys with items ready: one consumer takes items
// of a queue (actor.New) that holds handOutDepth items of each of keys=K
// keys ready, marks each done and adds its key's next item, so that every
// key keeps an item ready (see handOut). fair=turns is fairness by turns,
// fair=worktime by work time; get=batch takes with GetBatch, up to 64
// items per call, and finishes them with one DoneBatch and one AddWithOpts,
// get=one with Get, Done and Add per item. ns/hand-out is the time per
// item taken, with its Done and its replacement; ns/op (a Get, or a
// GetBatch) is not reported. benchstat -col /keys gives each key count's
// ratio to keys=100.
func BenchmarkFairHandOut(b *testing.B) {
	for _, fair := range []string{"turns", "worktime"} {
		for _, get := range []string{"batch", "one"} {
			for _, k := range handOutKeyCounts {
				b.Run(fmt.Sprintf("fair=%s/get=%s/keys=%d", fair, get, k), func(b *testing.B) {
					b.ReportAllocs()
					h := newHandOut(k, fair == "worktime", get == "batch")
					defer h.q.ShutDown()
					got := 0
					for b.Loop() {
						got += h.step()
					}
					b.ReportMetric(0, "ns/op")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(got), "ns/hand-out")
				})
			}
		}
	}
}
