package ratelimit

import (
	"math"
	"testing"
	"time"
)

// pow2 returns the delays base, 2*base, ... for n calls, capped at max.
func pow2(base, max time.Duration, n int) []time.Duration {
	var ds []time.Duration
	d := base
	for range n {
		ds = append(ds, min(d, max))
		if d <= max/2 {
			d *= 2
		} else {
			d = max
		}
	}
	return ds
}

func TestExponentialSequence(t *testing.T) {
	// n-th delay for base 1ns, max MaxInt64: 2^(n-1) up to n = 63, MaxInt64
	// from the 64th on (where client-go returns math.MinInt64).
	var huge []time.Duration
	for n := range 70 {
		if n < 63 {
			huge = append(huge, time.Duration(1)<<n)
		} else {
			huge = append(huge, math.MaxInt64)
		}
	}
	tests := []struct {
		name string
		c    ExponentialConfig
		want []time.Duration
	}{
		{"doubles from base to max", ExponentialConfig{Base: ms(1), Max: time.Second},
			[]time.Duration{ms(1), ms(2), ms(4), ms(8), ms(16), ms(32), ms(64), ms(128), ms(256), ms(512), time.Second, time.Second}},
		{"client-go default 5ms to 1000s", ExponentialConfig{Base: ms(5), Max: 1000 * time.Second},
			[]time.Duration{ms(5), ms(10), ms(20), ms(40), ms(80), ms(160), ms(320), ms(640), ms(1280), ms(2560),
				ms(5120), ms(10240), ms(20480), ms(40960), ms(81920), ms(163840), ms(327680), ms(655360),
				1000 * time.Second, 1000 * time.Second}},
		{"max int64 never overflows", ExponentialConfig{Base: 1, Max: math.MaxInt64}, huge},
		{"huge base saturates at max", ExponentialConfig{Base: 1 << 62, Max: math.MaxInt64},
			[]time.Duration{1 << 62, math.MaxInt64, math.MaxInt64}},
		{"max equal to base", ExponentialConfig{Base: ms(10), Max: ms(10)}, []time.Duration{ms(10), ms(10), ms(10)}},
		{"max below base wins", ExponentialConfig{Base: ms(10), Max: ms(5)}, []time.Duration{ms(5), ms(5), ms(5)}},
		{"base zero delays nothing", ExponentialConfig{Max: time.Second}, []time.Duration{0, 0, 0}},
		{"negative base is 0", ExponentialConfig{Base: -ms(1), Max: time.Second}, []time.Duration{0, 0, 0}},
		{"negative max is 0", ExponentialConfig{Base: ms(1), Max: -time.Second}, []time.Duration{0, 0, 0}},
		{"zero config", ExponentialConfig{}, []time.Duration{0, 0}},
		{"negative jitter is none", ExponentialConfig{Base: ms(1), Max: ms(3), Jitter: -1}, []time.Duration{ms(1), ms(2), ms(3)}},
		{"NaN jitter is none", ExponentialConfig{Base: ms(1), Max: ms(3), Jitter: math.NaN()}, []time.Duration{ms(1), ms(2), ms(3)}},
		{"jitter exact with fixed rand", ExponentialConfig{Base: ms(100), Max: ms(400), Jitter: 0.5, Rand: fixedRand(0, 0.5, 0.25, 0.75, 1, 7)},
			// d * (1 + 0.5*u) for d = 100, 200, 400, 400 (capped), 400, 400 and u
			// = 0, 0.5, 0.25, 0.75, 1, 7 (clamped to 1).
			[]time.Duration{ms(100), ms(250), ms(450), ms(550), ms(600), ms(600)}},
		{"jitter saturates", ExponentialConfig{Base: 1 << 62, Max: math.MaxInt64, Jitter: 1, Rand: fixedRand(0.5, 0.001)},
			// 2^62 * 1.5, then MaxInt64 (capped) plus any jitter saturates.
			[]time.Duration{1<<62 + 1<<61, math.MaxInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewExponential[string](tt.c)
			for i, want := range tt.want {
				if got := e.When("a"); got != want {
					t.Fatalf("call %d: When(%q) = %v; want %v", i+1, "a", got, want)
				}
			}
			if got, want := e.NumRequeues("a"), len(tt.want); got != want {
				t.Errorf("NumRequeues(%q) = %d; want %d", "a", got, want)
			}
		})
	}
}

