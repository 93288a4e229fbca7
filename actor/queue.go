package actor

import (
	"hash/maphash"
	"reflect"
	"runtime"
	"slices"
	"time"

	"github.com/actorq/actorq/actor/internal/state"
	"github.com/actorq/actorq/ratelimit"
)

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
func New[T comparable](cfg Config[T]) *Queue[T] { return newQueue(cfg, defaultPaths) }

// newQueue is New, with the fast paths fp.
func newQueue[T comparable](cfg Config[T], fp fastPaths) *Queue[T] {
	o := newOwner(cfg, fp)
	go o.loop()
	q := &Queue[T]{c: o.c}
	if !inBubble() {
		q.cleanup = runtime.AddCleanup(q, (*shared[T]).quit, o.c)
	}
	return q
}

// newOwner makes a queue's shared part and its owner, with the fast paths
// fp, whose goroutine New starts.
func newOwner[T comparable](cfg Config[T], fp fastPaths) *owner[T] {
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
		done:       make(chan struct{}),
		rest:       make(chan *owner[T], 1),
		inbox:      inbox[T]{bell: make(chan struct{}, 1)},
		limiter:    limiter,
		checkItems: mayHoldUnhashable(reflect.TypeFor[T]()),
		seed:       maphash.MakeSeed(),
	}
	c.waiters.New = func() any { return &waiter[T]{reply: make(chan struct{}, 1)} }
	c.lists.New = func() any { return &itemList[T]{home: &c.lists} }
	m := newMetrics[T](cfg.Name, cfg.MetricsProvider, cfg.Fairness != nil && cfg.Storage == nil, cfg.KeyMetricsLimit)
	sc := state.Config[T]{Metrics: m, Requeue: state.Requeue(cfg.Requeue)}
	if cfg.Storage != nil {
		sc.Storage = cfg.Storage
	} else {
		sc.Fair, sc.Bound = cfg.Fairness != nil, cfg.StarvationBound
		c.fairness = cfg.Fairness
		sc.ByWork, sc.Limits, sc.Levels = flowControl(cfg)
	}
	c.decide(clock, m != nil || sc.Bound > 0, sc.ByWork)
	c.metrics = m != nil
	o := &owner[T]{c: c, q: state.New(sc)}
	o.r = &o.round
	c.rate(o.q.Rated(), o.q.Adaptive())
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
	c.mustHash(item)
	if c.phase.Load()&shutDownBits != 0 {
		return
	}
	e, skip := c.filter.skip(item)
	if skip {
		return // a duplicate (filter.go)
	}
	c.send(request[T]{op: opAdd, item: item, at: c.stamp(callInstant, 0), keys: c.keysOf(item), entry: e})
	c.lane.raise(0) // after the send: see the gate (lane.go)
}

// AddAfter adds item after the delay d, measured on the queue's clock. A d
// of zero or less adds it at once, like [Queue.Add]. If item is already
// waiting to be handed out, or waiting on an earlier deadline, AddAfter does
// nothing but raise a priority below 0 to 0, as controller-runtime's does:
// a delay can be shortened, never lengthened. A deadline beyond the
// clock's range (d = math.MaxInt64, say) saturates: the item waits that
// long. AddAfter never waits behind the delays already pending; like Add,
// it blocks only while the inbox is full. Once shutdown has begun it does
// nothing.
func (q *Queue[T]) AddAfter(item T, d time.Duration) {
	c := q.c
	c.mustHash(item)
	if c.phase.Load()&shutDownBits != 0 {
		return
	}
	if d <= 0 {
		c.send(request[T]{op: opRetry, item: item, at: c.stamp(callInstant, 0), keys: c.keysOf(item)})
	} else {
		at := c.since()
		c.send(request[T]{op: opAddAt, item: item, at: at, due: deadlineAfter(at, d), keys: c.keysOf(item)})
	}
	c.lane.raise(0) // a delayed add too may raise a ready item to 0
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
	if len(items) == 0 || c.phase.Load()&shutDownBits != 0 {
		return
	}
	c.mustHash(items...)
	if len(items) == 1 && o.After <= 0 && !o.RateLimited && int(int32(o.Priority)) == o.Priority {
		item := items[0]
		c.send(request[T]{op: opAdd, prio: int32(o.Priority), item: item, at: c.stamp(callInstant, 0), keys: c.keysOf(item)})
		c.lane.raise(o.Priority)
		return
	}
	l := c.newList()
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
		due := int64(noDeadline)
		if after > 0 {
			if since == 0 {
				since = c.since()
			}
			due = deadlineAfter(since, after)
		}
		l.items, l.due = append(l.items, item), append(l.due, due)
		if c.fairness != nil {
			l.keys = append(l.keys, c.keysOf(item))
		}
	}
	if !c.send(request[T]{op: opAddList, list: l, at: c.stamp(callInstant, 0)}) {
		l.recycle()
	}
	c.lane.raise(o.Priority)
}

