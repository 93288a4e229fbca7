package ratelimit

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestFailuresShrink(t *testing.T) {
	var f failures[int]
	const n = 4000
	for i := range n {
		f.next(i)
		f.next(i)
	}
	if f.peak != n {
		t.Fatalf("peak = %d; want %d", f.peak, n)
	}
	// Forget all but 100: the map is rebuilt once at most n/8 remain.
	for i := 100; i < n; i++ {
		f.forget(i)
	}
	if got := f.len(); got != 100 {
		t.Fatalf("len() = %d; want 100", got)
	}
	if f.peak > n/8 {
		t.Errorf("peak = %d after forgetting most items; want the map rebuilt (peak <= %d)", f.peak, n/8)
	}
	for i := range 100 {
		if got := f.get(i); got != 2 {
			t.Fatalf("get(%d) = %d after rebuild; want 2", i, got)
		}
	}
	for i := 100; i < 110; i++ {
		if got := f.get(i); got != 0 {
			t.Fatalf("get(%d) = %d after forget; want 0", i, got)
		}
	}
}

func TestFailuresSmallNeverRebuilt(t *testing.T) {
	var f failures[int]
	for i := range 10 {
		f.next(i)
	}
	m := f.m
	for i := range 10 {
		f.forget(i)
	}
	f.next(0)
	// Below shrinkMin the same map is kept: a rebuild would be churn.
	if len(f.m) != 1 || len(m) != 1 {
		t.Errorf("small map was rebuilt")
	}
}

func BenchmarkFailuresChurn(b *testing.B) {
	// A burst of failing keys, all forgotten: amortized cost per key.
	var f failures[int]
	b.ReportAllocs()
	for b.Loop() {
		for i := range 2048 {
			f.next(i)
		}
		for i := range 2048 {
			f.forget(i)
		}
	}
}

func TestExponentialCoolDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := NewExponential[string](ExponentialConfig{Base: time.Millisecond, Max: time.Second, CoolDown: time.Minute})
		for i, want := range []time.Duration{1, 2, 4} {
			if got := e.When("a"); got != want*time.Millisecond {
				t.Fatalf("When #%d = %v; want %v", i+1, got, want*time.Millisecond)
			}
		}
		// A failure within the cool-down restarts it: 59s, then 59s more.
		time.Sleep(59 * time.Second)
		if got := e.When("a"); got != 8*time.Millisecond {
			t.Fatalf("When 59s later = %v; want 8ms (still within the cool-down)", got)
		}
		time.Sleep(59 * time.Second)
		if got := e.NumRequeues("a"); got != 4 {
			t.Fatalf("NumRequeues 59s after the last failure = %d; want 4", got)
		}
		time.Sleep(time.Second)
		// Exactly CoolDown after the last failure the item counts as forgotten.
		if got := e.NumRequeues("a"); got != 0 {
			t.Fatalf("NumRequeues a cool-down after the last failure = %d; want 0", got)
		}
		if got := e.When("a"); got != time.Millisecond {
			t.Fatalf("When after the cool-down = %v; want Base (1ms)", got)
		}
		if got := e.NumRequeues("a"); got != 1 {
			t.Fatalf("NumRequeues after one new failure = %d; want 1", got)
		}
		// Forget still works at once.
		e.Forget("a")
		if got := e.NumRequeues("a"); got != 0 {
			t.Fatalf("NumRequeues after Forget = %d; want 0", got)
		}
		if got := e.failures.len(); got != 0 {
			t.Fatalf("items held after Forget = %d; want 0", got)
		}
	})
}

func TestFastSlowCoolDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewFastSlow[int](FastSlowConfig{Fast: time.Millisecond, Slow: time.Second, MaxFast: 1, CoolDown: 10 * time.Second})
		if got := f.When(7); got != time.Millisecond {
			t.Fatalf("first When = %v; want Fast", got)
		}
		if got := f.When(7); got != time.Second {
			t.Fatalf("second When = %v; want Slow", got)
		}
		time.Sleep(10 * time.Second)
		if got := f.When(7); got != time.Millisecond {
			t.Fatalf("When after the cool-down = %v; want Fast again", got)
		}
	})
}

func TestCoolDownZeroKeepsFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := NewExponential[int](ExponentialConfig{Base: time.Millisecond, Max: time.Hour})
		e.When(1)
		time.Sleep(1000 * time.Hour)
		if got := e.NumRequeues(1); got != 1 {
			t.Fatalf("NumRequeues 1000h later without a CoolDown = %d; want 1 (client-go's behaviour)", got)
		}
		if got := e.When(1); got != 2*time.Millisecond {
			t.Fatalf("When 1000h later = %v; want 2ms", got)
		}
	})
}

