package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// The batched adds: batchItems items, batchSize per AddWithOpts call,
// batchConsumers consumers waiting in Get. Batch k is at priority
// lowTenth(k): one batch in ten at lowPriority.
const (
	batchItems     = 1_000_000
	batchSize      = 100
	batchConsumers = 1_000
)

// batchImpls are the implementations of BenchmarkAddWithOptsBatch:
// actorq's and controller-runtime's AddWithOpts, and client-go's plain
// queue, which has no batch add and no priorities, with one Add per item.
var batchImpls = []impl{
	{
		name:     "clientgo",
		newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
	},
	{
		name:     "actorq",
		newQueue: func() queue { return actorPrio{actor.New(actor.Config[int]{})} },
	},
	{
		name:     "crpq",
		newQueue: func() queue { return pqPrio{priorityqueue.New[int]("")} },
	},
}

func TestAddBatches(t *testing.T) {
	for _, im := range batchImpls {
		for _, n := range []int{0, 1, 20_050} {
			t.Run(fmt.Sprintf("impl=%s/n=%d", im.name, n), func(t *testing.T) {
				started, stopped := 0, 0
				res := runAddBatches(im.newQueue(), n, batchSize, batchConsumers, lowTenth, true,
					func() { started++ }, func() { stopped++ })
				if res.got != n {
					t.Errorf("items got = %d; want %d", res.got, n)
				}
				for i, k := range res.seen {
					if k != 1 {
						t.Errorf("item %d got %d times; want 1", i, k)
					}
				}
				if res.wrong != 0 {
					t.Errorf("items got with another priority than their batch's = %d; want 0", res.wrong)
				}
				if want := (n + batchSize - 1) / batchSize; len(res.calls) != want {
					t.Errorf("len(calls) = %d; want %d", len(res.calls), want)
				}
				if !slices.IsSorted(res.calls) {
					t.Errorf("calls not sorted")
				}
				if n > 0 && (res.total <= 0 || res.calls[0] < 0) {
					t.Errorf("total, fastest call = %v, %v; want > 0, >= 0", res.total, res.calls[0])
				}
				if started != 1 || stopped != 1 {
					t.Errorf("start, stop called %d, %d times; want 1, 1", started, stopped)
				}
			})
		}
	}
}

// BenchmarkAddWithOptsBatch adds 1,000,000 items in batches of 100, one
// AddWithOpts call per batch (one batch in ten at priority -100, the
// others at 0), from one goroutine, while 1,000 consumers wait in
// GetWithPriority and Done each item at once; client-go, which has neither
// batches nor priorities, makes 100 Add calls per batch, timed as one.
// One op is one such run on a new queue. It reports us-max-add, the
// slowest call of the op (the mean over ops), us-p99-add and us-p50-add,
// percentiles of all calls of all ops, and ms-total, the time from the
// first call to the last item's Done (the mean over ops; sec/op is the
// same time).
func BenchmarkAddWithOptsBatch(b *testing.B) {
	for _, im := range batchImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			b.ReportAllocs()
			var (
				all          []time.Duration
				slowest, tot time.Duration
				ops          int
			)
			for b.Loop() {
				b.StopTimer()
				res := runAddBatches(im.newQueue(), batchItems, batchSize, batchConsumers, lowTenth, false, b.StartTimer, b.StopTimer)
				all = append(all, res.calls...)
				slowest += res.calls[len(res.calls)-1]
				tot += res.total
				ops++
				b.StartTimer()
			}
			slices.Sort(all)
			k := time.Duration(ops)
			b.ReportMetric(us(slowest/k), "us-max-add")
			b.ReportMetric(us(percentile(all, 99)), "us-p99-add")
			b.ReportMetric(us(percentile(all, 50)), "us-p50-add")
			b.ReportMetric(ms(tot/k), "ms-total")
		})
	}
}
