package state

import (
	"fmt"
	"strings"
	"testing"

	"github.com/actorq/actorq/actor/internal/order"
)

// verify checks the queue's invariants; the tests run it after every step.
func (q *Queue[T]) verify(t *testing.T) {
	t.Helper()
	var nready, nproc, ndirty, ndelayed, npopped int
	all := map[T]entry{}
	deadlines := map[T]bool{}
	q.delays.All(func(item T, _ int64) bool {
		deadlines[item] = true
		return true
	})
	for item, e := range q.proc.all {
		if !e.status().out() {
			t.Fatalf("item %v in proc as %v", item, e.status())
		}
		if q.items.getItem(item) != 0 {
			t.Fatalf("item %v in both tables", item)
		}
		all[item] = e
	}
	for item, e := range q.items.all {
		all[item] = e
	}
	for item, e := range all {
		if e.status() == Popped {
			npopped++
		}
		if st := e.status(); st != Ready && st != Delayed {
			if q.proc.getItem(item) == 0 {
				t.Fatalf("item %v in items as %v", item, st)
			}
		}
		switch st := e.status(); st {
		case Absent:
			t.Fatalf("item %v stored as absent", item)
		case Ready:
			nready++
		case Processing, ProcessingDelayed:
			nproc++
		case ProcessingDirty:
			nproc++
			ndirty++
		}
		if st := e.status(); st == Delayed || st == ProcessingDelayed {
			ndelayed++
			if !deadlines[item] {
				t.Fatalf("item %v delayed with no deadline", item)
			}
		}
		if _, ok := q.wide[item]; ok != (e&wideBit != 0) {
			t.Fatalf("item %v: wideBit %v, wide priority kept %v", item, e&wideBit != 0, ok)
		}
		if q.fair != (e.key() != 0) {
			t.Fatalf("item %v: key id %d with fairness %v", item, e.key(), q.fair)
		}
		if _, ok := q.places[item]; ok && e.status() != ProcessingDirty && e.status() != Delayed && e.status() != ProcessingDelayed {
			t.Fatalf("item %v: %v with a place kept", item, e.status())
		}
	}
	if got := q.order.Len(); got != nready {
		t.Fatalf("order.Len() = %d; %d items ready", got, nready)
	}
	if q.nproc != nproc || q.ndirty != ndirty {
		t.Fatalf("nproc, ndirty = %d, %d; %d processing, %d dirty", q.nproc, q.ndirty, nproc, ndirty)
	}
	if q.transit != npopped {
		t.Fatalf("transit = %d; %d items popped", q.transit, npopped)
	}
	if q.delays.Len() != ndelayed {
		t.Fatalf("%d deadlines; %d items delayed", q.delays.Len(), ndelayed)
	}
	if q.fair {
		// The order checks its own flows and trees (order's checkFlows,
		// under a driver that makes the state's calls); here, that it
		// counts what the state holds.
		nout := 0
		for _, e := range q.proc.all {
			if e.status().out() {
				nout++
			}
		}
		if q.m != nil && q.m.keyed() {
			if _, ready, out := q.prio.Busiest(0, func(order.KeyCount) {}); ready != nready || out != nout {
				t.Fatalf("the order counts %d ready, %d out; %d ready, %d out", ready, out, nready, nout)
			}
		}
	}
	if q.m != nil {
		for item := range q.m.startTimes {
			if !q.Status(item).processing() {
				t.Fatalf("item %v: a start time, but %v", item, q.Status(item))
			}
		}
	}
}

// deadlineOf returns item's deadline, if it has one.
func (q *Queue[T]) deadlineOf(item T) (at int64, ok bool) {
	q.delays.All(func(i T, dl int64) bool {
		if i == item {
			at, ok = dl, true
		}
		return !ok
	})
	return at, ok
}

