package bench

import (
	"fmt"
	"testing"

	"github.com/actorq/actorq/actor"
)

func TestTenantOf(t *testing.T) {
	const n = 99_000
	var count [tenants]int
	for i := range n {
		tt := tenantOf(i)
		if tt < 0 || tt >= tenants {
			t.Fatalf("tenantOf(%d) = %d; want in [0, %d)", i, tt, tenants)
		}
		count[tt]++
	}
	if count[0] != n/2 {
		t.Errorf("tenant 0 owns %d of %d items; want %d", count[0], n, n/2)
	}
	for tt := 1; tt < tenants; tt++ {
		if want := n / 2 / (tenants - 1); count[tt] != want {
			t.Errorf("tenant %d owns %d of %d items; want %d", tt, count[tt], n, want)
		}
	}
	if k := fairness(3); len(k) != 1 || k[0] != "tenant-02" {
		t.Errorf("fairness(3) = %q; want [tenant-02]", k)
	}
}

// TestSkewed checks the tenants of BenchmarkPipelineFairPQ: half the items
// to tenant 0, the rest evenly to the others, one distinct key each.
func TestSkewed(t *testing.T) {
	for _, k := range fairPQKeys {
		s := newSkewed(k)
		n := 4 * (k - 1)
		count := make([]int, k)
		for i := range n {
			count[s.of(i)]++
		}
		if count[0] != n/2 {
			t.Errorf("%d tenants: tenant 0 owns %d of %d items; want %d", k, count[0], n, n/2)
		}
		for tt := 1; tt < k; tt++ {
			if count[tt] != 2 {
				t.Fatalf("%d tenants: tenant %d owns %d of %d items; want 2", k, tt, count[tt], n)
			}
		}
		names := make(map[string]bool)
		for tt := range k {
			keys := s.keys[tt]
			if len(keys) != 1 || names[keys[0]] {
				t.Fatalf("%d tenants: tenant %d has keys %q; want one key of its own", k, tt, keys)
			}
			names[keys[0]] = true
		}
	}
	if k := newSkewed(10_000).fairness(3); len(k) != 1 || k[0] != "tenant-0002" {
		t.Errorf("fairness(3) of 10,000 tenants = %q; want [tenant-0002]", k)
	}
}

// TestFairOrder checks that fairness takes effect in the workload: with
// all items queued before any is taken, the first hundred items handed
// out belong to a hundred tenants, although half the items are tenant 0's.
func TestFairOrder(t *testing.T) {
	const n = 10_000
	q := actor.New(actor.Config[int]{Fairness: fairness})
	defer q.ShutDown()
	for i := range n {
		q.Add(i)
	}
	if l := q.Len(); l != n {
		t.Fatalf("Len() = %d after %d adds; want %d", l, n, n)
	}
	seen := make(map[int]bool)
	for range tenants {
		item, shutdown := q.Get()
		if shutdown {
			t.Fatal("Get() reported shutdown")
		}
		if tt := tenantOf(item); seen[tt] {
			t.Errorf("Get() = %d of tenant %d twice in the first %d items; want round-robin", item, tt, tenants)
		}
		seen[tenantOf(item)] = true
		q.Done(item)
	}
}

// TestFairPQOrder checks that the Config of each implementation of
// BenchmarkPipelineFairPQ takes effect, with all items queued before any
// is taken: fair by turns, the first hundred items handed out belong to a
// hundred tenants; by work time, tenant 0, which owns half the items, gets
// fewer than a quarter of them; with caps, no more than 4 of tenant 0's
// items are processing at once.
func TestFairPQOrder(t *testing.T) {
	const n = 10_000
	for _, im := range fairPQImpls(hundred)[1:] {
		t.Run("impl="+im.name, func(t *testing.T) {
			q := im.newQueue()
			defer q.ShutDown()
			for i := range n {
				q.Add(i)
			}
			if l := q.Len(); l != n {
				t.Fatalf("Len() = %d after %d adds; want %d", l, n, n)
			}
			seen := make(map[int]int)
			for range tenants {
				item, shutdown := q.Get()
				if shutdown {
					t.Fatal("Get() reported shutdown")
				}
				seen[tenantOf(item)]++
				if im.name != "actorqpqcaps" {
					q.Done(item)
				}
			}
			switch im.name {
			case "actorqpq":
				if len(seen) != tenants {
					t.Errorf("the first %d items belong to %d tenants; want %d", tenants, len(seen), tenants)
				}
			case "actorqpqwork":
				if seen[0] >= tenants/4 {
					t.Errorf("tenant 0 got %d of the first %d items; want fewer than %d", seen[0], tenants, tenants/4)
				}
			case "actorqpqcaps":
				if seen[0] > 4 {
					t.Errorf("tenant 0 has %d items processing; want at most its cap, 4", seen[0])
				}
			}
		})
	}
}

