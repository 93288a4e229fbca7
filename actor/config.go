package actor

import "time"

// Config configures a queue. The zero value is a valid configuration: an
// unnamed FIFO queue on the real clock, with client-go's default controller
// rate limiter and no metrics. Zero fields mean "default".
type Config[T comparable] struct {
	// Name names the queue in metrics. An unnamed queue records no metrics.
	Name string

	// Clock is used for delays and metrics. Nil means the real clock.
	Clock Clock

	// RateLimiter decides the delays of [Queue.AddRateLimited] and answers
	// [Queue.NumRequeues] and [Queue.Forget]. It is called in the caller's
	// goroutine, never in the owner goroutine, and must be safe for
	// concurrent use. Nil means client-go's default controller limiter
	// (see ratelimit.DefaultController).
	RateLimiter RateLimiter[T]

	// MetricsProvider makes the queue's metrics when Name is set. Nil means
	// the provider given to [SetProvider], if any.
	MetricsProvider MetricsProvider

	// Storage holds the ready items in hand-out order. Nil means a FIFO
	// ring buffer that shrinks again after a burst. A Storage sees
	// client-go's calls (see [Storage]), so a queue with one hands out
	// every item through its owner goroutine: Get makes a round trip to
	// it, and every duplicate Add reaches it.
	Storage Storage[T]
}

// A RateLimiter tells how long an item should wait before it is retried.
// The implementations, and client-go's, are in package ratelimit.
type RateLimiter[T comparable] interface {
	// When returns how long to wait before retrying item, and records the
	// failure.
	When(item T) time.Duration
	// Forget clears item's history.
	Forget(item T)
	// NumRequeues returns how many failures of item are recorded.
	NumRequeues(item T) int
}
