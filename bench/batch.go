package bench

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// batchResult is what one run of batched adds measured.
type batchResult struct {
	// calls holds the duration of each batch's add call, sorted: one
	// AddWithOpts of the whole batch, or, on a queue without priorities,
	// the loop of one Add per item.
	calls []time.Duration
	// total is the time from the first add call to the last item's Done.
	total time.Duration
	// got counts the items received, over all consumers.
	got int
	// seen[i] counts how often item i was received; nil unless asked for.
	seen []int32
	// wrong counts the items received with another priority than their
	// batch's (only on a prioQueue).
	wrong int
}

// runAddBatches adds items 0..n-1 to q from the calling goroutine, size
// items per call, while consumers goroutines Get and Done them. Batch k
// (items k*size up to (k+1)*size) has the priority prio(k): on a
// prioQueue, one addWithPriority call per batch and GetWithPriority in
// the consumers, which check the priority; on another queue, one Add per
// item (timed together as the batch's call) and Get. The consumers start
// first, and the first add is made only once each of them is about to
// call Get for the first time, so that they are waiting (or nearly) when
// the items come. start is called just before the first add, stop when
// the n-th item is Done (both may be nil). If q loses an item,
// runAddBatches blocks. It shuts q down and returns when all its
// goroutines have ended. With check set, the result records how often
// each item was received.
func runAddBatches(q queue, n, size, consumers int, prio func(batch int) int, check bool, start, stop func()) batchResult {
	var (
		received    atomic.Int64
		wrong       atomic.Int64
		finished    = make(chan struct{})
		waiting     sync.WaitGroup
		wg          sync.WaitGroup
		seen        []atomic.Int32
		items       = make([]int, n)
		pq, hasPrio = q.(prioQueue)
	)
	for i := range items {
		items[i] = i
	}
	if check {
		seen = make([]atomic.Int32, n)
	}
	if n == 0 {
		close(finished)
	}
	waiting.Add(consumers)
	for range consumers {
		wg.Go(func() {
			waiting.Done()
			for {
				var (
					item, p  int
					shutdown bool
				)
				if hasPrio {
					item, p, shutdown = pq.GetWithPriority()
				} else {
					item, shutdown = q.Get()
				}
				if shutdown {
					return
				}
				if hasPrio && p != prio(item/size) {
					wrong.Add(1)
				}
				if seen != nil {
					seen[item].Add(1)
				}
				q.Done(item)
				if received.Add(1) == int64(n) {
					close(finished)
				}
			}
		})
	}
	waiting.Wait()

	calls := make([]time.Duration, 0, (n+size-1)/size)
	if start != nil {
		start()
	}
	t0 := time.Now()
	for k := 0; k*size < n; k++ {
		batch := items[k*size : min((k+1)*size, n)]
		c0 := time.Now()
		if hasPrio {
			pq.addWithPriority(prio(k), batch...)
		} else {
			for _, item := range batch {
				q.Add(item)
			}
		}
		calls = append(calls, time.Since(c0))
	}
	<-finished
	total := time.Since(t0)
	if stop != nil {
		stop()
	}
	q.ShutDown()
	wg.Wait()

	slices.Sort(calls)
	res := batchResult{calls: calls, total: total, got: int(received.Load()), wrong: int(wrong.Load())}
	if check {
		res.seen = make([]int32, n)
		for i := range seen {
			res.seen[i] = seen[i].Load()
		}
	}
	return res
}
