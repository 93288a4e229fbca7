package actor

import (
	"math"

	"github.com/actorq/actorq/actor/internal/state"
)

// loop is the owner goroutine. Each round it applies what callers have
// already sent (up to a round of requests), makes due items ready and
// gives ready items to whoever waits for them; then it sleeps, in one
// select, until the next thing happens. It never blocks on a caller.
//
// It ends on ShutDown (or when the Queue is dropped), or, once
// ShutDownWithDrain was called, when nothing is processing; exit then
// hands the state to the callers.
func (o *owner[T]) loop() {
	defer o.exit()
	for {
		o.serveInbox(roundSize)
		o.serveDue()
		o.serveReady()
		if o.q.Phase() == state.Draining && !o.busy() {
			return
		}
		o.arm()
		if o.sleep() {
			return
		}
	}
}

// serveInbox serves up to n requests waiting in the inbox, in the order
// they were put. The owner goroutine calls it, and so do callers once it
// ended (withRest).
func (o *owner[T]) serveInbox(n int) {
	for range n {
		r := o.c.inbox.take()
		if r == nil {
			break
		}
		o.serve(r)
	}
}

// sleep blocks until one thing happens and serves it. It reports whether
// the queue must end now. While it sleeps, it offers the next ready item
// on the items channel, if Items was called and no call waits for one.
//
// Requests, and every change that callers make outside the inbox (a bit
// of the lifecycle word, a claim to record), ring the inbox's bell; the
// owner reads the word once awake: it begins a drain asked for, or ends.
func (o *owner[T]) sleep() (quit bool) {
	bell := o.c.inbox.idle()
	var out chan<- T
	if o.c.phase.Load()&phaseItems != 0 && len(o.waiting) == 0 && o.stage() {
		out = o.c.out
		if o.c.rated.Load() != 0 {
			o.arm() // the pop spent tokens: a key may wait, or its bucket fill, sooner
		}
	}
	if out == nil && !o.dueAlarm.armed && !o.tickAlarm.armed {
		<-bell // the only thing to wait for: a receive costs less than a select
	} else {
		select {
		case <-bell:
		case out <- o.stagedItem:
			o.q.Received(o.stagedItem, o.stagedPlace, o.c.stamp(receiveInstant, 0), o.r.seq)
			o.staged = false
			o.stagedItem = *new(T) // the consumer's now: the owner must not keep it
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
		o.beginDrain()
	}
	return p&phaseQuit != 0
}

// stage pops the next ready item to offer it on the items channel, and
// reports whether there is one.
func (o *owner[T]) stage() bool {
	item, p, ok := o.q.Pop(o.c.stamp(popInstant, 0))
	if ok {
		o.c.filter.follow(item) // on its way to a consumer: as a hand-out
		o.staged, o.stagedItem, o.stagedPlace = true, item, p
	}
	return ok
}

// unstage returns the staged item, if no consumer received it, and
// forgets it.
func (o *owner[T]) unstage() {
	if !o.staged {
		return
	}
	o.q.Return(o.stagedItem, o.stagedPlace, o.c.stamp(popInstant, 0))
	o.c.filter.follow(o.stagedItem)
	o.staged = false
	o.stagedItem = *new(T)
}

// busy reports whether an item is being processed: by the state's count,
// or claimed from the lane and not yet seen (once the lane is off, the
// only items left popped).
func (o *owner[T]) busy() bool {
	o.c.lane.see()
	return o.q.Processing() > 0 || o.q.Popped() > 0
}

// serveReady gives ready items to whoever waits for them: waiting Get and
// GetBatch calls first (what the lane offers goes first, so it comes
// back), then the lane.
func (o *owner[T]) serveReady() {
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
// before a shutdown begins (beginDrain, exit): an add that a caller made
// before it called ShutDown or ShutDownWithDrain takes effect. The
// requests sent after, concurrent with the shutdown, are served later,
// and then their adds are ignored (state.Queue.Add).
func (o *owner[T]) flush() { o.serveInbox(o.c.inbox.len()) }

// beginDrain begins ShutDownWithDrain: delays are dropped, the lane is
// off, and waiting calls are answered at once from now on.
func (o *owner[T]) beginDrain() {
	o.flush()
	o.freezeCaps()
	o.q.Drain()
	o.c.filter.forget()
	o.dueAlarm.stop()
	o.tickAlarm.stop() // client-go refreshes nothing once shutting down
	o.c.lane.recall()  // the lane is off (phaseDrain)
	o.serveWaiters()
}

// freezeCaps brings adaptive caps up to now before a shutdown lifts the
// caps, so that they stay as they were when it began.
func (o *owner[T]) freezeCaps() {
	if o.q.Adaptive() && o.q.Phase() == state.Running {
		o.q.Due(o.c.since())
	}
}

// exit hands every waiting call its answer, closes done, applies what
// callers sent before that, and leaves the state to the callers
// (withRest): the items still ready, and those processing, which may
// come back at their Done. A request sent after done is closed is served
// by its own sender (see send).
func (o *owner[T]) exit() {
	o.dueAlarm.stop()
	o.tickAlarm.stop()
	o.flush() // what was sent before ShutDown counts
	o.freezeCaps()
	o.q.End()
	o.c.filter.forget()
	o.c.lane.recall() // the lane is off (phaseQuit or phaseDrain)
	o.serveWaiters()
	close(o.c.out)
	close(o.c.done)
	o.serveInbox(math.MaxInt) // sent as the owner ended: adds among them are ignored
	o.c.rest <- o
}
