package ratelimit

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestDefaultController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Time stands still in the bubble until the test sleeps, so the
		// bucket's delays are exact.
		l := DefaultController[string]()
		for i := range 100 {
			item := fmt.Sprint(i)
			if got := l.When(item); got != ms(5) {
				t.Fatalf("When(%q) = %v; want 5ms", item, got)
			}
		}
		// The bucket is empty: the next 10 failures of new items wait for
		// it, 100ms apart, whatever their own history.
		for i := range 10 {
			item := fmt.Sprint("new", i)
			if got, want := l.When(item), ms(100)*time.Duration(i+1); got != want {
				t.Fatalf("When(%q) = %v; want %v", item, got, want)
			}
		}
		if got, want := l.When("0"), ms(1100); got != want {
			t.Fatalf("second failure: When(%q) = %v; want %v (bucket)", "0", got, want)
		}
		// 20s refill the bucket to its burst of 100; now each item's own
		// backoff decides.
		time.Sleep(20 * time.Second)
		for i, want := range []time.Duration{ms(20), ms(40), ms(80)} {
			if got := l.When("0"); got != want {
				t.Fatalf("call %d after refill: When(%q) = %v; want %v", i+3, "0", got, want)
			}
		}
		if got := l.NumRequeues("0"); got != 5 {
			t.Errorf("NumRequeues(%q) = %d; want 5", "0", got)
		}
		l.Forget("0")
		if got := l.NumRequeues("0"); got != 0 {
			t.Errorf("after Forget: NumRequeues(%q) = %d; want 0", "0", got)
		}
		if got := l.When("0"); got != ms(5) {
			t.Errorf("after Forget: When(%q) = %v; want 5ms", "0", got)
		}
	})
}

func TestDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// No shared bucket: 10000 items that fail together each wait their
		// own 5ms plus jitter, never the 16.5 minutes DefaultController
		// gives the last of them.
		l := Default[int]()
		for item := range 10000 {
			if got := l.When(item); got < ms(5) || got >= ms(6) {
				t.Fatalf("When(%d) = %v; want in [5ms, 6ms)", item, got)
			}
		}
		// Item 0 failed once above; its next failures back off from 10ms.
		for n, d := range pow2(ms(10), 1000*time.Second, 25) {
			hi := d + time.Duration(float64(d)*DefaultJitter)
			if got := l.When(0); got < d || got >= hi {
				t.Fatalf("failure %d: When(0) = %v; want in [%v, %v)", n+2, got, d, hi)
			}
		}
	})
}
