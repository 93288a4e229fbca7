package actor

import "time"

// A queue's lifecycle is one word, shared.phase, which holds what callers
// asked of the queue: each bit is set once, for good, by whoever asks
// (then the inbox's bell is rung, so that the owner looks), and read by
// everyone.
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
// follows the word: the owner begins the drain, or ends, once it sees the
// bit, after it applied the requests sent before (loop.go). When the owner
// ends, the callers keep what is left (caller.go, withRest).
const (
	phaseItems uint32 = 1 << iota
	phaseDrain
	phaseQuit

	shutDownBits = phaseDrain | phaseQuit              // adds are ignored
	laneOffBits  = phaseItems | phaseDrain | phaseQuit // Gets ask the owner
)

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
