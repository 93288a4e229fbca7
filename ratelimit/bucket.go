package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"
)

// Bucket is a token bucket shared by all items, over [rate.Limiter]: each
// When takes one token, and waits for it if the bucket is empty. It is
// client-go's TypedBucketRateLimiter, and like it may be built as a struct
// literal:
//
//	&ratelimit.Bucket[string]{Limiter: rate.NewLimiter(10, 100)}
//
// With 10 tokens per second and a burst of 100, the first 100 calls of When
// at one instant return 0 and the next ones 100ms, 200ms, 300ms, and so on:
// every call reserves a token for good, whether or not the item is ever
// retried.
//
// A Bucket keeps no per-item state: Forget does nothing and NumRequeues is
// always 0. It is safe for concurrent use by multiple goroutines, as
// [rate.Limiter] is, and When does not block beyond the limiter's lock.
//
// Because the bucket is shared by all items, a bucket of 10 per second
// with a burst of 100 delays the retry of the 1000th item that fails at the same time by
// 90 seconds, however healthy that item's own history; see [Default].
type Bucket[T comparable] struct {
	// Limiter is the token bucket. A nil Limiter does not limit: When
	// returns 0. Its methods (Limit, SetLimit, ...) are promoted, as in
	// client-go.
	*rate.Limiter

	// Clock is the time at which When reserves a token and from which the
	// delay is measured. A nil Clock means the real clock.
	Clock Clock
}

// BucketConfig configures a [Bucket] built by [NewBucket].
type BucketConfig struct {
	// Limit is the refill rate in tokens per second; rate.Inf means no
	// limit. NaN or a negative Limit is taken as 0: after the burst is
	// spent, every When returns [rate.InfDuration].
	Limit rate.Limit

	// Burst is the bucket size. Below 1 it is taken as 1, the least that
	// lets a finite Limit grant a token at all.
	Burst int

	// Clock is the Bucket's clock; nil means the real clock.
	Clock Clock
}

// Validate reports, as an error, each value of c that [NewBucket] would
// clamp, and Limit 0 (the bucket would never refill). It returns nil for a
// bucket that refills and grants one token at a time.
func (c BucketConfig) Validate() error {
	var errs []error
	if math.IsNaN(float64(c.Limit)) || c.Limit <= 0 {
		errs = append(errs, fmt.Errorf("ratelimit: BucketConfig.Limit = %v; must be > 0", float64(c.Limit)))
	}
	if c.Burst < 1 && c.Limit != rate.Inf {
		errs = append(errs, fmt.Errorf("ratelimit: BucketConfig.Burst = %d; must be >= 1", c.Burst))
	}
	return errors.Join(errs...)
}

// NewBucket returns a Bucket with a new [rate.Limiter] of c.Limit and
// c.Burst, clamped as documented on [BucketConfig]. The bucket starts full.
// It never fails; call [BucketConfig.Validate] first to reject bad values.
func NewBucket[T comparable](c BucketConfig) *Bucket[T] {
	limit := c.Limit
	if math.IsNaN(float64(limit)) || limit < 0 {
		limit = 0
	}
	return &Bucket[T]{Limiter: rate.NewLimiter(limit, max(c.Burst, 1)), Clock: c.Clock}
}

// When reserves one token at the Clock's current time and returns how long
// until it is available: 0 while the bucket holds a token, and
// [rate.InfDuration] if the limiter can never grant one (burst 0, or limit 0
// with the bucket empty). The item is ignored.
func (b *Bucket[T]) When(T) time.Duration {
	if b.Limiter == nil {
		return 0
	}
	t := now(b.Clock)
	d := b.Limiter.ReserveN(t, 1).DelayFrom(t)
	if d < 0 { // rate's float-to-Duration conversion can wrap at 2^63
		return rate.InfDuration
	}
	return d
}

// Forget does nothing: a Bucket keeps no per-item state.
func (b *Bucket[T]) Forget(T) {}

// NumRequeues returns 0: a Bucket keeps no per-item state.
func (b *Bucket[T]) NumRequeues(T) int { return 0 }
