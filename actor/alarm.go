package actor

import (
	"math"
	"time"
)

// alarm is one of the owner goroutine's two timers: one armed to the
// earliest deadline, one to the next refresh of the unfinished-work gauges.
// Neither ticks: each is armed only while there is something to wake for,
// so an idle queue wakes up for nothing.
type alarm struct {
	t     Timer
	c     <-chan time.Time // t's channel; nil until first armed
	armed bool
	at    int64 // when it fires, in nanoseconds since the queue's epoch
}

// set arms the alarm to fire at at, now being the clock's reading (both in
// nanoseconds since the epoch). It makes the timer on first use.
//
// Re-arming stops the timer and then takes a value it may have sent and
// nobody received: a Clock whose timers have buffered channels (such as
// k8s.io/utils/clock's FakeClock, whose Step sends while holding the
// clock's lock) would otherwise block on the next firing.
func (a *alarm) set(clock Clock, at, now int64) {
	d := time.Duration(at - now)
	if at > now && d < 0 { // beyond the range of a Duration: wait as long as one can
		d = math.MaxInt64
	}
	if a.t == nil {
		a.t = clock.NewTimer(d)
		a.c = a.t.C()
	} else {
		a.t.Stop() // no send can happen after this
		select {
		case <-a.c:
		default:
		}
		a.t.Reset(d)
	}
	a.armed, a.at = true, at
}

// stop disarms the alarm.
func (a *alarm) stop() {
	if a.armed {
		a.t.Stop()
		a.armed = false
	}
}

// ch returns the channel to wait on: the timer's while the alarm is
// armed, and nil (a select case that never fires) otherwise.
func (a *alarm) ch() <-chan time.Time {
	if !a.armed {
		return nil
	}
	return a.c
}

// fired records that the alarm's value was received.
func (a *alarm) fired() { a.armed = false }
