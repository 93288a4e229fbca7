package order

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// rated is a priority order with fairness keys for the tests of rates: it
// pushes items of the key paths given, and pops them at the order's
// instants.
type rated struct {
	t    *testing.T
	o    *Prio[string]
	seq  uint64
	keys map[string]uint32 // item -> key id
}

func newRated(t *testing.T, byWork bool, levels ...Limit) *rated {
	o := NewPrio[string](0)
	o.UseFlows(byWork)
	o.SetLevels(levels)
	return &rated{t: t, o: o, keys: map[string]uint32{}}
}

// push adds item, whose key path is its name up to its last '.'.
func (r *rated) push(items ...string) {
	for _, item := range items {
		path := strings.Split(item, ".")
		id := r.o.Hold(path[:len(path)-1])
		r.keys[item] = id
		r.seq++
		r.o.Push(item, Place{Seq: r.seq, Key: id})
	}
}

// popAll pops every item that may start at now, and returns them.
func (r *rated) popAll(now int64) []string {
	r.o.Tick(now)
	var out []string
	for r.o.Ready() {
		item, _ := r.o.Pop(now)
		out = append(out, item)
	}
	return out
}

// done finishes and forgets item.
func (r *rated) done(item string) {
	id := r.keys[item]
	r.o.Finish(id, 0)
	r.o.Release(id)
	delete(r.keys, item)
}

func (r *rated) wantWake(at int64) {
	r.t.Helper()
	got, ok := r.o.NextWake()
	if !ok || got != at {
		r.t.Fatalf("NextWake() = %d, %v; want %d, true", got, ok, at)
	}
}

const ms = int64(time.Millisecond)

func TestRateOneKey(t *testing.T) {
	r := newRated(t, false)
	r.o.SetLimit([]string{"a"}, Limit{Rate: 10, Burst: 3}) // a token each 100 ms
	r.push("a.1", "a.2", "a.3", "a.4", "a.5", "a.6")
	if got, want := r.popAll(0), []string{"a.1", "a.2", "a.3"}; !slices.Equal(got, want) {
		t.Fatalf("at 0: popped %v; want the burst %v", got, want)
	}
	r.wantWake(100 * ms)
	if got := r.popAll(99 * ms); len(got) != 0 {
		t.Fatalf("at 99ms: popped %v; want none before the next token", got)
	}
	if got, want := r.popAll(100*ms), []string{"a.4"}; !slices.Equal(got, want) {
		t.Fatalf("at 100ms: popped %v; want %v", got, want)
	}
	r.wantWake(200 * ms)
	if got, want := r.popAll(450*ms), []string{"a.5", "a.6"}; !slices.Equal(got, want) {
		t.Fatalf("at 450ms: popped %v; want %v (the bucket full again since 400ms)", got, want)
	}
	if at, ok := r.o.NextWake(); ok { // tat is 650ms, but a busy key is not listed
		t.Fatalf("NextWake() = %d with nothing waiting and no idle key; want none", at)
	}
	for _, item := range []string{"a.1", "a.2", "a.3", "a.4", "a.5", "a.6"} {
		r.done(item)
	}
	if r.o.flows.children["a"] == nil {
		t.Fatal("key a forgotten with its limit set: want it kept")
	}
}

func TestRateNoHeadOfLineBlocking(t *testing.T) {
	r := newRated(t, false)
	r.o.SetLimit([]string{"a"}, Limit{Rate: 1, Burst: 1})
	r.push("a.1", "a.2", "b.1", "b.2", "b.3")
	if got, want := r.popAll(0), []string{"a.1", "b.1", "b.2", "b.3"}; !slices.Equal(got, want) {
		t.Fatalf("at 0: popped %v; want %v: b goes on while a waits", got, want)
	}
	r.wantWake(time.Second.Nanoseconds())
	r.push("b.4")
	if got, want := r.popAll(time.Second.Nanoseconds()), []string{"b.4", "a.2"}; !slices.Equal(got, want) {
		t.Fatalf("at 1s: popped %v; want %v: a back at the back of the turns", got, want)
	}
}

