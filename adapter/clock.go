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

// utilTimer is a k8s.io/utils timer seen as an actor.Timer. The queue
// itself takes a stale value out of a stopped timer before re-arming it,
// which a FakeClock's Step needs (it sends while holding the clock's lock).
type utilTimer struct{ t clock.Timer }

func (u utilTimer) C() <-chan time.Time        { return u.t.C() }
func (u utilTimer) Stop() bool                 { return u.t.Stop() }
func (u utilTimer) Reset(d time.Duration) bool { return u.t.Reset(d) }
