package actor

// readyOrder holds the ready items in hand-out order. The state machine
// (state.go) decides when an item is ready and where its place is (its
// priority, its sequence number within the priority, its fairness keys);
// the order decides only which ready item goes next. There are three:
// fifo, the default, which ignores places (every item has priority 0 and
// comes in the order it was pushed); prioOrder (prio.go), which a queue
// turns to once an item has another priority, or from the start with
// fairness or RequeueAtAdd; and storageOrder, a caller's client-go
// Queue[T], which orders items itself.
//
// Only the owner goroutine (or, after it ended, the caller holding the
// state) calls an order. push is called only for items not in it; pop only
// when len() > 0.
type readyOrder[T comparable] interface {
	// push adds an item that has just become ready, at place p.
	push(item T, p place)
	// pushFront adds back an item that was taken out to be handed out
	// but was not, at the place pop gave it: before every other item of
	// its priority and key.
	pushFront(item T, p place)
	// touch tells that an item in the order was added again.
	touch(item T)
	// remove takes an item out of the order: it was at place p (whose
	// sequence number does not matter).
	remove(item T, p place)
	// pop removes and returns the next item to hand out, and its place.
	pop() (T, place)
	// len is the number of items in the order.
	len() int
}

// Storage holds the ready items of a queue in hand-out order. Its method set
// is that of client-go's workqueue.Queue[T], so a client-go custom queue can
// be plugged in through [Config.Storage].
//
// Only the queue's owner goroutine calls a Storage while the queue runs
// (and, after shutdown, the goroutines that call Get and Done, one at a
// time), so an implementation need not be safe for concurrent use. The
// calls are client-go's: Push when an item becomes ready, Touch when an
// item that is ready (and not being processed) is added again, Pop when a
// consumer takes the next item — from Get or GetBatch, or, for a consumer
// of [Queue.Items], when the item is offered on that channel.
type Storage[T comparable] interface {
	// Touch can be used by the queue to reorder an item already stored.
	Touch(item T)
	// Push adds an item.
	Push(item T)
	// Len returns the number of items stored.
	Len() int
	// Pop removes and returns the next item to hand out.
	Pop() T
}

// storageOrder is a caller's Storage as a readyOrder. Items put back at the
// front (an item offered on the items channel that a Get took instead) wait
// in front, since a Storage cannot take them back. A Storage orders items
// itself: places, priorities included, are not its concern.
type storageOrder[T comparable] struct {
	s     Storage[T]
	front []T // put back, in hand-out order
}

func (o *storageOrder[T]) push(item T, _ place) { o.s.Push(item) }
func (o *storageOrder[T]) pushFront(item T, _ place) {
	o.front = append([]T{item}, o.front...)
}
func (o *storageOrder[T]) touch(item T)           { o.s.Touch(item) }
func (o *storageOrder[T]) remove(item T, _ place) {}
func (o *storageOrder[T]) len() int               { return len(o.front) + o.s.Len() }

func (o *storageOrder[T]) pop() (T, place) {
	if len(o.front) > 0 {
		item := o.front[0]
		o.front = o.front[1:]
		return item, place{}
	}
	return o.s.Pop(), place{}
}