func TestRateLevelsAndForget(t *testing.T) {
	r := newRated(t, false, Limit{Rate: 10, Burst: 1}) // every first-level key
	r.o.SetLimit([]string{"vip"}, Limit{})             // no rate for vip
	r.push("a.1", "a.2", "b.1", "vip.1", "vip.2")
	if got, want := r.popAll(0), []string{"a.1", "b.1", "vip.1", "vip.2"}; !slices.Equal(got, want) {
		t.Fatalf("at 0: popped %v; want %v", got, want)
	}
	for _, item := range []string{"a.1", "b.1", "vip.1", "vip.2"} {
		r.done(item)
	}
	if r.o.flows.children["b"] == nil {
		t.Fatal("b forgotten at 0 with its bucket not full: want it kept until 100ms")
	}
	if got, want := r.popAll(100*ms), []string{"a.2"}; !slices.Equal(got, want) {
		t.Fatalf("at 100ms: popped %v; want %v", got, want)
	}
	if r.o.flows.children["b"] != nil {
		t.Fatal("b kept at 100ms with a full bucket and nothing else: want it forgotten")
	}
	if _, ok := r.o.NextWake(); !ok {
		t.Fatal("no wake with a's bucket not full")
	}
	r.done("a.2")
	r.o.Tick(200 * ms)
	if _, ok := r.o.NextWake(); ok || len(r.o.flows.children) != 1 {
		t.Fatalf("at 200ms: keys %v, wakes %d; want vip alone (its own limit), no wake", slices.Collect(mapKeys(r.o.flows.children)), len(r.o.wakes.items))
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, k := range slices.Sorted(func(y func(string) bool) {
			for k := range m {
				if !y(k) {
					return
				}
			}
		}) {
			if !yield(k) {
				return
			}
		}
	}
}

func TestRateNested(t *testing.T) {
	// A namespace's items spend their tenant's tokens too.
	r := newRated(t, false, Limit{Rate: 1, Burst: 2}, Limit{Rate: 1, Burst: 1})
	r.push("t.n1.1", "t.n1.2", "t.n2.1", "t.n2.2", "u.n1.1")
	if got, want := r.popAll(0), []string{"t.n1.1", "u.n1.1", "t.n2.1"}; !slices.Equal(got, want) {
		t.Fatalf("at 0: popped %v; want %v", got, want)
	}
	// t's tokens: tat 2s, one back at 1s; n1 and n2 each one at 1s.
	r.wantWake(time.Second.Nanoseconds())
	if got, want := r.popAll(time.Second.Nanoseconds()), []string{"t.n1.2"}; !slices.Equal(got, want) {
		t.Fatalf("at 1s: popped %v; want %v (one token of t)", got, want)
	}
}

func TestPause(t *testing.T) {
	r := newRated(t, false)
	r.push("a.1", "b.1", "a.2")
	r.o.Pause([]string{"a"}, 5*ms)
	if got, want := r.popAll(0), []string{"b.1"}; !slices.Equal(got, want) {
		t.Fatalf("at 0: popped %v; want %v", got, want)
	}
	r.o.Pause([]string{"a"}, 2*ms) // earlier than the pause it has: nothing
	r.wantWake(5 * ms)
	if got, want := r.popAll(5*ms), []string{"a.1", "a.2"}; !slices.Equal(got, want) {
		t.Fatalf("at 5ms: popped %v; want %v", got, want)
	}
	r.o.Pause([]string{"b"}, 4*ms) // in the past: nothing
	if _, ok := r.o.NextWake(); ok || r.o.flows.children["b"].r != nil {
		t.Fatal("a pause in the past holds its key")
	}
}

func TestRateRefund(t *testing.T) {
	// A pop ahead that comes back gives its token back: the next pop is
	// as if it had not happened.
	r := newRated(t, false)
	r.o.SetLimit([]string{"a"}, Limit{Rate: 1, Burst: 1})
	r.push("a.1", "a.2")
	item, p := r.o.PopAhead(0)
	if r.o.Ready() {
		t.Fatal("a ready with its only token taken")
	}
	r.o.PushFront(item, p)
	if got, want := r.popAll(0), []string{"a.1"}; !slices.Equal(got, want) {
		t.Fatalf("after the pop ahead came back: popped %v; want %v", got, want)
	}
	r.wantWake(time.Second.Nanoseconds())
}

func TestRateCapsOff(t *testing.T) {
	r := newRated(t, false)
	r.o.SetLimit([]string{"a"}, Limit{Rate: 1, Burst: 1})
	r.o.Pause([]string{"b"}, time.Hour.Nanoseconds())
	r.push("a.1", "a.2", "b.1")
	if got, want := r.popAll(0), []string{"a.1"}; !slices.Equal(got, want) {
		t.Fatalf("at 0: popped %v; want %v", got, want)
	}
	r.o.CapsOff()
	if got, want := r.popAll(0), []string{"a.2", "b.1"}; !slices.Equal(got, want) {
		t.Fatalf("after CapsOff: popped %v; want %v", got, want)
	}
	if _, ok := r.o.NextWake(); ok {
		t.Fatal("a wake after CapsOff")
	}
}

// TestRateWindows drives orders with rates at both levels, caps, weights
// and pauses through random pushes, pops (some ahead, some of those put
// back), finishes and ticks, and checks, for every key, that in every
// window [t, t+W] at most Burst + Rate·W of its tokens were spent (by
// pops that were not put back, each dated at its hand-out if Kept dated
// it again, else at its pop), and that the order is work-conserving:
// whenever it has an item but none may start, a key on each item's path
// is at its cap, or waits with a wake at or before its token.
func TestRateWindows(t *testing.T) {
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { rateWindows(t, seed) })
	}
}

