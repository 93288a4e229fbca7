package actor

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

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

// shared is what callers and the owner goroutine share: channels, flags,
// and settings fixed at New. The owner's own fields are in owner and state.
type shared[T comparable] struct {
	inbox *mailbox[T]   // every request, in each caller's order (mailbox.go)
	out   chan T        // unbuffered: Items; an item is processing once received
	lane  chan *slot[T] // buffered: ready items for Get to claim (lane.go)
	bell  chan struct{} // capacity 1: wakes the owner (the inbox rings it too)

	wantLane atomic.Bool // a Get found the lane empty

	quit  chan struct{}  // closed by ShutDown, or when the Queue is dropped
	drain chan struct{}  // closed by ShutDownWithDrain
	done  chan struct{}  // closed as the owner goroutine's last act
	rest  chan *state[T] // capacity 1: after done, the state, held by one caller at a time

	quitOnce, drainOnce sync.Once
	shutting            atomic.Bool  // ShutDown or ShutDownWithDrain was called
	shutdowns           atomic.Int64 // calls of ShutDown, which end drains begun before
	itemsUsed           atomic.Bool  // Items was called: the owner stages items for it
	noLane              atomic.Bool  // the lane is off for good (lane.go)
	top                 topPrio      // at least the priority of every add not yet applied, and of every ready item (lane.go)

	filter     *filter[T]       // nil with a custom Storage
	fairness   func(T) []string // Config.Fairness, nil with a custom Storage
	depth      atomic.Int32     // with fairness: 1 + the number of keys of every item, once one was added
	clock      Clock
	epoch      time.Time
	limiter    RateLimiter[T]
	stamp      func() time.Time // with metrics, the clock's Now, which a lane claim records
	checkItems bool             // T can hold values that cannot be map keys
	seed       maphash.Seed

	waiters sync.Pool // of *waiter[T]
	lists   sync.Pool // of *itemList[T]
}

// New starts a queue's owner goroutine and returns the queue. The goroutine
// ends when [Queue.ShutDown] or [Queue.ShutDownWithDrain] returns, or soon
// after the Queue becomes unreachable if neither is called (but see
// inBubble for testing/synctest).
//
// New calls cfg.MetricsProvider's New methods in the caller's goroutine.
func New[T comparable](cfg Config[T]) *Queue[T] {
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
		lane:       make(chan *slot[T], laneSize),
		bell:       make(chan struct{}, 1),
		quit:       make(chan struct{}),
		drain:      make(chan struct{}),
		done:       make(chan struct{}),
		rest:       make(chan *state[T], 1),
		clock:      clock,
		epoch:      clock.Now(),
		limiter:    limiter,
		checkItems: mayHoldUnhashable(reflect.TypeFor[T]()),
		seed:       maphash.MakeSeed(),
	}
	c.inbox = newMailbox[T](c.bell)
	m := newMetrics[T](cfg.Name, cfg.MetricsProvider, clock, c.epoch)
	if m != nil {
		c.stamp = clock.Now
	}
	order, f := newOrder(cfg.Storage)
	c.filter = f
	laneOn := f != nil && cfg.StarvationBound <= 0 && cfg.Requeue == RequeueAtDone
	if !laneOn { // see lane.go
		c.noLane.Store(true)
		close(c.lane)
	}
	s := newState(order, c.filter, m, c.since)
	if laneOn {
		s.lane.ch, s.lane.top = c.lane, &c.top
	}
	if f != nil { // priorities, fairness and places need the default order
		s.requeue = cfg.Requeue
		s.prio = prioConfig{fair: cfg.Fairness != nil, bound: max(cfg.StarvationBound, 0)}
		s.timed = s.prio.bound > 0
		if s.prio.fair {
			c.fairness = cfg.Fairness
			s.keys = make(map[T][]string)
			s.allKeys = s.timed // see state.keep
		}
		if s.requeue == RequeueAtAdd {
			s.places = make(map[T]uint64)
		}
		if s.prio.fair || s.timed || s.requeue == RequeueAtAdd {
			s.order, s.fifo = s.newPrioOrder(), nil
		}
	}
	o := &owner[T]{
		c:     c,
		s:     s,
		drain: c.drain,
		busy:  make(chan struct{}),
	}
	close(o.busy)
	go o.loop()
	q := &Queue[T]{c: c}
	if !inBubble() {
		q.cleanup = runtime.AddCleanup(q, (*shared[T]).stop, c)
	}
	return q
}

