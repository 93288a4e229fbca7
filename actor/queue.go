package actor

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"runtime"
	"time"
)

// ErrShutDown is returned by [Queue.GetContext] once the queue is shut down
// and no queued item is left.
var ErrShutDown = errors.New("actor: queue is shut down")

// A Queue is a work queue whose state is owned by one goroutine.
//
// A Queue is safe for concurrent use by multiple goroutines. The zero value
// is not usable; create one with [New].
type Queue[T comparable] struct {
	c       *core[T]
	cleanup runtime.Cleanup
}

// New starts a queue's owner goroutine and returns the queue. The goroutine
// ends when [Queue.ShutDown] or [Queue.ShutDownWithDrain] returns, or soon
// after the Queue becomes unreachable if neither is called.
//
// The last rule has one exception: inside a testing/synctest bubble the
// runtime forbids the cleanup that ends a dropped queue (it runs outside
// the bubble), so there a queue that is never shut down stays blocked and
// the bubble reports it, as it reports any leaked goroutine. New recognises
// a bubble by its clock, which starts at midnight UTC 2000-01-01.
//
// New calls cfg.MetricsProvider's New methods in the caller's goroutine.
func New[T comparable](cfg Config[T]) *Queue[T] {
	c := newCore(cfg)
	go c.loop()
	q := &Queue[T]{c: c}
	if !inBubble() {
		q.cleanup = runtime.AddCleanup(q, (*core[T]).stop, c)
	}
	return q
}

// inBubble reports whether the caller is probably inside a testing/synctest
// bubble, whose fake clock starts in 2000. A real clock reads 2010 or later.
func inBubble() bool {
	return time.Now().Year() < 2010
}

// Add marks item as needing processing. It never waits for the owner
// goroutine to act and never blocks for long: it only hands the request
// over. If item is already waiting to be handed out, Add does nothing; if
// it is being processed, it is handed out again after [Queue.Done]; if it is
// waiting on a delay, it becomes ready now and the delay is dropped.
// After shutdown, Add does nothing.
//
// If T holds interface values, Add panics in the caller's goroutine when
// item cannot be used as a map key (for example an any holding a slice),
// with a message naming the type; the queue is unaffected.
func (q *Queue[T]) Add(item T) {
	c := q.c
	if c.checkItems {
		c.mustHash(item)
	}
	if c.shutting.Load() {
		return
	}
	if c.filter != nil {
		if f := c.filter.Load(); f != nil && f.skip(item) {
			return // a duplicate: see filter.go
		}
	}
	c.send(request[T]{op: opAdd, item: item})
}

// AddAfter adds item after the delay d. A d of zero or less adds it at once,
// like [Queue.Add]. If item is already waiting to be handed out, or waiting
// on an earlier deadline, AddAfter does nothing: a delay can be shortened,
// never lengthened. AddAfter never blocks for long, however many items are
// waiting. After shutdown it does nothing.
func (q *Queue[T]) AddAfter(item T, d time.Duration) {
	c := q.c
	if c.checkItems {
		c.mustHash(item)
	}
	if c.shutting.Load() {
		return
	}
	if d <= 0 {
		c.send(request[T]{op: opRetry, item: item})
		return
	}
	c.send(request[T]{op: opAddAfter, item: item, at: c.since() + int64(d)})
}

// AddRateLimited adds item after the delay its rate limiter gives, which is
// computed in the caller's goroutine. It behaves like [Queue.AddAfter].
func (q *Queue[T]) AddRateLimited(item T) {
	if q.c.shutting.Load() {
		return
	}
	q.AddAfter(item, q.c.limiter.When(item))
}

// Forget tells the rate limiter that item is done being retried. It does
// not remove item from the queue; call [Queue.Done] for that.
func (q *Queue[T]) Forget(item T) { q.c.limiter.Forget(item) }

// NumRequeues returns how many times the rate limiter has delayed item
// since it was last forgotten.
func (q *Queue[T]) NumRequeues(item T) int { return q.c.limiter.NumRequeues(item) }

