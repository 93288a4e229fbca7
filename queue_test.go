// End-to-end tests of the whole stack (actor and ratelimit) through their
// public APIs only.
package actorq_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/ratelimit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestControllerRetries runs the canonical controller loop with client-go's
// default limiter and checks the exact retry schedule: 5ms, 10ms, 20ms, ...
func TestControllerRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{RateLimiter: ratelimit.DefaultController[string]()})
		start := time.Now()
		var starts []time.Duration
		q.Add("key")
		for range 5 {
			key, shutdown := q.Get()
			if shutdown || key != "key" {
				t.Fatalf("Get() = %q, %v; want key, false", key, shutdown)
			}
			starts = append(starts, time.Since(start))
			q.AddRateLimited(key) // the reconcile failed
			q.Done(key)
		}
		q.Forget("key")
		if got := q.NumRequeues("key"); got != 0 {
			t.Fatalf("NumRequeues() after Forget = %d; want 0", got)
		}
		q.ShutDown()
		want := []time.Duration{0, 5 * time.Millisecond, 15 * time.Millisecond, 35 * time.Millisecond, 75 * time.Millisecond}
		if fmt.Sprint(starts) != fmt.Sprint(want) {
			t.Fatalf("processing started at %v; want %v", starts, want)
		}
	})
}

// TestWorkerPool runs a pool of workers over keys that fail a few times,
// with the recommended limiter, and checks that every key ends reconciled
// exactly once after its last failure and that ShutDownWithDrain returns.
func TestWorkerPool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[int]{RateLimiter: ratelimit.Default[int]()})
		const keys, failures = 100, 3
		var (
			mu        sync.Mutex
			attempts  = map[int]int{}
			succeeded = map[int]int{}
			wg        sync.WaitGroup
		)
		for range 4 {
			wg.Go(func() {
				for {
					k, shutdown := q.Get()
					if shutdown {
						return
					}
					time.Sleep(time.Millisecond)
					mu.Lock()
					attempts[k]++
					failed := attempts[k] <= failures
					if !failed {
						succeeded[k]++
					}
					mu.Unlock()
					if failed {
						q.AddRateLimited(k)
					} else {
						q.Forget(k)
					}
					q.Done(k)
				}
			})
		}
		for k := range keys {
			q.Add(k)
		}
		time.Sleep(10 * time.Second) // fake time: far beyond 3 jittered retries
		synctest.Wait()
		q.ShutDownWithDrain()
		wg.Wait()
		for k := range keys {
			if attempts[k] != failures+1 || succeeded[k] != 1 {
				t.Fatalf("key %d: %d attempts, %d successes; want %d, 1", k, attempts[k], succeeded[k], failures+1)
			}
		}
	})
}
