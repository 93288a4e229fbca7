package bench

import (
	"sync"
	"sync/atomic"
)

// pipelineResult is what the consumers of one pipeline run saw.
type pipelineResult struct {
	// got counts the items Get returned, over all consumers.
	got int
	// seen[i] counts how often item i was received; nil unless asked for.
	seen []int32
}

// runPipeline pushes items 0..n-1 through q: producers goroutines Add
// disjoint shares of them, consumers goroutines Get and Done them at once.
// Once all n items were received it shuts q down, and it returns when all
// its goroutines have ended. start is called when the goroutines are
// started, just before the producers are released, and stop as soon as the
// n-th item is Done (both may be nil): a benchmark resets and stops its
// timer there. If q loses an item, runPipeline blocks. With check set, the result records how often each
// item was received, which costs a shared-slice increment per item.
func runPipeline(q queue, producers, consumers, n int, check bool, start, stop func()) pipelineResult {
	var (
		received atomic.Int64
		finished = make(chan struct{})
		release  = make(chan struct{})
		res      pipelineResult
		seen     []atomic.Int32
		wg       sync.WaitGroup
	)
	if check {
		seen = make([]atomic.Int32, n)
	}
	if n == 0 {
		close(finished)
	}
	counts := make([]int, consumers)
	for c := range consumers {
		wg.Go(func() {
			got := 0
			for {
				item, shutdown := q.Get()
				if shutdown {
					break
				}
				if seen != nil {
					seen[item].Add(1)
				}
				q.Done(item)
				got++
				if received.Add(1) == int64(n) {
					close(finished)
				}
			}
			counts[c] = got
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			<-release
			for i := p; i < n; i += producers {
				q.Add(i)
			}
		})
	}
	if start != nil {
		start()
	}
	close(release)
	<-finished
	if stop != nil {
		stop()
	}
	pwg.Wait()
	q.ShutDown()
	wg.Wait()
	for _, c := range counts {
		res.got += c
	}
	if check {
		res.seen = make([]int32, n)
		for i := range seen {
			res.seen[i] = seen[i].Load()
		}
	}
	return res
}
