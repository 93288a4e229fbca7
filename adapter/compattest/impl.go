// Package compattest holds behaviour cases for client-go's workqueue API,
// run against any implementation of it: client-go's own and actorq's
// adapter. Cases are exported because _test.go files cannot be imported,
// as in testing/fstest.
//
// Each case states client-go's behaviour and asserts it on every
// implementation. Where the adapter differs on purpose, and only for the
// differences listed in ARCHITECTURE.md ("Intended differences from client-go and controller-runtime"),
// a case named Diff... asserts both sides, switched on [Impl.Fixed], and
// names the difference's number on that list.
//
// Every case but the limiter sequences runs inside a testing/synctest
// bubble, queue and FakeClock included. client-go's goroutines (the
// delaying queue's waiting loop, the metrics ticker) block on channels and
// conditions made in the bubble, so synctest.Wait tells when they have
// caught up with a FakeClock step, and a check that something has not
// happened (a drain still blocked, a gauge not refreshed) is made once
// every goroutine of the bubble is durably blocked, never after a guess of
// how long to wait. [Concurrency] runs in real time, for -race.
//
// Experimental: the cases grow with each behaviour pinned, and their
// signatures may change in any minor release until v1.
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

	// NewPlain returns a plain queue of strings (NewTypedWithConfig), the
	// only constructor that takes a custom storage (cfg.Queue).
	NewPlain func(cfg workqueue.TypedQueueConfig[string]) workqueue.TypedInterface[string]

	// The limiter constructors, with client-go's names without "Typed".
	Exponential func(base, max time.Duration) Limiter
	FastSlow    func(fast, slow time.Duration, maxFast int) Limiter
	MaxOf       func(ls ...Limiter) Limiter
	WithMaxWait func(l Limiter, max time.Duration) Limiter
	ItemBased   func() Limiter
	Controller  func() Limiter
}
