package bench

import (
	"sync"
	"sync/atomic"
	"time"
)

// dedupResult is what one de-duplication storm did.
type dedupResult struct {
	// processings counts the items consumers got until stop was called:
	// adds that were not merged into an earlier one.
	processings int
	// total counts the items consumers got until shutdown.
	total int
}

// runDedupStorm has producers goroutines Add keys 0..keys-1 round-robin,
// adds times in all, while consumers goroutines Get and Done whatever is
// ready. Each producer ends with a Len call, which waits until the queue
// has applied its adds (actorq's adds are one-way; controller-runtime
// buffers them), so the storm is over only once every add took effect.
// start is called just before the producers are released, stop when the
// storm is over (both may be nil). Each consumer works for work on every
// item it gets, between Get and Done, by spinning on the clock (a sleep
// would last a timer tick, not 20µs); 0 means none.
//
// With waitAll set, runDedupStorm then waits until every key was got at
// least once before it shuts q down; if q loses a key, it blocks.
// It shuts q down and returns when all its goroutines have ended.
func runDedupStorm(q queue, producers, consumers, adds, keys int, work time.Duration, waitAll bool, start, stop func()) dedupResult {
	var (
		got      atomic.Int64
		distinct atomic.Int64
		seen     = make([]atomic.Bool, keys)
		allSeen  = make(chan struct{})
		release  = make(chan struct{})
		wg, pwg  sync.WaitGroup
	)
	if keys == 0 {
		close(allSeen)
	}
	for range consumers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				if waitAll && !seen[item].Swap(true) && distinct.Add(1) == int64(keys) {
					close(allSeen)
				}
				if work > 0 {
					spin(work)
				}
				q.Done(item)
				got.Add(1)
			}
		})
	}
	for p := range producers {
		pwg.Go(func() {
			<-release
			for i := p; i < adds; i += producers {
				q.Add(i % keys)
			}
			q.Len()
		})
	}
	if start != nil {
		start()
	}
	close(release)
	pwg.Wait()
	if stop != nil {
		stop()
	}
	res := dedupResult{processings: int(got.Load())}
	if waitAll {
		<-allSeen
	}
	q.ShutDown()
	wg.Wait()
	res.total = int(got.Load())
	return res
}

// spin keeps the calling goroutine busy for d: the stand-in for a
// consumer's work on an item.
func spin(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}
