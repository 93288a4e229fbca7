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
