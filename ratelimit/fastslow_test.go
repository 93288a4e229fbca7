package ratelimit

import (
	"testing"
	"time"
)

func TestFastSlowSequence(t *testing.T) {
	tests := []struct {
		name string
		c    FastSlowConfig
		want []time.Duration
	}{
		{"three fast then slow", FastSlowConfig{Fast: ms(5), Slow: 10 * time.Second, MaxFast: 3},
			[]time.Duration{ms(5), ms(5), ms(5), 10 * time.Second, 10 * time.Second}},
		{"no fast attempts", FastSlowConfig{Fast: ms(5), Slow: time.Second}, []time.Duration{time.Second, time.Second}},
		{"negative max fast is 0", FastSlowConfig{Fast: ms(5), Slow: time.Second, MaxFast: -2}, []time.Duration{time.Second, time.Second}},
		{"negative delays are 0", FastSlowConfig{Fast: -ms(5), Slow: -time.Second, MaxFast: 1}, []time.Duration{0, 0}},
		{"slow below fast as given", FastSlowConfig{Fast: time.Second, Slow: ms(1), MaxFast: 1}, []time.Duration{time.Second, ms(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFastSlow[string](tt.c)
			for i, want := range tt.want {
				if got := f.When("a"); got != want {
					t.Fatalf("call %d: When(%q) = %v; want %v", i+1, "a", got, want)
				}
			}
			if got, want := f.NumRequeues("a"), len(tt.want); got != want {
				t.Errorf("NumRequeues(%q) = %d; want %d", "a", got, want)
			}
		})
	}
}

func TestFastSlowForget(t *testing.T) {
	f := NewFastSlow[string](FastSlowConfig{Fast: ms(1), Slow: time.Second, MaxFast: 1})
	for i, want := range []time.Duration{ms(1), time.Second} {
		if got := f.When("a"); got != want {
			t.Fatalf("call %d: When(%q) = %v; want %v", i+1, "a", got, want)
		}
	}
	if got := f.When("b"); got != ms(1) {
		t.Errorf("When(%q) = %v; want %v", "b", got, ms(1))
	}
	f.Forget("a")
	if got := f.NumRequeues("a"); got != 0 {
		t.Errorf("after Forget: NumRequeues(%q) = %d; want 0", "a", got)
	}
	if got := f.When("a"); got != ms(1) {
		t.Errorf("after Forget: When(%q) = %v; want %v", "a", got, ms(1))
	}
	if got := f.NumRequeues("b"); got != 1 {
		t.Errorf("NumRequeues(%q) = %d; want 1", "b", got)
	}
}

func TestFastSlowConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		c       FastSlowConfig
		wantErr bool
	}{
		{"valid", FastSlowConfig{Fast: ms(5), Slow: time.Second, MaxFast: 3}, false},
		{"zero", FastSlowConfig{}, false},
		{"negative fast", FastSlowConfig{Fast: -1}, true},
		{"negative slow", FastSlowConfig{Slow: -1}, true},
		{"negative max fast", FastSlowConfig{MaxFast: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.c.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("%+v.Validate() = %v; want error: %v", tt.c, err, tt.wantErr)
			}
		})
	}
}
