package ratelimit

import (
	"math"
	"slices"
	"testing"
	"time"
)

const sec = time.Second

func TestBackoffStep(t *testing.T) {
	tests := []struct {
		name      string
		b         Backoff
		want      []time.Duration
		wantAfter Backoff // the state after the steps
	}{
		{"1s factor 2 three steps", Backoff{Duration: sec, Factor: 2, Steps: 3},
			[]time.Duration{1 * sec, 2 * sec, 4 * sec, 8 * sec, 8 * sec, 8 * sec},
			Backoff{Duration: 8 * sec, Factor: 2}},
		{"cap 3s", Backoff{Duration: sec, Factor: 2, Steps: 3, Cap: 3 * sec},
			[]time.Duration{1 * sec, 2 * sec, 3 * sec, 3 * sec, 3 * sec},
			Backoff{Duration: 3 * sec, Factor: 2, Cap: 3 * sec}},
		{"cap reached exactly keeps steps", Backoff{Duration: sec, Factor: 2, Steps: 5, Cap: 4 * sec},
			[]time.Duration{1 * sec, 2 * sec, 4 * sec, 4 * sec, 4 * sec},
			Backoff{Duration: 4 * sec, Factor: 2, Cap: 4 * sec}},
		{"steps 0 repeats duration", Backoff{Duration: sec, Factor: 2},
			[]time.Duration{sec, sec, sec},
			Backoff{Duration: sec, Factor: 2}},
		{"factor 0 no growth", Backoff{Duration: sec, Steps: 3},
			[]time.Duration{sec, sec, sec, sec},
			Backoff{Duration: sec}},
		{"factor 1 no growth", Backoff{Duration: sec, Factor: 1, Steps: 2},
			[]time.Duration{sec, sec, sec},
			Backoff{Duration: sec, Factor: 1}},
		{"factor below 1 no growth", Backoff{Duration: sec, Factor: 0.5, Steps: 3},
			[]time.Duration{sec, sec, sec, sec},
			Backoff{Duration: sec, Factor: 0.5}},
		{"NaN factor no growth", Backoff{Duration: sec, Factor: math.NaN(), Steps: 1},
			[]time.Duration{sec, sec},
			Backoff{Duration: sec, Factor: math.NaN()}},
		{"fractional factor truncates", Backoff{Duration: 3, Factor: 1.5, Steps: 4},
			[]time.Duration{3, 4, 6, 9, 13, 13},
			Backoff{Duration: 13, Factor: 1.5}},
		{"negative duration is 0", Backoff{Duration: -sec, Factor: 2, Steps: 3},
			[]time.Duration{0, 0, 0, 0},
			Backoff{Factor: 2}},
		{"negative steps is 0", Backoff{Duration: sec, Factor: 2, Steps: -1},
			[]time.Duration{sec, sec},
			Backoff{Duration: sec, Factor: 2, Steps: -1}},
		{"negative cap is none", Backoff{Duration: sec, Factor: 2, Steps: 2, Cap: -sec},
			[]time.Duration{sec, 2 * sec, 4 * sec, 4 * sec},
			Backoff{Duration: 4 * sec, Factor: 2, Cap: -sec}},
		{"duration above cap lowered", Backoff{Duration: 5 * sec, Factor: 2, Steps: 3, Cap: 3 * sec},
			[]time.Duration{3 * sec, 3 * sec, 3 * sec},
			Backoff{Duration: 3 * sec, Factor: 2, Cap: 3 * sec}},
		{"growth saturates at MaxInt64", Backoff{Duration: 1 << 62, Factor: 4, Steps: 3},
			[]time.Duration{1 << 62, math.MaxInt64, math.MaxInt64, math.MaxInt64},
			Backoff{Duration: math.MaxInt64, Factor: 4}},
		{"inf factor saturates", Backoff{Duration: 1, Factor: math.Inf(1), Steps: 1},
			[]time.Duration{1, math.MaxInt64, math.MaxInt64},
			Backoff{Duration: math.MaxInt64, Factor: math.Inf(1)}},
		{"zero value", Backoff{}, []time.Duration{0, 0}, Backoff{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.b
			var got []time.Duration
			for range tt.want {
				got = append(got, b.Step())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%+v.Step() sequence = %v; want %v", tt.b, got, tt.want)
			}
			// Compare field by field: NaN != NaN.
			if b.Duration != tt.wantAfter.Duration || b.Steps != tt.wantAfter.Steps || b.Cap != tt.wantAfter.Cap {
				t.Errorf("after the steps: %+v; want %+v", b, tt.wantAfter)
			}
		})
	}
}

