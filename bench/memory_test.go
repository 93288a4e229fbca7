package bench

import "testing"

// memoryItems is how many items BenchmarkMemory queues.
const memoryItems = 1_000_000

func TestMemory(t *testing.T) {
	for _, im := range memoryImpls {
		testMemory(t, "impl="+im.name, im, 10_000, func(t *testing.T, _ queue, res memoryResult) {
			if res.drainTime <= 0 {
				t.Errorf("drain time per item = %v; want > 0", res.drainTime)
			}
		})
	}
}

// testMemory runs runMemory with n items on a new queue of im, in a
// subtest of that name, and checks that the queued items took some heap
// (n ints take some in any queue); check, if not nil, checks more.
func testMemory(t *testing.T, name string, im impl, n int, check func(*testing.T, queue, memoryResult)) {
	t.Run(name, func(t *testing.T) {
		q := im.newQueue()
		defer q.ShutDown()
		res, err := runMemory(q, n)
		if err != nil {
			t.Fatalf("runMemory() error: %v", err)
		}
		if res.queued <= 0 {
			t.Errorf("bytes per queued item = %v; want > 0", res.queued)
		}
		if check != nil {
			check(t, q, res)
		}
	})
}

// BenchmarkMemory queues memoryItems items in a new queue per op and
// reports the heap growth per item over the empty queue, with all of them
// queued (B/queued-item) and after all were got and done
// (B/item-after-drain), and the heap allocations per item from the first
// Add to the last Done (allocs/item), and the time per item of the drain,
// Get and Done from one goroutine over the 1M backlog (ns/get-done;
// impl=actorqbatch takes and finishes 64 items per call), averaged over the
// ops. The time per
// op is mostly garbage collection, so it reports none; its B/op and
// allocs/op count a whole op (1M items and the harness).
func BenchmarkMemory(b *testing.B) { benchMemory(b, memoryImpls, memoryItems) }

// memoryImpls are the implementations of BenchmarkMemory: impls, and
// actorq drained with GetBatch and DoneBatch (impl=actorqbatch), the way
// one consumer can take a backlog in bulk.
var memoryImpls = pipelineImpls

// benchMemory runs runMemory with n items for each implementation, as
// sub-benchmarks impl=NAME, on a new queue per op.
func benchMemory(b *testing.B, impls []impl, n int) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			var queued, drained, allocs, drainNs float64
			ops := 0
			for b.Loop() {
				q := im.newQueue()
				res, err := runMemory(q, n)
				q.ShutDown()
				if err != nil {
					b.Fatalf("runMemory() error: %v", err)
				}
				queued += res.queued
				drained += res.drained
				allocs += res.allocs
				drainNs += float64(res.drainTime.Nanoseconds())
				ops++
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(queued/float64(ops), "B/queued-item")
			b.ReportMetric(drained/float64(ops), "B/item-after-drain")
			b.ReportMetric(allocs/float64(ops), "allocs/item")
			b.ReportMetric(drainNs/float64(ops), "ns/get-done")
		})
	}
}