// TestTransitions walks every state of an item against every event, and
// checks the state it ends in and each side effect: where the item is in
// the ready order, its deadline, the counts and the metric calls.
func TestTransitions(t *testing.T) {
	// Each setup puts item x into one state. y is ready first, so that
	// where x goes in the order shows.
	processingX := func(q *Queue[string]) {
		q.Add("x", Opts{}, 0)
		q.HandOut(0, 0)
		q.Add("y", Opts{}, 0)
	}
	setups := []struct {
		name string
		st   Status
		do   func(q *Queue[string])
	}{
		{"absent", Absent, func(q *Queue[string]) { q.Add("y", Opts{}, 0) }},
		{"ready", Ready, func(q *Queue[string]) { q.Add("x", Opts{}, 0); q.Add("y", Opts{}, 0) }},
		{"popped", Popped, func(q *Queue[string]) { q.Add("x", Opts{}, 0); q.Pop(0); q.Add("y", Opts{}, 0) }},
		{"processing", Processing, processingX},
		{"processing+dirty", ProcessingDirty, func(q *Queue[string]) { processingX(q); q.Add("x", Opts{}, 0) }},
		{"delayed", Delayed, func(q *Queue[string]) { q.AddAt("x", 10, Opts{}, 0); q.Add("y", Opts{}, 0) }},
		{"processing+delayed", ProcessingDelayed, func(q *Queue[string]) { processingX(q); q.AddAt("x", 10, Opts{}, 0) }},
	}
	events := []struct {
		name string
		do   func(q *Queue[string])
	}{
		{"add", func(q *Queue[string]) { q.Add("x", Opts{}, 0) }},
		{"addAt earlier", func(q *Queue[string]) { q.AddAt("x", 5, Opts{}, 0) }},
		{"addAt later", func(q *Queue[string]) { q.AddAt("x", 20, Opts{}, 0) }},
		{"due", func(q *Queue[string]) { q.Due(10) }},
		{"hand out", func(q *Queue[string]) { q.HandOut(0, 0) }},
		{"pop, return", func(q *Queue[string]) {
			if item, p, ok := q.Pop(0); ok {
				q.Return(item, p, 0)
			}
		}},
		{"received", func(q *Queue[string]) {
			if q.Status("x") == Popped {
				q.Received("x", order.Place{}, 0, 0)
			}
		}},
		{"done", func(q *Queue[string]) { q.Done("x", 0, 0) }},
		{"drain", func(q *Queue[string]) { q.Drain() }},
	}
	wants := map[string]map[string]effect{
		"absent": {
			"add":           {Ready, "[y x]", 0, 0, "add +depth"},
			"addAt earlier": {Delayed, "[y]", 5, 0, "delayed"},
			"addAt later":   {Delayed, "[y]", 20, 0, "delayed"},
			"due":           {Absent, "[y]", 0, 0, ""},
			"hand out":      {Absent, "[]", 0, 1, "-depth latency"}, // y
			"pop, return":   {Absent, "[y]", 0, 0, ""},
			"received":      {Absent, "[y]", 0, 0, ""},
			"done":          {Absent, "[y]", 0, 0, ""},
			"drain":         {Absent, "[y]", 0, 0, "delayed"},
		},
		"popped": { // ready by the rules, out of the order
			"add":           {Popped, "[y]", 0, 0, ""}, // a duplicate
			"addAt earlier": {Popped, "[y]", 0, 0, ""},
			"addAt later":   {Popped, "[y]", 0, 0, ""},
			"due":           {Popped, "[y]", 0, 0, ""},
			"hand out":      {Popped, "[]", 0, 1, "-depth latency"}, // y
			"pop, return":   {Popped, "[y]", 0, 0, ""},
			"received":      {Processing, "[y]", 0, 1, "-depth latency"},
			"done":          {Popped, "[y]", 0, 0, ""}, // not processing: nothing
			"drain":         {Popped, "[y]", 0, 0, "delayed"},
		},
		"ready": {
			"add":           {Ready, "[x y]", 0, 0, ""}, // a duplicate
			"addAt earlier": {Ready, "[x y]", 0, 0, ""},
			"addAt later":   {Ready, "[x y]", 0, 0, ""},
			"due":           {Ready, "[x y]", 0, 0, ""},
			"hand out":      {Processing, "[y]", 0, 1, "-depth latency"},
			"pop, return":   {Ready, "[x y]", 0, 0, ""},
			"received":      {Ready, "[x y]", 0, 0, ""},
			"done":          {Ready, "[x y]", 0, 0, ""}, // not processing: nothing
			"drain":         {Ready, "[x y]", 0, 0, "delayed"},
		},
		"processing": {
			"add":           {ProcessingDirty, "[y]", 0, 1, "add +depth"},
			"addAt earlier": {ProcessingDelayed, "[y]", 5, 1, "delayed"},
			"addAt later":   {ProcessingDelayed, "[y]", 20, 1, "delayed"},
			"due":           {Processing, "[y]", 0, 1, ""},
			"hand out":      {Processing, "[]", 0, 2, "-depth latency"},
			"pop, return":   {Processing, "[y]", 0, 1, ""},
			"received":      {Processing, "[y]", 0, 1, ""},
			"done":          {Absent, "[y]", 0, 0, "work"},
			"drain":         {Processing, "[y]", 0, 1, "delayed"},
		},
		"processing+dirty": {
			"add":           {ProcessingDirty, "[y]", 0, 1, ""},
			"addAt earlier": {ProcessingDirty, "[y]", 0, 1, ""},
			"addAt later":   {ProcessingDirty, "[y]", 0, 1, ""},
			"due":           {ProcessingDirty, "[y]", 0, 1, ""},
			"hand out":      {ProcessingDirty, "[]", 0, 2, "-depth latency"},
			"pop, return":   {ProcessingDirty, "[y]", 0, 1, ""},
			"received":      {ProcessingDirty, "[y]", 0, 1, ""},
			"done":          {Ready, "[y x]", 0, 0, "work"},
			"drain":         {ProcessingDirty, "[y]", 0, 1, "delayed"},
		},
		"delayed": {
			"add":           {Ready, "[y x]", 0, 0, "delayed add +depth"},
			"addAt earlier": {Delayed, "[y]", 5, 0, ""},
			"addAt later":   {Delayed, "[y]", 10, 0, ""}, // never lengthened
			"due":           {Ready, "[y x]", 0, 0, "add +depth delayed"},
			"hand out":      {Delayed, "[]", 10, 1, "-depth latency"},
			"pop, return":   {Delayed, "[y]", 10, 0, ""},
			"received":      {Delayed, "[y]", 10, 0, ""},
			"done":          {Delayed, "[y]", 10, 0, ""},
			"drain":         {Absent, "[y]", 0, 0, "delayed"},
		},
		"processing+delayed": {
			"add":           {ProcessingDirty, "[y]", 0, 1, "delayed add +depth"},
			"addAt earlier": {ProcessingDelayed, "[y]", 5, 1, ""},
			"addAt later":   {ProcessingDelayed, "[y]", 10, 1, ""},
			"due":           {ProcessingDirty, "[y]", 0, 1, "add +depth delayed"},
			"hand out":      {ProcessingDelayed, "[]", 10, 2, "-depth latency"},
			"pop, return":   {ProcessingDelayed, "[y]", 10, 1, ""},
			"received":      {ProcessingDelayed, "[y]", 10, 1, ""},
			"done":          {Delayed, "[y]", 10, 0, "work"},
			"drain":         {Processing, "[y]", 0, 1, "delayed"},
		},
	}
	for _, setup := range setups {
		for _, ev := range events {
			t.Run(setup.name+"/"+ev.name, func(t *testing.T) {
				w, ok := wants[setup.name][ev.name]
				if !ok {
					t.Fatalf("no expectation for %s/%s", setup.name, ev.name)
				}
				rec := &callRecorder{}
				q := New(Config[string]{Metrics: NewMetrics[string](rec.set())})
				setup.do(q)
				if got := q.Status("x"); got != setup.st {
					t.Fatalf("setup: x is %v; want %v", got, setup.st)
				}
				q.verify(t)
				rec.calls = nil
				ev.do(q)
				q.verify(t)
				at, _ := q.deadlineOf("x")
				got := effect{q.Status("x"), orderOf(q), at, q.nproc, rec.String()}
				if got != w {
					t.Errorf("%s, then %s:\n got %v\nwant %v", setup.name, ev.name, got, w)
				}
			})
		}
	}
}