func TestBackoffJitterNeverStored(t *testing.T) {
	// A jittered Backoff stores exactly the Durations of an un-jittered one,
	// and returns each of them plus at most Jitter times it.
	plain := Backoff{Duration: ms(10), Factor: 3, Steps: 8, Cap: 20 * sec}
	jittered := plain
	jittered.Jitter = 0.5
	for i := range 12 {
		want := plain.Step()
		got := jittered.Step()
		if got < want || got >= want+want/2 {
			t.Fatalf("step %d: Step() = %v; want in [%v, %v)", i+1, got, want, want+want/2)
		}
		if jittered.Duration != plain.Duration || jittered.Steps != plain.Steps {
			t.Fatalf("step %d: jittered state Duration %v Steps %d; want %v %d",
				i+1, jittered.Duration, jittered.Steps, plain.Duration, plain.Steps)
		}
	}
}

func TestBackoffValidate(t *testing.T) {
	tests := []struct {
		name    string
		b       Backoff
		wantErr bool
	}{
		{"valid", Backoff{Duration: sec, Factor: 2, Jitter: 0.1, Steps: 5, Cap: time.Minute}, false},
		{"zero value", Backoff{}, false},
		{"factor 0", Backoff{Duration: sec, Steps: 3}, false},
		{"negative duration", Backoff{Duration: -1}, true},
		{"factor below 1", Backoff{Duration: sec, Factor: 0.5}, true},
		{"negative factor", Backoff{Duration: sec, Factor: -2}, true},
		{"NaN factor", Backoff{Duration: sec, Factor: math.NaN()}, true},
		{"inf factor", Backoff{Duration: sec, Factor: math.Inf(1)}, true},
		{"negative jitter", Backoff{Duration: sec, Jitter: -0.1}, true},
		{"negative steps", Backoff{Duration: sec, Steps: -1}, true},
		{"negative cap", Backoff{Duration: sec, Cap: -1}, true},
		{"duration above cap", Backoff{Duration: 2 * sec, Cap: sec}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.b.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("%+v.Validate() = %v; want error: %v", tt.b, err, tt.wantErr)
			}
		})
	}
}

func TestJitterExact(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		f, u float64
		want time.Duration
	}{
		{"u 0", sec, 0.5, 0, sec},
		{"u half", sec, 0.5, 0.5, sec + sec/4},
		{"u 1", sec, 1, 1, 2 * sec},
		{"u above 1 clamped", sec, 1, 3, 2 * sec},
		{"negative u clamped", sec, 1, -3, sec},
		{"NaN u is 0", sec, 1, math.NaN(), sec},
		{"zero d", 0, 1, 0.5, 0},
		{"negative d is 0", -sec, 1, 0.5, 0},
		{"saturates", math.MaxInt64 - 10, 1, 0.5, math.MaxInt64},
		{"just below saturation", 1 << 62, 1, 0.5, 1<<62 + 1<<61},
		{"inf factor saturates", sec, math.Inf(1), 0.5, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jitter(tt.d, tt.f, tt.u); got != tt.want {
				t.Errorf("jitter(%v, %v, %v) = %v; want %v", tt.d, tt.f, tt.u, got, tt.want)
			}
		})
	}
}

func TestJitterProperties(t *testing.T) {
	const samples = 10000
	tests := []struct {
		name      string
		d         time.Duration
		maxFactor float64
		f         float64 // effective factor
	}{
		{"factor 0.1", sec, 0.1, 0.1},
		{"factor 0.5", ms(5), 0.5, 0.5},
		{"factor 1", time.Hour, 1, 1},
		{"factor 3", ms(200), 3, 3},
		{"zero factor means 1", sec, 0, 1},
		{"negative factor means 1", sec, -2, 1},
		{"NaN factor means 1", sec, math.NaN(), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span := float64(tt.d) * tt.f
			var deciles [10]int
			for range samples {
				got := Jitter(tt.d, tt.maxFactor)
				// Bounds: never below d, below d + f*d.
				if got < tt.d || float64(got-tt.d) >= span {
					t.Fatalf("Jitter(%v, %v) = %v; want in [%v, %v)", tt.d, tt.maxFactor, got, tt.d, tt.d+time.Duration(span))
				}
				deciles[int(float64(got-tt.d)/span*10)]++
			}
			// Spread: uniform, so each tenth of the range gets about 1000
			// samples; fewer than 800 is over 6 standard deviations off.
			for i, n := range deciles {
				if n < samples/10*8/10 {
					t.Errorf("Jitter(%v, %v): %d of %d samples in tenth %d of the range; want about %d", tt.d, tt.maxFactor, n, samples, i, samples/10)
				}
			}
		})
	}
}

func TestJitterEdges(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		f    float64
		want time.Duration
	}{
		{"zero d", 0, 1, 0},
		{"negative d", -sec, 1, 0},
		{"max d saturates", math.MaxInt64, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 100 {
				if got := Jitter(tt.d, tt.f); got != tt.want {
					t.Fatalf("Jitter(%v, %v) = %v; want %v", tt.d, tt.f, got, tt.want)
				}
			}
		})
	}
}

func BenchmarkBackoffStep(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		bo := Backoff{Duration: ms(1), Factor: 2, Jitter: 0.1, Steps: 10, Cap: sec}
		for range 12 {
			bo.Step()
		}
	}
}
