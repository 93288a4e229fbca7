package compattest

import (
	"math"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

// A testCase is one behaviour, run against one Impl.
type testCase struct {
	name string
	run  func(t *testing.T, impl Impl)
	// outside runs the case outside a synctest bubble: it has subtests,
	// which a bubble does not allow, and no queue.
	outside bool
}

// cases are the cases Run runs, in order. Each Diff... case names its
// difference's number on the list in actor's package doc, or the rule of ARCHITECTURE.md it
// follows where client-go differs (DiffConcurrentDrains).
var cases = []testCase{
	{name: "FIFO", run: testFIFO},
	{name: "Dedup", run: testDedup},
	{name: "ReAddWhileProcessing", run: testReAddWhileProcessing},
	{name: "ShutDownDrainsQueued", run: testShutDown},
	{name: "ShutDownWithDrainWaitsForDone", run: testShutDownWithDrain},
	{name: "ShutDownWithReadyProcessingAndDirty", run: testShutDownEverywhere},
	{name: "DrainingWorkerGets", run: testDrainingWorkerGets},
	{name: "DrainWithDirtyItem", run: testDrainWithDirtyItem},
	{name: "ShutDownEndsDrain", run: testShutDownEndsDrain},
	{name: "DrainAfterShutDownWaits", run: testDrainAfterShutDown},
	{name: "DrainWithNothingProcessing", run: testDrainWithNothingProcessing},
	{name: "SecondShutDownAndLateDrain", run: testSecondShutDownAndLateDrain},
	{name: "BlockedGetsAtShutDown", run: testBlockedGetsAtShutDown},
	{name: "DirtyAcrossShutDown", run: testDirtyAcrossShutDown},
	{name: "DirtyAcrossDrain", run: testDirtyAcrossDrain},
	{name: "ReAddedItemAtShutDown", run: testReAddedAtShutDown},
	{name: "AddRateLimitedAfterShutDown", run: testAddRateLimitedAfterShutDown},
	{name: "DelaysOnFakeClock", run: testDelays},
	{name: "DelayShortenedNeverLengthened", run: testDelayShortened},
	{name: "HugeDelays", run: testHugeDelays},
	{name: "RateLimitedRequeues", run: testRateLimited},
	{name: "LimiterSequences", run: testLimiterSequences, outside: true},
	{name: "StorageCalls", run: testStorageCalls},
	{name: "StorageCallOrder", run: testStorageCallOrder},
	{name: "StorageCallsAcrossShutDown", run: testStorageAcrossShutDown},
	{name: "Metrics", run: testMetrics},
	{name: "MetricsAfterLen", run: testMetricsAfterLen},
	{name: "MetricsAcrossShutDown", run: testMetricsAcrossShutDown},
	{name: "MetricsStampedAtCall", run: testMetricsStampedAtCall},
	{name: "UnfinishedWorkGauges", run: testUnfinishedWork},
	{name: "UnfinishedWorkLateClaim", run: testUnfinishedWorkLateClaim},
	{name: "DiffDoneOfIdleItem", run: testDiffDoneOfIdle},
	{name: "DiffAddSupersedesDelay", run: testDiffAddSupersedesDelay},
	{name: "DiffAddAfterOfReadyItem", run: testDiffAddAfterOfReady},
	{name: "DiffExponentialOverflow", run: testDiffOverflow},
	{name: "DiffNilLimiter", run: testDiffNilLimiter},
	{name: "DiffConcurrentDrains", run: testDiffConcurrentDrains},
}

// Run runs every case against impl, each as a subtest, inside a
// testing/synctest bubble unless the case says otherwise.
func Run(t *testing.T, impl Impl) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.outside {
				c.run(t, impl)
				return
			}
			synctest.Test(t, func(t *testing.T) { c.run(t, impl) })
		})
	}
}

// start is the FakeClock's reading when a queue is made.
var start = time.Unix(1_000_000, 0)

