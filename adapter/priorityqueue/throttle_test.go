package priorityqueue_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/adapter/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// byPrefix is a fairness function: an item's key is what comes before
// its "/".
func byPrefix(s string) []string {
	k, _, _ := strings.Cut(s, "/")
	return []string{k}
}

// adaptiveQueue returns a queue with fairness by prefix whose keys have
// an adaptive cap of at most 4, learnt in windows of a second, holding
// the items k/1 to k/8.
func adaptiveQueue() priorityqueue.PriorityQueue[string] {
	q := priorityqueue.NewWithConfig("", priorityqueue.Config[string]{
		Fairness:    byPrefix,
		LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: 4, Window: time.Second}}},
	})
	for i := range 8 {
		q.Add(fmt.Sprintf("k/%d", i+1))
	}
	return q
}

// TestThrottled reports a throttle the way a reconciler does, through the
// Throttler interface from a goroutine other than the worker's: the key's
// cap falls from 4 to 3, and from then on at most 3 of its items are
// processing at once.
func TestThrottled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := adaptiveQueue()
		defer q.ShutDown()
		start := time.Now()

		item, _ := q.Get()
		if item != "k/1" {
			t.Fatalf("Get() = %q; want k/1", item)
		}
		th, ok := q.(priorityqueue.Throttler[string])
		if !ok {
			t.Fatal("the queue is not a priorityqueue.Throttler[string]")
		}
		errc := make(chan error)
		go func() { errc <- th.Throttled(item, time.Time{}) }()
		if err := <-errc; err != nil {
			t.Fatalf("Throttled(%q, zero) = %v; want nil", item, err)
		}

		s := priorityqueue.SnapshotOf(q, 8)
		want := []actor.AdaptiveKey{{Keys: []string{"k"}, Cap: 3, Processing: 1, Min: 1, Max: 4, Start: 4,
			Throttles: 1, LastDecrease: start}}
		if !reflect.DeepEqual(s.AdaptiveKeys, want) {
			t.Fatalf("Snapshot.AdaptiveKeys = %+v; want %+v", s.AdaptiveKeys, want)
		}

		// Two more hand-outs reach the cap of 3; a fourth Get waits.
		for _, w := range []string{"k/2", "k/3"} {
			if got, _ := q.Get(); got != w {
				t.Fatalf("Get() = %q; want %q", got, w)
			}
		}
		got := make(chan string)
		go func() { item, _ := q.Get(); got <- item }()
		synctest.Wait()
		select {
		case item := <-got:
			t.Fatalf("Get() = %q with 3 items of k processing at its cap of 3; want it to wait", item)
		default:
		}
		s = priorityqueue.SnapshotOf(q, 8)
		if s.Processing != 3 || s.Ready != 5 {
			t.Fatalf("Snapshot: Processing %d, Ready %d; want 3, 5", s.Processing, s.Ready)
		}
		wantHeld := []actor.HeldKey{{Keys: []string{"k"}, Why: "cap"}}
		if !reflect.DeepEqual(s.HeldKeys, wantHeld) {
			t.Fatalf("Snapshot.HeldKeys = %+v; want %+v", s.HeldKeys, wantHeld)
		}

		// A Done lets exactly one more out.
		q.Done("k/1")
		if item := <-got; item != "k/4" {
			t.Fatalf("Get() after Done = %q; want k/4", item)
		}
		s = priorityqueue.SnapshotOf(q, 8)
		if len(s.AdaptiveKeys) != 1 || s.AdaptiveKeys[0].Cap != 3 || s.AdaptiveKeys[0].Processing != 3 {
			t.Fatalf("Snapshot.AdaptiveKeys = %+v; want cap 3 with 3 processing", s.AdaptiveKeys)
		}
	})
}

