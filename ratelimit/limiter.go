package ratelimit

import "time"

// A RateLimiter decides how long an item waits before it is retried.
//
// Implementations in this package are safe for concurrent use by multiple
// goroutines, and none of their methods blocks beyond a short internal lock.
type RateLimiter[T comparable] interface {
	// When records a failure of item and returns how long to wait before
	// retrying it. The result is never negative.
	When(item T) time.Duration
	// Forget makes the limiter forget item: it stops tracking its failures,
	// and its next When starts from the beginning. Limiters that keep no
	// per-item state (a token bucket) do nothing.
	Forget(item T)
	// NumRequeues reports how many failures of item the limiter has
	// recorded since it was last forgotten.
	NumRequeues(item T) int
}

// A Clock tells the current time. k8s.io/utils/clock.Clock (real and fake)
// satisfies it. A nil Clock means the real clock, [time.Now].
//
// Implementations must be safe for concurrent use when the limiter using
// them is shared.
type Clock interface {
	Now() time.Time
}

// now returns c.Now(), or time.Now() for a nil c.
func now(c Clock) time.Time {
	if c == nil {
		return time.Now()
	}
	return c.Now()
}