// newQueue returns a queue on a FakeClock, shut down at the end of the
// test. With a metrics provider, it waits (in the bubble) until client-go's
// unfinished-work ticker, which client-go creates in a goroutine, exists,
// so that it ticks every 500ms from start, as the adapter's refreshes do.
func newQueue(t *testing.T, impl Impl, l Limiter, name string, p workqueue.MetricsProvider) (workqueue.TypedRateLimitingInterface[string], *clocktesting.FakeClock) {
	t.Helper()
	if l == nil {
		l = impl.Exponential(time.Millisecond, time.Second)
	}
	c := clocktesting.NewFakeClock(start)
	q := impl.NewQueue(l, workqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: p, Clock: c})
	t.Cleanup(q.ShutDown)
	if p != nil {
		synctest.Wait()
	}
	return q, c
}

// step advances c by d once every goroutine of the bubble is blocked (so
// that no queue is between reading the clock and arming a timer relative
// to that reading, which would miss the step), and returns once they are
// all blocked again: client-go's delay loop and metrics ticker have
// caught up with the step.
func step(c *clocktesting.FakeClock, d time.Duration) {
	synctest.Wait()
	c.Step(d)
	synctest.Wait()
}

func wantLen(t *testing.T, q workqueue.TypedInterface[string], want int) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("Len() = %d; want %d", got, want)
	}
}

// getNow calls q.Get and fails the test if Get blocks: it runs Get in a
// goroutine and looks for its answer once every goroutine of the bubble
// is durably blocked. Every Get of the cases is one that client-go answers
// at once (an item is ready, or the queue is shutting down and none is).
func getNow(t *testing.T, q workqueue.TypedInterface[string]) (string, bool) {
	t.Helper()
	type result struct {
		item     string
		shutdown bool
	}
	ch := make(chan result, 1)
	go func() {
		item, shutdown := q.Get()
		ch <- result{item, shutdown}
	}()
	synctest.Wait()
	select {
	case r := <-ch:
		return r.item, r.shutdown
	default:
		t.Fatal("Get() blocks; want it to return at once")
		return "", false
	}
}

func wantGet(t *testing.T, q workqueue.TypedInterface[string], want string) {
	t.Helper()
	if got, shutdown := getNow(t, q); shutdown || got != want {
		t.Fatalf("Get() = %q, %v; want %q, false", got, shutdown, want)
	}
}

// wantShutdown checks that Get returns shutdown at once.
func wantShutdown(t *testing.T, q workqueue.TypedInterface[string]) {
	t.Helper()
	if got, shutdown := getNow(t, q); !shutdown {
		t.Fatalf("Get() = %q, false; want shutdown", got)
	}
}

// startDrain calls q.ShutDownWithDrain in a goroutine and returns a
// channel closed when it returns, once the goroutine has run as far as it
// can.
func startDrain(t *testing.T, q workqueue.TypedInterface[string]) <-chan struct{} {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		q.ShutDownWithDrain()
	}()
	synctest.Wait()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false during ShutDownWithDrain; want true")
	}
	return returned
}

// wantBlocked checks that the call that closes returned has not returned,
// though every other goroutine of the bubble is blocked.
func wantBlocked(t *testing.T, returned <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-returned:
		t.Fatalf("%s has returned; want it blocked", what)
	default:
	}
}

// wantReturned checks that the call that closes returned has returned once
// every other goroutine of the bubble is blocked.
func wantReturned(t *testing.T, returned <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-returned:
	default:
		t.Fatalf("%s is blocked; want it returned", what)
	}
}

func testFIFO(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	for _, s := range []string{"a", "b", "c"} {
		q.Add(s)
	}
	wantLen(t, q, 3)
	for _, s := range []string{"a", "b", "c"} {
		wantGet(t, q, s)
		q.Done(s)
	}
	wantLen(t, q, 0)
}

func testDedup(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	q.Add("a")
	wantLen(t, q, 2)
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	wantLen(t, q, 0)
}

func testReAddWhileProcessing(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	wantGet(t, q, "a")
	q.Add("a") // dirty: not handed to a second worker
	q.Add("a")
	wantLen(t, q, 0)
	q.Add("b")
	wantGet(t, q, "b")
	q.Done("a")
	wantLen(t, q, 1)
	wantGet(t, q, "a")
	q.Done("a")
	q.Done("b")
	wantLen(t, q, 0)
}

