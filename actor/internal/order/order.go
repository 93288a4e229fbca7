// Package order holds the ready items of a queue in hand-out order. The
// queue's rules (package state) decide when an item is ready and where its
// place is; an order decides only which ready item goes next.
//
// There are three orders:
//   - [FIFO], the default: first in, first out, every item at priority 0;
//   - [Prio]: priorities (higher first), first in, first out within one
//     priority by sequence number, with optional fairness keys (round-robin
//     across keys, level by level) and an optional starvation bound;
//   - [Storage]: a caller's client-go Queue[T], which orders items itself.
//
// An order is a plain data structure: no goroutines, channels or clock
// reads. It is used by one goroutine at a time. Push is called only for an
// item not in the order, Pop only when Len() > 0.
package order

// Place is where a ready item goes: its priority, its sequence number
// (first in, first out within a priority: lower goes first), the instant
// it became ready (for the starvation bound), and the id of its fairness
// keys ([Prio.Hold]; 0 without fairness). An item popped ahead
// ([Prio.PopAhead]) has in Undo the id of its pop's notes.
type Place struct {
	Prio int
	Seq  uint64
	At   int64 // nanoseconds since the queue's epoch
	Key  uint32
	Undo uint32
}

// Order holds ready items in hand-out order.
type Order[T comparable] interface {
	// Push adds an item that has just become ready, at place p.
	Push(item T, p Place)
	// PushFront adds back an item that Pop took out and that was not
	// handed out after all, at the place Pop gave it: before every other
	// item of its priority and keys. Items taken out together come back
	// newest first, which undoes their Pops exactly.
	PushFront(item T, p Place)
	// Touch tells that an item in the order was added again.
	Touch(item T)
	// Remove takes an item out of the order: it was at place p (whose
	// sequence number does not matter).
	Remove(item T, p Place)
	// Pop removes and returns the next item to hand out, and its place;
	// now is the instant of the hand-out (the starvation bound uses it).
	Pop(now int64) (T, Place)
	// Len is the number of items in the order.
	Len() int
}

// FIFO is the default order: first in, first out, in a ring, every item at
// priority 0. Places are ignored.
type FIFO[T comparable] struct{ r ring[T] }

func (f *FIFO[T]) Push(item T, _ Place)      { f.r.push(item) }
func (f *FIFO[T]) PushFront(item T, _ Place) { f.r.pushFront(item) }
func (f *FIFO[T]) Touch(T)                   {}
func (f *FIFO[T]) Remove(T, Place)           {}
func (f *FIFO[T]) Len() int                  { return f.r.len() }
func (f *FIFO[T]) Pop(int64) (T, Place)      { return f.r.pop(), Place{} }

// Items calls yield for each item in hand-out order, up to n of them.
func (f *FIFO[T]) Items(n int, yield func(T)) {
	for i := range min(n, f.r.len()) {
		yield(f.r.at(i))
	}
}

// A Storage is client-go's workqueue.Queue[T]: the method set of
// actor.Storage.
type Storage[T comparable] interface {
	Touch(item T)
	Push(item T)
	Len() int
	Pop() T
}

// StorageOrder is a caller's Storage as an order. Items pushed back at the
// front wait in front, since a Storage cannot take them back. A Storage
// orders items itself: places are not its concern.
type StorageOrder[T comparable] struct {
	S     Storage[T]
	front []T // pushed back, in hand-out order
}

func (o *StorageOrder[T]) Push(item T, _ Place) { o.S.Push(item) }
func (o *StorageOrder[T]) PushFront(item T, _ Place) {
	o.front = append([]T{item}, o.front...)
}
func (o *StorageOrder[T]) Touch(item T)           { o.S.Touch(item) }
func (o *StorageOrder[T]) Remove(item T, _ Place) {}
func (o *StorageOrder[T]) Len() int               { return len(o.front) + o.S.Len() }

func (o *StorageOrder[T]) Pop(int64) (T, Place) {
	if len(o.front) > 0 {
		item := o.front[0]
		var zero T
		o.front[0] = zero // the array outlives the item
		o.front = o.front[1:]
		return item, Place{}
	}
	return o.S.Pop(), Place{}
}
