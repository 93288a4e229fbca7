package actor

import "runtime"

// owner is the owner goroutine: the state, and what only the loop needs to
// serve it (the callers' channels are in shared).
type owner[T comparable] struct {
	c         *shared[T]
	s         *state[T]
	dueAlarm  alarm         // armed to the earliest deadline
	tickAlarm alarm         // armed to the next refresh of the unfinished-work gauges
	drain     chan struct{} // c.drain until ShutDownWithDrain is seen, then nil
	busy      chan struct{} // closed: a select case that is always ready
	wanted    bool          // a Get found the lane empty since the last GetBatch
}

// loop is the owner goroutine. Each round it applies, without blocking,
// what callers have already sent (up to a round of requests), makes due
// items ready and hands items to whoever waits for them; then, if nothing
// is left to do, it blocks in one select until the next thing happens.
// Every channel the owner receives from is in that select, and each is
// served by one method; requests arrive in the inbox (mailbox.go), which
// rings the bell only when the owner has said it is about to block.
//
// It ends on ShutDown (or when the Queue is dropped), or, once
// ShutDownWithDrain was called, when nothing is processing; exit then hands
// the state to the callers.
func (o *owner[T]) loop() {
	defer o.exit()
	for {
		o.serveInbox(roundSize)
		o.s.serveDue()
		o.handOut()
		if o.s.m != nil {
			o.s.seeClaims()
		}
		if o.s.phase == draining && o.idle() {
			return
		}
		o.arm()
		if o.wait() {
			return
		}
	}
}

// wait blocks until one thing happens and serves it. It reports whether
// the queue must end now.
func (o *owner[T]) wait() (quit bool) {
	var out chan<- T
	if o.s.isStaged {
		out = o.c.out
	}
	// While requests are waiting the select must not block, but it still
	// serves every other channel, so that a flood of requests starves no
	// consumer of the items channel and no timer: the closed channel busy
	// is always ready.
	busy := o.busy
	if o.s.heldWait && len(o.s.waiting) > 0 { // (a canceled call may have left)
		runtime.Gosched() // let the Get that holds a slot claim it or give it back
	} else if o.c.inbox.sleep() {
		busy = nil
		defer o.c.inbox.wake()
	}
	select {
	case <-busy:
	case <-o.c.bell: // a request, or a Get that found the lane empty
	case out <- o.s.head:
		o.s.handedOut()
	case <-o.dueAlarm.c:
		o.dueAlarm.fired()
	case <-o.tickAlarm.c:
		o.tickAlarm.fired()
		o.refresh()
	case <-o.drain:
		o.startDrain()
	case <-o.c.quit:
		return true
	}
	return false
}

// serveInbox serves up to n requests that are already waiting, or all of
// them if n < 0: those in the ring, then those of senders parked at its
// gates.
func (o *owner[T]) serveInbox(n int) {
	for ; n != 0; n-- {
		r, ok := o.c.inbox.take()
		if !ok {
			if o.c.inbox.admit(max(n, roundSize)) == 0 {
				break
			}
			n++ // admitting is not serving
		} else {
			o.s.serve(r)
		}
	}
	o.c.inbox.settle()
}

// flush applies the requests sent before it was called, adds included,
// before a shutdown begins (startDrain, exit): an add that a caller made
// before it called ShutDown or ShutDownWithDrain takes effect. The
// requests sent after the call, or whose senders still wait at a gate
// (their calls have not returned), are concurrent with the shutdown: the
// owner serves them later, and then ignores their adds (state.add).
func (o *owner[T]) flush() {
	in := o.c.inbox
	end := in.tail.Load()
	for in.head < end || in.heldDue() {
		r, ok := in.take()
		if !ok {
			break
		}
		o.s.serve(r)
	}
	in.settle()
}

// handOut gives ready items to whoever waits for them: waiting Get and
// GetBatch calls first, then the lane if a Get wants it, then the items
// channel if Items was called.
func (o *owner[T]) handOut() {
	s := o.s
	if s.preempt { // something ready goes before the staged item
		s.preempt = false
		s.unstage()
	}
	if len(s.waiting) > 0 {
		if s.lane.inUse > 0 {
			s.reclaimFor(s.wanted()) // offered items are older than the rest
		}
		if s.serveWaiters() > 0 {
			o.wanted = false // the lane stays empty until a Get finds it so
		}
	}
	if o.c.wantLane.Load() {
		o.c.wantLane.Store(false)
		o.wanted = true // a Get found the lane empty: fill it
	}
	if o.laneOn() {
		if o.c.noLane.Load() {
			o.laneOff()
		} else if o.wanted {
			o.fillLane()
		}
	}
	if o.c.itemsUsed.Load() {
		s.stage()
	}
}

