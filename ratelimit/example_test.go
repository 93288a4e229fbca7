package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/actorq/actorq/ratelimit"
)

// stoppedClock is a Clock that never moves, so the example's output is exact.
type stoppedClock struct{ t time.Time }

func (c stoppedClock) Now() time.Time { return c.t }

func ExampleBucket() {
	// 10 retries per second, in bursts of up to 3, shared by all items.
	b := &ratelimit.Bucket[string]{
		Limiter: rate.NewLimiter(10, 3),
		Clock:   stoppedClock{time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, item := range []string{"a", "b", "c", "a", "d", "e"} {
		fmt.Printf("When(%q) = %v\n", item, b.When(item))
	}
	fmt.Println("NumRequeues(\"a\") =", b.NumRequeues("a"))
	// Output:
	// When("a") = 0s
	// When("b") = 0s
	// When("c") = 0s
	// When("a") = 100ms
	// When("d") = 200ms
	// When("e") = 300ms
	// NumRequeues("a") = 0
}

func ExampleExponential() {
	l := ratelimit.NewExponential[string](ratelimit.ExponentialConfig{
		Base: 5 * time.Millisecond,
		Max:  time.Second,
	})
	var delays []time.Duration
	for range 9 {
		delays = append(delays, l.When("pod/a"))
	}
	fmt.Println(delays)
	fmt.Println("NumRequeues:", l.NumRequeues("pod/a"))

	// After a successful sync, the controller forgets the item.
	l.Forget("pod/a")
	fmt.Println("after Forget:", l.When("pod/a"))
	// Output:
	// [5ms 10ms 20ms 40ms 80ms 160ms 320ms 640ms 1s]
	// NumRequeues: 9
	// after Forget: 5ms
}

func ExampleExponentialConfig_Validate() {
	c := ratelimit.ExponentialConfig{Base: time.Second, Max: time.Millisecond}
	fmt.Println(c.Validate())
	// NewExponential accepts it anyway, as client-go does: Max wins.
	fmt.Println(ratelimit.NewExponential[string](c).When("a"))
	// Output:
	// ratelimit: ExponentialConfig.Max = 1ms is below Base = 1s
	// 1ms
}

func ExampleBackoff() {
	// Without jitter, the sequence is exact.
	b := ratelimit.Backoff{Duration: time.Second, Factor: 2, Steps: 3, Cap: 3 * time.Second}
	var delays []time.Duration
	for range 5 {
		delays = append(delays, b.Step())
	}
	fmt.Println(delays)

	// With jitter, each delay is stretched by up to half of itself; the
	// sequence underneath is unchanged.
	b = ratelimit.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: 3}
	for range 5 {
		base := b.Duration
		d := b.Step()
		fmt.Printf("%v <= delay < %v: %v\n", base, base+base/2, base <= d && d < base+base/2)
	}
	// Output:
	// [1s 2s 3s 3s 3s]
	// 1s <= delay < 1.5s: true
	// 2s <= delay < 3s: true
	// 4s <= delay < 6s: true
	// 8s <= delay < 12s: true
	// 8s <= delay < 12s: true
}

func ExampleJitter() {
	// 100 clients that would all retry after 10s spread over 10s to 12s.
	lo, hi := time.Duration(1<<63-1), time.Duration(0)
	for range 100 {
		d := ratelimit.Jitter(10*time.Second, 0.2)
		lo, hi = min(lo, d), max(hi, d)
	}
	fmt.Println(lo >= 10*time.Second, hi < 12*time.Second, lo != hi)
	// Output: true true true
}

func ExampleBackoffUntil() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// A watch that fails three times, then succeeds and stops the loop.
	m := ratelimit.NewManager(ratelimit.ManagerConfig{
		Backoff:    ratelimit.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 10, Cap: 10 * time.Millisecond},
		ResetAfter: time.Minute,
	})
	attempt := 0
	watch := func(ctx context.Context) error {
		attempt++
		if attempt <= 3 {
			return errors.New("connection refused")
		}
		cancel()
		return nil
	}
	next := func() time.Duration {
		d := m.Next()
		fmt.Println("retrying in", d)
		return d
	}
	ratelimit.BackoffUntil(ctx, func(ctx context.Context) {
		if err := watch(ctx); err != nil {
			fmt.Printf("attempt %d: %v\n", attempt, err)
		}
	}, next, ratelimit.Sliding)
	fmt.Println("stopped after", attempt, "attempts")
	// Output:
	// attempt 1: connection refused
	// retrying in 1ms
	// attempt 2: connection refused
	// retrying in 2ms
	// attempt 3: connection refused
	// retrying in 4ms
	// stopped after 4 attempts
}

func ExampleDefault() {
	// Default backs off per item, with up to 20% jitter and no shared
	// bucket.
	l := ratelimit.Default[string]()
	d := l.When("a")
	fmt.Println(d >= 5*time.Millisecond && d < 6*time.Millisecond, l.NumRequeues("a"))
	// Output: true 1
}
