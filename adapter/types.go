//lint:file-ignore SA1019 the adapter re-exports client-go's deprecated names on purpose, so that old code keeps compiling.

package adapter

import (
	"k8s.io/client-go/util/workqueue"
)

// The interface, config and metric types are client-go's own, under the
// same names, so values cross both ways: an adapter queue is a client-go
// queue to any code that takes one, and client-go limiters, custom queues
// and metrics providers plug into the adapter unchanged.

// TypedInterface is client-go's workqueue.TypedInterface: Add, Len, Get,
// Done, ShutDown, ShutDownWithDrain and ShuttingDown.
type TypedInterface[T comparable] = workqueue.TypedInterface[T]

// Interface is client-go's workqueue.Interface.
//
// Deprecated: use TypedInterface instead.
type Interface = workqueue.Interface

// TypedDelayingInterface is client-go's workqueue.TypedDelayingInterface: a
// TypedInterface that can add an item later with AddAfter.
type TypedDelayingInterface[T comparable] = workqueue.TypedDelayingInterface[T]

// DelayingInterface is client-go's workqueue.DelayingInterface.
//
// Deprecated: use TypedDelayingInterface instead.
type DelayingInterface = workqueue.DelayingInterface

// TypedRateLimitingInterface is client-go's
// workqueue.TypedRateLimitingInterface: a TypedDelayingInterface with
// AddRateLimited, Forget and NumRequeues.
type TypedRateLimitingInterface[T comparable] = workqueue.TypedRateLimitingInterface[T]

// RateLimitingInterface is client-go's workqueue.RateLimitingInterface.
//
// Deprecated: use TypedRateLimitingInterface instead.
type RateLimitingInterface = workqueue.RateLimitingInterface

// TypedRateLimiter is client-go's workqueue.TypedRateLimiter: When, Forget
// and NumRequeues. It has the method set of ratelimit.RateLimiter, so
// limiters of either package work with queues of either package.
type TypedRateLimiter[T comparable] = workqueue.TypedRateLimiter[T]

// RateLimiter is client-go's workqueue.RateLimiter.
//
// Deprecated: use TypedRateLimiter instead.
type RateLimiter = workqueue.RateLimiter

// Queue is client-go's workqueue.Queue, the storage of the ready items.
// A Queue given in TypedQueueConfig is called only by the queue's owner
// goroutine, never concurrently, as in client-go.
type Queue[T comparable] = workqueue.Queue[T]

// TypedQueueConfig is client-go's workqueue.TypedQueueConfig. All its
// fields are honoured: Name and MetricsProvider for metrics, Clock for
// metrics timestamps, Queue as the storage of the ready items.
type TypedQueueConfig[T comparable] = workqueue.TypedQueueConfig[T]

// QueueConfig is client-go's workqueue.QueueConfig.
//
// Deprecated: use TypedQueueConfig instead.
type QueueConfig = workqueue.QueueConfig

// TypedDelayingQueueConfig is client-go's
// workqueue.TypedDelayingQueueConfig. Name, MetricsProvider and Clock are
// honoured; Logger is not used (the adapter has no background goroutine
// that could crash and log). A non-nil Queue makes the constructor return
// client-go's own delaying queue: see [NewTypedDelayingQueueWithConfig].
type TypedDelayingQueueConfig[T comparable] = workqueue.TypedDelayingQueueConfig[T]

// DelayingQueueConfig is client-go's workqueue.DelayingQueueConfig.
//
// Deprecated: use TypedDelayingQueueConfig instead.
type DelayingQueueConfig = workqueue.DelayingQueueConfig

// TypedRateLimitingQueueConfig is client-go's
// workqueue.TypedRateLimitingQueueConfig. All its fields are honoured; see
// [NewTypedRateLimitingQueueWithConfig] for DelayingQueue.
type TypedRateLimitingQueueConfig[T comparable] = workqueue.TypedRateLimitingQueueConfig[T]

// RateLimitingQueueConfig is client-go's workqueue.RateLimitingQueueConfig.
//
// Deprecated: use TypedRateLimitingQueueConfig instead.
type RateLimitingQueueConfig = workqueue.RateLimitingQueueConfig

// MetricsProvider is client-go's workqueue.MetricsProvider. A provider
// written for client-go (for example a Prometheus one) works unchanged.
type MetricsProvider = workqueue.MetricsProvider

// GaugeMetric is client-go's workqueue.GaugeMetric.
type GaugeMetric = workqueue.GaugeMetric

// SettableGaugeMetric is client-go's workqueue.SettableGaugeMetric.
type SettableGaugeMetric = workqueue.SettableGaugeMetric

// CounterMetric is client-go's workqueue.CounterMetric.
type CounterMetric = workqueue.CounterMetric

// SummaryMetric is client-go's workqueue.SummaryMetric.
type SummaryMetric = workqueue.SummaryMetric

// HistogramMetric is client-go's workqueue.HistogramMetric.
type HistogramMetric = workqueue.HistogramMetric
