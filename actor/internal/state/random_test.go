package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/actorq/actorq/actor/internal/order"
)

// TestRandom drives a queue through random adds at random priorities,
// delays, pops that are received or returned (newest first), hand-outs
// and Dones, with and without fairness keys (two levels), with and
// without a starvation bound, with both requeue rules, and checks every
// invariant after each step, and that every item popped comes with its
// own keys. With fickle keys, each add carries random keys for its item,
// as a Fairness function that breaks its contract would: the queue keeps
// the keys of an item's first add, and the invariants hold all the same.
// With caps (and weights), keys at both levels start with limits that
// random steps change; with work time, keys take turns by work time.
func TestRandom(t *testing.T) {
	for _, keys := range []string{"none", "fair", "fickle", "caps", "work"} {
		for _, bound := range []time.Duration{0, 3} {
			for _, requeue := range []Requeue{RequeueAtDone, RequeueAtAdd} {
				t.Run(fmt.Sprintf("keys=%s/bound=%d/requeue=%d", keys, bound, requeue), func(t *testing.T) {
					testRandom(t, keys, bound, requeue)
				})
			}
		}
	}
}

func testRandom(t *testing.T, keys string, bound time.Duration, requeue Requeue) {
	r := rand.New(rand.NewPCG(3, uint64(bound)))
	fair, fickle := keys != "none", keys == "fickle"
	capped := keys == "caps" || keys == "work"
	randomLimit := func() KeyLimit {
		path := []string{fmt.Sprint("t", r.IntN(3))}
		if r.IntN(2) == 0 {
			path = append(path, fmt.Sprint("n", r.IntN(2)))
		}
		return KeyLimit{Keys: path, Limit: order.Limit{Cap: r.IntN(3), Weight: r.IntN(4)}}
	}
	keysOf := func(k int) []string {
		switch {
		case !fair:
			return nil
		case fickle:
			return []string{fmt.Sprint("t", r.IntN(3)), fmt.Sprint("n", r.IntN(2))}
		}
		return []string{fmt.Sprint("t", k%3), fmt.Sprint("n", k%2)}
	}
	cfg := Config[int]{Fair: fair, Bound: bound, Requeue: requeue, ByWork: keys == "work"}
	if capped {
		cfg.Limits = []KeyLimit{
			{Keys: []string{"t0"}, Limit: order.Limit{Cap: 1}},
			{Keys: []string{"t1"}, Limit: order.Limit{Cap: 2, Weight: 3}},
			{Keys: []string{"t2", "n1"}, Limit: order.Limit{Cap: 1, Weight: 2}},
		}
	}
	q := New(cfg)
	firstKeys := map[int][]string{} // the keys an item's first add carried, while the queue knows it
	var (
		now        int64
		processing []int
		inTransit  []popped[int]
		handedOut  int
		held       int // Pops that found only items held back by caps
	)
	checkKeys := func(step, item int, p order.Place) {
		t.Helper()
		if !fair {
			return
		}
		if want, got := firstKeys[item], q.prio.Path(p.Key); !slices.Equal(got, want) {
			t.Fatalf("step %d: item %d popped with keys %q; want %q", step, item, got, want)
		}
	}
	for step := range 20_000 {
		k := r.IntN(12)
		o := Opts{Keys: keysOf(k)}
		if step >= 2000 { // priority 0 alone first
			o.Prio = r.IntN(3) - 1
		}
		op := r.IntN(11)
		if len(inTransit) > 0 && (op == 7 || raised(q, inTransit)) {
			// Settle what is in transit, as a transport does when an add
			// raises an item it popped, or in its own time: received, or
			// returned newest first.
			if r.IntN(2) == 0 {
				for i := len(inTransit) - 1; i >= 0; i-- {
					q.Return(inTransit[i].item, inTransit[i].p, now)
				}
			} else {
				for _, x := range inTransit {
					q.Received(x.item, x.p, now, 0)
					processing = append(processing, x.item)
					handedOut++
				}
			}
			inTransit = inTransit[:0]
		}
		if q.Status(k) == Absent {
			firstKeys[k] = o.Keys
		}
		switch {
		case op < 3:
			q.Add(k, o, now)
		case op == 3:
			q.AddAt(k, now+int64(r.IntN(5)), o, now)
		case op == 4 && capped && r.IntN(4) == 0:
			q.SetLimit(randomLimit(), 0)
		case op == 4:
			now++
			q.Due(now)
		case op == 5 || op == 6:
			if item, p, ok := q.Pop(now); ok {
				checkKeys(step, item, p)
				inTransit = append(inTransit, popped[int]{item, p})
			} else if q.order.Len() > 0 {
				held++ // every key with items ready is at a cap
			}
		case op >= 8 && len(processing) > 0:
			i := r.IntN(len(processing))
			q.Done(processing[i], now, 0)
			processing = slices.Delete(processing, i, i+1)
		}
		for item := range firstKeys {
			if q.Status(item) == Absent {
				delete(firstKeys, item)
			}
		}
		func() {
			defer func() {
				if t.Failed() {
					t.Logf("at step %d", step)
				}
			}()
			q.verify(t)
		}()
		if got, want := q.Len()-q.transit, q.order.Len(); requeue == RequeueAtDone && got != want {
			t.Fatalf("step %d: Len() = %d with %d in transit; the order holds %d", step, q.Len(), q.transit, want)
		}
	}
	if capped != (held > 0) {
		t.Fatalf("%d Pops found only items held back by caps; want some with caps, none without", held)
	}
	if handedOut < 1500 {
		t.Fatalf("%d items handed out in 20,000 steps; want at least 1,500", handedOut)
	}
}

