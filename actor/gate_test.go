package actor

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/ratelimit"
)

// TestTopPrio drives the priority gate's top directly: callers raise it, the owner
// lowers it only while nothing sent is unapplied, and a raise that comes
// while a lowering is under way (top marked) makes the lowering fail.
func TestTopPrio(t *testing.T) {
	quiet := func() bool { return true }
	t.Run("raise and lower", func(t *testing.T) {
		var top lane[int]
		if !top.claimable(0) || top.claimable(-1) {
			t.Fatalf("new top: claimable(0), claimable(-1) = %v, %v; want true, false", top.claimable(0), top.claimable(-1))
		}
		if !top.lower(-5, quiet) {
			t.Fatal("lower(-5) with a quiet inbox = false; want true")
		}
		if !top.claimable(-5) || top.claimable(-6) {
			t.Fatalf("after lower(-5): claimable(-5), claimable(-6) = %v, %v; want true, false", top.claimable(-5), top.claimable(-6))
		}
		if top.lower(-3, quiet) {
			t.Fatal("lower(-3) from -5 = true; want false: it would raise")
		}
		top.raise(7)
		if top.claimable(6) || !top.claimable(7) {
			t.Fatalf("after raise(7): claimable(6), claimable(7) = %v, %v; want false, true", top.claimable(6), top.claimable(7))
		}
		top.raise(2) // lower than top: nothing changes
		if top.claimable(6) {
			t.Fatal("raise(2) lowered top from 7")
		}
	})
	t.Run("not quiet", func(t *testing.T) {
		var top lane[int]
		if top.lower(-5, func() bool { return false }) {
			t.Fatal("lower(-5) with a request unapplied = true; want false")
		}
		if w := top.top.Load(); w != topWord(0) {
			t.Fatalf("word after a failed lower = %#x; want %#x (0, unmarked)", w, topWord(0))
		}
	})
	t.Run("raise during the lowering", func(t *testing.T) {
		var top lane[int]
		// The caller's add went into the inbox after the owner looked; its
		// raise, a no-op by value, sees the mark and must stop the lowering.
		racing := func() bool { top.raise(-10); return true }
		if top.lower(-10, racing) {
			t.Fatal("lower(-10) with a raise while marked = true; want false")
		}
		if top.claimable(-1) {
			t.Fatal("top came down to -10 although an add at -10 was on its way")
		}
		if w := top.top.Load(); w&1 != 0 {
			t.Fatalf("word after the lowering = %#x; want the mark cleared", w)
		}
	})
	t.Run("far priorities", func(t *testing.T) {
		var top lane[int]
		top.raise(math.MaxInt)
		if top.claimable(math.MaxInt-1) || !top.claimable(math.MaxInt) {
			t.Fatal("after raise(MaxInt) a slot below MaxInt is claimable, or one at MaxInt is not")
		}
		var low lane[int]
		if !low.lower(math.MinInt, quiet) {
			t.Fatal("lower(MinInt) = false; want true")
		}
		// Rounded up: safe, a slot at MinInt comes to the owner.
		if !low.claimable(topMin) || low.claimable(math.MinInt) {
			t.Fatal("after lower(MinInt): want top rounded up to -2^62")
		}
	})
}

// takeFirstOf10 adds the items 0 to 9 at priority prio, takes item 0
// with a Get, which has the owner fill the lane from then on, and waits
// until the owner sleeps.
func takeFirstOf10(t *testing.T, q *Queue[int], prio int) {
	t.Helper()
	for i := range 10 {
		q.AddWithOpts(AddOpts{Priority: prio}, i)
	}
	if item, p, _ := q.GetWithPriority(); item != 0 || p != prio {
		t.Fatalf("GetWithPriority() = %d, %d; want 0, %d", item, p, prio)
	}
	synctest.Wait()
}

// TestLaneLowersTop: once nothing above the next ready item is left, the
// owner lowers top to its priority, so that the lane offers every low item
// at once instead of one at a time; an add above it raises top again
// before it returns, so that its caller's Get does not claim a low slot.
func TestLaneLowersTop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Config[int]{}, allPaths)
		defer q.ShutDown()
		takeFirstOf10(t, q, -100)
		if n := q.c.lane.len(); n != 9 {
			t.Fatalf("slots in the lane = %d; want 9 (top lowered to -100)", n)
		}
		q.AddWithOpts(AddOpts{Priority: 5}, 100)
		if q.c.lane.claimable(-100) {
			t.Fatal("a slot at -100 is claimable after an add at 5 returned")
		}
		if item, prio, _ := q.GetWithPriority(); item != 100 || prio != 5 {
			t.Fatalf("GetWithPriority() = %d, %d; want 100, 5", item, prio)
		}
	})
}

// TestDelayedAddRaisesTop: an AddAfter with a delay, or an AddRateLimited,
// of an item ready below 0 raises that item to 0 (controller-runtime's
// rule), so it raises top before it returns, as an Add does: its caller's
// next Get must not claim the item's slot at its old priority.
func TestDelayedAddRaisesTop(t *testing.T) {
	for _, add := range []struct {
		name string
		add  func(q *Queue[int], item int)
	}{
		{"AddAfter", func(q *Queue[int], item int) { q.AddAfter(item, time.Second) }},
		{"AddRateLimited", func(q *Queue[int], item int) { q.AddRateLimited(item) }},
	} {
		t.Run(add.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue(Config[int]{RateLimiter: ratelimit.NewExponential[int](ratelimit.ExponentialConfig{Base: time.Second, Max: time.Minute})}, allPaths)
				defer q.ShutDown()
				takeFirstOf10(t, q, -1)
				if !q.c.lane.claimable(-1) {
					t.Fatal("a slot at -1 is not claimable with every item at -1")
				}
				add.add(q, 5)
				if q.c.lane.claimable(-1) {
					t.Fatal("a slot at -1 is claimable after a delayed add of an item ready at -1 returned")
				}
				if item, prio, _ := q.GetWithPriority(); item != 5 || prio != 0 {
					t.Fatalf("GetWithPriority() = %d, %d; want 5, 0 (raised by the delayed add)", item, prio)
				}
			})
		})
	}
}