// effect is where an event left item x, and what else it did.
type effect struct {
	to       Status
	order    string // the ready order after the event
	deadline int64  // x's deadline, 0 for none
	nproc    int
	metrics  string // the metric calls the event made (see callRecorder)
}

func (e effect) String() string {
	return fmt.Sprintf("%v, order %s, deadline %d, %d processing, metrics %q", e.to, e.order, e.deadline, e.nproc, e.metrics)
}

// orderOf lists the default ready order without changing it.
func orderOf(q *Queue[string]) string {
	var items []string
	q.fifo.Items(q.fifo.Len(), func(item string) { items = append(items, item) })
	return fmt.Sprint(items)
}

// callRecorder records the metric calls of a queue, in order: add (the
// adds counter), +depth and -depth, latency and work (observations),
// delayed (the delayed-items gauge set), retry, and the two unfinished
// gauges.
type callRecorder struct{ calls []string }

func (r *callRecorder) String() string { return strings.Join(r.calls, " ") }

type recMetric struct {
	r        *callRecorder
	inc, dec string
}

func (m recMetric) Inc()            { m.r.calls = append(m.r.calls, m.inc) }
func (m recMetric) Dec()            { m.r.calls = append(m.r.calls, m.dec) }
func (m recMetric) Set(float64)     { m.r.calls = append(m.r.calls, m.inc) }
func (m recMetric) Observe(float64) { m.r.calls = append(m.r.calls, m.inc) }

