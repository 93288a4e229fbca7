package ratelimit

import (
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
)

func TestBucketSequence(t *testing.T) {
	// 10 qps, burst 100, all calls at one instant: 100 zeros, then 100ms
	// more per call.
	clock := newFakeClock()
	b := &Bucket[string]{Limiter: rate.NewLimiter(10, 100), Clock: clock}
	for i := range 100 {
		if got := b.When("a"); got != 0 {
			t.Fatalf("call %d: When(%q) = %v; want 0", i+1, "a", got)
		}
	}
	for i, want := range []time.Duration{ms(100), ms(200), ms(300), ms(400)} {
		if got := b.When("b"); got != want {
			t.Fatalf("call %d: When(%q) = %v; want %v", 101+i, "b", got, want)
		}
	}
	// Tokens are at -4; 250ms brings 2.5 back, and this call takes one:
	// -2.5 tokens, 250ms away.
	clock.Step(ms(250))
	if got, want := b.When("c"), ms(250); got != want {
		t.Errorf("after 250ms: When(%q) = %v; want %v", "c", got, want)
	}
	if got := b.NumRequeues("a"); got != 0 {
		t.Errorf("NumRequeues(%q) = %d; want 0", "a", got)
	}
	b.Forget("a") // does nothing
	// 1s brings 10 tokens back: -2.5+10-1 = 6.5 left, no wait.
	clock.Step(ms(1000))
	if got, want := b.When("a"), time.Duration(0); got != want {
		t.Errorf("after Forget and 1s: When(%q) = %v; want %v", "a", got, want)
	}
}

func TestBucketEdges(t *testing.T) {
	tests := []struct {
		name string
		b    *Bucket[string]
		want []time.Duration
	}{
		{"nil limiter does not limit", &Bucket[string]{}, []time.Duration{0, 0, 0}},
		{"inf limit", &Bucket[string]{Limiter: rate.NewLimiter(rate.Inf, 0)}, []time.Duration{0, 0, 0}},
		{"burst 0 never grants", &Bucket[string]{Limiter: rate.NewLimiter(10, 0), Clock: newFakeClock()},
			[]time.Duration{rate.InfDuration, rate.InfDuration}},
		{"limit 0 grants the burst only", &Bucket[string]{Limiter: rate.NewLimiter(0, 2), Clock: newFakeClock()},
			[]time.Duration{0, 0, rate.InfDuration, rate.InfDuration}},
		{"NewBucket 1 qps", NewBucket[string](BucketConfig{Limit: 1, Burst: 1, Clock: newFakeClock()}),
			[]time.Duration{0, time.Second, 2 * time.Second}},
		{"NewBucket clamps burst 0 to 1", NewBucket[string](BucketConfig{Limit: 2, Burst: 0, Clock: newFakeClock()}),
			[]time.Duration{0, ms(500), ms(1000)}},
		{"NewBucket clamps negative limit to 0", NewBucket[string](BucketConfig{Limit: -5, Burst: 1, Clock: newFakeClock()}),
			[]time.Duration{0, rate.InfDuration}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, want := range tt.want {
				if got := tt.b.When("x"); got != want {
					t.Errorf("call %d: When(%q) = %v; want %v", i+1, "x", got, want)
				}
			}
		})
	}
}

func TestBucketNilClock(t *testing.T) {
	// A nil Clock is time.Now, which the bubble's fake time drives.
	synctest.Test(t, func(t *testing.T) {
		b := &Bucket[string]{Limiter: rate.NewLimiter(10, 5)}
		for i := range 5 {
			if got := b.When("a"); got != 0 {
				t.Fatalf("call %d: When(%q) = %v; want 0", i+1, "a", got)
			}
		}
		if got, want := b.When("a"), ms(100); got != want {
			t.Errorf("call 6: When(%q) = %v; want %v", "a", got, want)
		}
		time.Sleep(ms(150)) // -1 + 1.5 tokens, minus this call's: -0.5
		if got, want := b.When("a"), ms(50); got != want {
			t.Errorf("after 150ms: When(%q) = %v; want %v", "a", got, want)
		}
	})
}

func TestBucketConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		c       BucketConfig
		wantErr bool
	}{
		{"valid", BucketConfig{Limit: 10, Burst: 100}, false},
		{"inf limit burst 0", BucketConfig{Limit: rate.Inf}, false},
		{"zero limit", BucketConfig{Limit: 0, Burst: 1}, true},
		{"negative limit", BucketConfig{Limit: -1, Burst: 1}, true},
		{"burst 0", BucketConfig{Limit: 1, Burst: 0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.c.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("%+v.Validate() = %v; want error: %v", tt.c, err, tt.wantErr)
			}
		})
	}
}

func BenchmarkBucketWhen(b *testing.B) {
	l := &Bucket[string]{Limiter: rate.NewLimiter(rate.Inf, 0)}
	b.ReportAllocs()
	for b.Loop() {
		l.When("a")
	}
}
