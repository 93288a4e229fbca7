package actor

import "time"

type stubLimiter[T comparable] struct{}

func (stubLimiter[T]) When(T) time.Duration { return 5 * time.Millisecond }
func (stubLimiter[T]) Forget(T)             {}
func (stubLimiter[T]) NumRequeues(T) int    { return 0 }

func defaultLimiter[T comparable]() RateLimiter[T] { return stubLimiter[T]{} }
