package adapter

// NewTypedRateLimitingQueue returns a new rate-limiting queue with no
// metrics, whose AddRateLimited delays items by rateLimiter. Remember to
// call Forget when an item succeeds, or the limiter tracks its failures
// forever. A nil rateLimiter means [DefaultTypedControllerRateLimiter]
// (client-go would panic on the first AddRateLimited).
//
// The queue returned also satisfies [Extras].
func NewTypedRateLimitingQueue[T comparable](rateLimiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return NewTypedRateLimitingQueueWithConfig(rateLimiter, TypedRateLimitingQueueConfig[T]{})
}

// NewTypedRateLimitingQueueWithConfig returns a new rate-limiting queue
// configured by config, as [NewTypedDelayingQueueWithConfig] does, with
// rateLimiter as in [NewTypedRateLimitingQueue]. The limiter is called in
// the goroutine that calls AddRateLimited, Forget or NumRequeues.
//
// A non-nil config.DelayingQueue is used as the queue, with AddRateLimited,
// Forget and NumRequeues added by a stateless wrapper, as client-go does;
// the result satisfies [Extras] if the DelayingQueue does.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	if rateLimiter == nil {
		rateLimiter = DefaultTypedControllerRateLimiter[T]()
	}
	if config.DelayingQueue != nil {
		return withLimiter(config.DelayingQueue, rateLimiter)
	}
	return &rateLimiting[T]{delaying: delaying[T]{Typed: Typed[T]{q: newActor[T](config.Name, config.MetricsProvider, config.Clock, nil, rateLimiter)}}}
}

// rateLimiting is the rate-limiting queue: a delaying queue with the rate
// limiter of its actor queue. Like client-go's, it shuts down once.
type rateLimiting[T comparable] struct{ delaying[T] }

// AddRateLimited adds item after the delay the rate limiter gives, computed
// in the caller's goroutine. As in client-go, the limiter is asked even
// after ShutDown.
func (q *rateLimiting[T]) AddRateLimited(item T) { q.q.AddRateLimited(item) }

// Forget makes the rate limiter forget item's failures.
func (q *rateLimiting[T]) Forget(item T) { q.q.Forget(item) }

// NumRequeues returns how many failures the rate limiter has recorded.
func (q *rateLimiting[T]) NumRequeues(item T) int { return q.q.NumRequeues(item) }

// NewRateLimitingQueue returns a new untyped rate-limiting queue with no
// metrics.
//
// Deprecated: use NewTypedRateLimitingQueue instead.
func NewRateLimitingQueue(rateLimiter RateLimiter) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{})
}

// NewRateLimitingQueueWithConfig returns a new untyped rate-limiting queue
// configured by config, as [NewTypedRateLimitingQueueWithConfig] does.
//
// Deprecated: use NewTypedRateLimitingQueueWithConfig instead.
func NewRateLimitingQueueWithConfig(rateLimiter RateLimiter, config RateLimitingQueueConfig) RateLimitingInterface {
	return NewTypedRateLimitingQueueWithConfig[any](rateLimiter, config)
}

// NewNamedRateLimitingQueue returns a new untyped rate-limiting queue whose
// metrics are named name.
//
// Deprecated: use NewRateLimitingQueueWithConfig instead.
func NewNamedRateLimitingQueue(rateLimiter RateLimiter, name string) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{Name: name})
}

// NewRateLimitingQueueWithDelayingInterface returns di with the rate
// limiting of rateLimiter added, as [NewTypedRateLimitingQueueWithConfig]
// does for a config with a DelayingQueue.
//
// Deprecated: use NewRateLimitingQueueWithConfig instead.
func NewRateLimitingQueueWithDelayingInterface(di DelayingInterface, rateLimiter RateLimiter) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{DelayingQueue: di})
}

// withLimiter adds rate limiting to a delaying queue the adapter does not
// own.
func withLimiter[T comparable](q TypedDelayingInterface[T], l TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	r := limited[T]{TypedDelayingInterface: q, limiter: l}
	if x, ok := q.(Extras[T]); ok {
		return limitedExtras[T]{r, x}
	}
	return r
}

// limited is a delaying queue with a rate limiter, as client-go's
// rateLimitingType is. It keeps no state of its own.
type limited[T comparable] struct {
	TypedDelayingInterface[T]
	limiter TypedRateLimiter[T]
}

// AddRateLimited adds item after the delay the rate limiter gives.
func (q limited[T]) AddRateLimited(item T) { q.AddAfter(item, q.limiter.When(item)) }

// Forget makes the rate limiter forget item's failures.
func (q limited[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns how many failures the rate limiter has recorded.
func (q limited[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// limitedExtras is limited over a queue that has the extras.
type limitedExtras[T comparable] struct {
	limited[T]
	Extras[T]
}
