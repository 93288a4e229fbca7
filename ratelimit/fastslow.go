package ratelimit

import (
	"errors"
	"fmt"
	"time"
)

// FastSlow delays each item by Fast for its first MaxFast failures and by
// Slow after that: client-go's TypedItemFastSlowRateLimiter. With Fast 5ms,
// Slow 10s and MaxFast 3, an item's delays are 5ms, 5ms, 5ms, 10s, 10s, ...
//
// Forget deletes the item's failure count, and NumRequeues reports it. The
// count is kept until Forget, or until the item has not failed for
// [FastSlowConfig.CoolDown]: see the package doc on memory.
//
// A FastSlow is safe for concurrent use by multiple goroutines; its methods
// do not block beyond a short internal lock. Create one with [NewFastSlow];
// the zero value is not usable.
type FastSlow[T comparable] struct {
	fast, slow time.Duration
	maxFast    int
	failures   failures[T]
}

// FastSlowConfig configures a [FastSlow] limiter.
type FastSlowConfig struct {
	// Fast is the delay of the first MaxFast failures. A negative Fast is
	// taken as 0.
	Fast time.Duration

	// Slow is the delay of every later failure. A negative Slow is taken
	// as 0. A Slow below Fast is accepted as given.
	Slow time.Duration

	// MaxFast is the number of failures delayed by Fast. A negative MaxFast
	// is taken as 0: every delay is Slow.
	MaxFast int

	// CoolDown, if positive, makes the limiter forget an item's failures
	// once CoolDown has passed since its last failure, as if Forget had
	// been called: its next When returns Fast again (if MaxFast > 0) and
	// NumRequeues reports 0. 0, the default, keeps failures until Forget,
	// as client-go does; a negative CoolDown is taken as 0.
	CoolDown time.Duration

	// Clock tells the time for CoolDown; nil means the real clock. It is
	// read only when CoolDown is positive.
	Clock Clock
}

// Validate reports, as an error, each value of c that [NewFastSlow] would
// clamp.
func (c FastSlowConfig) Validate() error {
	var errs []error
	if c.Fast < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: FastSlowConfig.Fast = %v; must be >= 0", c.Fast))
	}
	if c.Slow < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: FastSlowConfig.Slow = %v; must be >= 0", c.Slow))
	}
	if c.MaxFast < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: FastSlowConfig.MaxFast = %d; must be >= 0", c.MaxFast))
	}
	if c.CoolDown < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: FastSlowConfig.CoolDown = %v; must be >= 0", c.CoolDown))
	}
	return errors.Join(errs...)
}

// NewFastSlow returns a FastSlow limiter configured by c, with values
// clamped as documented on [FastSlowConfig]. It never fails; call
// [FastSlowConfig.Validate] first to reject bad values.
//
// client-go's NewTypedItemFastSlowRateLimiter(fast, slow, maxFast) is
// NewFastSlow(FastSlowConfig{Fast: fast, Slow: slow, MaxFast: maxFast}) for
// every non-negative argument.
func NewFastSlow[T comparable](c FastSlowConfig) *FastSlow[T] {
	f := &FastSlow[T]{fast: max(c.Fast, 0), slow: max(c.Slow, 0), maxFast: max(c.MaxFast, 0)}
	f.failures.coolAfter(c.CoolDown, c.Clock)
	return f
}

// When records a failure of item and returns Fast if it is one of the first
// MaxFast failures since the item was last forgotten, Slow otherwise.
func (f *FastSlow[T]) When(item T) time.Duration {
	if f.failures.next(item) < f.maxFast {
		return f.fast
	}
	return f.slow
}

// Forget deletes item's failure count: its next When returns Fast again
// (if MaxFast > 0).
func (f *FastSlow[T]) Forget(item T) { f.failures.forget(item) }

// NumRequeues returns the number of failures recorded for item since it was
// last forgotten.
func (f *FastSlow[T]) NumRequeues(item T) int { return f.failures.get(item) }
