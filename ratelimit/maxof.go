package ratelimit

import "time"

// MaxOf combines limiters: When returns the largest delay of its children,
// NumRequeues the largest count, and Forget forgets the item in every child.
// Every child is consulted on every call, so each records every failure. It
// is client-go's TypedMaxOfRateLimiter.
//
// A MaxOf is safe for concurrent use by multiple goroutines if its children
// are, as all limiters of this package are; it blocks only as long as its
// children do. Create one with [NewMaxOf]; the zero value has no children
// and delays nothing.
type MaxOf[T comparable] struct {
	limiters []RateLimiter[T]
}

// NewMaxOf returns a MaxOf of limiters, consulted in order. Nil limiters
// are dropped; with no limiter left, When returns 0 and NumRequeues 0. It
// never fails and does not retain the caller's slice.
//
// client-go's NewTypedMaxOfRateLimiter(limiters...) is NewMaxOf(limiters...).
func NewMaxOf[T comparable](limiters ...RateLimiter[T]) *MaxOf[T] {
	m := &MaxOf[T]{limiters: make([]RateLimiter[T], 0, len(limiters))}
	for _, l := range limiters {
		if l != nil {
			m.limiters = append(m.limiters, l)
		}
	}
	return m
}

// When calls When of every child and returns the largest delay, or 0 if
// there are none. A negative delay from a child counts as 0.
func (m *MaxOf[T]) When(item T) time.Duration {
	var d time.Duration
	for _, l := range m.limiters {
		d = max(d, l.When(item))
	}
	return d
}

// Forget calls Forget of every child.
func (m *MaxOf[T]) Forget(item T) {
	for _, l := range m.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest NumRequeues of the children, or 0 if there
// are none.
func (m *MaxOf[T]) NumRequeues(item T) int {
	var n int
	for _, l := range m.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
