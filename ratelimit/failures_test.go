package ratelimit

import "testing"

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
