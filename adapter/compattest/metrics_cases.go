package compattest

import (
	"reflect"
	"testing"
	"testing/synctest"
	"time"
)

// client-go records depth, adds, latency and work duration inside the call
// that causes them, and refreshes the two unfinished-work gauges from a
// ticker started with the queue, every 500ms of its clock, while it is not
// shutting down. The adapter records them in its owner goroutine
// (difference 7 on the list in actor's package doc): a call's metrics are recorded once
// the owner has applied it, which a Len returning guarantees, so the cases
// compare after a Len; values and update instants are client-go's.

// wantMetrics checks the recorded metrics right after a Len, without
// waiting for anything else. The unfinished-work gauges are compared too.
func wantMetrics(t *testing.T, q interface{ Len() int }, rec *Recorder, what string, want Snapshot) {
	t.Helper()
	q.Len()
	if got := rec.Snapshot(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: metrics = %+v; want %+v", what, got, want)
	}
}

func testMetrics(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, impl.Exponential(time.Second, time.Second), "metrics", rec)
	q.Add("a")
	q.Add("b")
	q.Add("a") // duplicate: not an add
	wantMetrics(t, q, rec, "after adds", Snapshot{Depth: 2, Adds: 2})
	step(c, time.Second)
	wantGet(t, q, "a")
	wantMetrics(t, q, rec, "after Get", Snapshot{Depth: 1, Adds: 2, Latency: []float64{1}})
	step(c, 2*time.Second)
	wantMetrics(t, q, rec, "after 2s of work", Snapshot{Depth: 1, Adds: 2, Latency: []float64{1}, Unfinished: 2, Longest: 2})
	q.Done("a")
	wantMetrics(t, q, rec, "after Done", Snapshot{Depth: 1, Adds: 2, Latency: []float64{1}, Work: []float64{2}, Unfinished: 2, Longest: 2})
	q.AddAfter("c", time.Second)
	q.AddRateLimited("d")
	q.AddAfter("e", 0)
	wantMetrics(t, q, rec, "after retries", Snapshot{Depth: 2, Adds: 3, Retries: 3, Latency: []float64{1}, Work: []float64{2}, Unfinished: 2, Longest: 2})
	step(c, time.Second)
	wantGet(t, q, "b")
	wantMetrics(t, q, rec, "after delays", Snapshot{Depth: 3, Adds: 5, Retries: 3, Latency: []float64{1, 4}, Work: []float64{2}})
}

// testMetricsAfterLen: whichever way the adapter's calls reach its owner
// (Gets that claim items from its lane without waiting for it, adds of an
// item being processed), the metrics are client-go's once a Len returns,
// with no other wait.
func testMetricsAfterLen(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, nil, "afterlen", rec)
	q.Add("a")
	q.Add("a") // duplicate
	q.Add("b")
	step(c, time.Second)
	for _, want := range []string{"a", "b"} {
		if got, shutdown := q.Get(); got != want || shutdown {
			t.Fatalf("Get() = %q, %v; want %q, false", got, shutdown, want)
		}
	}
	q.Add("b") // processing: counted, to run again
	q.Add("b") // already dirty: not counted
	wantMetrics(t, q, rec, "after Gets and dirty adds", Snapshot{Depth: 1, Adds: 3, Latency: []float64{1, 1}})
}

// testMetricsAcrossShutDown: ShutDown leaves depth counting the dirty item,
// which client-go counted at its Add; Gets after ShutDown record latency,
// the Done of the dirty item records its work, AddAfter and
// AddRateLimited count no retry once shutting down, and the
// unfinished-work gauges are no longer refreshed.
func testMetricsAcrossShutDown(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, nil, "shutdown", rec)
	q.Add("a")
	q.Add("b")
	q.Add("c")
	step(c, time.Second)
	if got, shutdown := q.Get(); got != "a" || shutdown {
		t.Fatalf("Get() = %q, %v; want a, false", got, shutdown)
	}
	q.Add("a") // dirty
	q.ShutDown()
	wantMetrics(t, q, rec, "after ShutDown", Snapshot{Depth: 3, Adds: 4, Latency: []float64{1}})
	step(c, time.Second)
	wantGet(t, q, "b")
	wantGet(t, q, "c")
	wantMetrics(t, q, rec, "after the Gets of the ready items", Snapshot{Depth: 1, Adds: 4, Latency: []float64{1, 2, 2}})
	q.Done("a")
	q.AddAfter("x", 0)
	q.AddAfter("y", time.Second)
	q.AddRateLimited("z")
	q.Add("w")
	wantMetrics(t, q, rec, "after the dirty Done and ignored adds", Snapshot{Depth: 1, Adds: 4, Latency: []float64{1, 2, 2}, Work: []float64{1}})
	step(c, time.Second)
	wantGet(t, q, "a")
	q.Done("a")
	q.Done("b")
	q.Done("c")
	wantMetrics(t, q, rec, "at the end", Snapshot{Adds: 4, Latency: []float64{1, 2, 2, 2}, Work: []float64{1, 0, 1, 1}})
	wantShutdown(t, q)
}