func testDelays(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("a", 3*time.Second)
	q.AddAfter("b", time.Second)
	q.AddAfter("c", 2*time.Second)
	q.AddAfter("now", 0)
	wantLen(t, q, 1)
	wantGet(t, q, "now")
	step(c, time.Second-time.Nanosecond)
	wantLen(t, q, 0)
	step(c, time.Nanosecond)
	wantLen(t, q, 1)
	wantGet(t, q, "b")
	step(c, 2*time.Second) // a and c both due: deadline order
	wantLen(t, q, 2)
	wantGet(t, q, "c")
	wantGet(t, q, "a")
}

func testDelayShortened(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("a", 2*time.Second)
	q.AddAfter("a", time.Second) // shortens
	q.AddAfter("b", time.Second)
	q.AddAfter("b", 2*time.Second) // does not lengthen
	step(c, time.Second)
	wantLen(t, q, 2)
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	q.Done("a")
	q.Done("b")
	step(c, time.Second) // no second copy of either
	q.Add("end")
	wantLen(t, q, 1)
	wantGet(t, q, "end")
}

// testHugeDelays: a deadline beyond the clock's range saturates, in
// client-go (time.Time.Add saturates) as in the adapter: the item is not
// ready after 1000 hours.
func testHugeDelays(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("max", math.MaxInt64)
	q.AddAfter("200y", 200*365*24*time.Hour)
	q.AddAfter("1h", time.Hour)
	step(c, 1000*time.Hour)
	wantLen(t, q, 1)
	wantGet(t, q, "1h")
	step(c, 1000*time.Hour)
	wantLen(t, q, 0)
	q.Add("end")
	wantLen(t, q, 1)
	wantGet(t, q, "end")
}

func testRateLimited(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, impl.Exponential(time.Millisecond, time.Second), "", nil)
	q.AddRateLimited("a") // 1ms
	wantLen(t, q, 0)
	step(c, time.Millisecond)
	wantLen(t, q, 1)
	wantGet(t, q, "a")
	q.AddRateLimited("a") // 2ms, while processing
	q.Done("a")
	step(c, time.Millisecond)
	wantLen(t, q, 0)
	step(c, time.Millisecond)
	wantLen(t, q, 1)
	wantGet(t, q, "a")
	if got := q.NumRequeues("a"); got != 2 {
		t.Fatalf("NumRequeues(a) = %d; want 2", got)
	}
	q.Forget("a")
	if got := q.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues(a) after Forget = %d; want 0", got)
	}
	q.Done("a")
}

// sequence calls When n times and returns the delays.
func sequence(l Limiter, item string, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = l.When(item)
	}
	return out
}

func testLimiterSequences(t *testing.T, impl Impl) {
	ms := time.Millisecond
	tests := []struct {
		name string
		l    Limiter
		n    int
		want []time.Duration
		reqs int
	}{
		{"Exponential", impl.Exponential(5*ms, 100*ms), 7, []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 100 * ms, 100 * ms}, 7},
		{"ExponentialMaxBelowBase", impl.Exponential(time.Second, ms), 2, []time.Duration{ms, ms}, 2},
		{"ItemBased", impl.ItemBased(), 4, []time.Duration{ms, 2 * ms, 4 * ms, 8 * ms}, 4},
		{"FastSlow", impl.FastSlow(5*ms, 10*time.Second, 3), 5, []time.Duration{5 * ms, 5 * ms, 5 * ms, 10 * time.Second, 10 * time.Second}, 5},
		{"MaxOf", impl.MaxOf(impl.Exponential(ms, time.Hour), impl.FastSlow(3*ms, 5*ms, 2)), 5, []time.Duration{3 * ms, 3 * ms, 5 * ms, 8 * ms, 16 * ms}, 5},
		{"WithMaxWait", impl.WithMaxWait(impl.Exponential(4*ms, time.Hour), 10*ms), 4, []time.Duration{4 * ms, 8 * ms, 10 * ms, 10 * ms}, 4},
		{"Controller", impl.Controller(), 4, []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms}, 4},
		{"ExponentialLong", impl.Exponential(5*ms, 1000*time.Second), 20, nil, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sequence(tt.l, "x", tt.n)
			want := tt.want
			if want == nil { // 5ms * 2^n capped at 1000s, client-go's default
				for i := range tt.n {
					want = append(want, min(5*ms<<i, 1000*time.Second))
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("When(x) x%d = %v; want %v", tt.n, got, want)
			}
			if got := tt.l.NumRequeues("x"); got != tt.reqs {
				t.Fatalf("NumRequeues(x) = %d; want %d", got, tt.reqs)
			}
			if got := tt.l.NumRequeues("y"); got != 0 {
				t.Fatalf("NumRequeues(y) = %d; want 0", got)
			}
			tt.l.Forget("x")
			if got := tt.l.NumRequeues("x"); got != 0 {
				t.Fatalf("NumRequeues(x) after Forget = %d; want 0", got)
			}
			if got := tt.l.When("x"); got != want[0] {
				t.Fatalf("When(x) after Forget = %v; want %v", got, want[0])
			}
		})
	}
}

