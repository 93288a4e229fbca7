package ratelimit

import (
	"math"
	"testing"
	"time"
)

func TestManager(t *testing.T) {
	type step struct {
		advance time.Duration // clock step before the call
		reset   bool          // call Reset instead of Next
		want    time.Duration // Next's result
	}
	exp := Backoff{Duration: sec, Factor: 2, Steps: math.MaxInt, Cap: 10 * sec}
	tests := []struct {
		name  string
		c     ManagerConfig
		steps []step
	}{
		{"no reset configured", ManagerConfig{Backoff: exp}, []step{
			{0, false, sec}, {time.Hour, false, 2 * sec}, {time.Hour, false, 4 * sec},
			{0, false, 8 * sec}, {0, false, 10 * sec}, {24 * time.Hour, false, 10 * sec},
		}},
		{"negative reset disables it", ManagerConfig{Backoff: exp, ResetAfter: -sec}, []step{
			{0, false, sec}, {time.Hour, false, 2 * sec},
		}},
		{"quiet period counts from the end of the delay", ManagerConfig{Backoff: exp, ResetAfter: 5 * sec}, []step{
			{0, false, sec},
			// 1s delay + 5s quiet: not more than ResetAfter.
			{6 * sec, false, 2 * sec},
			// 2s delay + 5s + 1ns quiet: reset.
			{7*sec + 1, false, sec},
			{sec, false, 2 * sec},
			{2 * sec, false, 4 * sec},
			{4 * sec, false, 8 * sec},
			// Waiting out a long delay is not quiet: 8s + 4s.
			{12 * sec, false, 10 * sec},
			{10*sec + 5*sec + 1, false, sec},
		}},
		{"calls sooner than the delay", ManagerConfig{Backoff: exp, ResetAfter: sec}, []step{
			{0, false, sec}, {0, false, 2 * sec}, {ms(1), false, 4 * sec},
		}},
		{"explicit reset", ManagerConfig{Backoff: exp, ResetAfter: time.Hour}, []step{
			{0, false, sec}, {0, false, 2 * sec}, {0, true, 0}, {0, false, sec}, {0, false, 2 * sec},
		}},
		{"steps run out", ManagerConfig{Backoff: Backoff{Duration: sec, Factor: 3, Steps: 2}, ResetAfter: time.Minute}, []step{
			{0, false, sec}, {sec, false, 3 * sec}, {3 * sec, false, 9 * sec}, {9 * sec, false, 9 * sec},
			{9*sec + time.Minute + 1, false, sec},
		}},
		{"clamped backoff", ManagerConfig{Backoff: Backoff{Duration: -sec, Factor: 2, Steps: 3}}, []step{
			{0, false, 0}, {0, false, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			tt.c.Clock = clock
			m := NewManager(tt.c)
			for i, s := range tt.steps {
				clock.Step(s.advance)
				if s.reset {
					m.Reset()
					continue
				}
				if got := m.Next(); got != s.want {
					t.Fatalf("step %d: Next() = %v; want %v", i, got, s.want)
				}
			}
		})
	}
}

func TestManagerJitter(t *testing.T) {
	m := NewManager(ManagerConfig{Backoff: Backoff{Duration: sec, Factor: 2, Jitter: 0.5, Steps: 4}})
	for i, d := range []time.Duration{sec, 2 * sec, 4 * sec, 8 * sec, 16 * sec, 16 * sec} {
		if got := m.Next(); got < d || got >= d+d/2 {
			t.Fatalf("step %d: Next() = %v; want in [%v, %v)", i, got, d, d+d/2)
		}
	}
}

func TestManagerConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		c       ManagerConfig
		wantErr bool
	}{
		{"valid", ManagerConfig{Backoff: Backoff{Duration: sec, Factor: 2, Steps: 3}, ResetAfter: time.Minute}, false},
		{"zero", ManagerConfig{}, false},
		{"negative reset", ManagerConfig{ResetAfter: -1}, true},
		{"bad backoff", ManagerConfig{Backoff: Backoff{Factor: 0.5}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.c.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("%+v.Validate() = %v; want error: %v", tt.c, err, tt.wantErr)
			}
		})
	}
}
