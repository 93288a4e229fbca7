package actor_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// getP takes an item that must be ready and checks it and its priority.
func getP(t *testing.T, q *actor.Queue[string], want string, wantPrio int) {
	t.Helper()
	got, prio, shutdown := q.GetWithPriority()
	if shutdown || got != want || prio != wantPrio {
		t.Fatalf("GetWithPriority() = %q, %d, %v; want %q, %d, false", got, prio, shutdown, want, wantPrio)
	}
}

func prio(p int) actor.AddOpts { return actor.AddOpts{Priority: p} }

// TestPriorityRules checks how AddWithOpts merges and orders items, after
// controller-runtime's priority queue, in a synctest bubble. Each rule runs
// twice: with the lane (a Get first, so that the owner offers items ahead)
// and without.
func TestPriorityRules(t *testing.T) {
	rules := []struct {
		name string
		cfg  actor.Config[string]
		run  func(t *testing.T, q *actor.Queue[string])
	}{
		{"higher priorities first, FIFO within one", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(prio(0), "a")
			q.AddWithOpts(prio(1), "b")
			q.AddWithOpts(prio(-1), "c")
			q.AddWithOpts(prio(1), "d", "e")
			q.Add("f")
			wantLen(t, q, 6)
			for _, w := range []struct {
				item string
				prio int
			}{{"b", 1}, {"d", 1}, {"e", 1}, {"a", 0}, {"f", 0}, {"c", -1}} {
				getP(t, q, w.item, w.prio)
			}
		}},
		{"a priority is any int", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(prio(1<<40), "a")
			q.AddWithOpts(prio(1<<41), "b")
			q.AddWithOpts(prio(math.MinInt), "c")
			q.AddWithOpts(prio(math.MinInt32), "d")
			q.AddWithOpts(prio(math.MinInt), "e")
			q.AddWithOpts(prio(math.MaxInt32+1), "e") // raised, still wide
			q.AddWithOpts(prio(math.MinInt), "f")
			q.AddWithOpts(prio(-3), "f") // raised into the entry's range
			getP(t, q, "b", 1<<41)
			getP(t, q, "a", 1<<40)
			getP(t, q, "e", math.MaxInt32+1)
			getP(t, q, "f", -3)
			getP(t, q, "d", math.MinInt32)
			getP(t, q, "c", math.MinInt)
		}},
		{"an item keeps its highest priority", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(prio(1), "a")
			q.AddWithOpts(prio(2), "a")
			q.AddWithOpts(prio(0), "a")
			q.Add("a")
			wantLen(t, q, 1)
			getP(t, q, "a", 2)
			wantLen(t, q, 0)
		}},
		{"a raised priority goes to the back of the new priority", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(prio(0), "foo")
			q.AddWithOpts(prio(1), "bar")
			q.AddWithOpts(prio(0), "baz")
			q.AddWithOpts(prio(1), "foo")
			wantLen(t, q, 3)
			getP(t, q, "bar", 1)
			getP(t, q, "foo", 1)
			getP(t, q, "baz", 0)
		}},
		{"the earliest ready time wins", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(actor.AddOpts{After: time.Hour}, "a")
			q.AddWithOpts(actor.AddOpts{}, "a")
			wantLen(t, q, 1)
			q.AddWithOpts(actor.AddOpts{After: time.Second}, "b")
			q.AddWithOpts(actor.AddOpts{After: time.Hour}, "b")
			time.Sleep(time.Second)
			wantLen(t, q, 2)
			getP(t, q, "a", 0)
			getP(t, q, "b", 0)
		}},
		{"RateLimited waits the shorter of the limiter's delay and After", actor.Config[string]{RateLimiter: fixedDelay(time.Minute)}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(actor.AddOpts{RateLimited: true}, "limiter")
			q.AddWithOpts(actor.AddOpts{RateLimited: true, After: time.Second}, "after")
			q.AddWithOpts(actor.AddOpts{RateLimited: true, After: time.Hour}, "both")
			time.Sleep(time.Second)
			wantLen(t, q, 1)
			getP(t, q, "after", 0)
			time.Sleep(time.Minute)
			wantLen(t, q, 2)
		}},
		{"a delayed item's priority rises too", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(actor.AddOpts{After: time.Second}, "a")
			q.AddWithOpts(actor.AddOpts{After: time.Hour, Priority: 5}, "a")
			q.Add("b")
			time.Sleep(time.Second)
			getP(t, q, "a", 5)
			getP(t, q, "b", 0)
		}},
		{"an item added again while processing comes back at its highest priority", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			getP(t, q, "a", 0)
			q.AddWithOpts(prio(3), "a")
			q.AddWithOpts(prio(1), "a")
			q.AddWithOpts(prio(2), "b")
			wantLen(t, q, 1)
			q.Done("a")
			getP(t, q, "a", 3)
			getP(t, q, "b", 2)
		}},
		{"client-go's rule: an item added again while processing goes after the items ready at its Done", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.Add("foo")
			getP(t, q, "foo", 0)
			q.Add("foo")
			q.Add("bar")
			getP(t, q, "bar", 0)
			q.Add("baz")
			wantLen(t, q, 1) // foo is not ready until its Done
			q.Done("foo")
			getP(t, q, "baz", 0)
			getP(t, q, "foo", 0)
		}},
		{"controller-runtime's rule: it keeps the place of its Add, and Len counts it", actor.Config[string]{Requeue: actor.RequeueAtAdd}, func(t *testing.T, q *actor.Queue[string]) {
			q.Add("foo")
			getP(t, q, "foo", 0)
			q.Add("foo")
			q.Add("bar")
			getP(t, q, "bar", 0)
			q.Add("baz")
			wantLen(t, q, 2)
			q.Done("foo")
			getP(t, q, "foo", 0)
			getP(t, q, "baz", 0)
		}},
		{"controller-runtime's rule: a delayed item that an Add makes ready keeps its first place", actor.Config[string]{Requeue: actor.RequeueAtAdd}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(actor.AddOpts{After: time.Hour}, "a")
			q.Add("b")
			q.Add("a")
			getP(t, q, "a", 0)
			getP(t, q, "b", 0)
		}},
		{"controller-runtime's rule: items due at once go by priority, then first place", actor.Config[string]{Requeue: actor.RequeueAtAdd}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", 2*time.Second)
			q.AddAfter("b", time.Second)
			q.AddAfter("a", time.Second) // shortened: due with b, first added before b
			q.AddWithOpts(actor.AddOpts{After: time.Second, Priority: -1}, "c")
			q.AddWithOpts(actor.AddOpts{After: time.Second, Priority: -1}, "d")
			q.AddWithOpts(actor.AddOpts{After: time.Second, Priority: -1}, "c") // no raise: keeps its place
			q.AddWithOpts(actor.AddOpts{After: time.Second, Priority: 1}, "e")
			q.Add("f")
			time.Sleep(time.Second)
			for _, want := range []struct {
				item string
				prio int
			}{{"e", 1}, {"f", 0}, {"a", 0}, {"b", 0}, {"c", -1}, {"d", -1}} {
				getP(t, q, want.item, want.prio)
			}
		}},
		{"client-go's rule: items due at once go in the order their deadlines were set", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", 2*time.Second)
			q.AddAfter("b", time.Second)
			q.AddAfter("a", time.Second)
			time.Sleep(time.Second)
			getP(t, q, "b", 0)
			getP(t, q, "a", 0)
		}},
		{"client-go's rule: a delayed item that an Add makes ready goes last", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(actor.AddOpts{After: time.Hour}, "a")
			q.Add("b")
			q.Add("a")
			getP(t, q, "b", 0)
			getP(t, q, "a", 0)
		}},
		{"a higher priority goes before what was offered", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			for i := range 10 {
				q.Add(fmt.Sprint("low", i))
			}
			synctest.Wait() // offered in the lane, if it is on
			q.AddWithOpts(prio(1), "high")
			getP(t, q, "high", 1)
			for i := range 10 { // then the rest, in order
				getP(t, q, fmt.Sprint("low", i), 0)
			}
		}},
		{"an item ready (or offered) that is raised goes to the back of its new priority", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			q.Add("c")
			synctest.Wait() // offered in the lane, if it is on
			q.AddWithOpts(prio(2), "d")
			q.AddWithOpts(prio(2), "b")
			q.AddWithOpts(prio(1), "c")
			for _, w := range []struct {
				item string
				prio int
			}{{"d", 2}, {"b", 2}, {"c", 1}, {"a", 0}} {
				getP(t, q, w.item, w.prio)
			}
		}},
		{"an item at 0 goes before negative ones ready (or offered) before it", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			for i := range 5 {
				q.AddWithOpts(prio(-1), fmt.Sprint("n", i))
			}
			synctest.Wait() // offered in the lane, if it is on
			q.Add("z")
			synctest.Wait()
			q.AddWithOpts(prio(-1), "m")
			getP(t, q, "z", 0)
			for i := range 5 {
				getP(t, q, fmt.Sprint("n", i), -1)
			}
			getP(t, q, "m", -1)
		}},
		{"a Get after a worker's own Done sees the item it readied", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.AddWithOpts(prio(1), "x")
			getP(t, q, "x", 1)
			q.AddWithOpts(prio(1), "x") // again while processing: ready at its Done
			for i := range 5 {
				q.Add(fmt.Sprint("a", i))
			}
			synctest.Wait() // a0..a4 offered in the lane, if it is on
			q.Done("x")
			getP(t, q, "x", 1)
			getP(t, q, "a0", 0)
		}},
		{"GetBatch and Items hand out in priority order", actor.Config[string]{}, func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.AddWithOpts(prio(2), "b")
			q.AddWithOpts(prio(1), "c")
			items, _ := q.GetBatch(make([]string, 0, 2))
			if want := []string{"b", "c"}; !slices.Equal(items, want) {
				t.Fatalf("GetBatch() = %v; want %v", items, want)
			}
			q.AddWithOpts(prio(3), "d")
			// Applied before Items is first called: an item the owner
			// offers on the channel before it applies an add above it may
			// still be received first (see Items).
			synctest.Wait()
			if item := <-q.Items(); item != "d" {
				t.Fatalf("<-Items() = %q; want d", item)
			}
			if item := <-q.Items(); item != "a" {
				t.Fatalf("<-Items() = %q; want a", item)
			}
		}},
	}
	for _, rule := range rules {
		for _, lane := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/lane=%v", rule.name, lane), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					q := actor.New(rule.cfg)
					defer q.ShutDown()
					if lane {
						q.Add("warm")
						get(t, q, "warm")
						q.Done("warm")
					}
					rule.run(t, q)
				})
			})
		}
	}
}