// newOrder returns the ready order of a queue with storage (nil: the
// default) and its duplicate filter, which only the default order has: a
// custom Storage must see every Touch.
func newOrder[T comparable](storage Storage[T]) (readyOrder[T], *filter[T]) {
	if storage == nil {
		return new(fifo[T]), newFilter[T]()
	}
	return &storageOrder[T]{s: storage}, nil
}

// since returns the queue's clock reading in nanoseconds since its epoch.
func (c *shared[T]) since() int64 { return int64(c.clock.Now().Sub(c.epoch)) }

// Add marks item as needing processing. It never waits for the owner
// goroutine to act and blocks only while the inbox is full, until the
// owner takes a batch. If item is already waiting to be handed out, Add
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
	var hot *hotEntry[T]
	if c.filter != nil {
		var skip bool
		if hot, skip = c.filter.skip(item); skip {
			return // a duplicate: see filter.go
		}
	}
	c.sendHot(request[T]{op: opAdd, item: item, at: c.callTime(), keys: c.keysOf(item)}, hot)
	c.top.raise(0) // after the send: see topPrio
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
	at := int64(now)
	if d > 0 {
		at = deadlineAfter(c.since(), d)
	}
	if d <= 0 {
		c.send(request[T]{op: opRetry, item: item, at: c.callTime(), keys: c.keysOf(item)})
		c.top.raise(0) // after the send: see topPrio
	} else {
		c.send(request[T]{op: opAddAt, item: item, at: at, keys: c.keysOf(item)})
	}
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
// the item in its request, with no list to take or allocate. Unlike Add,
// it never blocks: when the inbox is full, the request waits in an
// overflow with no bound until the owner takes it, in its place among the
// caller's calls (as controller-runtime buffers its adds), so that a
// producer adding in bulk never waits behind consumers, at the price of
// memory while the owner is behind. Once shutdown has begun it does
// nothing.
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
		// One item added now, as controller-runtime's handlers add them:
		// its request carries it and its priority, with no list.
		item := items[0]
		if c.send(request[T]{op: opAddPrio, prio: int32(o.Priority), item: item, at: c.callTime(), keys: c.keysOf(item)}) {
			c.top.raise(o.Priority) // after the send, as below
		}
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
		at := int64(now)
		if after > 0 {
			if since == 0 {
				since = c.since()
			}
			at = deadlineAfter(since, after)
		}
		l.add(item, at)
		if c.fairness != nil {
			l.keys = append(l.keys, c.keysOf(item))
		}
	}
	if !c.send(request[T]{op: opAddList, list: l, at: c.callTime()}) {
		l.recycle()
		return
	}
	// After the send, so that no Get of the caller's claims from the lane
	// an item of a lower priority while these are on their way (see
	// topPrio). Even if every item is delayed: an item that is already
	// ready keeps the earliest time, so the add raises it where it is.
	c.top.raise(o.Priority)
}

// keysOf returns item's fairness keys, computed in the caller's goroutine,
// or nil without fairness. Every item must have as many keys as the first
// one added (the keys are a path in a tree of one depth, see prioOrder):
// if not, it panics, here in the caller and never in the owner goroutine.
func (c *shared[T]) keysOf(item T) []string {
	if c.fairness == nil {
		return nil
	}
	keys := c.fairness(item)
	n := int32(len(keys)) + 1
	if d := c.depth.Load(); d != n && (d != 0 || !c.depth.CompareAndSwap(0, n)) {
		if d = c.depth.Load(); d != n {
			panic(fmt.Sprintf("actor: Config.Fairness returned %d keys for item %v and %d for an item added before: it must return as many for every item", len(keys), item, d-1))
		}
	}
	return keys
}

