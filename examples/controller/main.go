// Command controller is a worker-pool controller in the canonical shape of
// a Kubernetes controller, on an actorq queue.
//
// Several workers take keys from the queue. Each key is "reconciled" by
// simulated flaky work: some keys fail a few times before they succeed,
// some fail every time. A failed key is retried with AddRateLimited while
// NumRequeues < maxRetries, then forgotten and reported as given up. A
// producer keeps re-adding keys meanwhile, as informer events would. When
// every key has settled, the program shuts the queue down, waits for the
// workers and exits; it exits non-zero if any key was lost.
//
// Run it with:
//
//	go run ./examples/controller
package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"sync"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/ratelimit"
)

const (
	workers    = 4
	keys       = 40
	maxRetries = 5
)

// flaky reports how many times the reconcile of key fails before it
// succeeds; keys whose hash ends in 0 mod 13 never succeed.
func flaky(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	v := h.Sum32()
	if v%13 == 0 {
		return 1 << 30
	}
	return int(v % 4)
}

type controller struct {
	q        *actor.Queue[string]
	mu       sync.Mutex
	attempts map[string]int
	settled  map[string]string // key -> "ok" or "gave up"
	busy     sync.Map          // key -> struct{}: a key held by a worker
}

func (c *controller) reconcile(key string) error {
	if _, loaded := c.busy.LoadOrStore(key, struct{}{}); loaded {
		log.Fatalf("BUG: %s reconciled by two workers at once", key)
	}
	defer c.busy.Delete(key)
	time.Sleep(2 * time.Millisecond) // the work
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts[key]++
	if c.attempts[key] <= flaky(key) {
		return errors.New("transient failure")
	}
	return nil
}

// processNextItem is the canonical worker step: Get, reconcile, then Forget
// on success, AddRateLimited on a retryable failure, or give up.
func (c *controller) processNextItem(worker int) bool {
	key, shutdown := c.q.Get()
	if shutdown {
		return false
	}
	defer c.q.Done(key)
	err := c.reconcile(key)
	switch {
	case err == nil:
		log.Printf("worker %d: %-7s reconciled after %d attempt(s)", worker, key, c.q.NumRequeues(key)+1)
		c.q.Forget(key)
		c.settle(key, "ok")
	case c.q.NumRequeues(key) < maxRetries:
		log.Printf("worker %d: %-7s failed (%v), retry %d", worker, key, err, c.q.NumRequeues(key)+1)
		c.q.AddRateLimited(key)
	default:
		c.q.Forget(key)
		c.settle(key, "gave up")
		log.Printf("worker %d: %-7s gave up after %d retries: %v", worker, key, maxRetries, err)
	}
	return true
}

func (c *controller) settle(key, how string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settled[key] = how
}

func (c *controller) settledCount() (ok, gaveUp int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, how := range c.settled {
		if how == "ok" {
			ok++
		} else {
			gaveUp++
		}
	}
	return ok, gaveUp
}

func main() {
	log.SetFlags(log.Lmicroseconds)
	c := &controller{
		q: actor.New(actor.Config[string]{
			Name:        "example",
			RateLimiter: ratelimit.NewExponential[string](ratelimit.ExponentialConfig{Base: 10 * time.Millisecond, Max: time.Second}),
		}),
		attempts: map[string]int{},
		settled:  map[string]string{},
	}

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for c.processNextItem(w) {
			}
		})
	}

	// The informer: every key is added, then re-added a few times as if
	// updates arrived; duplicates of a waiting key are absorbed by the queue.
	for round := range 3 {
		for i := range keys {
			c.q.Add(fmt.Sprintf("key-%02d", i))
		}
		log.Printf("informer: round %d of %d keys added", round+1, keys)
		time.Sleep(20 * time.Millisecond)
	}

	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, gaveUp := c.settledCount()
		if ok+gaveUp == keys {
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.q.ShutDownWithDrain()
	wg.Wait()

	ok, gaveUp := c.settledCount()
	fmt.Printf("done: %d keys reconciled, %d given up after %d retries, %d lost\n", ok, gaveUp, maxRetries, keys-ok-gaveUp)
	if ok+gaveUp != keys {
		os.Exit(1)
	}
}