// fillLane moves ready items into the lane until it is full. It never
// blocks: only the owner sends on the lane, and only while it has room.
func (o *owner[T]) fillLane() {
	for len(o.c.lane) < cap(o.c.lane) {
		sl, ok := o.s.offer()
		if !ok {
			if o.lowerTop() {
				continue // the lane was taken back, or top lowered
			}
			return
		}
		o.c.lane <- sl
	}
}

// lowerTop lowers top to the priority of the next ready item when nothing
// above it is left: nothing delayed or dirty (whose priorities the state
// does not track), no add sent and not yet applied (see topPrio), and no
// slot that may still come back above it or out of order (mayComeBack). The
// slots offered since the lane was last taken back are in order; if the
// next ready item goes before them (it was given back), lowerTop takes the
// lane back first, and a consumer that received one of them meanwhile holds
// a slot of the round before, which keeps top where it is until the slot is
// claimed or given back. It reports whether it lowered top or took the lane
// back. Once top is lowered, a lane that offered one item at a time below
// top, each a round trip for the consumer that received it, offers them all
// again.
func (o *owner[T]) lowerTop() bool {
	s := o.s
	if s.fifo != nil || s.order.len() == 0 || s.ndirty > 0 || s.delays.len() > 0 || s.phase != running {
		return false
	}
	p := s.nextPrio()
	inbox := o.c.inbox
	if s.lane.top.claimable(p) || !inbox.quiet() {
		return false
	}
	took := false
	if s.goesBefore(s.nextPlace()) {
		s.reclaimLane()
		took = true
	}
	if s.lane.mayComeBack(p) || !o.c.top.lower(p, inbox.quiet) {
		return took
	}
	s.lane.floor = p
	return true
}

// laneOff turns the lane off for good: it takes back what is offered and
// closes the channel, which sends every consumer blocked on it to the
// owner instead.
func (o *owner[T]) laneOff() {
	o.s.reclaimLane()
	o.s.lane.ch = nil
	close(o.c.lane)
}

// laneOn reports whether ready items go to the lane for Get: the state
// holds the lane's channel until laneOff.
func (o *owner[T]) laneOn() bool { return o.s.lane.ch != nil }

// startDrain begins ShutDownWithDrain: delays are dropped, the lane is
// off, and waiting calls are answered at once from now on.
func (o *owner[T]) startDrain() {
	o.drain = nil
	o.flush()
	o.s.phase = draining
	o.s.dropDelays()
	o.dueAlarm.stop()
	o.tickAlarm.stop() // client-go refreshes nothing once shutting down
	if o.laneOn() {
		o.laneOff()
	}
	o.s.serveWaiters()
}

// idle reports whether nothing is processing, counting items claimed from
// the lane (whose claims it sees) and slots a consumer has received but
// not yet claimed.
func (o *owner[T]) idle() bool {
	o.s.laneReady()
	return o.s.nproc == 0 && o.s.lane.inUse == 0
}

// arm points the delay alarm at the earliest deadline and the metrics
// alarm at the next refresh, or stops them when there is nothing to wake
// for.
func (o *owner[T]) arm() {
	s := o.s
	if at, ok := s.delays.next(); !ok {
		o.dueAlarm.stop()
	} else if !o.dueAlarm.armed || at < o.dueAlarm.at {
		o.dueAlarm.set(o.c.clock, at, s.since())
	}
	if s.phase == running {
		o.refresh()
	}
}

// refresh refreshes the unfinished-work gauges if a refresh instant has
// passed, and points the metrics alarm at the next one.
func (o *owner[T]) refresh() {
	o.s.seeClaims()
	if at, ok := o.s.m.refresh(); !ok {
		o.tickAlarm.stop()
	} else if !o.tickAlarm.armed || o.tickAlarm.at != at {
		o.tickAlarm.set(o.c.clock, at, o.s.since())
	}
}

// exit hands every waiting call its answer, closes done, applies what
// callers sent before that, and leaves the state to the callers
// (lifetime.go): the items still ready, and those processing, which may
// come back at their Done. A request sent after done is closed is served
// by its own sender (see send).
func (o *owner[T]) exit() {
	s := o.s
	o.dueAlarm.stop()
	o.tickAlarm.stop()
	o.flush() // what was sent before ShutDown counts
	s.phase = ended
	s.dropDelays()
	if o.laneOn() {
		o.laneOff()
	}
	s.unstage()
	s.serveWaiters()
	close(o.c.out)
	close(o.c.done)
	o.serveInbox(-1) // sent as it ended: adds among them are ignored
	o.c.rest <- s
}
