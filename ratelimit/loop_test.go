package ratelimit

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// runLoop runs BackoffUntil in a bubble with f sleeping run each time and
// next returning delay; f cancels the context on its runs-th run. It returns
// the start times of the runs and the time BackoffUntil returned, both
// relative to the start.
func runLoop(t *testing.T, mode Mode, run, delay time.Duration, runs int) (starts []time.Duration, end time.Duration) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		t0 := time.Now()
		f := func(ctx context.Context) {
			starts = append(starts, time.Since(t0))
			time.Sleep(run)
			if len(starts) == runs {
				cancel()
			}
		}
		BackoffUntil(ctx, f, func() time.Duration { return delay }, mode)
		end = time.Since(t0)
	})
	return starts, end
}

func TestBackoffUntilTiming(t *testing.T) {
	tests := []struct {
		name       string
		mode       Mode
		run, delay time.Duration
		wantStarts []time.Duration
	}{
		{"sliding waits after the run", Sliding, sec, 2 * sec, []time.Duration{0, 3 * sec, 6 * sec}},
		{"non-sliding counts the run", NonSliding, sec, 2 * sec, []time.Duration{0, 2 * sec, 4 * sec}},
		{"non-sliding run longer than delay", NonSliding, 3 * sec, 2 * sec, []time.Duration{0, 3 * sec, 6 * sec}},
		{"sliding zero delay", Sliding, sec, 0, []time.Duration{0, sec, 2 * sec}},
		{"non-sliding zero delay", NonSliding, sec, 0, []time.Duration{0, sec, 2 * sec}},
		{"negative delay is no wait", Sliding, sec, -sec, []time.Duration{0, sec, 2 * sec}},
		{"instant runs", Sliding, 0, sec, []time.Duration{0, sec, 2 * sec, 3 * sec}},
		{"unknown mode is non-sliding", Mode(7), sec, 2 * sec, []time.Duration{0, 2 * sec, 4 * sec}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			starts, end := runLoop(t, tt.mode, tt.run, tt.delay, len(tt.wantStarts))
			if !slices.Equal(starts, tt.wantStarts) {
				t.Errorf("runs started at %v; want %v", starts, tt.wantStarts)
			}
			// The last run cancels: BackoffUntil returns as it ends.
			if want := tt.wantStarts[len(tt.wantStarts)-1] + tt.run; end != want {
				t.Errorf("BackoffUntil returned at %v; want %v", end, want)
			}
		})
	}
}

func TestBackoffUntilStopsPromptly(t *testing.T) {
	tests := []struct {
		name      string
		mode      Mode
		run       time.Duration // each run sleeps this long, or until ctx ends if < 0
		timeout   time.Duration
		wantRuns  int
		wantNexts int
		wantEnd   time.Duration
	}{
		// Two runs (at 0 and 11s sliding, at 0 and 10s non-sliding); the
		// context ends at 15s, in the second wait.
		{"during the wait sliding", Sliding, sec, 15 * sec, 2, 2, 15 * sec},
		{"during the wait non-sliding", NonSliding, sec, 15 * sec, 2, 2, 15 * sec},
		// The context ends at 3s, during the first run: no next, no wait.
		{"during the run sliding", Sliding, -1, 3 * sec, 1, 0, 3 * sec},
		{"during the run non-sliding", NonSliding, -1, 3 * sec, 1, 1, 3 * sec},
		{"already done", Sliding, sec, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), tt.timeout)
				defer cancel()
				if tt.timeout == 0 {
					<-ctx.Done()
				}
				t0 := time.Now()
				runs, nexts := 0, 0
				f := func(ctx context.Context) {
					runs++
					if ctx.Err() != nil {
						t.Errorf("run %d started after the context ended", runs)
					}
					if tt.run < 0 {
						<-ctx.Done()
					} else {
						time.Sleep(tt.run)
					}
				}
				next := func() time.Duration { nexts++; return 10 * sec }
				BackoffUntil(ctx, f, next, tt.mode)
				if got := time.Since(t0); got != tt.wantEnd {
					t.Errorf("BackoffUntil returned after %v; want %v", got, tt.wantEnd)
				}
				if runs != tt.wantRuns || nexts != tt.wantNexts {
					t.Errorf("f ran %d times and next was called %d times; want %d and %d", runs, nexts, tt.wantRuns, tt.wantNexts)
				}
				// Nothing runs after BackoffUntil returned: synctest.Test
				// fails if a goroutine or timer would still fire f.
				time.Sleep(time.Minute)
				synctest.Wait()
				if runs != tt.wantRuns {
					t.Errorf("f ran %d times after BackoffUntil returned", runs-tt.wantRuns)
				}
			})
		})
	}
}

func TestBackoffUntilWithManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		m := NewManager(ManagerConfig{
			Backoff:    Backoff{Duration: sec, Factor: 2, Steps: 10, Cap: 8 * sec},
			ResetAfter: 30 * sec,
		})
		t0 := time.Now()
		var starts []time.Duration
		f := func(ctx context.Context) {
			starts = append(starts, time.Since(t0))
			switch len(starts) {
			case 6:
				// A healthy run longer than ResetAfter: the next delay is the
				// initial one again.
				time.Sleep(time.Minute)
			case 8:
				cancel()
			}
		}
		BackoffUntil(ctx, f, m.Next, Sliding)
		// Delays 1, 2, 4, 8, 8 between instant runs; then a 60s run; then
		// 1s (reset) and the 8th run.
		want := []time.Duration{0, 1 * sec, 3 * sec, 7 * sec, 15 * sec, 23 * sec, 84 * sec, 86 * sec}
		if !slices.Equal(starts, want) {
			t.Errorf("runs started at %v; want %v", starts, want)
		}
	})
}

func TestBackoffUntilPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(context.Context)
		next func() time.Duration
		want string
	}{
		{"nil f", nil, func() time.Duration { return 0 }, "ratelimit: BackoffUntil with nil f"},
		{"nil next", func(context.Context) {}, nil, "ratelimit: BackoffUntil with nil next"},
		{"panic in f propagates", func(context.Context) { panic("boom") }, func() time.Duration { return sec }, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				defer func() {
					if r, _ := recover().(string); !strings.Contains(r, tt.want) {
						t.Errorf("BackoffUntil panicked with %q; want %q", r, tt.want)
					}
				}()
				// NonSliding arms the timer before f runs; the panic must not
				// leave it behind.
				BackoffUntil(t.Context(), tt.f, tt.next, NonSliding)
			})
		})
	}
}
