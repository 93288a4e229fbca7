package adapter

import (
	"time"

	"github.com/actorq/actorq/ratelimit"
	"k8s.io/client-go/util/workqueue"
)

// The limiters are package ratelimit's, which return client-go's delays to
// the nanosecond except where client-go's arithmetic goes wrong: a delay is
// never negative, and exponential growth saturates at the maximum instead
// of overflowing (see the package doc). The limiter types are aliases of
// ratelimit's, so a type assertion on a limiter from these constructors
// succeeds, except TypedBucketRateLimiter: users build it as a struct
// literal, so it is client-go's own type.

// TypedBucketRateLimiter is client-go's token bucket shared by all items,
// built as a struct literal:
//
//	&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(10, 100)}
//
// It is client-go's type itself, so literals of either package are the
// same value. Package ratelimit's Bucket is the same limiter with a clock.
type TypedBucketRateLimiter[T comparable] = workqueue.TypedBucketRateLimiter[T]

// BucketRateLimiter is an untyped TypedBucketRateLimiter.
//
// Deprecated: use TypedBucketRateLimiter instead.
type BucketRateLimiter = TypedBucketRateLimiter[any]

// TypedItemExponentialFailureRateLimiter delays an item by
// baseDelay*2^failures, capped at maxDelay: package ratelimit's Exponential.
type TypedItemExponentialFailureRateLimiter[T comparable] = ratelimit.Exponential[T]

// ItemExponentialFailureRateLimiter is an untyped
// TypedItemExponentialFailureRateLimiter.
//
// Deprecated: use TypedItemExponentialFailureRateLimiter instead.
type ItemExponentialFailureRateLimiter = TypedItemExponentialFailureRateLimiter[any]

// TypedItemFastSlowRateLimiter delays an item by a fast delay for its first
// failures and by a slow one after: package ratelimit's FastSlow.
type TypedItemFastSlowRateLimiter[T comparable] = ratelimit.FastSlow[T]

// ItemFastSlowRateLimiter is an untyped TypedItemFastSlowRateLimiter.
//
// Deprecated: use TypedItemFastSlowRateLimiter instead.
type ItemFastSlowRateLimiter = TypedItemFastSlowRateLimiter[any]

// TypedMaxOfRateLimiter returns the longest delay of several limiters:
// package ratelimit's MaxOf.
type TypedMaxOfRateLimiter[T comparable] = ratelimit.MaxOf[T]

// MaxOfRateLimiter is an untyped TypedMaxOfRateLimiter.
//
// Deprecated: use TypedMaxOfRateLimiter instead.
type MaxOfRateLimiter = TypedMaxOfRateLimiter[any]

// TypedWithMaxWaitRateLimiter caps the delays of another limiter: package
// ratelimit's WithMaxWait. Its methods have pointer receivers, where
// client-go's have value receivers; the constructors return a pointer in
// both packages.
type TypedWithMaxWaitRateLimiter[T comparable] = ratelimit.WithMaxWait[T]

// WithMaxWaitRateLimiter is an untyped TypedWithMaxWaitRateLimiter.
//
// Deprecated: use TypedWithMaxWaitRateLimiter instead.
type WithMaxWaitRateLimiter = TypedWithMaxWaitRateLimiter[any]

// DefaultTypedControllerRateLimiter returns client-go's default controller
// limiter: per item, exponential from 5ms to 1000s; over all items, a token
// bucket of 10 per second with a burst of 100 (ratelimit.DefaultController).
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return ratelimit.DefaultController[T]()
}

// DefaultControllerRateLimiter returns an untyped
// DefaultTypedControllerRateLimiter.
//
// Deprecated: use DefaultTypedControllerRateLimiter instead.
func DefaultControllerRateLimiter() RateLimiter { return DefaultTypedControllerRateLimiter[any]() }

// DefaultTypedItemBasedRateLimiter returns client-go's per-item limiter:
// exponential from 1ms to 1000s.
func DefaultTypedItemBasedRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedItemExponentialFailureRateLimiter[T](time.Millisecond, 1000*time.Second)
}

// DefaultItemBasedRateLimiter returns an untyped
// DefaultTypedItemBasedRateLimiter.
//
// Deprecated: use DefaultTypedItemBasedRateLimiter instead.
func DefaultItemBasedRateLimiter() RateLimiter { return DefaultTypedItemBasedRateLimiter[any]() }

// NewTypedItemExponentialFailureRateLimiter returns a limiter whose n-th
// delay of an item (n = 1, 2, ...) is min(baseDelay*2^(n-1), maxDelay),
// never negative: negative arguments are taken as 0.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay time.Duration, maxDelay time.Duration) TypedRateLimiter[T] {
	return ratelimit.NewExponential[T](ratelimit.ExponentialConfig{Base: baseDelay, Max: maxDelay})
}

// NewItemExponentialFailureRateLimiter returns an untyped
// NewTypedItemExponentialFailureRateLimiter.
//
// Deprecated: use NewTypedItemExponentialFailureRateLimiter instead.
func NewItemExponentialFailureRateLimiter(baseDelay time.Duration, maxDelay time.Duration) RateLimiter {
	return NewTypedItemExponentialFailureRateLimiter[any](baseDelay, maxDelay)
}

// NewTypedItemFastSlowRateLimiter returns a limiter that delays an item by
// fastDelay for its first maxFastAttempts failures and by slowDelay after.
// Negative arguments are taken as 0.
func NewTypedItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) TypedRateLimiter[T] {
	return ratelimit.NewFastSlow[T](ratelimit.FastSlowConfig{Fast: fastDelay, Slow: slowDelay, MaxFast: maxFastAttempts})
}

// NewItemFastSlowRateLimiter returns an untyped
// NewTypedItemFastSlowRateLimiter.
//
// Deprecated: use NewTypedItemFastSlowRateLimiter instead.
func NewItemFastSlowRateLimiter(fastDelay, slowDelay time.Duration, maxFastAttempts int) RateLimiter {
	return NewTypedItemFastSlowRateLimiter[any](fastDelay, slowDelay, maxFastAttempts)
}

// NewTypedMaxOfRateLimiter returns a limiter that consults every limiter
// and returns the longest delay and the largest NumRequeues. Nil limiters
// are skipped (client-go would panic on them).
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	rs := make([]ratelimit.RateLimiter[T], len(limiters))
	for i, l := range limiters {
		rs[i] = l
	}
	return ratelimit.NewMaxOf(rs...)
}

// NewMaxOfRateLimiter returns an untyped NewTypedMaxOfRateLimiter.
//
// Deprecated: use NewTypedMaxOfRateLimiter instead.
func NewMaxOfRateLimiter(limiters ...TypedRateLimiter[any]) RateLimiter {
	return NewTypedMaxOfRateLimiter(limiters...)
}

// NewTypedWithMaxWaitRateLimiter returns limiter with its delays capped at
// maxDelay.
func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	return ratelimit.NewWithMaxWait[T](limiter, maxDelay)
}

// NewWithMaxWaitRateLimiter returns an untyped
// NewTypedWithMaxWaitRateLimiter.
//
// Deprecated: use NewTypedWithMaxWaitRateLimiter instead.
func NewWithMaxWaitRateLimiter(limiter RateLimiter, maxDelay time.Duration) RateLimiter {
	return NewTypedWithMaxWaitRateLimiter[any](limiter, maxDelay)
}
