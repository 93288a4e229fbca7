package bench

import (
	"fmt"

	"github.com/actorq/actorq/actor"
	actorpq "github.com/actorq/actorq/adapter/priorityqueue"
	"k8s.io/client-go/util/workqueue"
)

// tenants is how many tenants BenchmarkPipelineFair spreads its items over.
const tenants = 100

// skewed is a set of tenants over which the fairness workloads spread
// their items: tenant 0 owns every even item, half of them all, and the
// odd items go round-robin to the other tenants. Each tenant's fairness
// keys are made once, so that its Fairness function allocates nothing:
// actor only reads the slices it is given.
type skewed struct {
	keys [][]string // keys[t] is tenant t's one fairness key
}

// newSkewed returns n tenants (n >= 2), named tenant-0 to tenant-(n-1),
// zero-padded to one width.
func newSkewed(n int) skewed {
	width := len(fmt.Sprint(n - 1))
	s := skewed{keys: make([][]string, n)}
	for t := range s.keys {
		s.keys[t] = []string{fmt.Sprintf("tenant-%0*d", width, t)}
	}
	return s
}

// of returns the tenant of item i.
func (s skewed) of(i int) int {
	if i%2 == 0 {
		return 0
	}
	return 1 + (i/2)%(len(s.keys)-1)
}

// fairness is actor.Config.Fairness for the tenants: an item's one key is
// its tenant.
func (s skewed) fairness(i int) []string { return s.keys[s.of(i)] }

// limits are the flow control of the impls with caps: tenant 0, which
// owns half the items, may have 4 of them processing at once, and tenants
// 1 to 9 take 3 turns per round.
func (s skewed) limits() []actor.KeyLimit {
	limits := []actor.KeyLimit{{Keys: s.keys[0], Cap: 4}}
	for t := 1; t <= 9 && t < len(s.keys); t++ {
		limits = append(limits, actor.KeyLimit{Keys: s.keys[t], Weight: 3})
	}
	return limits
}

// hundred are the tenants of BenchmarkPipelineFair.
var hundred = newSkewed(tenants)

// tenantOf returns the tenant of item i among the hundred tenants: tenant
// 0 owns every even item, and the odd items go round-robin to tenants 1 to
// 99, about 0.5% each.
func tenantOf(i int) int { return hundred.of(i) }

// fairness is actor.Config.Fairness for the fairness workload: an item's
// one key is its tenant among the hundred.
func fairness(i int) []string { return hundred.fairness(i) }

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
		newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: fairness, KeyLimits: hundred.limits()}) },
	},
}

// fairPQImpls are the implementations of BenchmarkPipelineFairPQ over the
// tenants s: client-go's plain queue (the base), and actorq's adapter of
// controller-runtime's priority queue made as a controller-runtime user
// makes it, with priorityqueue.NewQueueFunc and a Config that returns an
// item's tenant as its one fairness key: fair by turns (impl=actorqpq), by
// work time (impl=actorqpqwork), and by turns with the caps and weights of
// s.limits (impl=actorqpqcaps). The queues are unnamed and get
// NewWithConfig's default rate limiter, which the pipeline never asks.
func fairPQImpls(s skewed) []impl {
	pq := func(cfg actorpq.Config[int]) func() queue {
		cfg.Fairness = s.fairness
		return func() queue { return actorpq.NewQueueFunc(cfg)("", nil) }
	}
	return []impl{
		{
			name:     "clientgo",
			newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
		},
		{name: "actorqpq", newQueue: pq(actorpq.Config[int]{})},
		{name: "actorqpqwork", newQueue: pq(actorpq.Config[int]{FairByWorkTime: true})},
		{name: "actorqpqcaps", newQueue: pq(actorpq.Config[int]{KeyLimits: s.limits()})},
	}
}