func (r *callRecorder) set() MetricSet {
	return MetricSet{
		Depth:          recMetric{r, "+depth", "-depth"},
		Adds:           recMetric{r, "add", ""},
		Latency:        recMetric{r, "latency", ""},
		WorkDuration:   recMetric{r, "work", ""},
		Unfinished:     recMetric{r, "unfinished", ""},
		LongestRunning: recMetric{r, "longest", ""},
		Retries:        recMetric{r, "retry", ""},
		Delayed:        recMetric{r, "delayed", ""},
	}
}

// TestLateAdds: once a shutdown has begun (Drain or End), Add and AddAt do
// nothing in any state, count no retry, and Done still applies.
func TestLateAdds(t *testing.T) {
	for _, end := range []bool{false, true} {
		rec := &callRecorder{}
		q := New(Config[string]{Metrics: NewMetrics[string](rec.set())})
		q.Add("p", Opts{}, 0)
		q.Add("d", Opts{}, 0)
		q.HandOut(0, 0)
		q.HandOut(0, 0)
		q.Add("d", Opts{}, 0) // d dirty
		if end {
			q.End()
		} else {
			q.Drain()
		}
		rec.calls = nil
		for _, item := range []string{"a", "p", "d"} {
			q.Add(item, Opts{Retry: true}, 0)
			q.AddAt(item, 5, Opts{Retry: true, Prio: 3}, 0)
			q.Add(item, Opts{Prio: 7}, 0)
			q.verify(t)
		}
		if rec.String() != "" || q.Len() != 0 || q.Status("a") != Absent || q.Status("p") != Processing || q.Status("d") != ProcessingDirty {
			t.Fatalf("end=%v: after late adds: metrics %q, Len %d, a %v, p %v, d %v; want nothing changed", end, rec, q.Len(), q.Status("a"), q.Status("p"), q.Status("d"))
		}
		q.Done("p", 0, 0)
		q.Done("d", 0, 0)
		q.verify(t)
		if item, _, ok := q.HandOut(0, 0); !ok || item != "d" || q.Status("p") != Absent {
			t.Fatalf("end=%v: HandOut after Done = %q, %v, p %v; want d, true, absent", end, item, ok, q.Status("p"))
		}
	}
}