func TestAddSupersedesDelay(t *testing.T) {
	q := New(Config[int]{})
	q.AddAt(1, 100, Opts{}, 0)
	q.Add(1, Opts{}, 0)
	q.verify(t)
	if q.Delayed() != 0 || q.Len() != 1 {
		t.Fatalf("Delayed(), Len() = %d, %d; want 0, 1", q.Delayed(), q.Len())
	}
	q.HandOut(0, 0)
	q.Done(1, 0, 0)
	q.AddAt(1, 300, Opts{}, 0) // a new delay of the same item
	q.Due(100)                 // the superseded deadline surfaces: it must not fire
	q.verify(t)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() at 100 = %d; want 0", got)
	}
	q.Due(300)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len() at 300 = %d; want 1", got)
	}
}

func TestDelayWhileProcessing(t *testing.T) {
	q := New(Config[int]{})
	q.Add(1, Opts{}, 0)
	q.HandOut(0, 0)
	q.AddAt(1, 10, Opts{}, 0)
	q.verify(t)
	q.Due(10) // the deadline passes while processing: it runs again after Done
	q.verify(t)
	if got := q.Status(1); got != ProcessingDirty {
		t.Fatalf("Status(1) = %v; want processing+dirty", got)
	}
	q.Done(1, 0, 0)
	q.verify(t)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len() = %d; want 1", got)
	}
}

// TestMapShrinksAfterBurst: the big map is rebuilt once a burst drains,
// and so is proc once a burst handed out together is done, so that a burst
// leaves no memory behind.
func TestMapShrinksAfterBurst(t *testing.T) {
	const n = 100_000
	q := New(Config[int]{})
	for i := range n {
		q.Add(i, Opts{}, 0)
	}
	for {
		item, _, ok := q.HandOut(0, 0)
		if !ok {
			break
		}
		q.Done(item, 0, 0)
	}
	q.verify(t)
	if q.items.peak > shrinkFloor {
		t.Fatalf("peak = %d after draining; want the table made anew", q.items.peak)
	}
	if q.proc.peak != 1 {
		t.Fatalf("proc's peak = %d with one item processing at a time; want 1", q.proc.peak)
	}

	// All handed out before any is done: proc holds the burst.
	for i := range n {
		q.Add(i, Opts{}, 0)
	}
	for range n {
		if _, _, ok := q.HandOut(0, 0); !ok {
			t.Fatal("HandOut() found nothing ready")
		}
	}
	if q.proc.peak != n {
		t.Fatalf("proc's peak = %d with the burst processing; want %d", q.proc.peak, n)
	}
	for i := range n {
		q.Done(i, 0, 0)
	}
	q.verify(t)
	if q.proc.peak > shrinkFloor || q.proc.len() != 0 || q.proc.slots != nil {
		t.Fatalf("proc: peak %d, %d items, %d slots after the Dones; want the table let go", q.proc.peak, q.proc.len(), len(q.proc.slots))
	}
}

// TestSteadyStateAllocs: a queue cycling items through every order
// allocates nothing once warm.
func TestSteadyStateAllocs(t *testing.T) {
	keys := [][]string{{"a", "x"}, {"b", "y"}, {"c", "z"}}
	limits := []KeyLimit{
		{Keys: []string{"a"}, Limit: order.Limit{Cap: 1}},
		{Keys: []string{"b"}, Limit: order.Limit{Weight: 3}},
		{Keys: []string{"c", "z"}, Limit: order.Limit{Cap: 2, Weight: 2}},
	}
	gauges := func() *Metrics[int] { return NewMetrics[int](MetricSet{KeyDepth: nopKeyGauge{}, KeyLimit: 2}) }
	for _, cfg := range []Config[int]{
		{}, {Requeue: RequeueAtAdd}, {Fair: true}, {Fair: true, Limits: limits}, {Fair: true, ByWork: true},
		{Fair: true, ByWork: true, Limits: limits, Metrics: gauges()},
	} {
		q := New(cfg)
		round := func() {
			for i := range 100 {
				o := Opts{Prio: i % 2}
				if cfg.Fair {
					o.Keys = keys[i%3]
				}
				q.Add(i, o, 0)
			}
			for range 100 {
				item, _, _ := q.HandOut(0, 0)
				q.Done(item, 0, 0)
			}
		}
		for range 20 {
			round()
		}
		if got := testing.AllocsPerRun(50, round); got != 0 {
			t.Errorf("%+v: %v allocations per 100 items; want 0", cfg, got)
		}
	}
}

// popped is an item popped and its place.
type popped[T comparable] struct {
	item T
	p    order.Place
}

// raised reports whether an add raised an item in transit since its pop:
// its priority is no longer that of its place.
func raised[T comparable](q *Queue[T], inTransit []popped[T]) bool {
	for _, x := range inTransit {
		if e := q.proc.getItem(x.item); q.prioOf(x.item, e) != x.p.Prio {
			return true
		}
	}
	return false
}
