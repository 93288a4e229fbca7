// Command migrate is a small controller written against client-go's
// workqueue API, in the shape of client-go's examples/workqueue. The only
// change that moved it onto actorq is its import line:
//
//   - "k8s.io/client-go/util/workqueue"
//   - workqueue "github.com/actorq/actorq/adapter"
//
// It syncs 20 keys with 2 workers; every fifth key fails twice before it
// syncs, and is retried with the queue's rate limiter. It ends by itself
// once every key is synced.
package main

import (
	"errors"
	"fmt"
	"sync"
	"time"

	workqueue "github.com/actorq/actorq/adapter"
)

// Controller syncs keys taken from its queue.
type Controller struct {
	queue workqueue.TypedRateLimitingInterface[string]

	mu       sync.Mutex
	attempts map[string]int
	synced   map[string]bool
	pending  sync.WaitGroup
}

func NewController() *Controller {
	return &Controller{
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 50*time.Millisecond),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "migrate"},
		),
		attempts: map[string]int{},
		synced:   map[string]bool{},
	}
}

// processNextItem is client-go's example loop body.
func (c *Controller) processNextItem() bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	c.handleErr(c.sync(key), key)
	return true
}

func (c *Controller) sync(key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts[key]++
	var n int
	fmt.Sscanf(key, "key-%d", &n)
	if n%5 == 0 && c.attempts[key] <= 2 {
		return errors.New("backend not ready")
	}
	if !c.synced[key] {
		c.synced[key] = true
		c.pending.Done()
	}
	return nil
}

func (c *Controller) handleErr(err error, key string) {
	if err == nil {
		c.queue.Forget(key)
		return
	}
	if c.queue.NumRequeues(key) < 5 {
		fmt.Printf("error syncing %s (retry %d): %v\n", key, c.queue.NumRequeues(key)+1, err)
		c.queue.AddRateLimited(key)
		return
	}
	c.queue.Forget(key)
	fmt.Printf("dropping %s: %v\n", key, err)
}

// Run starts workers and returns a function that stops them.
func (c *Controller) Run(workers int) (stop func()) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNextItem() {
			}
		})
	}
	return func() {
		c.queue.ShutDown()
		wg.Wait()
	}
}

func main() {
	c := NewController()
	stop := c.Run(2)
	const keys = 20
	c.pending.Add(keys)
	for i := range keys {
		c.queue.Add(fmt.Sprintf("key-%02d", i))
	}
	c.pending.Wait()
	stop()

	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range c.attempts {
		total += n
	}
	fmt.Printf("synced %d keys in %d attempts\n", len(c.synced), total)
}
