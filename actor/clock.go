package actor

import (
	"math"
	"sync/atomic"
	"time"
)

// A Clock tells the time and makes timers. A queue reads it when an item is
// added with a delay, to arm its single timer, and to stamp metrics.
//
// The default is the real clock (package time), which testing/synctest
// fakes inside a bubble, so actorq's own tests need no Clock at all. The
// adapter module backs this interface with k8s.io/utils/clock so that tests
// which step a FakeClock keep working.
//
// A Clock must be safe for concurrent use: Now is called from the goroutines
// that call [Queue.AddAfter] and from the queue's owner goroutine.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// A Timer is the part of *time.Timer a queue uses. Its channel must deliver
// at most one value per arming; spurious or stale deliveries are tolerated,
// and a value left unreceived is taken before the timer is reset.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// realClock is the default Clock: package time.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time        { return t.t.C }
func (t realTimer) Stop() bool                 { return t.t.Stop() }
func (t realTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }

// The instants a queue reads. A queue reads its clock for deadlines (an
// AddAfter's, its alarms', a key's limit or pause) and to date the
// events its rules date: which kinds of event those are is decided once,
// at New (stamps.decide), but for those that spend a key's tokens, read
// once a key has a rate (stamps.rate); stamp is the one function that
// reads them. Other queues read no clock.
type instant uint8

const (
	callInstant    instant = 1 << iota // a request, in its caller: metrics and a starvation bound date it
	doneInstant                        // a Done, in its caller: it ends the item's work, however late the owner applies it
	receiveInstant                     // a consumer receiving a popped item: a claim from the lane, or a receive from the items channel
	popInstant                         // a pop the owner makes ahead of a hand-out (for the lane or the items channel), and its return
	handOutInstant                     // a hand-out the owner makes to a waiting call
)

// tokenInstants are the kinds that spend or date a key's tokens: read
// once a key has a rate or a pause.
const tokenInstants = popInstant | receiveInstant | handOutInstant

// stamps is a queue's clock and the kinds of instant it reads: fixed at
// New (decide), and the kinds that spend tokens once a key has a rate or
// a pause (rate). A kind the queue does not read takes the instant its
// caller has: the owner passes the instant of the event it applies for
// its hand-outs (a Get's call, or the add that served a waiting one),
// which metrics date that way, and callers pass 0.
type stamps struct {
	clock Clock
	real  bool // clock is package time's: since reads only its monotonic clock
	epoch time.Time
	read  instant       // the kinds read from the clock, fixed at New
	rated atomic.Uint32 // tokenInstants once a key has or had a rate or a pause (state.Queue.Rated), else 0; the owner sets it
}

// decide sets s to read the instants that a queue on clock needs: with
// metrics or a starvation bound (stamped), the instant of every call,
// Done, pop and receive (a hand-out takes the instant of the event that
// made it); with fairness by work time, the instants that start and end
// an item's work. New calls it, before the queue is shared.
func (s *stamps) decide(clock Clock, stamped, byWork bool) {
	s.clock, s.epoch = clock, clock.Now()
	_, s.real = clock.(realClock)
	if stamped {
		s.read |= callInstant | doneInstant | receiveInstant | popInstant
	}
	if byWork {
		s.read |= doneInstant | receiveInstant
		if !stamped {
			s.read |= handOutInstant
		}
	}
}

// rate records whether a key has or had a rate or a pause, or an
// adaptive cap: from then on, the queue reads the instants that spend
// tokens, and for an adaptive cap those at which items start and stop
// processing (they move its windows). The owner calls it.
func (s *stamps) rate(rated, adaptive bool) {
	var k instant
	if rated {
		k |= tokenInstants
	}
	if adaptive {
		// An item starts and stops processing at its receive (or
		// hand-out) and its Done. A pop needs no instant: a window's end
		// comes with the owner's alarm (state.NextDue), which dates it.
		k |= receiveInstant | handOutInstant | doneInstant
	}
	if k != 0 {
		s.rated.Store(uint32(k))
	}
}

// stamp returns the instant of an event of kind k, in nanoseconds since
// the epoch: the clock's reading if the queue reads that kind, otherwise
// event, the instant its caller has (or 0). It is the one function that
// reads these instants, and it inlines: a queue that reads none pays a
// test.
func (s *stamps) stamp(k instant, event int64) int64 {
	if (s.read|instant(s.rated.Load()))&k != 0 {
		return s.since()
	}
	return event
}

// since returns the clock's reading in nanoseconds since the epoch: for
// deadlines, alarms and limits, which always read it, and for stamp. On
// package time's clock it reads the monotonic clock alone (time.Since),
// half the cost of time.Now, which reads the wall clock too.
func (s *stamps) since() int64 {
	if s.real {
		return int64(time.Since(s.epoch))
	}
	return int64(s.clock.Now().Sub(s.epoch))
}

// deadlineAfter returns now+d, saturating at the largest deadline.
func deadlineAfter(now int64, d time.Duration) int64 {
	if now > 0 && int64(d) > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + int64(d)
}
