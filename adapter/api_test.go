//lint:file-ignore SA1019 the signature checks cover client-go's deprecated functions too.

package adapter_test

import (
	"context"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
	workqueue "github.com/actorq/actorq/adapter"
	clientgo "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// same compiles only if a and b have identical types: it proves at compile
// time that an adapter function has client-go's exact signature.
func same[F any](a, b F) bool { return true }

// Every exported function of client-go's workqueue has its twin here with
// the identical signature, except WithChunkSize (client-go's result names
// an unexported type; the adapter's returns Options) and the constructors
// of *Typed, checked below against the adapter's own Typed.
var _ = []bool{
	same(clientgo.NewTypedRateLimitingQueue[string], workqueue.NewTypedRateLimitingQueue[string]),
	same(clientgo.NewTypedRateLimitingQueueWithConfig[string], workqueue.NewTypedRateLimitingQueueWithConfig[string]),
	same(clientgo.NewRateLimitingQueue, workqueue.NewRateLimitingQueue),
	same(clientgo.NewRateLimitingQueueWithConfig, workqueue.NewRateLimitingQueueWithConfig),
	same(clientgo.NewNamedRateLimitingQueue, workqueue.NewNamedRateLimitingQueue),
	same(clientgo.NewRateLimitingQueueWithDelayingInterface, workqueue.NewRateLimitingQueueWithDelayingInterface),
	same(clientgo.NewTypedDelayingQueue[string], workqueue.NewTypedDelayingQueue[string]),
	same(clientgo.NewTypedDelayingQueueWithConfig[string], workqueue.NewTypedDelayingQueueWithConfig[string]),
	same(clientgo.TypedNewDelayingQueue[string], workqueue.TypedNewDelayingQueue[string]),
	same(clientgo.NewDelayingQueue, workqueue.NewDelayingQueue),
	same(clientgo.NewDelayingQueueWithConfig, workqueue.NewDelayingQueueWithConfig),
	same(clientgo.NewNamedDelayingQueue, workqueue.NewNamedDelayingQueue),
	same(clientgo.NewDelayingQueueWithCustomClock, workqueue.NewDelayingQueueWithCustomClock),
	same(clientgo.NewDelayingQueueWithCustomQueue, workqueue.NewDelayingQueueWithCustomQueue),
	same(clientgo.DefaultQueue[string], workqueue.DefaultQueue[string]),
	same(clientgo.DefaultTypedControllerRateLimiter[string], workqueue.DefaultTypedControllerRateLimiter[string]),
	same(clientgo.DefaultControllerRateLimiter, workqueue.DefaultControllerRateLimiter),
	same(clientgo.DefaultTypedItemBasedRateLimiter[string], workqueue.DefaultTypedItemBasedRateLimiter[string]),
	same(clientgo.DefaultItemBasedRateLimiter, workqueue.DefaultItemBasedRateLimiter),
	same(clientgo.NewTypedItemExponentialFailureRateLimiter[string], workqueue.NewTypedItemExponentialFailureRateLimiter[string]),
	same(clientgo.NewItemExponentialFailureRateLimiter, workqueue.NewItemExponentialFailureRateLimiter),
	same(clientgo.NewTypedItemFastSlowRateLimiter[string], workqueue.NewTypedItemFastSlowRateLimiter[string]),
	same(clientgo.NewItemFastSlowRateLimiter, workqueue.NewItemFastSlowRateLimiter),
	same(clientgo.NewTypedMaxOfRateLimiter[string], workqueue.NewTypedMaxOfRateLimiter[string]),
	same(clientgo.NewMaxOfRateLimiter, workqueue.NewMaxOfRateLimiter),
	same(clientgo.NewTypedWithMaxWaitRateLimiter[string], workqueue.NewTypedWithMaxWaitRateLimiter[string]),
	same(clientgo.NewWithMaxWaitRateLimiter, workqueue.NewWithMaxWaitRateLimiter),
	same(clientgo.SetProvider, workqueue.SetProvider),
	same(clientgo.ParallelizeUntil, workqueue.ParallelizeUntil),
	same(func() *workqueue.Typed[string] { return nil }, workqueue.NewTyped[string]),
	same(func(workqueue.TypedQueueConfig[string]) *workqueue.Typed[string] { return nil }, workqueue.NewTypedWithConfig[string]),
	same(func() *workqueue.Type { return nil }, workqueue.New),
	same(func(string) *workqueue.Type { return nil }, workqueue.NewNamed),
	same(func(workqueue.QueueConfig) *workqueue.Type { return nil }, workqueue.NewWithConfig),
}

// The concrete queues have client-go's method sets, and client-go's
// concrete queues satisfy the adapter's interfaces: one assignment in each
// direction.
var (
	_ clientgo.TypedRateLimitingInterface[string] = (*actor.Queue[string])(nil)
	_ clientgo.RateLimitingInterface              = (*actor.Queue[any])(nil)
	_ clientgo.TypedInterface[string]             = (*workqueue.Typed[string])(nil)
	_ clientgo.Interface                          = (*workqueue.Type)(nil)
	_ workqueue.TypedInterface[string]            = (*clientgo.Typed[string])(nil)
	_ workqueue.Interface                         = (*clientgo.Type)(nil)
	_ clientgo.TypedRateLimiter[string]           = (*workqueue.TypedItemExponentialFailureRateLimiter[string])(nil)
	_ clientgo.TypedRateLimiter[string]           = (*workqueue.TypedItemFastSlowRateLimiter[string])(nil)
	_ clientgo.TypedRateLimiter[string]           = (*workqueue.TypedMaxOfRateLimiter[string])(nil)
	_ clientgo.TypedRateLimiter[string]           = (*workqueue.TypedWithMaxWaitRateLimiter[string])(nil)
	_ workqueue.TypedRateLimiter[string]          = (*clientgo.TypedItemExponentialFailureRateLimiter[string])(nil)
	_ *clientgo.TypedBucketRateLimiter[string]    = &workqueue.TypedBucketRateLimiter[string]{}
	_ workqueue.Options                           = clientgo.WithChunkSize(1)
	_ clientgo.Options                            = workqueue.WithChunkSize(1)
	_ workqueue.Extras[string]                    = (*workqueue.Typed[string])(nil)
	_ workqueue.Extras[string]                    = (*actor.Queue[string])(nil)
	_ clock.WithTicker                            = clock.RealClock{}
)

// TestExtras checks that every constructor's queue has the extras.
func TestExtras(t *testing.T) {
	queues := map[string]workqueue.TypedInterface[string]{
		"Typed":        workqueue.NewTyped[string](),
		"Delaying":     workqueue.NewTypedDelayingQueue[string](),
		"RateLimiting": workqueue.NewTypedRateLimitingQueue[string](nil),
		"OverDelaying": workqueue.NewTypedRateLimitingQueueWithConfig(nil, workqueue.TypedRateLimitingQueueConfig[string]{
			DelayingQueue: workqueue.NewTypedDelayingQueue[string](),
		}),
	}
	for name, q := range queues {
		t.Run(name, func(t *testing.T) {
			defer q.ShutDown()
			x, ok := q.(workqueue.Extras[string])
			if !ok {
				t.Fatalf("%T has no Extras", q)
			}
			q.Add("a")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if got, err := x.GetContext(ctx); got != "a" || err != nil {
				t.Fatalf("GetContext() = %q, %v; want a, nil", got, err)
			}
			q.Done("a")
			q.Add("b")
			if got := <-x.Items(); got != "b" {
				t.Fatalf("<-Items() = %q; want b", got)
			}
			q.ShutDown()
			if got, err := x.GetContext(ctx); err != workqueue.ErrShutDown {
				t.Fatalf("GetContext() after ShutDown = %q, %v; want ErrShutDown", got, err)
			}
		})
	}
}
