package adapter

import (
	"context"

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// Typed is a work queue (see the package doc): client-go's workqueue.Typed
// with its state owned by one goroutine. It has client-go's methods and
// also satisfies [Extras].
//
// A *Typed is safe for concurrent use by multiple goroutines. The zero
// value is not usable; create one with [NewTyped] or [NewTypedWithConfig].
// It is a different type from client-go's *workqueue.Typed: code that
// names the pointer type must name this one, while code that takes a
// [TypedInterface] accepts both.
type Typed[T comparable] struct {
	q *actor.Queue[T]
}

// Type is an untyped work queue.
//
// Deprecated: use Typed instead.
type Type = Typed[any]

// NewTyped returns a new work queue with no metrics. Its owner goroutine
// ends when ShutDown or ShutDownWithDrain returns.
func NewTyped[T comparable]() *Typed[T] {
	return NewTypedWithConfig(TypedQueueConfig[T]{})
}

// NewTypedWithConfig returns a new work queue configured by config: Name
// and MetricsProvider for metrics (a named queue with no provider uses the
// one given to [SetProvider] or client-go's workqueue.SetProvider), Clock
// for the metrics timestamps, and Queue, if not nil, to store the ready
// items (called only from the queue's owner goroutine).
func NewTypedWithConfig[T comparable](config TypedQueueConfig[T]) *Typed[T] {
	return &Typed[T]{q: newActor(config.Name, config.MetricsProvider, config.Clock, config.Queue, nil)}
}

// New returns a new untyped work queue.
//
// Deprecated: use NewTyped instead.
func New() *Type { return NewTyped[any]() }

// NewNamed returns a new untyped work queue whose metrics are named name.
//
// Deprecated: use NewWithConfig instead.
func NewNamed(name string) *Type { return NewWithConfig(QueueConfig{Name: name}) }

// NewWithConfig returns a new untyped work queue configured by config, as
// [NewTypedWithConfig] does.
//
// Deprecated: use NewTypedWithConfig instead.
func NewWithConfig(config QueueConfig) *Type { return NewTypedWithConfig(config) }

// DefaultQueue returns client-go's slice-based FIFO storage. The queues of
// this package use their own ring buffer when the config's Queue is nil;
// DefaultQueue is for code that passes it explicitly.
func DefaultQueue[T comparable]() Queue[T] { return workqueue.DefaultQueue[T]() }

// Add marks item as needing processing. It never blocks for long. An item
// already waiting is not added twice; an item being processed is handed
// out again after its Done. After ShutDown, Add does nothing. In an untyped
// queue, an item that cannot be a map key panics in the caller with a
// message naming its type, and the queue keeps working.
func (q *Typed[T]) Add(item T) { q.q.Add(item) }

// Len returns the number of items ready to be handed out. It counts every
// Add the caller made before it.
func (q *Typed[T]) Len() int { return q.q.Len() }

// Get blocks until an item is ready or the queue is shut down and empty.
// When shutdown is true, item is the zero value and the worker should
// return. Otherwise the caller must call Done with item when finished.
// After ShutDown, Get keeps returning the items still queued, one each.
func (q *Typed[T]) Get() (item T, shutdown bool) { return q.q.Get() }

// Done marks item as finished. If it was added again while processing, it
// becomes ready again. Done of an item that is not processing does nothing
// (client-go would queue a duplicate). Done never blocks for long.
func (q *Typed[T]) Done(item T) { q.q.Done(item) }

// ShutDown makes the queue ignore new items and releases consumers blocked
// in Get once nothing is queued. It returns once the queue's goroutine has
// done its last work, so no goroutine of the queue is left but that one,
// returning and blocked on nothing. It may be called more than once, and
// ends the wait of a ShutDownWithDrain.
func (q *Typed[T]) ShutDown() { q.q.ShutDown() }

// ShutDownWithDrain is like ShutDown but first waits until every item
// handed out is Done. It blocks forever if a handed-out item is never Done
// and ShutDown is never called.
func (q *Typed[T]) ShutDownWithDrain() { q.q.ShutDownWithDrain() }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Typed[T]) ShuttingDown() bool { return q.q.ShuttingDown() }

// Items implements [Extras].
func (q *Typed[T]) Items() <-chan T { return q.q.Items() }

// GetContext implements [Extras].
func (q *Typed[T]) GetContext(ctx context.Context) (T, error) { return q.q.GetContext(ctx) }

// newActor starts the actor queue behind every constructor of this package.
func newActor[T comparable](name string, p MetricsProvider, c clock.WithTicker, storage Queue[T], limiter TypedRateLimiter[T]) *actor.Queue[T] {
	cfg := actor.Config[T]{
		Name:            name,
		Clock:           actorClock(c),
		MetricsProvider: actorProvider(name, p),
	}
	if storage != nil {
		cfg.Storage = storage
	}
	if limiter != nil {
		cfg.RateLimiter = limiter
	}
	return actor.New(cfg)
}