// TestThrottledKey reports a throttle of a key with a Retry-After: the
// cap falls to 3 and the key is paused until the instant given, then
// hands out up to its cap.
func TestThrottledKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := adaptiveQueue()
		defer q.ShutDown()
		start := time.Now()
		until := start.Add(500 * time.Millisecond)

		if err := q.(priorityqueue.Throttler[string]).ThrottledKey([]string{"k"}, until); err != nil {
			t.Fatalf("ThrottledKey([k], +500ms) = %v; want nil", err)
		}
		s := priorityqueue.SnapshotOf(q, 8)
		wantAdaptive := []actor.AdaptiveKey{{Keys: []string{"k"}, Cap: 3, Min: 1, Max: 4, Start: 4,
			Throttles: 1, LastDecrease: start}}
		if !reflect.DeepEqual(s.AdaptiveKeys, wantAdaptive) {
			t.Fatalf("Snapshot.AdaptiveKeys = %+v; want %+v", s.AdaptiveKeys, wantAdaptive)
		}
		wantHeld := []actor.HeldKey{{Keys: []string{"k"}, Why: "pause", Until: until}}
		if !reflect.DeepEqual(s.HeldKeys, wantHeld) {
			t.Fatalf("Snapshot.HeldKeys = %+v; want %+v", s.HeldKeys, wantHeld)
		}

		for i := range 3 {
			item, _ := q.Get()
			if want := fmt.Sprintf("k/%d", i+1); item != want {
				t.Fatalf("Get() = %q; want %q", item, want)
			}
			if i == 0 && time.Since(start) != 500*time.Millisecond {
				t.Fatalf("first Get() returned %v after the throttle; want 500ms", time.Since(start))
			}
		}
		if s := priorityqueue.SnapshotOf(q, 8); s.Processing != 3 || s.Ready != 5 {
			t.Fatalf("Snapshot: Processing %d, Ready %d; want 3, 5", s.Processing, s.Ready)
		}
	})
}

// TestThrottlerAssertions checks that every queue of this package,
// reached as controller-runtime reaches it, is a Throttler, and that a
// queue without fairness refuses reports.
func TestThrottlerAssertions(t *testing.T) {
	q := priorityqueue.NewQueue[reconcile.Request]("", nil)
	defer q.ShutDown()
	th, ok := q.(priorityqueue.Throttler[reconcile.Request])
	if !ok {
		t.Fatal("NewQueue's queue is not a priorityqueue.Throttler")
	}
	if err := th.Throttled(reconcile.Request{}, time.Time{}); err == nil {
		t.Error("Throttled on a queue without Fairness = nil; want an error")
	}
	if err := th.ThrottledKey([]string{"k"}, time.Time{}); err == nil {
		t.Error("ThrottledKey on a queue without Fairness = nil; want an error")
	}
}

// TestNewWithConfigBadAdaptive checks that NewWithConfig panics in the
// caller's goroutine, with package actor's message, for an adaptive cap
// without Fairness or one that is not valid, and starts no goroutine
// (goleak's TestMain would see it).
func TestNewWithConfigBadAdaptive(t *testing.T) {
	good := actor.AdaptiveCap{Max: 4, Window: time.Second}
	for _, c := range []struct {
		name string
		cfg  priorityqueue.Config[string]
		want string
	}{
		{"level limit without fairness", priorityqueue.Config[string]{LevelLimits: []actor.LevelLimit{{Adaptive: good}}},
			"actor: Config.KeyLimits, Config.LevelLimits and Config.FairByWorkTime need Config.Fairness"},
		{"key limit without fairness", priorityqueue.Config[string]{KeyLimits: []actor.KeyLimit{{Keys: []string{"k"}, Adaptive: good}}},
			"actor: Config.KeyLimits, Config.LevelLimits and Config.FairByWorkTime need Config.Fairness"},
		{"no window", priorityqueue.Config[string]{Fairness: byPrefix,
			LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: 4}}}},
			"actor: Config.LevelLimits: level limit: adaptive cap: Window 0s: more than 0 is needed"},
		{"cap and adaptive", priorityqueue.Config[string]{Fairness: byPrefix,
			KeyLimits: []actor.KeyLimit{{Keys: []string{"k"}, Cap: 2, Adaptive: good}}},
			"actor: Config.KeyLimits: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, c.want) {
					t.Errorf("NewWithConfig panicked with %q; want %q", msg, c.want)
				}
			}()
			q := priorityqueue.NewWithConfig("", c.cfg)
			q.ShutDown()
			t.Errorf("NewWithConfig did not panic")
		})
	}
}
