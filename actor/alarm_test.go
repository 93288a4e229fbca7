package actor

import (
	"math"
	"testing"
	"time"
)

// TestDeadlineArithmetic checks that deadlines and the timer's delay
// saturate instead of overflowing, whatever the clock reads.
func TestDeadlineArithmetic(t *testing.T) {
	for _, tc := range []struct {
		now  int64
		d    time.Duration
		want int64
	}{
		{0, time.Second, int64(time.Second)},
		{10, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 - 5, 10, math.MaxInt64},
		{-10, math.MaxInt64, math.MaxInt64 - 10},
	} {
		if got := deadlineAfter(tc.now, tc.d); got != tc.want {
			t.Errorf("deadlineAfter(%d, %d) = %d; want %d", tc.now, tc.d, got, tc.want)
		}
	}
	// A deadline far ahead of a clock that reads before the epoch.
	c := &recordingClock{}
	var a alarm
	a.set(c, math.MaxInt64, -10)
	if c.last != math.MaxInt64 {
		t.Fatalf("timer armed for %v; want the longest Duration", c.last)
	}
}

// recordingClock records the duration of the last timer made.
type recordingClock struct{ last time.Duration }

func (c *recordingClock) Now() time.Time { return time.Time{} }
func (c *recordingClock) NewTimer(d time.Duration) Timer {
	c.last = d
	return realTimer{time.NewTimer(time.Hour)}
}