// TestReturnUndoesPop: items popped and returned newest first leave the
// order exactly as it was, for every order, fairness keys included.
func TestReturnUndoesPop(t *testing.T) {
	keys := func(i int) []string { return []string{fmt.Sprint(i % 3), fmt.Sprint(i % 2)} }
	for _, cfg := range []Config[int]{{}, {Requeue: RequeueAtAdd}, {Fair: true}} {
		q := New(cfg)
		for i := range 20 {
			o := Opts{Prio: i % 4 / 3}
			if cfg.Fair {
				o.Keys = keys(i)
			}
			q.Add(i, o, 0)
		}
		want := drainOrder(t, New(cfg), q, keys) // the order, from a copy
		type popped struct {
			item int
			p    order.Place
		}
		var ps []popped
		for range 7 {
			item, p, _ := q.Pop(0)
			ps = append(ps, popped{item, p})
		}
		if q.Len() != 20 {
			t.Fatalf("%+v: Len() = %d with 7 popped of 20; want 20", cfg, q.Len())
		}
		for i := len(ps) - 1; i >= 0; i-- {
			q.Return(ps[i].item, ps[i].p, 0)
		}
		q.verify(t)
		var got []int
		for {
			item, _, ok := q.HandOut(0, 0)
			if !ok {
				break
			}
			got = append(got, item)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%+v: order after 7 pops returned\n got %v\nwant %v", cfg, got, want)
		}
	}
}

// drainOrder adds to fresh the items q holds, as q got them, and returns
// the order fresh hands them out in.
func drainOrder(t *testing.T, fresh, q *Queue[int], keys func(int) []string) []int {
	t.Helper()
	for i := range 20 {
		o := Opts{Prio: i % 4 / 3}
		if fresh.fair {
			o.Keys = keys(i)
		}
		fresh.Add(i, o, 0)
	}
	var out []int
	for {
		item, _, ok := fresh.HandOut(0, 0)
		if !ok {
			return out
		}
		out = append(out, item)
	}
}

// valueGauge keeps the last value set.
type valueGauge struct{ v float64 }

func (g *valueGauge) Set(v float64) { g.v = v }

// TestRefreshTie: a refresh of the unfinished-work gauges at the instant
// a Done is stamped counts the item as still processing, whether the
// owner applies the Done before the refresh or after it (the refresh at
// an instant goes before the events stamped at it, as client-go's ticker
// does on a fake clock); a Done stamped before the refresh and applied
// after it is taken out of the refresh.
func TestRefreshTie(t *testing.T) {
	p := int64(UpdatePeriod)
	tests := []struct {
		name                string
		doneAt              int64
		doneFirst           bool
		unfinished, longest float64
	}{
		{"done at the refresh, applied first", p, true, 0.75, 0.5},
		{"done at the refresh, applied after", p, false, 0.75, 0.5},
		{"done before the refresh, applied after", p - 1, false, 0.25, 0.25},
		{"done before the refresh, applied first", p - 1, true, 0.25, 0.25},
	}
	for _, tt := range tests {
		var unfinished, longest valueGauge
		q := New(Config[string]{Metrics: NewMetrics[string](MetricSet{Unfinished: &unfinished, LongestRunning: &longest})})
		q.Add("a", Opts{}, 0)
		q.Add("b", Opts{}, 0)
		q.HandOut(0, 0)   // a, processing for 0.5s at the refresh
		q.HandOut(p/2, 0) // b, for 0.25s
		if tt.doneFirst {
			q.Done("a", tt.doneAt, 0)
			q.Refresh(p)
		} else {
			q.Refresh(p)
			q.Done("a", tt.doneAt, 0)
		}
		if unfinished.v != tt.unfinished || longest.v != tt.longest {
			t.Errorf("%s: unfinished %v, longest %v; want %v, %v", tt.name, unfinished.v, longest.v, tt.unfinished, tt.longest)
		}
	}
}
