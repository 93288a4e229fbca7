package actor

import (
	"context"
	"errors"
)

// The ways to take items: Get and its siblings, and the items channel.
// A Get takes an item the lane offers if there is one (lane.go), and
// otherwise asks the owner goroutine for one (a waiter, caller.go).

// ErrShutDown is returned by [Queue.GetContext] once the queue is shutting
// down and no item is ready.
var ErrShutDown = errors.New("actor: queue is shut down")

// Get blocks until an item is ready and returns it, or, once shutdown has
// begun, returns shutdown == true as soon as no item is ready (even while
// others are still being processed). When shutdown is true, item is the
// zero value and the worker should return. Otherwise the item is now
// processing, and the caller must call [Queue.Done] with it when finished.
//
// After shutdown, Get keeps returning the items still ready, one each,
// including an item that was added again while it was processing, once
// its Done has come.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	item, _, got, _ := q.c.get(nil)
	return item, !got
}

// GetWithPriority is [Queue.Get] that also returns the item's priority.
func (q *Queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, priority, got, _ := q.c.get(nil)
	return item, priority, !got
}

// GetContext is like [Queue.Get] but returns ctx.Err() if ctx ends first,
// and [ErrShutDown] instead of shutdown == true. An item is never lost or
// left processing because the context ended: it stays ready for the next
// consumer.
func (q *Queue[T]) GetContext(ctx context.Context) (item T, err error) {
	item, _, got, canceled := q.c.get(ctx.Done())
	switch {
	case got:
		return item, nil
	case canceled:
		return item, ctx.Err()
	}
	return item, ErrShutDown
}

// GetBatch is like [Queue.Get] but hands out up to cap(buf) ready items in
// one exchange with the owner goroutine, oldest first, which is much cheaper
// per item than one Get each when many items are ready. It blocks until at
// least one item is ready, or until shutdown has begun and none is; then it
// returns as many of the ready items as fit, without waiting for more. The
// items are appended to buf[:0] (a buf with no capacity counts as capacity
// 1) and are all processing, exactly as if taken by Get one by one: the
// caller must call [Queue.Done] with each, or [Queue.DoneBatch] with all.
// Reusing buf across calls makes GetBatch allocation-free. Once shutdown has
// begun it returns the items still ready, then shutdown == true with no
// items.
func (q *Queue[T]) GetBatch(buf []T) (items []T, shutdown bool) {
	if cap(buf) == 0 {
		buf = make([]T, 0, 1)
	}
	w := q.c.ask(buf[:0], 0, nil)
	items, shutdown = w.items, w.shutdown
	q.c.recycle(w)
	return items, shutdown
}

// Items returns the channel on which the owner goroutine offers the next
// ready item, for consumers that select on it next to other channels. An
// item received from it is processing, exactly as if returned by
// [Queue.Get]: the caller must call [Queue.Done] with it. Receivers that go
// away lose nothing; an item stays ready until someone receives it.
//
// The owner offers one item at a time, the first in the ready order when
// it offers it, and keeps offering it while it waits. So with priorities,
// an item offered just before the owner applies an add of a higher
// priority may still be received first, even by the goroutine that made
// that add; a plain channel receive cannot be ordered after the caller's
// earlier requests. Get and GetBatch are: they never pass over an item
// that their caller's own earlier add made ready at a higher priority.
//
// The first call of Items turns the queue's lane off for good, for every
// consumer: Get then asks the owner goroutine for each item, as GetBatch
// does, instead of taking one without waiting for it (see lane.go), so a
// Get costs a round trip to the owner. Queues that mix Get and Items pay
// that; queues that use only Get never do.
//
// The channel is closed once the owner goroutine has ended: at ShutDown, or
// at the end of a ShutDownWithDrain (during the drain it keeps offering
// the ready items). Items still ready then, and items that become ready at
// a later Done (those added again while they were processing), are not
// sent on it: when it is closed, call Get (or GetBatch) until it reports
// shutdown to take them.
func (q *Queue[T]) Items() <-chan T {
	c := q.c
	if c.phase.Or(phaseItems)&phaseItems == 0 {
		c.inbox.wake() // the owner offers items on the channel, and takes the lane back
	}
	return c.out
}

// get is Get and GetContext: an item claimed from the lane, or handed out
// by the owner (or, after it ended, taken from the state). got is false
// when the queue is shutting down and nothing is ready, or, with canceled
// true, when cancel was closed first.
func (c *shared[T]) get(cancel <-chan struct{}) (item T, prio int, got, canceled bool) {
	sl := c.lane.receive()
	if sl != nil {
		if item, prio, ok := c.lane.claim(sl, c.stamp(receiveInstant, 0), c.inbox.puts.Load()); ok {
			if c.metrics {
				c.inbox.wake() // the owner records the hand-out as soon as it runs
			}
			return item, prio, true, false
		}
	}
	// No slot, or one below the gate or revoked: the slot goes back to
	// the owner with the request, which is answered once every request
	// sent before it is applied. Its item is not the caller's.
	w := c.ask(nil, sl.back(), cancel)
	if len(w.items) > 0 {
		item, prio, got = w.items[0], w.prio, true
	}
	canceled = w.canceled
	c.recycle(w)
	return item, prio, got, canceled
}
