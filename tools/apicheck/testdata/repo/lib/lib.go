// Package lib is a module for apicheck's tests.
package lib

import "time"

// Max is a constant.
const Max = 10

// Kind is a kind.
type Kind uint8

// The kinds.
const (
	A Kind = iota
	B
)

// ErrX is an error.
var ErrX error

// Queue is generic.
type Queue[T comparable] struct {
	Name string
	// Limit is a limit.
	//
	// Experimental: it may change.
	Limit  int
	hidden int
	time.Duration
}

// New makes a queue.
func New[T comparable](name string, opts ...func(*Queue[T])) *Queue[T] { return nil }

// Add adds.
func (q *Queue[T]) Add(item T) {}

// Len is a value method.
func (q Queue[T]) Len() int { return q.hidden }

// Snap is experimental.
//
// Experimental: its shape may change.
type Snap struct{ N int }

// Clock tells the time.
type Clock interface {
	Now() time.Time
	private()
}

// Alias is another name.
type Alias = time.Duration

// Generic is a generic alias.
type Generic[T comparable] = Queue[T]

// Pair returns two values.
func Pair(f func(a int) string) (int, error) { return 0, nil }
