package bench

import (
	"fmt"

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
)

// tenants is how many tenants the fairness workload spreads its items over.
const tenants = 100

// tenantOf returns the tenant of item i, skewed: tenant 0 owns every even
// item, half of them all, and the odd items go round-robin to tenants 1 to
// 99, about 0.5% each.
func tenantOf(i int) int {
	if i%2 == 0 {
		return 0
	}
	return 1 + (i/2)%(tenants-1)
}

// tenantKeys holds each tenant's fairness keys, made once, so that the
// Fairness function allocates nothing: actor only reads the slices it is
// given.
var tenantKeys = func() [tenants][]string {
	var k [tenants][]string
	for t := range k {
		k[t] = []string{fmt.Sprintf("tenant-%02d", t)}
	}
	return k
}()

// fairness is actor.Config.Fairness for the fairness workload: an item's
// one key is its tenant.
func fairness(i int) []string { return tenantKeys[tenantOf(i)] }

// fairImpls are the implementations of BenchmarkPipelineFair: client-go's
// plain queue (first in, first out, the base) and actorq with fairness
// across the tenants. controller-runtime's priority queue has no fairness.
var fairImpls = []impl{
	{
		name:     "clientgo",
		newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
	},
	{
		name:     "actorq",
		newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: fairness}) },
	},
}