// testDiffDoneOfIdle: difference 1, Done of an item that is not being
// processed does nothing.
func testDiffDoneOfIdle(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Done("a") // a is waiting, not processing
	if impl.Fixed {
		wantLen(t, q, 1) // Done of an idle item does nothing
		wantGet(t, q, "a")
		q.Done("a")
		return
	}
	wantLen(t, q, 2) // client-go queues a duplicate (kubernetes#79934)
	wantGet(t, q, "a")
	wantGet(t, q, "a") // handed out twice while processing
}

// testDiffAddSupersedesDelay: difference 2, an Add supersedes a pending
// delay of the same item.
func testDiffAddSupersedesDelay(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("a", time.Second)
	q.Add("a")
	wantGet(t, q, "a")
	q.Done("a")
	step(c, time.Second)
	if impl.Fixed {
		q.Add("end")
		wantLen(t, q, 1) // the delayed copy was dropped
		wantGet(t, q, "end")
		return
	}
	wantLen(t, q, 1) // client-go processes a twice (kubernetes#126027)
	wantGet(t, q, "a")
}

// testDiffAddAfterOfReady: difference 2 again, by the same single
// de-duplication domain: an AddAfter of an item already ready does nothing.
func testDiffAddAfterOfReady(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.AddAfter("a", time.Second) // a is already ready
	wantGet(t, q, "a")
	q.Done("a")
	step(c, time.Second)
	if impl.Fixed {
		q.Add("end")
		wantLen(t, q, 1)
		wantGet(t, q, "end")
		return
	}
	wantLen(t, q, 1)
	wantGet(t, q, "a")
}

// testDiffOverflow: difference 5, the exponential limiter never overflows
// into a negative delay.
func testDiffOverflow(t *testing.T, impl Impl) {
	l := impl.Exponential(time.Nanosecond, math.MaxInt64)
	got := sequence(l, "x", 65)
	for i, d := range got[:63] {
		if want := time.Duration(1) << i; d != want {
			t.Fatalf("When(x) #%d = %v; want %v", i+1, d, want)
		}
	}
	want := time.Duration(math.MaxInt64)
	if !impl.Fixed {
		want = math.MinInt64 // float64 2^63 converts to MinInt64 on amd64 and arm64
	}
	if got[63] != want {
		t.Fatalf("When(x) #64 = %v; want %v", got[63], want)
	}
}

// testDiffNilLimiter: difference 6, a nil rate limiter means the default
// controller limiter; client-go's AddRateLimited panics on it.
func testDiffNilLimiter(t *testing.T, impl Impl) {
	c := clocktesting.NewFakeClock(start)
	q := impl.NewQueue(nil, workqueue.TypedRateLimitingQueueConfig[string]{Clock: c})
	t.Cleanup(q.ShutDown)
	if !impl.Fixed {
		defer func() {
			if recover() == nil {
				t.Fatal("AddRateLimited with a nil limiter did not panic; client-go's does")
			}
		}()
		q.AddRateLimited("a")
		return
	}
	q.AddRateLimited("a") // the default controller limiter: 5ms first
	if got := q.NumRequeues("a"); got != 1 {
		t.Fatalf("NumRequeues(a) = %d; want 1", got)
	}
	step(c, 5*time.Millisecond-time.Nanosecond)
	wantLen(t, q, 0)
	step(c, time.Nanosecond)
	wantLen(t, q, 1)
	wantGet(t, q, "a")
	q.Done("a")
}
