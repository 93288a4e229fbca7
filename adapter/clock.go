package adapter

import (
	"time"

	"github.com/actorq/actorq/actor"
	"k8s.io/utils/clock"
)

// actorClock turns a config's k8s.io/utils clock into the queue's clock.
// Nil and the real clock give nil, actor's own real clock (which
// testing/synctest fakes). Any other clock, such as a
// k8s.io/utils/clock/testing.FakeClock, is used for every delay and metrics
// timestamp.
func actorClock(c clock.WithTicker) actor.Clock {
	switch c.(type) {
	case nil, clock.RealClock, *clock.RealClock:
		return nil
	}
	return utilClock{c}
}

// utilClock is a k8s.io/utils clock seen as an actor.Clock.
type utilClock struct{ c clock.WithTicker }

func (u utilClock) Now() time.Time { return u.c.Now() }

func (u utilClock) NewTimer(d time.Duration) actor.Timer { return utilTimer{u.c.NewTimer(d)} }

// utilTimer empties its channel when it is stopped or reset. A FakeClock's
// Step sends on a fired timer's channel while holding the clock's lock,
// and blocks if a value from an earlier firing is still there; the queue's
// goroutine, which reads the clock, would then never get to receive it.
// time.Timer has done this emptying itself since Go 1.23.
type utilTimer struct{ t clock.Timer }

func (u utilTimer) C() <-chan time.Time { return u.t.C() }

func (u utilTimer) Stop() bool {
	active := u.t.Stop() // no send can happen after this
	select {
	case <-u.t.C():
	default:
	}
	return active
}

func (u utilTimer) Reset(d time.Duration) bool {
	active := u.Stop()
	u.t.Reset(d)
	return active
}