// fixedDelay is a rate limiter that always says d.
type fixedDelay time.Duration

func (d fixedDelay) When(string) time.Duration { return time.Duration(d) }
func (fixedDelay) Forget(string)               {}
func (fixedDelay) NumRequeues(string) int      { return 0 }

// TestFairness checks the round-robin across keys, level by level, and
// FIFO within a key, with and without the lane.
func TestFairness(t *testing.T) {
	keys := func(item string) []string { return strings.Split(item, "/")[:2] }
	for _, lane := range []bool{false, true} {
		t.Run(fmt.Sprint("lane=", lane), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := actor.New(actor.Config[string]{Fairness: keys})
				defer q.ShutDown()
				if lane {
					q.Add("w/w/0")
					get(t, q, "w/w/0")
					q.Done("w/w/0")
				}
				for i := range 4 {
					q.Add(fmt.Sprintf("big/ns1/%d", i))
				}
				for i := range 2 {
					q.Add(fmt.Sprintf("big/ns2/%d", i))
				}
				q.Add("small/ns/0")
				q.Add("small/ns/1")
				q.AddWithOpts(prio(1), "other/ns/0") // priorities still come first
				var got []string
				for range 9 {
					item, _ := q.Get()
					got = append(got, item)
				}
				want := []string{
					"other/ns/0",
					"big/ns1/0", "small/ns/0", "big/ns2/0", "small/ns/1",
					"big/ns1/1", "big/ns2/1", "big/ns1/2", "big/ns1/3",
				}
				if !slices.Equal(got, want) {
					t.Fatalf("hand-out order\n got %v\nwant %v", got, want)
				}
			})
		})
	}
}

