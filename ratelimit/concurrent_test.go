package ratelimit

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestConcurrentUse hammers each limiter from many goroutines in real time;
// run with -race. Each goroutine fails its own item and a shared one, so the
// counts are exact at the end.
func TestConcurrentUse(t *testing.T) {
	const goroutines, calls = 16, 200
	tests := []struct {
		name       string
		l          RateLimiter[string]
		wantShared int // NumRequeues("shared") at the end
	}{
		{"bucket", &Bucket[string]{Limiter: rate.NewLimiter(rate.Inf, 0)}, 0},
		{"exponential", NewExponential[string](ExponentialConfig{Base: ms(1), Max: sec, Jitter: 0.1}), goroutines * calls},
		{"fast slow", NewFastSlow[string](FastSlowConfig{Fast: ms(1), Slow: sec, MaxFast: 5}), goroutines * calls},
		{"max of", NewMaxOf[string](
			NewExponential[string](ExponentialConfig{Base: ms(1), Max: sec}),
			NewFastSlow[string](FastSlowConfig{Fast: ms(1), Slow: sec, MaxFast: 5}),
		), goroutines * calls},
		{"with max wait", NewWithMaxWait[string](NewExponential[string](ExponentialConfig{Base: ms(1), Max: sec}), ms(10)), goroutines * calls},
		{"default controller", DefaultController[string](), goroutines * calls},
		{"default", Default[string](), goroutines * calls},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					own := fmt.Sprint("item", g)
					for i := range calls {
						if d := tt.l.When("shared"); d < 0 {
							t.Errorf("When(%q) = %v; want >= 0", "shared", d)
						}
						tt.l.When(own)
						tt.l.NumRequeues(own)
						if i%10 == 9 {
							tt.l.Forget(own)
						}
					}
				})
			}
			wg.Wait()
			if got := tt.l.NumRequeues("shared"); got != tt.wantShared {
				t.Errorf("NumRequeues(%q) = %d; want %d", "shared", got, tt.wantShared)
			}
			for g := range goroutines {
				if got := tt.l.NumRequeues(fmt.Sprint("item", g)); got != 0 {
					t.Errorf("NumRequeues(%q) = %d after Forget; want 0", fmt.Sprint("item", g), got)
				}
			}
		})
	}
}

func TestConcurrentManager(t *testing.T) {
	const goroutines, calls = 16, 100
	m := NewManager(ManagerConfig{Backoff: Backoff{Duration: ms(1), Factor: 2, Jitter: 0.1, Steps: 1000, Cap: time.Minute}, ResetAfter: time.Hour})
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range calls {
				if d := m.Next(); d < ms(1) {
					t.Errorf("Next() = %v; want >= 1ms", d)
				}
				if i == calls/2 {
					m.Reset()
				}
			}
		})
	}
	wg.Wait()
}
