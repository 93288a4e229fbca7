package actor

import (
	"context"
	"errors"
	"hash/maphash"
	"reflect"
	"runtime"
	"slices"
	"time"

	"github.com/actorq/actorq/actor/internal/state"
	"github.com/actorq/actorq/ratelimit"
)

// ErrShutDown is returned by [Queue.GetContext] once the queue is shutting
// down and no item is ready.
var ErrShutDown = errors.New("actor: queue is shut down")

// A Queue is a work queue whose state is owned by one goroutine.
//
// A Queue is safe for concurrent use by multiple goroutines. The zero value
// is not usable; create one with [New].
type Queue[T comparable] struct {
	c       *shared[T]
	cleanup runtime.Cleanup
}

// New starts a queue's owner goroutine and returns the queue. The goroutine
// ends when [Queue.ShutDown] or [Queue.ShutDownWithDrain] returns, or soon
// after the Queue becomes unreachable if neither is called (but see
// inBubble for testing/synctest).
//
// New calls cfg.MetricsProvider's New methods in the caller's goroutine.
func New[T comparable](cfg Config[T]) *Queue[T] {
	o := newOwner(cfg)
	go o.loop()
	q := &Queue[T]{c: o.c}
	if !inBubble() {
		q.cleanup = runtime.AddCleanup(q, (*shared[T]).stop, o.c)
	}
	return q
}

// newOwner makes a queue's shared part and its owner, whose goroutine New
// starts.
func newOwner[T comparable](cfg Config[T]) *owner[T] {
	clock := cfg.Clock
	if clock == nil {
		clock = realClock{}
	}
	limiter := cfg.RateLimiter
	if limiter == nil {
		limiter = ratelimit.DefaultController[T]()
	}
	c := &shared[T]{
		out:        make(chan T),
		bell:       make(chan struct{}, 1),
		quit:       make(chan struct{}),
		drain:      make(chan struct{}),
		done:       make(chan struct{}),
		rest:       make(chan *owner[T], 1),
		clock:      clock,
		epoch:      clock.Now(),
		limiter:    limiter,
		checkItems: mayHoldUnhashable(reflect.TypeFor[T]()),
		seed:       maphash.MakeSeed(),
	}
	m := newMetrics[T](cfg.Name, cfg.MetricsProvider, cfg.Fairness != nil && cfg.Storage == nil, cfg.KeyMetricsLimit)
	sc := state.Config[T]{Metrics: m, Requeue: state.Requeue(cfg.Requeue)}
	if cfg.Storage != nil {
		sc.Storage = cfg.Storage
	} else {
		sc.Fair, sc.Bound = cfg.Fairness != nil, cfg.StarvationBound
		c.fairness = cfg.Fairness
		sc.ByWork, sc.Limits = flowControl(cfg)
	}
	c.stamped = m != nil || sc.Bound > 0 || sc.ByWork
	o := &owner[T]{c: c, q: state.New(sc), drain: c.drain, metrics: m != nil}
	fp := defaultPaths
	if cfg.paths != nil {
		fp = *cfg.paths
	}
	install(fp, o, cfg, m)
	if cfg.Name != "" {
		c.register(cfg.Name)
	}
	return o
}

// Add marks item as needing processing. It never waits for the owner
// goroutine to act and blocks only while the inbox is full, until the
// owner takes a round. If item is already waiting to be handed out, Add
// does nothing; if it is being processed, it is handed out again after
// [Queue.Done]; if it is waiting on a delay, it becomes ready now and the
// delay is dropped. Once shutdown has begun, Add does nothing.
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
	hot, skip := c.filter.skip(item)
	if skip {
		return // a duplicate (filter.go)
	}
	if c.sendHot(request[T]{op: opAdd, item: item, at: c.callTime(), keys: c.keysOf(item)}, hot) {
		c.lane.added(0)
	}
}

