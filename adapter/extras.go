package adapter

import (
	"context"

	"github.com/actorq/actorq/actor"
)

// Extras is what actorq adds to client-go's queue API. Every queue this
// package constructs satisfies it (except the client-go queue returned for
// a config with a custom Queue interface; see
// [NewTypedDelayingQueueWithConfig]), so code holding a client-go interface
// reaches the extras with a type assertion, not a switch on internals:
//
//	if x, ok := q.(workqueue.Extras[string]); ok {
//		item, err := x.GetContext(ctx)
//		...
//	}
//
// Experimental: it grows with what package actor adds, so code should
// assert it, not implement it.
type Extras[T comparable] interface {
	// Items returns the channel on which the queue offers its next ready
	// item, for consumers that select on it next to other channels. An
	// item received from it is processing, exactly as if returned by Get:
	// the caller must call Done with it. Receivers that go away lose
	// nothing. The channel is closed when the queue shuts down; items still
	// queued then are not sent on it, call Get until it reports shutdown to
	// drain them.
	Items() <-chan T

	// GetContext is like Get but returns ctx.Err() if ctx ends first, and
	// ErrShutDown instead of shutdown == true. An item is never lost or
	// left processing because the context ended.
	GetContext(ctx context.Context) (T, error)
}

// ErrShutDown is returned by GetContext once the queue is shut down and no
// queued item is left.
var ErrShutDown = actor.ErrShutDown