// AddRateLimited adds item after the delay its rate limiter gives, which is
// computed in the caller's goroutine; then it behaves like
// [Queue.AddAfter]. As in client-go, the limiter is asked even once
// shutdown has begun (and records the failure), though the add is ignored.
func (q *Queue[T]) AddRateLimited(item T) {
	q.c.mustHash(item)
	q.AddAfter(item, q.c.limiter.When(item))
}

// Forget tells the rate limiter that item is done being retried. It does
// not remove item from the queue; call [Queue.Done] for that.
func (q *Queue[T]) Forget(item T) { q.c.limiter.Forget(item) }

// NumRequeues returns how many times the rate limiter has delayed item
// since it was last forgotten.
func (q *Queue[T]) NumRequeues(item T) int { return q.c.limiter.NumRequeues(item) }

// Done marks item as finished. If it was added again while processing, it
// becomes ready again, whenever the Done comes (before, during or after
// shutdown). Done of an item that is not processing does nothing. Like
// Add, Done blocks only while the inbox is full.
func (q *Queue[T]) Done(item T) {
	c := q.c
	c.mustHash(item)
	c.post(request[T]{op: opDone, item: item, at: c.stamp(doneInstant, 0)})
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
	c.mustHash(items...)
	l := c.newList()
	l.items = append(l.items, items...)
	c.post(request[T]{op: opDones, list: l, at: c.stamp(doneInstant, 0)})
}

// Len returns the number of items ready to be handed out. It waits for the
// owner goroutine to answer, so it counts every call the caller made
// before, and once it returns, the metrics of those calls are recorded.
func (q *Queue[T]) Len() int {
	c := q.c
	w := c.newWaiter()
	c.post(request[T]{op: opLen, w: w, at: c.stamp(callInstant, 0)})
	c.await(w)
	n := w.n
	c.recycle(w)
	return n
}

// Snapshot returns the queue's counts and up to n items of each state
// (ready, processing, delayed); n <= 0 gives the counts only. The owner
// goroutine answers it in one exchange, between two rounds, in O(n log n
// + p log p for the p items processing + the priorities and keys on the
// way): it never
// walks the items ready or delayed, and allocates only for what it
// returns. After shutdown it answers from what is left. It is safe for
// concurrent use, and blocks until the owner answers.
//
// Experimental: the snapshot's shape may change before v1.
func (q *Queue[T]) Snapshot(n int) Snapshot[T] {
	return snapshotOf(q.c, n, func(item T) T { return item })
}

// ShutDown stops the queue: from now on adds are ignored, and consumers
// blocked in Get, GetContext, GetBatch or receiving from Items are released
// (Get returns the items still ready first). ShutDown blocks until the
// owner goroutine has done its last work, which takes no longer than
// applying the requests already sent; when it returns, no goroutine of the
// queue remains but the owner returning, which blocks on nothing and never
// touches the queue again. Pending delays are dropped. Items still ready
// stay available to Get, and an item that was added again while being
// processed becomes ready at its Done, as in client-go. An add that was
// under way when ShutDown was called (it had not returned) may be applied
// before the shutdown or ignored, never after a Get reported shutdown.
// ShutDown may be called more than once, from any goroutine, and ends the
// wait of every ShutDownWithDrain call made before it.
func (q *Queue[T]) ShutDown() {
	c := q.c
	c.shutdowns.Add(1)
	c.quit()
	<-c.done
	c.withRest(func(o *owner[T]) {
		if o.settled != nil { // release the drains begun after the owner ended
			close(o.settled)
			o.settled = nil
		}
	})
	q.cleanup.Stop()
}

// ShutDownWithDrain stops the queue like [Queue.ShutDown], but first waits
// until no item is being processed. Meanwhile adds and pending delays are
// dropped, Done works as usual, and consumers keep getting the items still
// ready (Get returns shutdown as soon as none is, even while others are
// processing); an item handed out during the drain is waited for too, and
// so is one that was added again while processing and became ready at its
// Done, once a consumer takes it. It returns when nothing is processing, or
// when ShutDown is called (from another goroutine) after it began. When it
// returns, no goroutine of the queue remains but the owner returning, as
// for ShutDown.
//
// It may be called more than once and from many goroutines: every call
// returns under the same rule. It blocks forever if an item being processed
// is never Done and ShutDown is never called.
func (q *Queue[T]) ShutDownWithDrain() {
	c := q.c
	shutdowns := c.shutdowns.Load()
	c.unregister()
	c.phase.Or(phaseDrain)
	c.inbox.wake()
	<-c.done
	for {
		var idle chan struct{}
		c.withRest(func(o *owner[T]) {
			if !o.busy() || c.shutdowns.Load() != shutdowns {
				return
			}
			if o.settled == nil {
				o.settled = make(chan struct{})
			}
			idle = o.settled
		})
		if idle == nil {
			break
		}
		<-idle
	}
	q.cleanup.Stop()
}

// quit tells the owner goroutine to end, without waiting. ShutDown calls
// it, and so does the runtime's cleanup goroutine for a Queue nobody holds
// any more.
func (c *shared[T]) quit() {
	c.unregister()
	c.phase.Or(phaseQuit)
	c.inbox.wake()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.c.phase.Load()&shutDownBits != 0 }