// AddAfter adds item after the delay d, measured on the queue's clock. A d
// of zero or less adds it at once, like [Queue.Add]. If item is already
// waiting to be handed out, or waiting on an earlier deadline, AddAfter does
// nothing: a delay can be shortened, never lengthened. A deadline beyond the
// clock's range (d = math.MaxInt64, say) saturates: the item waits that
// long. AddAfter never waits behind the delays already pending; like Add,
// it blocks only while the inbox is full. Once shutdown has begun it does
// nothing.
func (q *Queue[T]) AddAfter(item T, d time.Duration) {
	c := q.c
	if c.checkItems {
		c.mustHash(item)
	}
	if c.shutting.Load() {
		return
	}
	if d <= 0 {
		c.sendAdd(request[T]{op: opRetry, item: item, at: c.callTime(), keys: c.keysOf(item)}, 0)
		return
	}
	at := c.since()
	c.send(request[T]{op: opAddAt, item: item, at: at, due: deadlineAfter(at, d), keys: c.keysOf(item)})
}

// AddOpts are the options of [Queue.AddWithOpts], controller-runtime's
// priority queue's with a plain priority.
type AddOpts struct {
	// Priority orders the items: higher first, 0 by default. An item
	// keeps the highest priority it was given until it is handed out (and
	// an item added again while processing, until it is handed out
	// again); a raised priority puts it at the back of its new priority.
	// Any int is a priority, math.MinInt and math.MaxInt included.
	Priority int
	// After delays the items, as AddAfter does: an item keeps the
	// earliest time at which it becomes ready.
	After time.Duration
	// RateLimited delays each item by its rate limiter's delay, or by
	// After if that is shorter and not zero.
	RateLimited bool
}

// AddWithOpts adds items with the options o, in one message to the owner
// goroutine however many there are: it is also the way to add in bulk. The
// rate limiter (with RateLimited) and the fairness keys are computed in
// the caller's goroutine. As in controller-runtime, each item that ends up
// delayed counts as a retry in the metrics. A call of one item added now
// (no After, no RateLimited), as controller-runtime's handlers make, sends
// the item in its request, with no list. Like Add, it blocks only while
// the inbox is full. Once shutdown has begun it does nothing.
func (q *Queue[T]) AddWithOpts(o AddOpts, items ...T) {
	c := q.c
	if len(items) == 0 || c.shutting.Load() {
		return
	}
	if c.checkItems {
		for _, item := range items {
			c.mustHash(item)
		}
	}
	if len(items) == 1 && o.After <= 0 && !o.RateLimited && int(int32(o.Priority)) == o.Priority {
		item := items[0]
		c.sendAdd(request[T]{op: opAdd, prio: int32(o.Priority), item: item, at: c.callTime(), keys: c.keysOf(item)}, o.Priority)
		return
	}
	l := c.list()
	l.prio = o.Priority
	l.items = slices.Grow(l.items, len(items)) // one allocation for a new list, not one per doubling
	var since int64
	for _, item := range items {
		after := o.After
		if o.RateLimited {
			if d := c.limiter.When(item); after == 0 || d < after {
				after = d
			}
		}
		due := int64(now)
		if after > 0 {
			if since == 0 {
				since = c.since()
			}
			due = deadlineAfter(since, after)
		}
		l.add(item, due)
		if c.fairness != nil {
			l.keys = append(l.keys, c.keysOf(item))
		}
	}
	if !c.sendAdd(request[T]{op: opAddList, list: l, at: c.callTime()}, o.Priority) {
		l.recycle()
	}
}

// AddRateLimited adds item after the delay its rate limiter gives, which is
// computed in the caller's goroutine; then it behaves like
// [Queue.AddAfter]. As in client-go, the limiter is asked even once
// shutdown has begun (and records the failure), though the add is ignored.
func (q *Queue[T]) AddRateLimited(item T) {
	if q.c.checkItems {
		q.c.mustHash(item)
	}
	q.AddAfter(item, q.c.limiter.When(item))
}

// Forget tells the rate limiter that item is done being retried. It does
// not remove item from the queue; call [Queue.Done] for that.
func (q *Queue[T]) Forget(item T) { q.c.limiter.Forget(item) }

// NumRequeues returns how many times the rate limiter has delayed item
// since it was last forgotten.
func (q *Queue[T]) NumRequeues(item T) int { return q.c.limiter.NumRequeues(item) }

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
	item, _, got, _ := q.c.take(nil)
	return item, !got
}