// Get blocks until an item is ready or the queue is shut down and empty.
// When shutdown is true, item is the zero value and the worker should
// return. Otherwise the item is now processing, and the caller must call
// [Queue.Done] with it when finished.
//
// After ShutDown, Get keeps returning the items that were still queued,
// one each, until none is left; those items are no longer tracked, so Done
// of them does nothing and adding them again is ignored.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	if item, got, _ := q.c.take(nil); got {
		return item, false
	}
	return q.c.leftover()
}

// take is the receive of Get and GetContext: an item claimed from the lane
// or received from out, or, with got false, the sign that the queue has
// ended (take the leftovers) or, with canceled true, that cancel was
// closed first.
func (c *core[T]) take(cancel <-chan struct{}) (item T, got, canceled bool) {
	select {
	case sl := <-c.lane:
		if sl == nil {
			return item, false, false
		}
		return c.claim(sl), true, false
	default:
	}
	c.ring()
	select {
	case sl := <-c.lane:
		if sl != nil {
			return c.claim(sl), true, false
		}
	case item, ok := <-c.out:
		if ok {
			return item, true, false
		}
	case <-cancel:
		return item, false, true
	}
	return item, false, false
}

// ring wakes the owner goroutine to refill the lane, unless a wake-up is
// already pending or the lane is off for good (Items was called, or the
// queue is shutting down).
func (c *core[T]) ring() {
	if c.itemsUsed.Load() || c.shutting.Load() {
		return
	}
	select {
	case c.bell <- struct{}{}:
	default:
	}
}

// GetBatch is like [Queue.Get] but hands out up to cap(buf) ready items in
// one exchange with the owner goroutine, oldest first, which is much cheaper
// per item than one Get each when many items are ready. It blocks until at
// least one item is ready or the queue is shut down and empty, and then
// returns as many of the ready items as fit, without waiting for more. The items are
// appended to buf[:0] (a buf with no capacity counts as capacity 1) and are
// all processing, exactly as if taken by Get one by one: the caller must
// call [Queue.Done] with each. Reusing buf across calls makes GetBatch
// allocation-free. After ShutDown it returns the items still queued, then
// shutdown == true with no items.
func (q *Queue[T]) GetBatch(buf []T) (items []T, shutdown bool) {
	c := q.c
	if cap(buf) == 0 {
		buf = make([]T, 0, 1)
	}
	b, _ := c.batches.Get().(*batch[T])
	if b == nil {
		b = &batch[T]{ready: make(chan struct{}, 1)}
	}
	b.items, b.shutdown = buf[:0], false
	if c.send(request[T]{op: opBatch, batch: b}) {
		select {
		case <-b.ready:
		case <-c.done:
			select {
			case <-b.ready: // answered before the owner ended
			default:
				b.shutdown = true // never served
			}
		}
	} else {
		b.shutdown = true
	}
	items, shutdown = b.items, b.shutdown
	b.items = nil
	c.batches.Put(b)
	if !shutdown {
		return items, false
	}
	// The owner has ended: take leftovers, as Get does.
	for len(items) < cap(items) {
		item, ok := <-c.rest
		if !ok {
			break
		}
		items = append(items, item)
	}
	return items, len(items) == 0
}

// GetContext is like [Queue.Get] but returns ctx.Err() if ctx ends first,
// and [ErrShutDown] instead of shutdown == true. An item is never lost or
// left processing because the context ended: it stays queued for the next
// consumer.
func (q *Queue[T]) GetContext(ctx context.Context) (item T, err error) {
	item, got, canceled := q.c.take(ctx.Done())
	switch {
	case got:
		return item, nil
	case canceled:
		return item, ctx.Err()
	}
	item, shutdown := q.c.leftover()
	if shutdown {
		return item, ErrShutDown
	}
	return item, nil
}