func TestExponentialPerItemAndForget(t *testing.T) {
	e := NewExponential[string](ExponentialConfig{Base: ms(1), Max: time.Second})
	steps := []struct {
		op   string // "when", "forget"
		item string
		want time.Duration
		reqs int // NumRequeues(item) after the step
	}{
		{"when", "a", ms(1), 1},
		{"when", "a", ms(2), 2},
		{"when", "b", ms(1), 1},
		{"when", "a", ms(4), 3},
		{"forget", "a", 0, 0},
		{"when", "a", ms(1), 1},
		{"when", "b", ms(2), 2},
		{"forget", "c", 0, 0}, // never seen: no-op
		{"forget", "b", 0, 0},
		{"when", "b", ms(1), 1},
	}
	for i, s := range steps {
		switch s.op {
		case "when":
			if got := e.When(s.item); got != s.want {
				t.Fatalf("step %d: When(%q) = %v; want %v", i, s.item, got, s.want)
			}
		case "forget":
			e.Forget(s.item)
		}
		if got := e.NumRequeues(s.item); got != s.reqs {
			t.Fatalf("step %d: NumRequeues(%q) = %d; want %d", i, s.item, got, s.reqs)
		}
	}
	if got := e.failures.len(); got != 2 {
		t.Errorf("items tracked = %d; want 2", got)
	}
}

func TestExponentialNeverNegative(t *testing.T) {
	// Every base with max MaxInt64 reaches max without a negative delay.
	for _, base := range []time.Duration{1, 3, ms(5), time.Second, 1<<62 - 1, math.MaxInt64} {
		e := NewExponential[int](ExponentialConfig{Base: base, Max: math.MaxInt64})
		prev := time.Duration(0)
		for i := range 200 {
			got := e.When(0)
			if got < prev || got < base {
				t.Fatalf("base %v: call %d: When(0) = %v; want >= %v and >= base", base, i+1, got, prev)
			}
			prev = got
		}
		if prev != math.MaxInt64 {
			t.Errorf("base %v: When(0) after 200 calls = %v; want MaxInt64", base, prev)
		}
	}
}

func TestExponentialJitterSpreads(t *testing.T) {
	// 1000 items that fail together: each n-th delay lies in [d, 1.5d), and
	// they spread over that range instead of arriving at once.
	const items = 1000
	e := NewExponential[int](ExponentialConfig{Base: ms(100), Max: 10 * time.Second, Jitter: 0.5})
	for n, d := range pow2(ms(100), 10*time.Second, 10) {
		lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
		for item := range items {
			got := e.When(item)
			if got < d || got >= d+d/2 {
				t.Fatalf("failure %d: When(%d) = %v; want in [%v, %v)", n+1, item, got, d, d+d/2)
			}
			lo, hi = min(lo, got), max(hi, got)
		}
		if lo > d+d/20 || hi < d+d/2-d/20 {
			t.Errorf("failure %d: delays span [%v, %v]; want close to [%v, %v)", n+1, lo, hi, d, d+d/2)
		}
	}
}

func TestExponentialConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		c       ExponentialConfig
		wantErr bool
	}{
		{"valid", ExponentialConfig{Base: ms(5), Max: time.Second}, false},
		{"valid with jitter", ExponentialConfig{Base: ms(5), Max: time.Second, Jitter: 0.1}, false},
		{"max equal to base", ExponentialConfig{Base: ms(5), Max: ms(5)}, false},
		{"zero base", ExponentialConfig{Max: time.Second}, true},
		{"negative base", ExponentialConfig{Base: -1, Max: time.Second}, true},
		{"max below base", ExponentialConfig{Base: time.Second, Max: ms(5)}, true},
		{"negative jitter", ExponentialConfig{Base: ms(5), Max: time.Second, Jitter: -0.1}, true},
		{"NaN jitter", ExponentialConfig{Base: ms(5), Max: time.Second, Jitter: math.NaN()}, true},
		{"inf jitter", ExponentialConfig{Base: ms(5), Max: time.Second, Jitter: math.Inf(1)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.c.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("%+v.Validate() = %v; want error: %v", tt.c, err, tt.wantErr)
			}
		})
	}
}

func BenchmarkExponentialWhen(b *testing.B) {
	e := NewExponential[string](ExponentialConfig{Base: ms(5), Max: 1000 * time.Second})
	b.ReportAllocs()
	for b.Loop() {
		e.When("a")
		e.Forget("a")
	}
}
