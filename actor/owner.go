package actor

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/order"
	"github.com/actorq/actorq/actor/internal/state"
)

// A queue is two halves: shared, what callers and the owner goroutine
// share, and owner, what the owner goroutine alone touches. This file
// holds both, and how the owner applies one request to the state (serve);
// loop.go holds the goroutine's rounds and its sleep.

// shared is what callers and the owner goroutine share: channels, flags,
// settings fixed at New, and the fast paths' shared parts. The owner's own
// fields, the queue's state among them, are in owner.
type shared[T comparable] struct {
	inbox inbox[T]       // every request, in each caller's order; its bell wakes the owner
	out   chan T         // unbuffered: Items; an item is processing once received
	done  chan struct{}  // closed as the owner goroutine's last act
	rest  chan *owner[T] // after the owner ended, its state: a one-slot channel used as a lock (withRest)

	phase     atomic.Uint32 // the lifecycle word: what callers asked (lifetime.go)
	shutdowns atomic.Int64  // calls of ShutDown, which end drains begun before

	lane   *lane[T]   // the lane, or nil: Get always asks the owner (lane.go)
	filter *filter[T] // the duplicate filter, or nil (filter.go)

	fairness   func(T) []string // Config.Fairness, nil with a custom Storage
	depth      atomic.Int32     // with fairness: 1 + the number of keys of every item, once one was added
	stamps                      // the clock, and which instants the queue reads
	limiter    RateLimiter[T]
	metrics    bool // the state records metrics
	checkItems bool // T can hold values that cannot be map keys
	seed       maphash.Seed
	name       string // Config.Name
	id         uint64 // the queue's number in the registry of named queues (snapshot.go); 0 if unnamed

	waiters sync.Pool // of *waiter[T] (newWaiter, recycle)
	lists   sync.Pool // of *itemList[T] (newList, itemList.recycle)
}

// owner is what only the owner goroutine touches: the queue's state, and
// what it needs to serve it. After the goroutine ends, the callers take
// turns with it (caller.go, withRest).
//
// The fast paths the owner drives are the lane (c.lane) and the filter
// (c.filter); it calls them at the eight points ARCHITECTURE.md lists.
// Either may be nil, and every method it calls does nothing then.
type owner[T comparable] struct {
	c       *shared[T]
	q       *state.Queue[T]
	waiting []*waiter[T] // Get and GetBatch calls waiting for an item, oldest first

	// r is the event being applied, whose instant and place in the order
	// of calls (seq) the owner reads: a request (serve), or between
	// requests its own, round (own).
	r     *request[T]
	round request[T]

	dueAlarm  alarm // armed to the earliest deadline
	tickAlarm alarm // armed to the next refresh of the unfinished-work gauges

	// The item offered on the items channel while the owner sleeps in its
	// select: popped before it, and returned after it unless a consumer
	// received it (Items).
	staged      bool
	stagedItem  T
	stagedPlace order.Place

	settled chan struct{} // after the owner ended: closed once nothing is processing
}

// serve applies r, numbered by the inbox (or, after the owner ended, by
// its caller), to the state: r is the event in hand (owner.r) until it
// returns; then the owner's own event is (own). The owner goroutine calls
// it, and so do callers for requests still in the inbox after the owner
// ended.
func (o *owner[T]) serve(r *request[T]) {
	o.r = r
	o.c.lane.before(r)
	switch r.op {
	case opAdd:
		o.add(r.item, state.Opts{Prio: int(r.prio), Keys: r.keys})
	case opRetry:
		o.add(r.item, state.Opts{Keys: r.keys, Retry: true})
	case opAddAt:
		o.addAt(r.item, r.due, state.Opts{Keys: r.keys, Retry: true})
	case opAddList:
		o.addList(r.list)
		r.list.recycle()
	case opDone:
		o.done(r.item)
	case opDones:
		for _, item := range r.list.items {
			o.done(item)
		}
		r.list.recycle()
	case opLen:
		o.serveDue()
		r.w.n = o.q.Len()
		r.w.answer()
	case opGet:
		o.get(r.w)
	case opCancel:
		o.cancel(r.w)
	case opLimit:
		o.c.lane.recall() // popped items count against the caps
		if now := o.c.since(); r.w.pause == noDeadline {
			o.q.SetLimit(r.w.limit, now)
		} else {
			o.q.Pause(r.w.limit.Keys, r.w.pause, now)
		}
		o.c.rate(o.q.Rated(), o.q.Adaptive())
		r.w.answer()
	case opThrottle:
		o.c.lane.recall() // popped items count against the caps, which may fall
		now, until := o.c.since(), r.w.pause
		if until == noDeadline {
			until = 0
		}
		if r.w.limit.Keys != nil {
			o.q.ThrottleKey(r.w.limit.Keys, now, until)
		} else {
			o.q.Throttle(r.w.one[0], now, until)
		}
		o.c.rate(o.q.Rated(), o.q.Adaptive())
		r.w.answer()
	case opSnapshot:
		o.snapshot(r.w)
	}
	o.own()
}

