package adapter

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// delaying is the delaying queue: a Typed with AddAfter. It has no
// AddRateLimited, so a type assertion to a rate-limiting interface fails as
// it does on client-go's delaying queue.
type delaying[T comparable] struct {
	Typed[T]
	shutDownOnce sync.Once
}

// ShutDown stops the queue like [Typed.ShutDown], once: as with client-go's
// delaying queue, whose ShutDown acts only on its first call, a later call
// does nothing (in particular it does not end a ShutDownWithDrain begun
// after the first).
func (q *delaying[T]) ShutDown() { q.shutDownOnce.Do(q.Typed.ShutDown) }

// AddAfter adds item once duration has passed on the queue's clock; a
// duration of zero or less adds it at once. It never blocks for long. An
// item already ready, or waiting on an earlier deadline, is left as it is:
// a delay can be shortened, never lengthened. After ShutDown it does
// nothing.
func (q *delaying[T]) AddAfter(item T, duration time.Duration) { q.q.AddAfter(item, duration) }

// NewTypedDelayingQueue returns a new delaying queue with no metrics.
func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{})
}

// TypedNewDelayingQueue returns a new delaying queue with no metrics.
//
// Deprecated: use NewTypedDelayingQueueWithConfig instead.
func TypedNewDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueue[T]()
}

// NewTypedDelayingQueueWithConfig returns a new delaying queue configured
// by config. Name and MetricsProvider set up metrics as in
// [NewTypedWithConfig], and delays and metrics run on Clock, so a test that
// steps a k8s.io/utils/clock/testing.FakeClock sees delayed items once it
// has stepped past their deadline (as with client-go, a moment after Step
// returns: poll Len).
//
// A non-nil config.Queue, a queue interface the adapter does not own, is
// passed to client-go's own NewTypedDelayingQueueWithConfig, whose result
// is returned: delays must then be fed into that queue by a goroutine, and
// the adapter starts none. Such a queue keeps client-go's behaviour and
// defects, and has no [Extras].
func NewTypedDelayingQueueWithConfig[T comparable](config TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	if config.Queue != nil {
		return workqueue.NewTypedDelayingQueueWithConfig(config)
	}
	return &delaying[T]{Typed: Typed[T]{q: newActor[T](config.Name, config.MetricsProvider, config.Clock, nil, nil)}}
}

// NewDelayingQueue returns a new untyped delaying queue with no metrics.
//
// Deprecated: use NewTypedDelayingQueue instead.
func NewDelayingQueue() DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{})
}

// NewDelayingQueueWithConfig returns a new untyped delaying queue
// configured by config, as [NewTypedDelayingQueueWithConfig] does.
//
// Deprecated: use NewTypedDelayingQueueWithConfig instead.
func NewDelayingQueueWithConfig(config DelayingQueueConfig) DelayingInterface {
	return NewTypedDelayingQueueWithConfig(config)
}

// NewNamedDelayingQueue returns a new untyped delaying queue whose metrics
// are named name.
//
// Deprecated: use NewDelayingQueueWithConfig instead.
func NewNamedDelayingQueue(name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name})
}

// NewDelayingQueueWithCustomClock returns a new untyped delaying queue
// named name whose delays and metrics run on clock.
//
// Deprecated: use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomClock(clock clock.WithTicker, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name, Clock: clock})
}

// NewDelayingQueueWithCustomQueue returns client-go's delaying queue over
// q, as [NewTypedDelayingQueueWithConfig] does for a config with a Queue.
//
// Deprecated: use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomQueue(q Interface, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name, Queue: q})
}