// GetWithPriority is [Queue.Get] that also returns the item's priority.
func (q *Queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	item, priority, got, _ := q.c.take(nil)
	return item, priority, !got
}

// GetContext is like [Queue.Get] but returns ctx.Err() if ctx ends first,
// and [ErrShutDown] instead of shutdown == true. An item is never lost or
// left processing because the context ended: it stays ready for the next
// consumer.
func (q *Queue[T]) GetContext(ctx context.Context) (item T, err error) {
	item, _, got, canceled := q.c.take(ctx.Done())
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
	w := q.c.ask(buf[:0], nil, nil)
	items, shutdown = w.items, w.shutdown
	q.c.release(w)
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
	if !c.itemsUsed.Load() {
		c.itemsUsed.Store(true)
		c.lane.turnOff()
		c.ring() // the owner offers items on the channel, and takes the lane back
	}
	return c.out
}

// Done marks item as finished. If it was added again while processing, it
// becomes ready again, whenever the Done comes (before, during or after
// shutdown). Done of an item that is not processing does nothing. Like
// Add, Done blocks only while the inbox is full.
func (q *Queue[T]) Done(item T) {
	c := q.c
	if c.checkItems {
		c.mustHash(item)
	}
	c.post(request[T]{op: opDone, item: item, at: c.callTime()})
}

// DoneBatch marks each of items finished, as [Queue.Done] does for each in
// order, with one message to the owner goroutine instead of one each: the
// natural end of a [Queue.GetBatch]. It copies items, so the caller may
// reuse the slice at once.
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
	l := c.list()
	l.items = append(l.items, items...)
	c.post(request[T]{op: opDones, list: l, at: c.callTime()})
}

// Len returns the number of items ready to be handed out. It waits for the
// owner goroutine to answer, so it counts every call the caller made
// before, and once it returns, the metrics of those calls are recorded.
func (q *Queue[T]) Len() int {
	c := q.c
	w := c.waiter()
	c.post(request[T]{op: opLen, w: w})
	c.await(w)
	n := w.n
	c.release(w)
	return n
}

// SetKeyLimit sets the flow control of the fairness key l.Keys, replacing
// what it had: a cap of 0 and a weight of 0 (or 1) are the defaults. It
// takes effect at once: a key below its new cap takes its turn again, and
// one at or above it is passed over until enough of its items are Done.
// SetKeyLimit returns once the owner goroutine has applied it. It returns
// an error, and changes nothing, if l is not valid ([KeyLimit.Check]) or
// the queue has no fairness. The queue does not keep l.Keys.
func (q *Queue[T]) SetKeyLimit(l KeyLimit) error {
	c := q.c
	if err := l.Check(); err != nil {
		return err
	}
	if c.fairness == nil {
		return errors.New("actor: SetKeyLimit on a queue without Config.Fairness")
	}
	w := c.waiter()
	w.limit = l.core()
	c.post(request[T]{op: opLimit, w: w})
	c.await(w)
	w.limit = state.KeyLimit{}
	c.release(w)
	return nil
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.c.shutting.Load() }

// take is the receive of Get and GetContext: an item claimed from the
// lane, or handed out by the owner (or, after it ended, taken from the
// state). got is false when the queue is shutting down and nothing is
// ready, or, with canceled true, when cancel was closed first.
func (c *shared[T]) take(cancel <-chan struct{}) (item T, prio int, got, canceled bool) {
	sl := c.lane.receive()
	if sl != nil {
		if it, p, ok := c.lane.claim(c, sl); ok {
			return it, p, true, false
		}
		// Revoked, or below top: the slot goes back to the owner with the
		// request, which is answered once every request sent before it is
		// applied. Its item is not the caller's.
	}
	w := c.ask(nil, sl, cancel)
	if len(w.items) > 0 {
		item, prio, got = w.items[0], w.prio, true
	}
	canceled = w.canceled
	c.release(w)
	return item, prio, got, canceled
}

// sendAdd sends r, an add of items ready now at priority prio, and tells
// the lane (lane.go).
func (c *shared[T]) sendAdd(r request[T], prio int) bool {
	if !c.send(r) {
		return false
	}
	c.lane.added(prio)
	return true
}