func TestPipelineFair(t *testing.T) {
	const n = 10_000
	for _, im := range fairImpls {
		for _, s := range prioShapes {
			t.Run(fmt.Sprintf("p=%d,c=%d/impl=%s", s.p, s.c, im.name), func(t *testing.T) {
				checkPipeline(t, runPipeline(im.newQueue(), s.p, s.c, n, true, nil, nil), n)
			})
		}
	}
}

// BenchmarkPipelineFair is BenchmarkPipeline with fairness on: item i
// belongs to tenant tenantOf(i) of 100 (tenant 0 owns half the items, the
// other 99 share the rest), and actorq's Config.Fairness returns that
// tenant as the item's one key, so consumers get the tenants' items
// round-robin. client-go's plain queue, first in, first out, runs the same
// items as the base. One op is one item.
func BenchmarkPipelineFair(b *testing.B) { benchPipeline(b, prioShapes, fairImpls) }

// fairPQKeys are the tenant counts of BenchmarkPipelineFairPQ, and
// fairPQShapes its (producers, consumers) pairs.
var (
	fairPQKeys   = []int{100, 10_000}
	fairPQShapes = []struct{ p, c int }{{4, 4}, {16, 16}}
)

func TestPipelineFairPQ(t *testing.T) { testFairShapes(t, fairPQImpls, "impl") }

// testFairShapes runs 2,000 items through each implementation that
// impls gives, over each number of keys of fairPQKeys and each shape of
// fairPQShapes, and checks each item is handed out once; col names the
// implementations in the subtests' names.
func testFairShapes(t *testing.T, impls func(skewed) []impl, col string) {
	const n = 2_000
	for _, k := range fairPQKeys {
		for _, im := range impls(newSkewed(k)) {
			for _, s := range fairPQShapes {
				t.Run(fmt.Sprintf("keys=%d/p=%d,c=%d/%s=%s", k, s.p, s.c, col, im.name), func(t *testing.T) {
					checkPipeline(t, runPipeline(im.newQueue(), s.p, s.c, n, true, nil, nil), n)
				})
			}
		}
	}
}

// BenchmarkPipelineFairPQ is the fair pipeline as controller-runtime
// users get it: b.N distinct items through actorq's adapter of
// controller-runtime's priority queue, made with
// priorityqueue.NewQueueFunc and a Config whose Fairness returns item i's
// tenant as its one key (see fairPQImpls), beside client-go's plain queue,
// the base, which runs the same items first in, first out. The items are
// skewed over K tenants (keys=K): tenant 0 owns half of them, the other
// K-1 share the rest round-robin. Producers Add with Add, consumers Get
// and Done. One op is one item; ns/item is the time per item, ns/op
// unchanged, named so that a comparison across benchmarks can ask for it.
// allocs/item is allocs/op unrounded.
func BenchmarkPipelineFairPQ(b *testing.B) {
	for _, k := range fairPQKeys {
		impls := fairPQImpls(newSkewed(k))
		b.Run(fmt.Sprintf("keys=%d", k), func(b *testing.B) {
			for _, s := range fairPQShapes {
				b.Run(fmt.Sprintf("p=%d,c=%d", s.p, s.c), func(b *testing.B) {
					for _, im := range impls {
						b.Run("impl="+im.name, func(b *testing.B) {
							pipelineRun(b, im, s.p, s.c)
							b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/item")
						})
					}
				})
			}
		})
	}
}
