package actor

import "time"

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
