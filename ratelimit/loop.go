package ratelimit

import (
	"context"
	"time"
)

// Mode says when [BackoffUntil] starts waiting for the next run.
type Mode int

const (
	// Sliding starts the wait after the function returns: runs are separated
	// by at least the delay. It is the zero Mode.
	Sliding Mode = iota

	// NonSliding starts the wait when the function starts, so the run's
	// time counts towards the wait: runs start at least the delay apart, and
	// a run that takes longer than the delay is followed at once by the
	// next.
	NonSliding
)

// BackoffUntil runs f(ctx) repeatedly until ctx is done, waiting between
// runs for the delay next returns (typically [Manager.Next], or the Step
// method of a [Backoff] owned by this loop): apimachinery's
// BackoffUntilWithContext. In [Sliding] mode, next is called after each run
// and the wait starts then; in [NonSliding] mode (or any Mode other than
// Sliding), next is called before each run and the wait starts before the
// run. A delay of 0 or less means no wait.
//
// BackoffUntil runs f and next in the caller's goroutine and starts no
// goroutine. It blocks until ctx is done and then returns promptly: at once
// if it is waiting, or when f returns if f is running (f should watch ctx).
// It never calls f once ctx is done, including before the first run, nor
// next after a run that ended with ctx done. When
// it returns, no timer of it remains. A panic in f or next propagates to the
// caller, after the timer is stopped.
//
// It panics, with a "ratelimit: " prefix, if f or next is nil.
func BackoffUntil(ctx context.Context, f func(context.Context), next func() time.Duration, mode Mode) {
	if f == nil {
		panic("ratelimit: BackoffUntil with nil f")
	}
	if next == nil {
		panic("ratelimit: BackoffUntil with nil next")
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	arm := func(d time.Duration) {
		if d <= 0 {
			return
		}
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d) // since Go 1.23, Reset discards a stale tick
		}
	}
	for ctx.Err() == nil {
		var d time.Duration
		if mode != Sliding {
			d = next()
			arm(d)
		}
		f(ctx)
		if ctx.Err() != nil {
			return
		}
		if mode == Sliding {
			d = next()
			arm(d)
		}
		if d <= 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
}
