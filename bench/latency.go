package bench

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// latencyResult is what one paced run measured.
type latencyResult struct {
	// latency holds, per measured item, the time from just before its Add
	// to its Get returning, sorted.
	latency []time.Duration
	// rate is the add rate achieved, in items per second.
	rate float64
}

// spinBelow is the interval between items under which runLatency spins
// instead of sleeping.
const spinBelow = 50 * time.Microsecond

// runLatency has one producer add items 0..n-1 at a steady rate (items per
// second) while consumers goroutines Get and Done them, and measures each
// item's Add-to-Get latency. The first warmup items are not measured.
//
// At high rates (an interval under 50µs) the producer paces itself by
// spinning on the clock with runtime.Gosched between items: no timer or
// sleep is fine enough (time.Sleep wakes tens of µs to 1ms late here), and
// Gosched leaves the processor to the queue and the consumers whenever they
// have work. At lower rates it sleeps until the next item is due, so that
// the queue's goroutines and the consumers park between items, as they do
// in a quiet controller; the rate achieved is then somewhat below rate. It
// adds at once when it is behind schedule, so a stall is followed by a
// short burst.
//
// It returns when every item was received (so it blocks if q loses one),
// after shutting q down and waiting for its goroutines.
func runLatency(q queue, n, warmup, consumers int, rate float64) latencyResult {
	var (
		added    = make([]time.Duration, n) // since base; written before Add
		latency  = make([]time.Duration, n)
		left     sync.WaitGroup
		wg       sync.WaitGroup
		interval = time.Duration(float64(time.Second) / rate)
		base     = time.Now()
	)
	if !(rate > 0) {
		panic(fmt.Sprintf("bench: runLatency rate %v; want > 0", rate))
	}
	left.Add(n)
	for range consumers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				latency[item] = time.Since(base) - added[item]
				q.Done(item)
				left.Done()
			}
		})
	}
	for i := range n {
		next := time.Duration(i) * interval
		if interval >= spinBelow {
			if wait := next - time.Since(base); wait > 0 {
				time.Sleep(wait)
			}
		}
		for time.Since(base) < next {
			runtime.Gosched()
		}
		added[i] = time.Since(base)
		q.Add(i)
	}
	left.Wait()
	q.ShutDown()
	wg.Wait()

	res := latencyResult{latency: latency[min(warmup, n):]}
	slices.Sort(res.latency)
	// Item i is added no earlier than i intervals after base, so the rate
	// achieved is at most rate.
	if n > 1 && added[n-1] > 0 {
		res.rate = float64(n-1) / added[n-1].Seconds()
	}
	return res
}
