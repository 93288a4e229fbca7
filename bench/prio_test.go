package bench

import (
	"fmt"
	"testing"
)

// prioShapes are the (producers, consumers) pairs of BenchmarkPipelinePrio
// and BenchmarkPipelineFair.
var prioShapes = []struct{ p, c int }{{1, 1}, {4, 4}, {16, 16}, {16, 1}}

// pipelinePrioImpls are the implementations of BenchmarkPipelinePrio: one
// item in ten at lowPriority, the others at 0.
var pipelinePrioImpls = prioImpls(lowTenth)

// TestPrioOrder checks that the priority workloads set priorities: with
// all items queued before any is taken, every item comes back with the
// priority it was added with, and the items at 0 before the low ones.
func TestPrioOrder(t *testing.T) {
	const n = 1_000
	for _, im := range pipelinePrioImpls {
		t.Run("impl="+im.name, func(t *testing.T) {
			q := im.newQueue()
			pa, ok := q.(*prioAdds)
			if !ok {
				q.ShutDown()
				t.Skip("no priorities")
			}
			defer pa.ShutDown()
			for i := range n {
				pa.Add(i)
			}
			if l := pa.Len(); l != n {
				t.Fatalf("Len() = %d after %d adds; want %d", l, n, n)
			}
			low := 0
			for k := range n {
				item, prio, shutdown := pa.GetWithPriority()
				if shutdown {
					t.Fatalf("GetWithPriority() #%d reported shutdown", k)
				}
				if want := lowTenth(item); prio != want {
					t.Errorf("GetWithPriority() = %d, priority %d; want priority %d", item, prio, want)
				}
				if prio == lowPriority {
					low++
				} else if low > 0 {
					t.Errorf("GetWithPriority() #%d = %d at priority %d after %d low items; want the high ones first", k, item, prio, low)
				}
				pa.Done(item)
			}
			if low != n/10 {
				t.Errorf("low items got = %d; want %d", low, n/10)
			}
		})
	}
}

func TestPipelinePrio(t *testing.T) {
	const n = 10_000
	for _, im := range pipelinePrioImpls {
		for _, s := range prioShapes {
			t.Run(fmt.Sprintf("p=%d,c=%d/impl=%s", s.p, s.c, im.name), func(t *testing.T) {
				q := im.newQueue()
				checkPipeline(t, runPipeline(q, s.p, s.c, n, true, nil, nil), n)
				if pa, ok := q.(*prioAdds); ok {
					if w := pa.wrong.Load(); w != 0 {
						t.Errorf("items got with a priority other than their own = %d; want 0", w)
					}
				}
			})
		}
	}
}

// checkPipeline fails t unless res, from a runPipeline of n items with
// check set, received each item exactly once.
func checkPipeline(t *testing.T, res pipelineResult, n int) {
	t.Helper()
	if res.got != n {
		t.Errorf("items got = %d; want %d", res.got, n)
	}
	if len(res.seen) != n {
		t.Fatalf("len(seen) = %d; want %d", len(res.seen), n)
	}
	for i, k := range res.seen {
		if k != 1 {
			t.Errorf("item %d got %d times; want 1", i, k)
		}
	}
}

// BenchmarkPipelinePrio is BenchmarkPipeline with two priorities: one item
// in ten (i%10 == 0) at controller-runtime's handler.LowPriority (-100),
// added with AddWithOpts, one item per call, the others at 0, added with
// Add; consumers take them with GetWithPriority. impl=actorq is actor.New
// (client-go's requeue rule), impl=actorqpq actorq's adapter of
// controller-runtime's priority queue (its requeue rule), impl=crpq
// controller-runtime's own. client-go's plain queue, which has no
// priorities, runs the same items with Add and Get as the base. One op is
// one item.
func BenchmarkPipelinePrio(b *testing.B) { benchPipeline(b, prioShapes, pipelinePrioImpls) }

// memoryPrioImpls are the implementations of BenchmarkMemoryPrio: items
// at four priorities.
var memoryPrioImpls = prioImpls(fourPrios)

func TestMemoryPrio(t *testing.T) {
	for _, im := range memoryPrioImpls {
		testMemory(t, "impl="+im.name, im, 10_000, func(t *testing.T, q queue, _ memoryResult) {
			if pa, ok := q.(*prioAdds); ok {
				if w := pa.wrong.Load(); w != 0 {
					t.Errorf("items got with a priority other than their own = %d; want 0", w)
				}
			}
		})
	}
}

// BenchmarkMemoryPrio is BenchmarkMemory with items at four priorities
// (0, -100, 10 and 100, round-robin): the queues with priorities (actorq,
// crpq and actorqpq, as in BenchmarkPipelinePrio) add the items at 0 with
// Add, the others with AddWithOpts, one item per call, and drain them with
// GetWithPriority; client-go's plain queue holds the same items without
// priorities. It reports the same metrics as BenchmarkMemory.
func BenchmarkMemoryPrio(b *testing.B) { benchMemory(b, memoryPrioImpls, memoryItems) }
