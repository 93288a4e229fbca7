package bench

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
)

// ownKey is actor.Config.Fairness for a workload in which every item is a
// key of its own: item i's one key is "key-i", made by each call, as a
// user's function that formats a key from the item makes it. The queue
// keeps the slice for as long as it needs the key, so its heap counts it.
func ownKey(i int) []string { return []string{"key-" + strconv.Itoa(i)} }

// tenantOwnKey is ownKey one level down: item i's keys are its tenant,
// one of a hundred (i%100, the hundred's keys, made once), then "key-i".
func tenantOwnKey(i int) []string {
	return []string{hundred.keys[i%tenants][0], "key-" + strconv.Itoa(i)}
}

// memoryFairKeys are the fairness keys of BenchmarkMemoryFair's rows,
// keys=NAME: the hundred skewed tenants, or a key of each item's own;
// work says whether the row has impl=actorqwork, fair by work time. It
// has not with a key per item: while a hand-out by work time looks at
// each key ready (see actor.Config.FairByWorkTime), that row's drain
// takes minutes; add it once a hand-out no longer grows with the keys.
var memoryFairKeys = []struct {
	name     string
	fairness func(int) []string
	work     bool
}{
	{"100", fairness, true},
	{"item", ownKey, false},
}

// memoryFairImpls are the implementations of BenchmarkMemoryFair for the
// fairness keys f: client-go's plain queue (the base) and actorq's without
// fairness (actor.New), which hold the same items without keys, and
// actorq's with fairness by turns (impl=actorqfair) and, with work
// set, by work time (impl=actorqwork). All are drained with Get and Done.
func memoryFairImpls(f func(int) []string, work bool) []impl {
	impls := []impl{
		{
			name:     "clientgo",
			newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
		},
		{
			name:     "actorq",
			newQueue: func() queue { return actor.New(actor.Config[int]{}) },
		},
		{
			name:     "actorqfair",
			newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: f}) },
		},
	}
	if work {
		impls = append(impls, impl{
			name:     "actorqwork",
			newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: f, FairByWorkTime: true}) },
		})
	}
	return impls
}

// keysSeenImpls are the implementations of BenchmarkMemoryKeysSeen for
// the fairness keys f (ownKey or tenantOwnKey): client-go's plain queue
// (the base, drained with Get and Done), and actorq's drained with
// GetBatch and DoneBatch: without fairness (impl=actorq), fair by turns
// (impl=actorqfair) and by work time (impl=actorqwork).
func keysSeenImpls(f func(int) []string) []impl {
	actorq := func(cfg actor.Config[int]) func() queue {
		return func() queue { return batchQueue{actor.New(cfg)} }
	}
	return []impl{
		{
			name:     "clientgo",
			newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
		},
		{name: "actorq", newQueue: actorq(actor.Config[int]{})},
		{name: "actorqfair", newQueue: actorq(actor.Config[int]{Fairness: f})},
		{name: "actorqwork", newQueue: actorq(actor.Config[int]{Fairness: f, FairByWorkTime: true})},
	}
}

// runKeysSeen adds items 0..keys-1 to the empty queue q in bursts of
// burst items, and drains each burst (as runMemory does) before the next
// is added, so that q sees keys distinct items, and distinct keys if its
// fairness gives each item its own. It returns the growth of the live
// heap over the empty queue once the last burst is drained, divided by
// keys: what q keeps per item, or per key, it has seen. It reports an
// error if q is not empty after a drain. It does not shut q down.
func runKeysSeen(q queue, keys, burst int) (float64, error) {
	q.Len() // let the queue settle: its goroutines are started
	empty := liveHeap()
	for start := 0; start < keys; start += burst {
		end := min(start+burst, keys)
		for i := start; i < end; i++ {
			q.Add(i)
		}
		if err := drain(q, end-start); err != nil {
			return 0, err
		}
		// Len from this goroutine sees its Dones applied.
		if l := q.Len(); l != 0 {
			return 0, fmt.Errorf("Len() = %d after draining items %d to %d; want 0", l, start, end-1)
		}
	}
	drained := liveHeap()
	runtime.KeepAlive(q)
	return float64(int64(drained)-int64(empty)) / float64(keys), nil
}