// own makes the owner's own event the event in hand, once a request is
// applied: it comes after every request taken, and has the instant of the
// last one (the event that made items ready for the calls waiting), until
// a due item dates it again. The request itself is not kept: the inbox
// reuses it.
func (o *owner[T]) own() {
	o.round.at, o.round.seq = o.r.at, o.c.inbox.taken
	o.r = &o.round
}

// serveDue makes due items ready, reading the clock only if a deadline may
// have passed.
func (o *owner[T]) serveDue() {
	if at, ok := o.q.NextDue(); ok {
		if now := o.c.since(); at <= now {
			o.r.at = now
			o.q.Due(now)
		}
	}
}

// get serves a Get or GetBatch: w waits for items, behind the calls
// already waiting.
func (o *owner[T]) get(w *waiter[T]) {
	o.serveDue() // an item due now is ready for this call
	if item, prio, ok := o.c.lane.asked(o.r, len(o.waiting)); ok {
		w.items, w.prio = append(w.items, item), prio // what the lane offers goes first
		w.answer()
		return
	}
	o.waiting = append(o.waiting, w)
	o.serveWaiters()
}

// snapshot answers w with a snapshot of the state. The lane's unclaimed
// items go back to the order first, so that the snapshot lists them in
// their place whichever transport is on; the lane offers them again after.
func (o *owner[T]) snapshot(w *waiter[T]) {
	o.c.lane.recall()
	if o.q.Adaptive() {
		o.q.Due(o.c.since()) // adaptive caps as of now
	} else {
		o.serveDue() // an item due now is ready, as a Len would see it
	}
	w.snap = o.q.Snapshot(w.snapN)
	w.answer()
}

// addList applies an AddWithOpts: each item at the list's priority, now or
// at its deadline. Like controller-runtime's, it counts a retry for each
// item delayed.
func (o *owner[T]) addList(l *itemList[T]) {
	for i, item := range l.items {
		opts := state.Opts{Prio: l.prio}
		if l.keys != nil {
			opts.Keys = l.keys[i]
		}
		if due := l.due[i]; due != noDeadline {
			opts.Retry = true
			o.addAt(item, due, opts)
		} else {
			o.add(item, opts)
		}
	}
}

// add, addAt and done apply an event of item to the state, at the
// instant and the place of the request in hand, and keep the filter in
// step with it. The filter may have an add applied again, once, after a
// claim of its item (filter.added).
func (o *owner[T]) add(item T, opts state.Opts) {
	opts.Seq = o.r.seq
	for e := o.r.entry; ; e = nil { // the second time, the add again: its sent flag is clear
		was := o.q.Add(item, opts, o.r.at)
		if !o.c.filter.added(item, e, &opts, was) {
			return
		}
	}
}

func (o *owner[T]) addAt(item T, due int64, opts state.Opts) {
	opts.Seq = o.r.seq
	o.q.AddAt(item, due, opts, o.r.at)
	o.c.filter.added(item, nil, &opts, state.Absent)
}

func (o *owner[T]) done(item T) {
	o.q.Done(item, o.r.at, o.r.seq)
	o.c.filter.follow(item)
}

// serveWaiters hands ready items to the waiting calls, oldest call first,
// each as many as it asked for, at the instant of the event being
// applied. Once shutdown has begun, a call that finds nothing ready is
// answered at once with shutdown: it never waits for a drain to finish.
func (o *owner[T]) serveWaiters() {
	served := 0
	at, dated := int64(0), false
	for _, w := range o.waiting {
		for len(w.items) < cap(w.items) {
			if !dated { // once per call, and only if it hands out
				at, dated = o.c.stamp(handOutInstant, o.r.at), true
			}
			item, p, ok := o.q.HandOut(at, o.r.seq)
			if !ok {
				break
			}
			o.c.filter.follow(item)
			if len(w.items) == 0 {
				w.prio = p.Prio
			}
			w.items = append(w.items, item)
		}
		if len(w.items) == 0 {
			if o.q.Phase() == state.Running {
				break
			}
			w.shutdown = true
		}
		served++
		w.answer()
	}
	if served > 0 { // keep the array: no allocation per call
		rest := copy(o.waiting, o.waiting[served:])
		clear(o.waiting[rest:])
		o.waiting = o.waiting[:rest]
	}
}

// cancel withdraws w if it is still waiting, and answers it as canceled.
// A waiter already answered is left alone: its caller takes the items.
func (o *owner[T]) cancel(w *waiter[T]) {
	i := slices.Index(o.waiting, w)
	if i < 0 {
		return
	}
	o.waiting = slices.Delete(o.waiting, i, i+1)
	w.canceled = true
	w.answer()
}
