package ratelimit

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock is a Clock that moves only when stepped.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixedRand returns a Rand func that returns us in turn, repeating the last.
func fixedRand(us ...float64) func() float64 {
	var mu sync.Mutex
	i := 0
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		u := us[min(i, len(us)-1)]
		i++
		return u
	}
}

// recorder is a RateLimiter that returns a fixed delay and count and
// records the calls it gets.
type recorder struct {
	delay    time.Duration
	requeues int

	mu      sync.Mutex
	whens   []string
	forgets []string
}

func (r *recorder) When(item string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.whens = append(r.whens, item)
	return r.delay
}

func (r *recorder) Forget(item string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgets = append(r.forgets, item)
}

func (r *recorder) NumRequeues(string) int { return r.requeues }

// ms is shorthand for n milliseconds.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// Every limiter of the package is a RateLimiter.
var (
	_ RateLimiter[string] = (*Bucket[string])(nil)
	_ RateLimiter[string] = (*Exponential[string])(nil)
	_ RateLimiter[string] = (*FastSlow[string])(nil)
	_ RateLimiter[string] = (*MaxOf[string])(nil)
	_ RateLimiter[string] = (*WithMaxWait[string])(nil)
)