// deadlineAfter returns now+d, saturating at the largest deadline.
func deadlineAfter(now int64, d time.Duration) int64 {
	if now > 0 && int64(d) > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + int64(d)
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
	w := q.c.ask(buf[:0], nil)
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
// it offers it, and keeps offering it while it serves other requests. So
// with priorities, an item offered just before the owner applies an add
// of a higher priority may still be received first, even by the goroutine
// that made that add; a plain channel receive cannot be ordered after the
// caller's earlier requests. Get and GetBatch are: they never pass over an
// item that their caller's own earlier add made ready at a higher priority
// (with fairness, a Get may still take an item offered before the owner
// applied such an add at the same priority: see Config.Fairness).
//
// The first call of Items turns the queue's lane off for good, for every
// consumer: Get then asks the owner goroutine for each item, as GetBatch
// does, instead of claiming one without waiting for it (see lane.go), so a
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
		c.noLane.Store(true)
		c.wakeOwner() // wake the owner to take the lane back
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
	if !c.send(request[T]{op: opDone, item: item, at: c.callTime()}) {
		c.withRest(func(s *state[T]) {
			s.m.stampNow()
			s.done(item)
		})
	}
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
	if !c.send(request[T]{op: opDones, list: l, at: c.callTime()}) {
		c.withRest(func(s *state[T]) {
			s.m.stampNow()
			for _, item := range items {
				s.done(item)
			}
		})
		l.recycle()
	}
}

// Len returns the number of items ready to be handed out. It waits for the
// owner goroutine to answer, so it counts every call the caller made
// before, and once it returns, the metrics of those calls are recorded.
func (q *Queue[T]) Len() int {
	c := q.c
	w := c.waiter()
	var n int
	if c.send(request[T]{op: opLen, w: w}) {
		c.await(w)
		n = w.n
	} else {
		c.withRest(func(s *state[T]) { n = s.len() })
	}
	c.release(w)
	return n
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.c.shutting.Load() }

// take is the receive of Get and GetContext: an item claimed from the lane,
// or handed out by the owner (or, after it ended, taken from the state).
// got is false when the queue is shutting down and nothing is ready, or,
// with canceled true, when cancel was closed first.
func (c *shared[T]) take(cancel <-chan struct{}) (item T, prio int, got, canceled bool) {
	var sl *slot[T]
	if !c.noLane.Load() {
		select {
		case sl = <-c.lane:
		default:
			c.wakeOwner()
			select {
			case sl = <-c.lane:
			case <-cancel:
				return item, 0, false, true
			}
		}
	}
	var w *waiter[T]
	if sl != nil {
		if c.top.claimable(sl.place.prio) {
			if item, prio, ok := sl.claim(c.stamp); ok {
				if c.stamp != nil {
					c.wakeOwner() // with metrics: let the owner record the hand-out now
				}
				return item, prio, true, false
			}
		}
		// An add of a higher priority than the slot's may be on its way,
		// or the owner revoked the slot: give it back to the owner, which
		// hands out what goes first once it has applied every request
		// sent before this one.
		w = c.confirm(sl, cancel)
	} else {
		// The lane is closed: Items was called, shutdown has begun, or
		// the Storage is custom. Ask the owner.
		w = c.ask(nil, cancel)
	}
	if len(w.items) > 0 {
		item, prio, got = w.items[0], w.prio, true
	}
	canceled = w.canceled
	c.release(w)
	return item, prio, got, canceled
}

// list returns an itemList from the pool.
func (c *shared[T]) list() *itemList[T] {
	if l, ok := c.lists.Get().(*itemList[T]); ok {
		return l
	}
	return &itemList[T]{home: &c.lists}
}

// wakeOwner asks the owner goroutine to fill the lane and rings its bell,
// unless a ring is already pending.
func (c *shared[T]) wakeOwner() {
	c.wantLane.Store(true)
	select {
	case c.bell <- struct{}{}:
	default:
	}
}

// mustHash panics in the caller if item cannot be a map key, so that the
// owner goroutine never does.
func (c *shared[T]) mustHash(item T) {
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
