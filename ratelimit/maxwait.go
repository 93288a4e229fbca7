package ratelimit

import "time"

// WithMaxWait caps the delays of another limiter: When returns the inner
// limiter's delay, or the maximum wait if that is shorter. Forget and
// NumRequeues pass through. It is client-go's TypedWithMaxWaitRateLimiter.
//
// A WithMaxWait is safe for concurrent use by multiple goroutines if the
// inner limiter is; it blocks only as long as the inner limiter does.
// Create one with [NewWithMaxWait]; the zero value delays nothing.
type WithMaxWait[T comparable] struct {
	limiter RateLimiter[T]
	maxWait time.Duration
}

// NewWithMaxWait returns limiter with its delays capped at maxWait. A
// negative maxWait is taken as 0: every delay is 0, as with maxWait 0. A nil
// limiter delays nothing: When returns 0, NumRequeues 0, Forget does
// nothing. It never fails.
//
// client-go's NewTypedWithMaxWaitRateLimiter(limiter, maxDelay) is
// NewWithMaxWait(limiter, maxDelay) for every non-nil limiter and
// non-negative maxDelay.
func NewWithMaxWait[T comparable](limiter RateLimiter[T], maxWait time.Duration) *WithMaxWait[T] {
	return &WithMaxWait[T]{limiter: limiter, maxWait: max(maxWait, 0)}
}

// When returns the inner limiter's delay for item, capped at the maximum
// wait. A negative delay from the inner limiter counts as 0.
func (w *WithMaxWait[T]) When(item T) time.Duration {
	if w.limiter == nil {
		return 0
	}
	return min(max(w.limiter.When(item), 0), w.maxWait)
}

// Forget calls the inner limiter's Forget.
func (w *WithMaxWait[T]) Forget(item T) {
	if w.limiter != nil {
		w.limiter.Forget(item)
	}
}

// NumRequeues returns the inner limiter's NumRequeues.
func (w *WithMaxWait[T]) NumRequeues(item T) int {
	if w.limiter == nil {
		return 0
	}
	return w.limiter.NumRequeues(item)
}