// Items returns the channel on which the owner goroutine offers the next
// ready item, for consumers that select on it next to other channels. An
// item received from it is processing, exactly as if returned by
// [Queue.Get]: the caller must call [Queue.Done] with it. Receivers that go
// away lose nothing; an item stays queued until someone receives it.
//
// The channel is closed when the queue shuts down. Items still queued then
// are not sent on it; call Get until it reports shutdown to drain them.
func (q *Queue[T]) Items() <-chan T {
	c := q.c
	if !c.itemsUsed.Load() {
		c.itemsUsed.Store(true)
		select { // wake the owner to take the lane back
		case c.bell <- struct{}{}:
		default:
		}
	}
	return c.out
}

// Done marks item as finished. If it was added again while processing, it
// becomes ready again. Done of an item that is not processing does nothing.
// Done never blocks for long; after shutdown it does nothing.
func (q *Queue[T]) Done(item T) {
	c := q.c
	if c.checkItems {
		c.mustHash(item)
	}
	select {
	case c.dones <- item:
	default:
		select {
		case c.dones <- item:
		case <-c.done:
		}
	}
}

// DoneBatch marks each of items finished, as [Queue.Done] does for each in
// order, with one message to the owner goroutine instead of one each: the
// natural end of a [Queue.GetBatch]. It copies items, so the caller may
// reuse the slice at once. Like Done, it never blocks for long and does
// nothing after shutdown.
func (q *Queue[T]) DoneBatch(items []T) {
	c := q.c
	if len(items) == 0 {
		return
	}
	if c.checkItems {
		for _, item := range items {
			c.mustHash(item)
		}
	}
	b, _ := c.doneBufs.Get().(*[]T)
	if b == nil {
		b = new([]T)
	}
	*b = append((*b)[:0], items...)
	if !c.send(request[T]{op: opDones, dones: b}) {
		c.doneBufs.Put(b)
	}
}

// Len returns the number of items ready to be handed out. It waits for the
// owner goroutine to answer, so it counts every Add the caller made before.
// After shutdown it returns the number of queued items Get has yet to return.
func (q *Queue[T]) Len() int {
	c := q.c
	reply := make(chan int, 1)
	if !c.send(request[T]{op: opLen, reply: reply}) {
		return len(c.rest)
	}
	select {
	case n := <-reply:
		return n
	case <-c.done:
		select {
		case n := <-reply:
			return n
		default:
			return len(c.rest)
		}
	}
}

// ShutDown stops the queue: from now on adds are ignored and consumers
// blocked in Get or receiving from Items are released. Items queued at that
// moment stay available to Get; pending delays are dropped, and so are items
// that were added again while being processed. ShutDown blocks until the
// owner goroutine has ended, which takes no longer than applying the
// requests already sent; when it returns, no goroutine of the queue remains.
// It may be called more than once, and ends a ShutDownWithDrain's wait.
func (q *Queue[T]) ShutDown() {
	q.c.stop()
	<-q.c.done
	q.cleanup.Stop()
}

// ShutDownWithDrain stops the queue like [Queue.ShutDown], but first waits
// until every item handed out is Done. Meanwhile consumers keep receiving
// the queued items (which then count as handed out too) and Done works as
// usual; adds and pending delays are dropped. A ShutDown from another
// goroutine ends the wait. When it returns, no goroutine of the queue
// remains. It blocks forever if a handed-out item is never Done and
// ShutDown is never called.
func (q *Queue[T]) ShutDownWithDrain() {
	c := q.c
	c.shutting.Store(true)
	c.drainOnce.Do(func() { close(c.drain) })
	<-c.done
	q.cleanup.Stop()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.c.shutting.Load() }

// mustHash panics in the caller if item cannot be a map key, so that the
// owner goroutine never does.
func (c *core[T]) mustHash(item T) {
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("actor: item of type %T cannot be used as a map key: %v", item, r))
		}
	}()
	maphash.Comparable(c.seed, item)
}

// mayHoldUnhashable reports whether a comparable type can hold a value that
// panics when hashed: an interface somewhere inside it.
func mayHoldUnhashable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return mayHoldUnhashable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHoldUnhashable(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