// TestFairnessLane: with fairness, Get takes items through the lane, which
// the owner fills in round-robin order ahead of the consumers; an add that
// gives a key a turn it did not have (a new tenant, a new namespace of a
// tenant, or a key whose items are all offered already) makes the owner
// take back what the lane offers, so that the hand-out order stays exactly
// round-robin; so does a raise of an offered item. Len makes the owner
// apply the adds before the next Get.
func TestFairnessLane(t *testing.T) {
	keys := func(item string) []string { return strings.Split(item, "/")[:2] }
	for _, tc := range []struct {
		name        string
		first, more []string
		raise       string // added at priority 1 after more
		want        []string
	}{{
		name:  "new keys",
		first: []string{"a/x/0", "a/x/1", "a/x/2", "b/y/0"},
		more:  []string{"c/z/0", "a/w/0"},
		// Offered after a/x/0: b/y/0 a/x/1 a/x/2. c joins the tenants'
		// turns behind a, and w joins a's namespaces behind x.
		want: []string{"a/x/0", "b/y/0", "a/x/1", "c/z/0", "a/w/0", "a/x/2"},
	}, {
		name:  "all offered",
		first: []string{"a/x/0", "a/x/1", "a/x/2"},
		more:  []string{"a/w/0"},
		want:  []string{"a/x/0", "a/x/1", "a/w/0", "a/x/2"},
	}, {
		name:  "offered keys",
		first: []string{"a/x/0", "a/x/1", "b/y/0"},
		// Keys whose every item is offered have no turn in the owner's
		// order, though their items are not handed out yet.
		more: []string{"a/x/2", "b/y/1"},
		want: []string{"a/x/0", "b/y/0", "a/x/1", "b/y/1", "a/x/2"},
	}, {
		name:  "raise offered",
		first: []string{"a/x/0", "a/x/1", "b/y/0", "b/y/1"},
		// Offered after a/x/0: b/y/0 a/x/1 b/y/1. Raising b/y/0 leaves b
		// its turn before a at priority 0.
		raise: "b/y/0",
		want:  []string{"a/x/0", "b/y/0", "b/y/1", "a/x/1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := actor.New(actor.Config[string]{Fairness: keys})
				defer q.ShutDown()
				for _, item := range tc.first {
					q.Add(item)
				}
				got := []string{first(t, q)} // fills the lane with the rest
				synctest.Wait()
				for _, item := range tc.more {
					q.Add(item)
				}
				if tc.raise != "" {
					q.AddWithOpts(prio(1), tc.raise)
				}
				if n := q.Len(); n != len(tc.want)-1 {
					t.Fatalf("Len() = %d; want %d", n, len(tc.want)-1)
				}
				// The owner ends its round: a key that joined the turns
				// takes back what the lane offers. (A Get racing it may
				// take an item offered before, as the Fairness doc says.)
				synctest.Wait()
				for range len(tc.want) - 1 {
					got = append(got, first(t, q))
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("hand-out order\n got %v\nwant %v", got, tc.want)
				}
			})
		})
	}
}

