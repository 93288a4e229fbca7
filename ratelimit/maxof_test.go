package ratelimit

import (
	"slices"
	"testing"
	"time"
)

func TestMaxOf(t *testing.T) {
	tests := []struct {
		name      string
		children  []time.Duration // delays of recorder children
		requeues  []int
		wantWhen  time.Duration
		wantReqs  int
		withNil   bool
		wantCalls int // calls each recorder must see
	}{
		{"largest of three", []time.Duration{ms(1), ms(30), ms(2)}, []int{4, 1, 9}, ms(30), 9, false, 1},
		{"one child", []time.Duration{ms(7)}, []int{3}, ms(7), 3, false, 1},
		{"nil children dropped", []time.Duration{ms(1), ms(2)}, []int{1, 2}, ms(2), 2, true, 1},
		{"negative child counts as 0", []time.Duration{-ms(5)}, []int{0}, 0, 0, false, 1},
		{"no children", nil, nil, 0, 0, false, 0},
		{"only nil children", nil, nil, 0, 0, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recs []*recorder
			var children []RateLimiter[string]
			if tt.withNil {
				children = append(children, nil)
			}
			for i, d := range tt.children {
				r := &recorder{delay: d, requeues: tt.requeues[i]}
				recs = append(recs, r)
				children = append(children, r)
				if tt.withNil {
					children = append(children, nil)
				}
			}
			m := NewMaxOf(children...)
			if got := m.When("a"); got != tt.wantWhen {
				t.Errorf("When(%q) = %v; want %v", "a", got, tt.wantWhen)
			}
			if got := m.NumRequeues("a"); got != tt.wantReqs {
				t.Errorf("NumRequeues(%q) = %d; want %d", "a", got, tt.wantReqs)
			}
			m.Forget("a")
			for i, r := range recs {
				if want := []string{"a"}; !slices.Equal(r.whens, want) || !slices.Equal(r.forgets, want) {
					t.Errorf("child %d saw When %q and Forget %q; want %q and %q", i, r.whens, r.forgets, want, want)
				}
			}
		})
	}
}

func TestMaxOfRealChildren(t *testing.T) {
	// A fast/slow limiter and an exponential one: both record every failure.
	m := NewMaxOf[string](
		NewFastSlow[string](FastSlowConfig{Fast: ms(1), Slow: ms(100), MaxFast: 2}),
		NewExponential[string](ExponentialConfig{Base: ms(10), Max: time.Second}),
	)
	for i, want := range []time.Duration{ms(10), ms(20), ms(100), ms(100), ms(160), ms(320)} {
		if got := m.When("a"); got != want {
			t.Fatalf("call %d: When(%q) = %v; want %v", i+1, "a", got, want)
		}
	}
	if got := m.NumRequeues("a"); got != 6 {
		t.Errorf("NumRequeues(%q) = %d; want 6", "a", got)
	}
	m.Forget("a")
	if got := m.NumRequeues("a"); got != 0 {
		t.Errorf("after Forget: NumRequeues(%q) = %d; want 0", "a", got)
	}
	if got := m.When("a"); got != ms(10) {
		t.Errorf("after Forget: When(%q) = %v; want %v", "a", got, ms(10))
	}
}

func TestNewMaxOfCopiesSlice(t *testing.T) {
	a := &recorder{delay: ms(1)}
	children := []RateLimiter[string]{a}
	m := NewMaxOf(children...)
	children[0] = &recorder{delay: time.Hour}
	if got := m.When("x"); got != ms(1) {
		t.Errorf("When(%q) = %v after caller changed its slice; want %v", "x", got, ms(1))
	}
}

func TestWithMaxWait(t *testing.T) {
	tests := []struct {
		name     string
		inner    RateLimiter[string]
		maxWait  time.Duration
		want     time.Duration
		wantReqs int
	}{
		{"caps a longer delay", &recorder{delay: time.Hour, requeues: 3}, time.Minute, time.Minute, 3},
		{"passes a shorter delay", &recorder{delay: time.Second, requeues: 1}, time.Minute, time.Second, 1},
		{"equal", &recorder{delay: time.Minute}, time.Minute, time.Minute, 0},
		{"zero max wait", &recorder{delay: time.Second}, 0, 0, 0},
		{"negative max wait is 0", &recorder{delay: time.Second}, -time.Second, 0, 0},
		{"negative inner delay is 0", &recorder{delay: -time.Second}, time.Minute, 0, 0},
		{"nil inner delays nothing", nil, time.Minute, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWithMaxWait(tt.inner, tt.maxWait)
			if got := w.When("a"); got != tt.want {
				t.Errorf("When(%q) = %v; want %v", "a", got, tt.want)
			}
			if got := w.NumRequeues("a"); got != tt.wantReqs {
				t.Errorf("NumRequeues(%q) = %d; want %d", "a", got, tt.wantReqs)
			}
			w.Forget("a")
			if r, ok := tt.inner.(*recorder); ok && !slices.Equal(r.forgets, []string{"a"}) {
				t.Errorf("inner saw Forget %q; want [a]", r.forgets)
			}
		})
	}
}

func TestWithMaxWaitExponential(t *testing.T) {
	w := NewWithMaxWait[string](NewExponential[string](ExponentialConfig{Base: ms(1), Max: time.Hour}), ms(5))
	for i, want := range []time.Duration{ms(1), ms(2), ms(4), ms(5), ms(5)} {
		if got := w.When("a"); got != want {
			t.Fatalf("call %d: When(%q) = %v; want %v", i+1, "a", got, want)
		}
	}
	if got := w.NumRequeues("a"); got != 5 {
		t.Errorf("NumRequeues(%q) = %d; want 5", "a", got)
	}
}
