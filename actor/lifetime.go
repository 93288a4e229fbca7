package actor

import (
	"math"
	"time"
)

// The lifecycle word, shared.phase, holds what callers asked of the queue:
// each bit is set once, for good, by whoever asks (then the inbox's bell
// is rung, so that the owner looks), and read by everyone.
//
//	phaseItems  Items was called: the owner offers ready items on the
//	            items channel while it waits; the lane is off, so Gets
//	            ask the owner.
//	phaseDrain  ShutDownWithDrain was called: callers' adds and delays
//	            are ignored; the lane is off; the owner applies what was
//	            sent before, then drains (state.Queue.Drain: delays
//	            dropped, waiting calls answered shutdown as soon as
//	            nothing is ready), and ends once nothing is processing.
//	phaseQuit   ShutDown was called, or the Queue was dropped: as with
//	            phaseDrain, but the owner ends at once (state.Queue.End).
//
// No bit means running: everything is allowed. What the owner has applied
// is the state's own phase (state.Phase: running, draining, ended), which
// follows the word.
const (
	phaseItems uint32 = 1 << iota
	phaseDrain
	phaseQuit

	shutDownBits = phaseDrain | phaseQuit              // adds are ignored
	laneOffBits  = phaseItems | phaseDrain | phaseQuit // Gets ask the owner
)

// A queue's life has three phases (state.Phase). While it runs, the owner
// goroutine holds the state. ShutDown ends the owner goroutine at once;
// ShutDownWithDrain first has it drain: adds and delays are ignored, calls
// that find nothing ready return shutdown at once, and the owner ends when
// nothing is processing. When the owner ends, a little state is left: items
// still ready, and items processing that may come back at their Done
// (client-go hands those out after shutdown, and so do we). No goroutine
// keeps it: the owner puts itself into rest, a channel of one slot, and
// from then on each call that needs the state (Get, Done, Len,
// ShutDownWithDrain) takes it out, serves first whatever requests were
// still in the inbox, does its work and puts it back. The channel is the
// lock: one holder at a time, and a call waiting for its turn is blocked
// on a channel, which testing/synctest sees as durably blocked.

// withRest runs f with the state left after the owner goroutine ended,
// once the requests still in the inbox are applied. It must be called only
// after done is closed.
func (c *shared[T]) withRest(f func(o *owner[T])) {
	o := <-c.rest
	defer func() { c.rest <- o }()
	o.serveInbox(math.MaxInt)
	o.c.lane.see() // the claims made before the caller's call
	f(o)
	if o.idle != nil && !o.busy() {
		close(o.idle) // releases the ShutDownWithDrain calls made after the owner ended
		o.idle = nil
	}
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
	c.stop()
	<-c.done
	c.withRest(func(o *owner[T]) {
		if o.idle != nil { // release the drains begun after the owner ended
			close(o.idle)
			o.idle = nil
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
			if o.idle == nil {
				o.idle = make(chan struct{})
			}
			idle = o.idle
		})
		if idle == nil {
			break
		}
		<-idle
	}
	q.cleanup.Stop()
}

// stop tells the owner goroutine to end, without waiting. ShutDown calls
// it, and so does the runtime's cleanup goroutine for a Queue nobody holds
// any more.
func (c *shared[T]) stop() {
	c.unregister()
	c.phase.Or(phaseQuit)
	c.inbox.wake()
}

// inBubble reports whether the caller is inside a testing/synctest bubble.
// New uses it to decide whether to register the cleanup that ends the
// owner goroutine of a dropped Queue: the runtime runs cleanups outside
// every bubble, and a channel operation on a bubble's channel from outside
// it is a fatal error (not a panic), so in a bubble New registers none and
// a queue that is never shut down shows up as a leaked goroutine, which
// the bubble reports.
//
// No API tells whether a goroutine is in a bubble, but the runtime gives
// itself away: inside a bubble, time.Now carries no monotonic clock
// reading (runtime/time.go: "Don't return a monotonic time inside a
// synctest bubble"), and outside one it always does (until the year 2157,
// when the wall clock no longer fits beside it). Round(0) strips the
// monotonic reading, so a time it leaves unchanged has none.
func inBubble() bool {
	t := time.Now()
	return t == t.Round(0)
}