// first returns what q.Get returns, failing t on shutdown.
func first(t *testing.T, q *actor.Queue[string]) string {
	t.Helper()
	item, shutdown := q.Get()
	if shutdown {
		t.Fatal("Get() reported shutdown")
	}
	return item
}

// TestFairnessKeysChange: a Fairness function that breaks its contract
// and returns other keys for the same item on a later call (here, a key
// that changes on every call) does not break the queue: an item raised
// while it waits keeps the keys it was queued with, no owner goroutine
// dies, and every item is handed out exactly once (in a synctest bubble,
// so that a lost item fails the test instead of hanging it).
func TestFairnessKeysChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls int
		keys := func(item string) []string {
			calls++ // only ever called by this test's goroutine
			return []string{fmt.Sprint("k", calls%5)}
		}
		q := actor.New(actor.Config[string]{Fairness: keys})
		defer q.ShutDown()
		items := []string{"a", "b", "c", "d", "e", "f"}
		for _, item := range items {
			q.Add(item) // keys k1, k2, k3, k4, k0, k1
		}
		q.AddWithOpts(actor.AddOpts{Priority: 1}, "a") // k2 now: b's key
		q.AddWithOpts(actor.AddOpts{Priority: 1}, "e") // k3 now: c's key
		got := map[string]int{}
		for range items {
			item, shutdown := q.Get()
			if shutdown {
				t.Fatal("Get() reported shutdown")
			}
			got[item]++
			q.Done(item)
		}
		for _, item := range items {
			if got[item] != 1 {
				t.Errorf("%s handed out %d times; want 1", item, got[item])
			}
		}
		if n := q.Len(); n != 0 {
			t.Fatalf("Len() = %d; want 0", n)
		}
	})
}

