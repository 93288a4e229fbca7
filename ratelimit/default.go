package ratelimit

import (
	"time"

	"golang.org/x/time/rate"
)

// DefaultController returns client-go's default controller rate limiter
// (DefaultTypedControllerRateLimiter), composed exactly as client-go does:
//
//	NewMaxOf(
//		NewExponential[T](ExponentialConfig{Base: 5 * time.Millisecond, Max: 1000 * time.Second}),
//		&Bucket[T]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
//	)
//
// Each item backs off exponentially from 5ms to 1000s, and all items share a
// bucket of 10 retries per second with a burst of 100. The bucket uses the
// real clock.
//
// Prefer [Default] for new code: see there why. Each call returns a new,
// independent limiter, safe for concurrent use by multiple goroutines.
func DefaultController[T comparable]() RateLimiter[T] {
	return NewMaxOf[T](
		NewExponential[T](ExponentialConfig{Base: 5 * time.Millisecond, Max: 1000 * time.Second}),
		&Bucket[T]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}

// DefaultJitter is the jitter factor of [Default]: each delay is stretched
// by a uniform random 0 to 20%.
const DefaultJitter = 0.2

// Default returns the rate limiter this package recommends for new code: a
// per-item exponential backoff from 5ms to 1000s with [DefaultJitter], and no
// shared bucket:
//
//	NewExponential[T](ExponentialConfig{Base: 5 * time.Millisecond, Max: 1000 * time.Second, Jitter: DefaultJitter})
//
// Why not [DefaultController]: its bucket is global to the queue. When a
// shared dependency fails, thousands of keys fail together; after the first
// 100, each retry takes the next token of a 10-per-second bucket, so the
// 1000th key waits 90 seconds and the 10000th about 17 minutes, however
// few times each key itself failed. Keys that would succeed now are held
// back behind keys that keep failing, and the queue looks stuck.
// controller-runtime's priority queue dropped the bucket for this reason:
// its default is the per-item exponential 5ms to 1000s alone. Per-item backoff already slows down every key that keeps
// failing; the jitter keeps the retries of keys that failed together from
// arriving as one spike. Callers who want a global ceiling can add a Bucket
// of their own with [NewMaxOf], sized to what the dependency can take.
//
// Delays lie between min(5ms * 2^(n-1), 1000s) and 1.2 times that for the
// n-th failure of an item. Each call returns a new, independent limiter,
// safe for concurrent use by multiple goroutines.
func Default[T comparable]() RateLimiter[T] {
	return NewExponential[T](ExponentialConfig{
		Base:   5 * time.Millisecond,
		Max:    1000 * time.Second,
		Jitter: DefaultJitter,
	})
}
