package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorq/actorq/adapter"
	actorpq "github.com/actorq/actorq/adapter/priorityqueue"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// The controller workload's rate limiter backs off per item exponentially
// from retryBase to retryMax: small delays, so that a failed item comes
// back at once and the benchmark does not sleep.
const (
	retryBase = time.Microsecond
	retryMax  = time.Millisecond
)

// failEvery makes one item in failEvery fail: the first reconcile of item
// i fails if i%failEvery == 0.
const failEvery = 10

// controllerQueue is the queue a controller runs on: client-go's
// rate-limiting interface, which controller-runtime's priority queue
// extends.
type controllerQueue = workqueue.TypedRateLimitingInterface[int]

// controllerImpl is one implementation of BenchmarkController.
type controllerImpl struct {
	name string
	// newQueue returns a rate-limiting queue named name that records its
	// metrics with p and backs off with an exponential per-item limiter
	// from retryBase to retryMax.
	newQueue func(name string, p workqueue.MetricsProvider) controllerQueue
}

// controllerImpls are the implementations of BenchmarkController, each
// made with its constructor as a controller's users get it: client-go's
// rate-limiting queue (the base), actorq's through the client-go adapter
// (its own limiter constructor), controller-runtime's priority queue, and
// actorq's adapter of it (the same options as controller-runtime's).
var controllerImpls = []controllerImpl{
	{
		name: "clientgo",
		newQueue: func(name string, p workqueue.MetricsProvider) controllerQueue {
			return workqueue.NewTypedRateLimitingQueueWithConfig(
				workqueue.NewTypedItemExponentialFailureRateLimiter[int](retryBase, retryMax),
				workqueue.TypedRateLimitingQueueConfig[int]{Name: name, MetricsProvider: p})
		},
	},
	{
		name: "actorq",
		newQueue: func(name string, p workqueue.MetricsProvider) controllerQueue {
			return adapter.NewTypedRateLimitingQueueWithConfig(
				adapter.NewTypedItemExponentialFailureRateLimiter[int](retryBase, retryMax),
				adapter.TypedRateLimitingQueueConfig[int]{Name: name, MetricsProvider: p})
		},
	},
	{
		name: "crpq",
		newQueue: func(name string, p workqueue.MetricsProvider) controllerQueue {
			return priorityqueue.New(name, pqOpts(p))
		},
	},
	{
		name: "actorqpq",
		newQueue: func(name string, p workqueue.MetricsProvider) controllerQueue {
			return actorpq.New(name, pqOpts(p))
		},
	},
}

// pqOpts returns the option function of the controller workload's
// priority queues (controller-runtime's and actorq's adapter, whose Opt is
// an alias of controller-runtime's): client-go's exponential limiter, the
// kind controller-runtime's controller passes by default, and p.
func pqOpts(p workqueue.MetricsProvider) priorityqueue.Opt[int] {
	return func(o *priorityqueue.Opts[int]) {
		o.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[int](retryBase, retryMax)
		o.MetricProvider = p
	}
}

// queueSeq numbers the named queues, so that each gets a name of its own.
var queueSeq atomic.Int64

// newQueueName returns a queue name that no other queue of this process
// has: a metrics provider may register its metrics per name.
func newQueueName() string { return fmt.Sprintf("bench-%d", queueSeq.Add(1)) }

// controllerResult is what the workers of one controller run saw.
type controllerResult struct {
	// got counts the items Get returned, over all workers.
	got int
	// seen[i] counts how often item i was got, succeeded[i] how often it
	// was reconciled successfully; nil unless asked for.
	seen, succeeded []int32
	// overlaps counts the Gets of an item that another worker was
	// processing (between its Get and its Done); 0 unless asked for.
	overlaps int
}

// runController pushes items 0..n-1 through q as a controller does:
// producers goroutines Add disjoint shares of them, and workers goroutines
// Get each item and reconcile it. The first reconcile of an item with
// i%failEvery == 0 fails: the worker calls AddRateLimited and Done, and
// the item comes back after the limiter's delay. Every other reconcile
// succeeds: the worker calls Forget and Done. Once all n items have been
// reconciled successfully, runController shuts q down, and it returns
// when all its goroutines have ended. start is called when the goroutines
// are started, just before the producers are released, and stop as soon
// as the n-th success is Done (both may be nil). If q loses an item,
// runController blocks. With check set, the result records how often
// each item was got and reconciled successfully, and whether two workers
// held one at once, which costs shared-slice atomics per item.
func runController(q controllerQueue, producers, workers, n int, check bool, start, stop func()) controllerResult {
	var (
		succeeded atomic.Int64
		overlaps  atomic.Int64
		finished  = make(chan struct{})
		release   = make(chan struct{})
		failed    = make([]atomic.Bool, (n+failEvery-1)/failEvery)
		seen, ok  []atomic.Int32
		held      []atomic.Bool
		wg, pwg   sync.WaitGroup
	)
	if check {
		seen = make([]atomic.Int32, n)
		ok = make([]atomic.Int32, n)
		held = make([]atomic.Bool, n)
	}
	if n == 0 {
		close(finished)
	}
	counts := make([]int, workers)
	for w := range workers {
		wg.Go(func() {
			got := 0
			for {
				item, shutdown := q.Get()
				if shutdown {
					break
				}
				got++
				if check {
					seen[item].Add(1)
					if held[item].Swap(true) {
						overlaps.Add(1)
					}
				}
				if item%failEvery == 0 && !failed[item/failEvery].Swap(true) {
					q.AddRateLimited(item)
					if check {
						held[item].Store(false)
					}
					q.Done(item)
					continue
				}
				q.Forget(item)
				if check {
					ok[item].Add(1)
					held[item].Store(false)
				}
				q.Done(item)
				if succeeded.Add(1) == int64(n) {
					close(finished)
				}
			}
			counts[w] = got
		})
	}
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
	res := controllerResult{overlaps: int(overlaps.Load())}
	for _, c := range counts {
		res.got += c
	}
	if check {
		res.seen = make([]int32, n)
		res.succeeded = make([]int32, n)
		for i := range seen {
			res.seen[i] = seen[i].Load()
			res.succeeded[i] = ok[i].Load()
		}
	}
	return res
}