// TestFairnessDepth: an item with more or fewer fairness keys than the
// first item added panics in the adding goroutine, whichever way it is
// added, and the queue goes on with what it has (owner goroutine alive,
// nothing lost).
func TestFairnessDepth(t *testing.T) {
	keys := func(item string) []string { return strings.Split(item, "/") }
	mustPanic := func(t *testing.T, name string, add func()) {
		t.Helper()
		defer func() {
			r := recover()
			msg, _ := r.(string)
			if !strings.Contains(msg, "as many for every item") {
				t.Errorf("%s: recovered %v; want a panic saying every item needs as many keys", name, r)
			}
		}()
		add()
	}
	q := actor.New(actor.Config[string]{Fairness: keys})
	defer q.ShutDown()
	q.Add("t/ns/0")
	mustPanic(t, "Add with fewer keys", func() { q.Add("t") })
	mustPanic(t, "AddAfter with more keys", func() { q.AddAfter("t/ns/x/1", time.Second) })
	mustPanic(t, "AddRateLimited with fewer keys", func() { q.AddRateLimited("t/1") })
	mustPanic(t, "AddWithOpts, the second item", func() { q.AddWithOpts(actor.AddOpts{Priority: 1}, "u/ns/0", "u") })
	q.AddWithOpts(actor.AddOpts{Priority: 1}, "u/ns/1")
	for _, want := range []string{"u/ns/1", "t/ns/0"} {
		if item, _ := q.Get(); item != want {
			t.Fatalf("Get() = %q; want %q", item, want)
		}
		q.Done(want)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("Len() = %d; want 0: nothing of the panicking adds reached the queue", n)
	}
}

// TestStarvationBound checks that with a bound, a low-priority item waits
// no longer than the bound while higher priorities keep coming, and that
// without one it waits until they stop, as in controller-runtime.
func TestStarvationBound(t *testing.T) {
	for _, bound := range []time.Duration{0, 3 * time.Second} {
		t.Run(fmt.Sprint("bound=", bound), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := actor.New(actor.Config[string]{StarvationBound: bound})
				defer q.ShutDown()
				start := time.Now()
				q.AddWithOpts(prio(-1), "low")
				var lowAt time.Duration = -1
				for i := range 10 { // a high-priority item each second, each taking a second
					q.AddWithOpts(prio(1), fmt.Sprint("high", i))
					q.AddWithOpts(prio(1), fmt.Sprint("next", i))
					item, _ := q.Get()
					if item == "low" {
						lowAt = time.Since(start)
					}
					time.Sleep(time.Second)
					q.Done(item)
				}
				if bound == 0 {
					if lowAt >= 0 {
						t.Fatalf("low handed out at %v with no bound; want it to wait", lowAt)
					}
					return
				}
				if lowAt < bound || lowAt > bound+time.Second {
					t.Fatalf("low handed out after %v; want between the bound %v and a second more", lowAt, bound)
				}
			})
		})
	}
}