// TestCoolDownReleasesMemory: cooled items leave the map, at most
// expireBatch per call, oldest first, and the map and log shrink.
func TestCoolDownReleasesMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 10 * shrinkMin
		e := NewExponential[int](ExponentialConfig{Base: time.Millisecond, Max: time.Second, CoolDown: time.Second})
		for i := range n {
			e.When(i)
		}
		time.Sleep(time.Second / 2)
		e.When(0) // item 0 failed again: its first log entry must not expire it
		time.Sleep(time.Second / 2)
		if got := e.failures.len(); got != n {
			t.Fatalf("held before any call = %d; want %d (release is lazy)", got, n)
		}
		e.NumRequeues(-1)
		// Item 0's first entry is popped but kept (it failed again), so the
		// first call forgets expireBatch-1 items.
		if got, want := e.failures.len(), n-(expireBatch-1); got != want {
			t.Fatalf("held after one call = %d; want %d", got, want)
		}
		if got := e.NumRequeues(expireBatch); got != 0 {
			t.Fatalf("NumRequeues of a cooled item not yet released = %d; want 0", got)
		}
		if got := e.NumRequeues(0); got != 2 {
			t.Fatalf("NumRequeues of the item that failed again = %d; want 2", got)
		}
		time.Sleep(time.Second / 2)
		for e.failures.len() > 0 {
			e.NumRequeues(-1)
		}
		f := &e.failures
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.last) != 0 || len(f.log)-f.head != 0 {
			t.Fatalf("last = %d items, log = %d entries after all expired; want 0, 0", len(f.last), len(f.log)-f.head)
		}
		if f.peak > shrinkMin || cap(f.log) > shrinkMin {
			t.Errorf("peak = %d, cap(log) = %d after all expired; want the map and log rebuilt small", f.peak, cap(f.log))
		}
	})
}

// TestCoolDownClockBackwards: a fake clock set back cools nothing, and
// nothing breaks.
func TestCoolDownClockBackwards(t *testing.T) {
	c := newFakeClock()
	e := NewExponential[int](ExponentialConfig{Base: time.Millisecond, Max: time.Second, CoolDown: time.Second, Clock: c})
	e.When(1)
	c.Step(-time.Hour)
	if got := e.When(1); got != 2*time.Millisecond {
		t.Fatalf("When after the clock went back = %v; want 2ms", got)
	}
	c.Step(time.Hour + time.Second)
	// The first failure is a second old; the second failure's time is an
	// hour before it, so the item cooled off long ago.
	if got := e.NumRequeues(1); got != 0 {
		t.Fatalf("NumRequeues = %d; want 0", got)
	}
	// A clock so far back that the difference overflows counts as cooled.
	if !isCooled(math.MinInt64, math.MaxInt64, time.Second) || isCooled(math.MaxInt64, math.MinInt64, time.Second) {
		t.Fatal("isCooled does not saturate")
	}
}

func TestCoolDownValidate(t *testing.T) {
	if err := (ExponentialConfig{Base: 1, Max: 2, CoolDown: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "CoolDown") {
		t.Errorf("ExponentialConfig.Validate with CoolDown -1 = %v; want a CoolDown error", err)
	}
	if err := (FastSlowConfig{CoolDown: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "CoolDown") {
		t.Errorf("FastSlowConfig.Validate with CoolDown -1 = %v; want a CoolDown error", err)
	}
	// A negative CoolDown is taken as 0: failures are kept.
	e := NewExponential[int](ExponentialConfig{Base: 1, Max: 2, CoolDown: -1})
	if e.failures.coolDown != 0 {
		t.Errorf("coolDown = %v; want 0", e.failures.coolDown)
	}
}

// BenchmarkFailuresMemory measures the memory an Exponential limiter holds
// after 1M distinct keys failed once each, 1ms apart, none forgotten: with
// no CoolDown (client-go's behaviour) and with a 1s CoolDown.
func BenchmarkFailuresMemory(b *testing.B) {
	const keys = 1 << 20
	for _, cool := range []time.Duration{0, time.Second} {
		b.Run("CoolDown="+cool.String(), func(b *testing.B) {
			var held int
			var bytes uint64
			for b.Loop() {
				c := newFakeClock()
				e := NewExponential[string](ExponentialConfig{Base: time.Millisecond, Max: time.Second, CoolDown: cool, Clock: c})
				before := heapInUse()
				for i := range keys {
					e.When("namespace/object-" + strconv.Itoa(i))
					c.Step(time.Millisecond)
				}
				bytes = heapInUse() - min(before, heapInUse())
				held = e.failures.len()
				runtime.KeepAlive(e)
			}
			b.ReportMetric(float64(held), "keys-held")
			b.ReportMetric(float64(bytes)/keys, "B/key")
		})
	}
}

// heapInUse returns the bytes of live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
