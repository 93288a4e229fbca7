package actor

import (
	"errors"
	"time"

	"github.com/actorq/actorq/actor/internal/state"
)

// Flow control's requests, as the package doc says: a key's limits set,
// a key paused, a throttle reported, while the queue runs. Each is a
// request to the owner goroutine that returns once applied; the limits
// are in limits.go.

// SetKeyLimit sets the flow control of the fairness key l.Keys, replacing
// what it had: a cap of 0 and a weight of 0 (or 1) are the defaults. It
// takes effect at once: a key below its new cap takes its turn again, and
// one at or above it is passed over until enough of its items are Done.
// SetKeyLimit returns once the owner goroutine has applied it. It returns
// an error, and changes nothing, if l is not valid ([KeyLimit.Check]) or
// the queue has no fairness. The queue does not keep l.Keys.
//
// Experimental: flow control may change before v1.
func (q *Queue[T]) SetKeyLimit(l KeyLimit) error {
	c := q.c
	if err := l.Check(); err != nil {
		return err
	}
	if err := c.flowControl("SetKeyLimit"); err != nil {
		return err
	}
	c.setKeyLimit(l.core(), noDeadline)
	return nil
}

// PauseKey holds the items of the fairness key keys (outermost first, as
// [KeyLimit.Keys]) until the instant until on the queue's clock: they are
// passed over as a key at its cap is, and every other key goes on. It is
// what a worker does when the key's API answers 429 with Retry-After. A
// pause that ends before one the key already has, or in the past, does
// nothing; so does one once shutdown has begun. PauseKey returns once
// the owner goroutine has applied it. It returns an error, and changes
// nothing, if keys is empty or the queue has no fairness. The queue does
// not keep keys.
//
// Experimental: flow control may change before v1.
func (q *Queue[T]) PauseKey(keys []string, until time.Time) error {
	c := q.c
	if len(keys) == 0 {
		return errors.New("actor: PauseKey with no key")
	}
	if err := c.flowControl("PauseKey"); err != nil {
		return err
	}
	c.setKeyLimit(state.KeyLimit{Keys: keys}, int64(until.Sub(c.epoch)))
	return nil
}

// Throttled reports that item, being processed, was throttled (a 429, a
// "rate exceeded"): the adaptive cap ([AdaptiveCap]) of every key on its
// path falls, at most once a window. If retryAfter is after now, the
// keys whose adaptive caps it counted for (or the item's own key if none
// has one) are also paused until then, as [Queue.PauseKey] does. Any
// goroutine may report, a worker that never calls Done too (a
// controller-runtime reconciler). A report for an item that is not
// processing, for keys without adaptive caps, or once shutdown has begun
// changes no cap. Throttled returns once the owner goroutine has applied
// it; it returns an error, and changes nothing, if the queue has no
// fairness.
//
// Experimental: flow control may change before v1.
func (q *Queue[T]) Throttled(item T, retryAfter time.Time) error {
	c := q.c
	c.mustHash(item)
	if err := c.flowControl("Throttled"); err != nil {
		return err
	}
	w := c.newWaiter()
	w.one[0] = item
	c.report(w, retryAfter)
	return nil
}

// ThrottledKey is [Queue.Throttled] for the fairness key keys (outermost
// first, as [KeyLimit.Keys]): the adaptive caps of keys and the keys
// above it fall, and with a retryAfter after now keys is paused until
// then. A key the queue does not hold is left alone. It returns an
// error, and changes nothing, if keys is empty or the queue has no
// fairness. The queue does not keep keys.
//
// Experimental: flow control may change before v1.
func (q *Queue[T]) ThrottledKey(keys []string, retryAfter time.Time) error {
	c := q.c
	if len(keys) == 0 {
		return errors.New("actor: ThrottledKey with no key")
	}
	if err := c.flowControl("ThrottledKey"); err != nil {
		return err
	}
	w := c.newWaiter()
	w.limit.Keys = keys
	c.report(w, retryAfter)
	return nil
}

// flowControl returns the error of op, a request of flow control, on a
// queue without fairness, or nil.
func (c *shared[T]) flowControl(op string) error {
	if c.fairness == nil {
		return errors.New("actor: " + op + " on a queue without Config.Fairness")
	}
	return nil
}

// report has the owner apply the throttle w carries (of w.limit.Keys, or
// if none of the item w.one[0]), with a pause until retryAfter if it is
// not zero, and waits until it has.
func (c *shared[T]) report(w *waiter[T], retryAfter time.Time) {
	w.pause = noDeadline
	if !retryAfter.IsZero() {
		w.pause = int64(retryAfter.Sub(c.epoch))
	}
	c.post(request[T]{op: opThrottle, w: w, at: c.stamp(callInstant, 0)})
	c.await(w)
	var zero T
	w.limit, w.one[0] = state.KeyLimit{}, zero
	c.recycle(w)
}

// setKeyLimit has the owner set the limit l, or with a pause instant
// other than noDeadline pause the key l.Keys until then, and waits until
// it has.
func (c *shared[T]) setKeyLimit(l state.KeyLimit, pause int64) {
	w := c.newWaiter()
	w.limit, w.pause = l, pause
	c.post(request[T]{op: opLimit, w: w, at: c.stamp(callInstant, 0)})
	c.await(w)
	w.limit = state.KeyLimit{}
	c.recycle(w)
}