// TestSteadyStateAllocs checks the rule of zero allocations per item in
// steady state through the public API, with priorities and with fairness
// (two-level keys, every key coming and going with its one item): one
// goroutine adds new items and takes and finishes them, while the owner
// goroutine serves it. The race detector's sync.Pool drops objects on
// purpose, so scripts/test.sh runs this test without it as well.
func TestSteadyStateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing with -race (sync.Pool drops objects); scripts/test.sh runs this without it")
	}
	keys := make([][]string, 100)
	for i := range keys {
		keys[i] = []string{fmt.Sprintf("tenant-%d", i%10), fmt.Sprintf("ns-%d", i)}
	}
	for _, c := range []struct {
		name string
		cfg  actor.Config[int]
		prio func(i int) int
	}{
		{"plain", actor.Config[int]{}, nil},
		{"priorities", actor.Config[int]{}, func(i int) int { return -100 * (i % 2) }},
		{"fairness", actor.Config[int]{Fairness: func(i int) []string { return keys[i%len(keys)] }}, nil},
		{"fairness+priorities", actor.Config[int]{Fairness: func(i int) []string { return keys[i%len(keys)] }}, func(i int) int { return -100 * (i % 2) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := actor.New(c.cfg)
			defer q.ShutDown()
			next := 0
			round := func() {
				for range 100 {
					if c.prio != nil {
						q.AddWithOpts(actor.AddOpts{Priority: c.prio(next)}, next)
					} else {
						q.Add(next)
					}
					next++
					item, shutdown := q.Get()
					if shutdown {
						t.Fatal("Get() reported shutdown")
					}
					q.Done(item)
				}
			}
			for range 20 { // warm up: maps, rings, spare nodes, pools
				round()
			}
			if got := testing.AllocsPerRun(50, round); got != 0 {
				t.Errorf("%v allocations per 100 items; want 0", got)
			}
			if n := q.Len(); n != 0 {
				t.Fatalf("Len() = %d; want 0", n)
			}
		})
	}
}

// TestFairnessLaneTurns: with more keys than a lane's first pass needs,
// the lane offers each key one turn, and keys that join while those offers
// wait in the lane (a new tenant, and a new namespace of an offered
// tenant) go before the turns the offers took, and a tenant whose one
// item the lane offers comes back, with a new item, to the turn its offer
// took, as they would if the items were handed out one at a time: the
// hand-out order is the sequential model's (pmodel, fuzz_prio_test.go).
func TestFairnessLaneTurns(t *testing.T) {
	const tenants = 40 // more than fairLaneSize
	const singles = 5  // tenants 40 to 44 have one item each
	const newTenant, newNamespace, comeBack = 1000, 1001, 2*42 + 1
	keys := func(i int) []string {
		switch i {
		case newTenant:
			return []string{"z", "x"}
		case newNamespace:
			return []string{"t05", "w"}
		}
		return []string{fmt.Sprintf("t%02d", i/2), "x"}
	}
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[int]{Fairness: keys})
		defer q.ShutDown()
		m := newPModel(keys)
		add := func(items ...int) {
			for _, i := range items {
				q.Add(i)
				m.add(i, 0)
			}
		}
		for r := range 2 { // every tenant's first item, then every second
			for tt := range tenants + singles {
				if r == 0 || tt < tenants {
					add(2*tt + r)
				}
			}
		}
		var got, want []int
		get := func() {
			item, shutdown := q.Get()
			if shutdown {
				t.Fatal("Get() reported shutdown")
			}
			w, _ := m.get()
			got, want = append(got, item), append(want, w)
		}
		get() // fills the lane
		synctest.Wait()
		add(newTenant, newNamespace, comeBack)
		synctest.Wait() // the owner applied both adds (an add does not wait for it)
		for len(m.ready) > 0 {
			get()
		}
		if !slices.Equal(got, want) {
			t.Fatalf("hand-out order\n got %v\nwant %v", got, want)
		}
		if i := slices.Index(got, newTenant); i != tenants+singles+1 {
			t.Errorf("the new tenant's item came %d-th; want %d-th, after every tenant's first and t00's second", i, tenants+singles+1)
		}
		if i, j := slices.Index(got, comeBack), slices.Index(got, 2*39+1); i < j {
			t.Errorf("t42's second item came before t39's (%d-th, %d-th): a tenant that comes back keeps the turn its offer took", i, j)
		}
	})
}

