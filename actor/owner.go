package actor

import (
	"math"

	"github.com/actorq/actorq/actor/internal/order"
	"github.com/actorq/actorq/actor/internal/state"
)

// owner is the owner goroutine: the queue's state, and what only the loop
// needs to serve it (the callers' side is in shared). After the goroutine
// ends, the callers take turns with it (lifetime.go).
//
// The fast paths the owner drives are the lane (c.lane) and the filter
// (c.filter); it calls them at the points ARCHITECTURE.md lists. Either
// may be nil, and every method it calls does nothing then.
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

	// The item offered on the items channel while the owner waits in its
	// select: popped before it, and returned after it unless a consumer
	// received it (Items).
	staged    bool
	head      T
	headPlace order.Place

	idle chan struct{} // after the owner ended: closed when nothing is processing
}

// loop is the owner goroutine. Each round it applies what callers have
// already sent (up to a round of requests), makes due items ready and
// hands items to whoever waits for them; then it waits in one select
// until the next thing happens.
//
// It ends on ShutDown (or when the Queue is dropped), or, once
// ShutDownWithDrain was called, when nothing is processing; exit then
// hands the state to the callers.
func (o *owner[T]) loop() {
	defer o.exit()
	for {
		o.serveInbox(roundSize)
		o.serveDue()
		o.handOut()
		if o.q.Phase() == state.Draining && !o.busy() {
			return
		}
		o.arm()
		if o.wait() {
			return
		}
	}
}

// serveInbox serves up to n requests waiting in the inbox, in the order
// they were put. The owner goroutine calls it, and so do callers once it
// ended (lifetime.go).
func (o *owner[T]) serveInbox(n int) {
	for range n {
		r := o.c.inbox.take()
		if r == nil {
			break
		}
		o.serve(r)
	}
}

// wait blocks until one thing happens and serves it. It reports whether
// the queue must end now. While it waits, it offers the next ready item on
// the items channel, if Items was called and no call waits for one.
//
// Requests, and every change that callers make outside the inbox (a
// shutdown, Items called, a claim to record), ring the inbox's bell; the
// owner looks at the flags once awake.
func (o *owner[T]) wait() (quit bool) {
	bell := o.c.inbox.idle()
	var out chan<- T
	if o.c.phase.Load()&phaseItems != 0 && len(o.waiting) == 0 && o.stage() {
		out = o.c.out
		if o.c.rated.Load() {
			o.arm() // the pop spent tokens: a key may wait, or its bucket fill, sooner
		}
	}
	if out == nil && !o.dueAlarm.armed && !o.tickAlarm.armed {
		<-bell // the only thing to wait for: a receive costs less than a select
	} else {
		select {
		case <-bell:
		case out <- o.head:
			o.staged = false
			o.q.Received(o.head, o.headPlace, o.c.stamp(receiveInstant, 0), o.r.seq)
		case <-o.dueAlarm.ch():
			o.dueAlarm.fired()
		case <-o.tickAlarm.ch():
			o.tickAlarm.fired()
			o.refresh()
		}
	}
	o.unstage()
	p := o.c.phase.Load()
	if p&phaseDrain != 0 && o.q.Phase() == state.Running {
		o.startDrain()
	}
	return p&phaseQuit != 0
}

// stage pops the next ready item to offer it on the items channel, and
// reports whether there is one.
func (o *owner[T]) stage() bool {
	item, p, ok := o.q.Pop(o.c.stamp(popInstant, 0))
	if ok {
		o.c.filter.follow(item) // processing, as far as Adds are concerned
		o.staged, o.head, o.headPlace = true, item, p
	}
	return ok
}

// unstage returns the staged item, if no consumer received it, and
// forgets the head in every case: an item a consumer received must not
// stay referenced by the owner once it is Done.
func (o *owner[T]) unstage() {
	var zero T
	if o.staged {
		o.q.Return(o.head, o.headPlace, o.c.stamp(popInstant, 0))
		o.c.filter.follow(o.head)
		o.staged = false
	}
	o.head = zero
}

// busy reports whether an item is being processed: by the state's count,
// or claimed from the lane and not yet seen (once the lane is shut, the
// only items left popped).
func (o *owner[T]) busy() bool {
	o.c.lane.see()
	return o.q.Processing() > 0 || o.q.Popped() > 0
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

// handOut gives ready items to whoever waits for them: waiting Get and
// GetBatch calls first (what the lane offers goes first, so it comes
// back), then the lane.
func (o *owner[T]) handOut() {
	if len(o.waiting) > 0 {
		o.c.lane.recall()
		o.serveWaiters()
	}
	o.c.lane.fill()
}

// arm points the delay alarm at the earliest deadline and the metrics
// alarm at the next refresh, or stops them when there is nothing to wake
// for.
func (o *owner[T]) arm() {
	if at, ok := o.q.NextDue(); !ok {
		o.dueAlarm.stop()
	} else if !o.dueAlarm.armed || at < o.dueAlarm.at {
		o.dueAlarm.set(o.c.clock, at, o.c.since())
	}
	if o.q.Phase() == state.Running {
		o.refresh()
	}
}

// refresh refreshes the unfinished-work gauges if a refresh instant has
// passed, and points the metrics alarm at the next one.
func (o *owner[T]) refresh() {
	if !o.c.metrics {
		return
	}
	o.c.lane.see() // the hand-outs through the lane so far
	now := o.c.since()
	if o.q.KeysDue(now) {
		// The per-key gauges count what consumers hold: the items the
		// lane offers are ready, so they go back to the order first.
		o.c.lane.recall()
	}
	if at, ok := o.q.Refresh(now); !ok {
		o.tickAlarm.stop()
	} else if !o.tickAlarm.armed || o.tickAlarm.at != at {
		o.tickAlarm.set(o.c.clock, at, now)
	}
}

// flush applies the requests sent before it was called, adds included,
// before a shutdown begins (startDrain, exit): an add that a caller made
// before it called ShutDown or ShutDownWithDrain takes effect. The
// requests sent after, concurrent with the shutdown, are served later,
// and then their adds are ignored (state.Queue.Add).
func (o *owner[T]) flush() { o.serveInbox(o.c.inbox.len()) }

// startDrain begins ShutDownWithDrain: delays are dropped, the lane is
// off, and waiting calls are answered at once from now on.
func (o *owner[T]) startDrain() {
	o.flush()
	o.q.Drain()
	o.c.filter.forget()
	o.dueAlarm.stop()
	o.tickAlarm.stop() // client-go refreshes nothing once shutting down
	o.c.lane.recall()  // the lane is off (phaseDrain)
	o.serveWaiters()
}

// exit hands every waiting call its answer, closes done, applies what
// callers sent before that, and leaves the state to the callers
// (lifetime.go): the items still ready, and those processing, which may
// come back at their Done. A request sent after done is closed is served
// by its own sender (see send).
func (o *owner[T]) exit() {
	o.dueAlarm.stop()
	o.tickAlarm.stop()
	o.flush() // what was sent before ShutDown counts
	o.q.End()
	o.c.filter.forget()
	o.c.lane.recall() // the lane is off (phaseQuit or phaseDrain)
	o.serveWaiters()
	close(o.c.out)
	close(o.c.done)
	o.serveInbox(math.MaxInt) // sent as the owner ended: adds among them are ignored
	o.c.rest <- o
}
