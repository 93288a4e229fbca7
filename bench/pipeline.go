package bench

import (
	"sync"
	"sync/atomic"

	"github.com/actorq/actorq/actor"
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
			handle := func(item int) {
				if seen != nil {
					seen[item].Add(1)
				}
				got++
				if received.Add(1) == int64(n) {
					close(finished)
				}
			}
			if bt, ok := q.(batchTaker); ok {
				buf := make([]int, 0, pipelineBatch)
				for {
					items, shutdown := bt.takeBatch(buf)
					if shutdown {
						break
					}
					for _, item := range items {
						handle(item)
					}
					bt.doneBatch(items)
				}
			} else {
				for {
					item, shutdown := q.Get()
					if shutdown {
						break
					}
					handle(item)
					q.Done(item)
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

// pipelineBatch is how many items a batch consumer asks for at a time.
const pipelineBatch = 64

// batchTaker is a queue whose pipeline consumers take up to pipelineBatch
// items per call instead of one Get each, and finish them in one call.
type batchTaker interface {
	takeBatch(buf []int) ([]int, bool)
	doneBatch(items []int)
}

// batchQueue is actorq's queue driven through GetBatch (the batch
// hand-out): each consumer takes up to pipelineBatch ready items in one
// exchange with the owner goroutine, all processing, handles each, then
// finishes them all with one DoneBatch.
type batchQueue struct{ *actor.Queue[int] }

func (q batchQueue) takeBatch(buf []int) ([]int, bool) { return q.GetBatch(buf) }
func (q batchQueue) doneBatch(items []int)             { q.DoneBatch(items) }

// pipelineImpls are the implementations of BenchmarkPipeline: impls and
// actorq's batch hand-out (GetBatch and DoneBatch of actor.Queue itself, an
// addition clients opt into), whose ratio to client-go's one-at-a-time Get
// is the point of the batch.
var pipelineImpls = append(impls[:len(impls):len(impls)], impl{
	name:     "actorqbatch",
	newQueue: func() queue { return batchQueue{actor.New(actor.Config[int]{})} },
})