// TestFairLaneBound: with fairness, the lane offers FairPerGet items for
// each consumer seen asking at once, L in all, in the exact order;
// consumers that claim them in another order hand out each item with at
// most L-1 items before it in the sequential model's order (pmodel),
// which hands out in the order of the claims: a lane of L slots puts at
// most L items out of order, then and in later rounds (the keys keep the
// order of their offers), and no more. Here 4 consumers wait at once,
// and then the L offered items are claimed in reverse order.
func TestFairLaneBound(t *testing.T) {
	const consumers = 4
	keys := func(i int) []string { return []string{fmt.Sprint("t", i%7), fmt.Sprint("n", i%3)} }
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[int]{Fairness: keys})
		defer q.ShutDown()
		m := newPModel(keys)
		got := make(chan int, consumers)
		for range consumers { // the lane learns how many consumers ask
			go func() {
				item, _ := q.Get()
				got <- item
			}()
		}
		synctest.Wait()
		for i := range consumers {
			q.Add(1000 + i)
			m.add(1000+i, 0)
		}
		for range consumers { // in the order the consumers report, not the hand-out's
			if err := m.take(<-got, 0, consumers-1); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 40 {
			q.Add(i)
			m.add(i, 0)
		}
		if n := q.Len(); n != 40 {
			t.Fatalf("Len() = %d; want 40", n)
		}
		synctest.Wait() // the owner applied the adds, and filled the lane
		lane := consumers * actor.FairPerGet
		slack := lane - 1
		if !actor.HasLane(q) { // every Get asks the owner: the model's order exactly
			slack = 0
		} else if slots := actor.ReceiveOffered(q); len(slots) != lane {
			t.Fatalf("the lane offers %d items; want %d, %d per consumer that asked", len(slots), lane, actor.FairPerGet)
		} else {
			claimReversed(t, q, m, slots)
		}
		// The rest, one consumer: the keys keep the order in which the lane
		// offered their items, which the model has as they were claimed.
		for len(m.ready) > 0 {
			item, prio, _ := q.GetWithPriority()
			q.Done(item)
			if err := m.take(item, prio, slack); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// claimReversed claims the offered slots in reverse order, each within
// len(slots)-1 items of the model's order, and the first exactly that
// late.
func claimReversed(t *testing.T, q *actor.Queue[int], m *pmodel, slots []*actor.Slot[int]) {
	t.Helper()
	lane := len(slots)
	var order []int
	for i := len(slots) - 1; i >= 0; i-- {
		item, prio, ok := actor.ClaimOffered(q, slots[i])
		if !ok {
			t.Fatalf("claim of the %d-th slot failed", i)
		}
		order = append(order, item)
		if i == len(slots)-1 {
			if err := m.take(item, prio, lane-2); err == nil {
				t.Fatalf("the last item offered, %d, came first within %d items of the model's order; want it %d items late", item, lane-2, lane-1)
			}
		}
		if err := m.take(item, prio, lane-1); err != nil {
			t.Fatalf("claims in reverse order %v: %v", order, err)
		}
	}
}

// TestFairLaneKeptPlace: with fairness and RequeueAtAdd, an item whose
// delay an Add cuts short takes the place its first add gave it, before
// items of its key that the lane already offers: the lane is taken back,
// and one consumer sees the exact order.
func TestFairLaneKeptPlace(t *testing.T) {
	keyOf := func(item string) []string { return []string{item[:1]} }
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Fairness: keyOf, Requeue: actor.RequeueAtAdd})
		defer q.ShutDown()
		q.AddAfter("a0", time.Hour) // its place comes first
		for i := 1; i <= 7; i++ {
			q.Add(fmt.Sprint("a", i))
		}
		got := []string{first(t, q)} // a1; the lane offers the next few
		synctest.Wait()
		q.Add("a0") // ready now, at its first add's place
		synctest.Wait()
		for range 7 {
			got = append(got, first(t, q))
		}
		want := []string{"a1", "a0", "a2", "a3", "a4", "a5", "a6", "a7"}
		if !slices.Equal(got, want) {
			t.Fatalf("hand-out order\n got %v\nwant %v", got, want)
		}
	})
}
