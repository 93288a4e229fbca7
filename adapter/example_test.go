package adapter_test

import (
	"context"
	"fmt"
	"time"

	workqueue "github.com/actorq/actorq/adapter"
	clocktesting "k8s.io/utils/clock/testing"
)

// A rate-limiting queue used exactly as client-go's.
func Example() {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	defer q.ShutDown()

	q.Add("default/pod-a")
	q.Add("default/pod-b")
	q.Add("default/pod-a") // already queued: ignored

	for q.Len() > 0 {
		key, _ := q.Get()
		fmt.Println("sync", key)
		q.Forget(key)
		q.Done(key)
	}
	// Output:
	// sync default/pod-a
	// sync default/pod-b
}

// A test that steps a FakeClock sees a delayed item once the clock has
// passed its deadline.
func Example_fakeClock() {
	clock := clocktesting.NewFakeClock(time.Unix(0, 0))
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: clock})
	defer q.ShutDown()

	q.AddAfter("key", time.Minute)
	fmt.Println("before:", q.Len())
	clock.Step(time.Minute)
	fmt.Println("after:", q.Len())
	// Output:
	// before: 0
	// after: 1
}

// The extras are reached with a type assertion on the client-go interface.
func ExampleExtras() {
	var q workqueue.TypedRateLimitingInterface[string] = workqueue.NewTypedRateLimitingQueue[string](nil)
	x := q.(workqueue.Extras[string])

	q.Add("key")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key, err := x.GetContext(ctx)
	fmt.Println(key, err)
	q.Done(key)

	q.ShutDown()
	_, err = x.GetContext(ctx)
	fmt.Println(err)
	// Output:
	// key <nil>
	// actor: queue is shut down
}
