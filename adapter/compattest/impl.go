// Package compattest holds behaviour cases for client-go's workqueue API,
// run against any implementation of it: client-go's own and actorq's
// adapter. Cases are exported because _test.go files cannot be imported,
// as in testing/fstest.
//
// Each case states client-go's behaviour; where the adapter differs on
// purpose, the case asserts both sides, switched on [Impl.Fixed].
package compattest

import (
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Limiter is the rate limiter type every case uses.
type Limiter = workqueue.TypedRateLimiter[string]

// An Impl builds the queues and limiters of one implementation.
type Impl struct {
	// Name names the implementation in t.Run.
	Name string

	// Fixed reports whether the implementation has actorq's intended fixes
	// (the adapter) or client-go's behaviour.
	Fixed bool

	// NewQueue returns a rate-limiting queue of strings.
	NewQueue func(l Limiter, cfg workqueue.TypedRateLimitingQueueConfig[string]) workqueue.TypedRateLimitingInterface[string]

	// The limiter constructors, with client-go's names without "Typed".
	Exponential func(base, max time.Duration) Limiter
	FastSlow    func(fast, slow time.Duration, maxFast int) Limiter
	MaxOf       func(ls ...Limiter) Limiter
	WithMaxWait func(l Limiter, max time.Duration) Limiter
	ItemBased   func() Limiter
	Controller  func() Limiter
}
