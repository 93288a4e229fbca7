package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Exponential delays each item by Base * 2^failures, capped at Max, with
// optional jitter: client-go's TypedItemExponentialFailureRateLimiter, with
// overflow fixed and jitter added.
//
// Its n-th When for an item (n = 1, 2, ...) returns min(Base * 2^(n-1), Max):
// the first returns Base. The arithmetic is exact integer arithmetic, so once
// Base * 2^(n-1) would exceed Max — including every n past 63, and Max =
// [math.MaxInt64] — When returns Max; it never overflows or goes negative,
// where client-go returns a negative delay from the 64th failure on when Max
// is MaxInt64.
//
// With Jitter > 0, each delay d above gets a uniform extra of up to
// Jitter * d added, so that retries of many items that failed together
// spread out instead of arriving as one spike. Jitter is added after the cap
// (as apimachinery adds it after Backoff.Cap), so a jittered delay may exceed
// Max by up to Jitter * Max; wrap the limiter in [NewWithMaxWait] for a hard
// bound. The sum saturates at MaxInt64.
//
// Forget deletes the item's failure count, and NumRequeues reports it. The
// count is kept until Forget, or until the item has not failed for
// [ExponentialConfig.CoolDown]: see the package doc on memory.
//
// An Exponential is safe for concurrent use by multiple goroutines; its
// methods do not block beyond a short internal lock. Create one with
// [NewExponential]; the zero value is not usable.
type Exponential[T comparable] struct {
	base, max time.Duration
	jitter    float64
	rand      func() float64
	failures  failures[T]
}

// ExponentialConfig configures an [Exponential] limiter.
type ExponentialConfig struct {
	// Base is the first delay. A negative Base is taken as 0, and a Base of
	// 0 makes every delay 0 (client-go's arithmetic).
	Base time.Duration

	// Max caps the un-jittered delay. A negative Max is taken as 0. A Max
	// below Base wins: every delay is Max (client-go's arithmetic).
	Max time.Duration

	// Jitter is the largest extra, as a fraction of the delay, added to each
	// delay. 0 means no jitter; NaN or a negative Jitter is taken as 0.
	// Large values are accepted (+Inf saturates non-zero delays at
	// MaxInt64), but useful ones are small: 0.1 to 1.
	Jitter float64

	// Rand returns a uniform value in [0, 1) for the jitter; values outside
	// [0, 1] are clamped to it (NaN to 0). Nil means [rand.Float64] from
	// math/rand/v2. It must be safe for concurrent use if the limiter is
	// shared. Tests set it to get exact jittered delays.
	Rand func() float64

	// CoolDown, if positive, makes the limiter forget an item's failures
	// once CoolDown has passed since its last failure, as if Forget had
	// been called: its next When returns Base again and NumRequeues
	// reports 0. This bounds the memory of a process whose callers do not
	// always call Forget (see the package doc on memory). 0, the default,
	// keeps failures until Forget, as client-go does; a negative CoolDown
	// is taken as 0.
	CoolDown time.Duration

	// Clock tells the time for CoolDown; nil means the real clock. It is
	// read only when CoolDown is positive.
	Clock Clock
}

// Validate reports, as an error, each value of c that [NewExponential] would
// clamp, and a Base of 0 (no delay at all) or a Max below Base (no growth).
func (c ExponentialConfig) Validate() error {
	var errs []error
	if c.Base <= 0 {
		errs = append(errs, fmt.Errorf("ratelimit: ExponentialConfig.Base = %v; must be > 0", c.Base))
	}
	if c.Max < c.Base {
		errs = append(errs, fmt.Errorf("ratelimit: ExponentialConfig.Max = %v is below Base = %v", c.Max, c.Base))
	}
	if err := validateJitter("ExponentialConfig.Jitter", c.Jitter); err != nil {
		errs = append(errs, err)
	}
	if c.CoolDown < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: ExponentialConfig.CoolDown = %v; must be >= 0", c.CoolDown))
	}
	return errors.Join(errs...)
}

// NewExponential returns an Exponential limiter configured by c, with
// values clamped as documented on [ExponentialConfig]. It never fails; call
// [ExponentialConfig.Validate] first to reject bad values.
//
// client-go's NewTypedItemExponentialFailureRateLimiter(base, max) is
// NewExponential(ExponentialConfig{Base: base, Max: max}) for every
// non-negative base and max.
func NewExponential[T comparable](c ExponentialConfig) *Exponential[T] {
	r := c.Rand
	if r == nil {
		r = rand.Float64
	}
	e := &Exponential[T]{
		base:   max(c.Base, 0),
		max:    max(c.Max, 0),
		jitter: clampJitter(c.Jitter),
		rand:   r,
	}
	e.failures.coolAfter(c.CoolDown, c.Clock)
	return e
}

// When records a failure of item and returns its delay, as described on
// [Exponential].
func (e *Exponential[T]) When(item T) time.Duration {
	d := exponentialDelay(e.base, e.max, e.failures.next(item))
	if e.jitter > 0 {
		d = jitter(d, e.jitter, e.rand())
	}
	return d
}

// Forget deletes item's failure count: its next When returns Base again.
func (e *Exponential[T]) Forget(item T) { e.failures.forget(item) }

// NumRequeues returns the number of failures recorded for item since it was
// last forgotten.
func (e *Exponential[T]) NumRequeues(item T) int { return e.failures.get(item) }

// exponentialDelay returns min(base * 2^exp, max) for non-negative base and
// max, without overflow.
func exponentialDelay(base, max time.Duration, exp int) time.Duration {
	if base == 0 {
		return 0
	}
	// base<<exp > max exactly when base > max>>exp; checking that first
	// keeps base<<exp within max, hence within int64.
	if exp >= 63 || base > max>>exp {
		return max
	}
	return base << exp
}

// clampJitter returns f, or 0 for NaN and negative f.
func clampJitter(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	return f
}

// validateJitter reports a negative, NaN or infinite jitter factor.
func validateJitter(name string, f float64) error {
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("ratelimit: %s = %v; must be finite and >= 0", name, f)
	}
	return nil
}
