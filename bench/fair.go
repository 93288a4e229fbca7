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

// fairLimits are the flow control of impl=actorqcaps: tenant 0, which
// owns half the items, may have 4 of them processing at once, and tenants
// 1 to 9 take 3 turns per round.
var fairLimits = func() []actor.KeyLimit {
	limits := []actor.KeyLimit{{Keys: tenantKeys[0], Cap: 4}}
	for t := 1; t <= 9; t++ {
		limits = append(limits, actor.KeyLimit{Keys: tenantKeys[t], Weight: 3})
	}
	return limits
}()

// fairImpls are the implementations of BenchmarkPipelineFair: client-go's
// plain queue (first in, first out, the base), actorq with fairness
// across the tenants, and with caps and weights too (impl=actorqcaps).
// controller-runtime's priority queue has no fairness.
var fairImpls = []impl{
	{
		name:     "clientgo",
		newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
	},
	{
		name:     "actorq",
		newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: fairness}) },
	},
	{
		name:     "actorqcaps",
		newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: fairness, KeyLimits: fairLimits}) },
	},
}