func rateWindows(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	byWork := seed%2 == 1
	levels := []Limit{{Rate: float64(1 + rng.IntN(20)), Burst: 1 + rng.IntN(3)}, {}}
	if seed%3 == 0 {
		levels[1] = Limit{Rate: float64(1 + rng.IntN(40)), Burst: 1 + rng.IntN(2), Cap: rng.IntN(3)}
	}
	r := newRated(t, byWork, levels...)
	limits := map[string]Limit{}
	limitOf := func(path string) Limit {
		if l, ok := limits[path]; ok {
			return l
		}
		return levels[strings.Count(path, ".")]
	}
	if rng.IntN(2) == 0 {
		l := Limit{Rate: float64(1 + rng.IntN(5)), Burst: 1 + rng.IntN(4), Weight: 1 + rng.IntN(3)}
		r.o.SetLimit([]string{"t0"}, l)
		limits["t0"] = l
	}
	starts := map[string][]int64{} // key path -> instants of its hand-outs
	var now int64
	var ahead []string // popped ahead, oldest first
	places := map[string]Place{}
	popAt := map[string]int64{}
	var out []string
	n := 0
	for step := 0; step < 400; step++ {
		switch rng.IntN(7) {
		case 0, 1:
			n++
			r.push(fmt.Sprintf("t%d.n%d.%d", rng.IntN(3), rng.IntN(2), n))
		case 2:
			r.o.Tick(now)
			if r.o.Ready() {
				item, p := r.o.PopAhead(now)
				ahead = append(ahead, item)
				places[item], popAt[item] = p, now
			}
		case 3:
			if len(ahead) > 0 { // the newest comes back
				item := ahead[len(ahead)-1]
				ahead = ahead[:len(ahead)-1]
				r.o.PushFront(item, places[item])
			}
		case 4:
			if len(ahead) > 0 { // the oldest is handed out
				item := ahead[0]
				ahead = ahead[1:]
				parts := strings.Split(item, ".")
				tats := make([]int64, len(parts)-1)
				flows := make([]*flow[string], len(parts)-1)
				for i := range flows {
					flows[i] = r.o.flowOf(parts[:i+1])
					if flows[i].r != nil {
						tats[i] = flows[i].r.tat
					}
				}
				r.o.Kept(places[item], now)
				out = append(out, item)
				for i, f := range flows {
					// The instant its token is dated: the hand-out's if
					// Kept dated it again, else the pop's.
					at := popAt[item]
					if f.r != nil && f.r.tat != tats[i] {
						at = now
					}
					path := strings.Join(parts[:i+1], ".")
					starts[path] = append(starts[path], at)
				}
			}
		case 5:
			if len(out) > 0 {
				i := rng.IntN(len(out))
				r.done(out[i])
				out = slices.Delete(out, i, i+1)
			}
		case 6:
			now += int64(rng.IntN(300)) * ms
			r.o.Tick(now)
		}
		checkConserving(t, r, now)
	}
	for path, ts := range starts {
		slices.Sort(ts)
		l := limitOf(path)
		tau := interval(l.Rate)
		if tau == 0 {
			continue
		}
		for i := range ts {
			for j := i; j < len(ts); j++ {
				if w := ts[j] - ts[i]; int64(j-i+1) > int64(max(l.Burst, 1))+w/tau {
					t.Fatalf("key %s (rate %v, burst %d): %d hand-outs in [%d, %d]; want at most %d", path, l.Rate, l.Burst, j-i+1, ts[i], ts[j], int64(l.Burst)+w/tau)
				}
			}
		}
	}
}

// flowOf returns the flow of the key path keys, which must exist.
func (o *Prio[T]) flowOf(keys []string) *flow[T] {
	f := o.flows
	for _, k := range keys {
		f = f.children[k]
	}
	return f
}

// checkConserving fails if the order has items but none may start while
// no wake is due: a key it passes over must be at its cap, or wait for a
// wake later than now.
func checkConserving(t *testing.T, r *rated, now int64) {
	t.Helper()
	if r.o.Len() == 0 || r.o.Ready() {
		return
	}
	if at, ok := r.o.NextWake(); ok && at <= now {
		t.Fatalf("at %d: nothing may start, with a wake due at %d", now, at)
	}
	for item, id := range r.keys {
		blocked := false
		for f := r.o.ids.flow(id); f != nil && f.parent != nil; f = f.parent {
			if f.cap > 0 && f.out >= int(f.cap) || f.r != nil && f.r.wait && f.r.eligibleAt() > now {
				blocked = true
			}
		}
		if !blocked && r.o.ids.flow(id).nodes != nil {
			t.Fatalf("at %d: nothing may start, but %s's keys are neither capped nor waiting", now, item)
		}
	}
}
