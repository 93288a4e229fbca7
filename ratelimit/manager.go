package ratelimit

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Manager hands out the delays of a [Backoff] to a retry loop, one per
// [Manager.Next], and goes back to the start of the sequence after a quiet
// period in which no delay was asked for: apimachinery's backoff managers,
// with the "optimistic reset" measured from the end of the last delay.
//
// The reset assumes that a caller who has not needed a delay for a while has
// recovered: in [BackoffUntil] with [Sliding], the time between two calls of
// Next is the last delay plus the run of the function in between, so a
// function that ran for longer than ResetAfter before failing again starts
// over at the initial delay, while one that fails at once keeps backing off.
//
// A Manager is safe for concurrent use by multiple goroutines; Next and Reset
// do not block beyond a short internal lock. Create one with [NewManager];
// the zero value is not usable.
type Manager struct {
	initial    Backoff
	resetAfter time.Duration
	clock      Clock

	mu    sync.Mutex
	cur   Backoff
	asked bool          // Next has been called since the last reset
	last  time.Time     // when Next was last called
	delay time.Duration // what Next returned then
}

// ManagerConfig configures a [Manager].
type ManagerConfig struct {
	// Backoff is the sequence of delays, as it stands before the first Next
	// and after every reset. Its values are clamped by [Backoff.Step] as
	// documented on [Backoff]. To keep growing until Cap, as apimachinery's
	// exponential manager does, set Steps to math.MaxInt.
	Backoff Backoff

	// ResetAfter is the quiet period: if, when Next is called, more than
	// ResetAfter has passed since the previous delay ended (the previous
	// Next plus the delay it returned), the sequence restarts from Backoff.
	// 0 or a negative ResetAfter disables the reset.
	ResetAfter time.Duration

	// Clock tells the time for the quiet period; nil means the real clock.
	Clock Clock
}

// Validate reports, as an error, each value of c that [NewManager] or
// [Backoff.Step] would clamp.
func (c ManagerConfig) Validate() error {
	var errs []error
	if err := c.Backoff.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.ResetAfter < 0 {
		errs = append(errs, fmt.Errorf("ratelimit: ManagerConfig.ResetAfter = %v; must be >= 0", c.ResetAfter))
	}
	return errors.Join(errs...)
}

// NewManager returns a Manager configured by c. It never fails; call
// [ManagerConfig.Validate] first to reject bad values.
func NewManager(c ManagerConfig) *Manager {
	return &Manager{
		initial:    c.Backoff,
		resetAfter: max(c.ResetAfter, 0),
		clock:      c.Clock,
		cur:        c.Backoff,
	}
}

// Next returns the next delay of the sequence, first restarting the
// sequence if the quiet period has passed (see [ManagerConfig.ResetAfter]).
// The result is never negative. Next does not wait for the delay; the
// caller does.
func (m *Manager) Next() time.Duration {
	t := now(m.clock)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.asked && m.resetAfter > 0 {
		// Both terms are non-negative, so the subtraction cannot overflow.
		if quiet := t.Sub(m.last); quiet > m.delay && quiet-m.delay > m.resetAfter {
			m.cur = m.initial
		}
	}
	m.delay = m.cur.Step()
	m.last = t
	m.asked = true
	return m.delay
}

// Reset restarts the sequence: the next Next returns the initial delay.
// Callers use it after a success, when they know the dependency recovered.
func (m *Manager) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cur = m.initial
	m.asked = false
}