// wantGauges checks the unfinished-work gauges, values and numbers of
// sets, once every goroutine of the bubble is blocked.
func wantGauges(t *testing.T, q interface{ Len() int }, rec *Recorder, what string, want Gauges) {
	t.Helper()
	q.Len()
	synctest.Wait()
	if got := rec.Gauges(); got != want {
		t.Fatalf("%s: gauges = %+v; want %+v", what, got, want)
	}
}

// wantGaugeValues checks the values of the unfinished-work gauges only:
// client-go sets them to zero at every tick while nothing is processing,
// the adapter once.
func wantGaugeValues(t *testing.T, q interface{ Len() int }, rec *Recorder, what string, unfinished, longest float64) {
	t.Helper()
	q.Len()
	synctest.Wait()
	if got := rec.Gauges(); got.Unfinished != unfinished || got.Longest != longest {
		t.Fatalf("%s: unfinished, longest = %v, %v; want %v, %v", what, got.Unfinished, got.Longest, unfinished, longest)
	}
}

// testUnfinishedWork: the gauges are refreshed at client-go's ticks, every
// 500ms from the queue's creation, and only then.
func testUnfinishedWork(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, nil, "gauges", rec)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a") // at 0
	step(c, 300*time.Millisecond)
	wantGauges(t, q, rec, "at 300ms", Gauges{})
	step(c, 200*time.Millisecond)
	wantGauges(t, q, rec, "at 500ms", Gauges{0.5, 0.5, 1, 1})
	step(c, 250*time.Millisecond)
	wantGauges(t, q, rec, "at 750ms", Gauges{0.5, 0.5, 1, 1})
	wantGet(t, q, "b") // at 750ms
	step(c, 250*time.Millisecond)
	wantGauges(t, q, rec, "at 1s", Gauges{1.25, 1, 2, 2})
	q.Done("a")
	q.Done("b")
	step(c, 400*time.Millisecond)
	wantGauges(t, q, rec, "at 1.4s, after the Dones", Gauges{1.25, 1, 2, 2})
	step(c, 100*time.Millisecond)
	wantGauges(t, q, rec, "at 1.5s, nothing processing", Gauges{0, 0, 3, 3})
	step(c, 500*time.Millisecond)
	wantGaugeValues(t, q, rec, "at 2s, idle", 0, 0)
	q.Add("c")
	wantGet(t, q, "c") // at 2s
	step(c, 400*time.Millisecond)
	wantGaugeValues(t, q, rec, "at 2.4s", 0, 0)
	step(c, 100*time.Millisecond)
	wantGaugeValues(t, q, rec, "at 2.5s", 0.5, 0.5)
	q.Done("c")
}

// testUnfinishedWorkLateClaim: the clock steps past a tick right after a
// Get, before the adapter's owner has heard of the hand-out (a lane claim).
// client-go's ticker fires at the step and finds the item processing since
// the Get; the adapter's gauges must show the same.
func testUnfinishedWorkLateClaim(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, nil, "late", rec)
	q.Add("a")
	q.Len()
	if got, _ := q.Get(); got != "a" { // at 0
		t.Fatalf("Get() = %q; want a", got)
	}
	c.Step(600 * time.Millisecond)
	wantGauges(t, q, rec, "at 600ms, stepped right after the Get", Gauges{0.6, 0.6, 1, 1})
	step(c, 400*time.Millisecond)
	wantGauges(t, q, rec, "at 1s", Gauges{1, 1, 2, 2})
	q.Done("a")
	step(c, 500*time.Millisecond)
	wantGaugeValues(t, q, rec, "at 1.5s, idle", 0, 0)
	q.Add("b")
	step(c, 400*time.Millisecond)
	if got, _ := q.Get(); got != "b" { // at 1.9s
		t.Fatalf("Get() = %q; want b", got)
	}
	c.Step(200 * time.Millisecond)
	wantGaugeValues(t, q, rec, "at 2.1s, stepped right after the Get", 0.2, 0.2)
	step(c, 400*time.Millisecond)
	wantGaugeValues(t, q, rec, "at 2.5s", 0.6, 0.6)
	q.Done("b")
}

// testMetricsStampedAtCall: client-go reads the clock inside Add and Done,
// so a FakeClock step made right after them, before any Len, does not
// change the latency or work duration recorded.
func testMetricsStampedAtCall(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, nil, "stamped", rec)
	q.Add("a") // at 0
	c.Step(time.Second)
	if got, _ := q.Get(); got != "a" { // at 1s
		t.Fatalf("Get() = %q; want a", got)
	}
	q.Done("a") // at 1s
	c.Step(time.Second)
	wantMetrics(t, q, rec, "Add, step 1s, Get, Done, step 1s", Snapshot{Adds: 1, Latency: []float64{1}, Work: []float64{0}})
}
