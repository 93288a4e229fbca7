package compattest

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

// Run runs every case against impl, each as a subtest.
func Run(t *testing.T, impl Impl) {
	cases := []struct {
		name string
		run  func(t *testing.T, impl Impl)
	}{
		{"FIFO", testFIFO},
		{"Dedup", testDedup},
		{"ReAddWhileProcessing", testReAddWhileProcessing},
		{"ShutDownDrainsQueued", testShutDown},
		{"ShutDownWithDrainWaitsForDone", testShutDownWithDrain},
		{"DelaysOnFakeClock", testDelays},
		{"DelayShortenedNeverLengthened", testDelayShortened},
		{"RateLimitedRequeues", testRateLimited},
		{"LimiterSequences", testLimiterSequences},
		{"Metrics", testMetrics},
		{"DiffDoneOfIdleItem", testDiffDoneOfIdle},
		{"DiffAddSupersedesDelay", testDiffAddSupersedesDelay},
		{"DiffAddAfterOfReadyItem", testDiffAddAfterOfReady},
		{"DiffExponentialOverflow", testDiffOverflow},
		{"ReAddedItemAtShutDown", testReAddedAtShutDown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, impl) })
	}
}

// newQueue returns a queue on a FakeClock, shut down at the end of the test.
func newQueue(t *testing.T, impl Impl, l Limiter, name string, p workqueue.MetricsProvider) (workqueue.TypedRateLimitingInterface[string], *clocktesting.FakeClock) {
	t.Helper()
	if l == nil {
		l = impl.Exponential(time.Millisecond, time.Second)
	}
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := impl.NewQueue(l, workqueue.TypedRateLimitingQueueConfig[string]{Name: name, MetricsProvider: p, Clock: c})
	t.Cleanup(q.ShutDown)
	if p != nil && !impl.Fixed {
		// client-go creates the ticker of its unfinished-work gauges in a
		// goroutine; a Step before that would not reach it.
		eventually(t, "client-go's tickers", func() bool { return c.Waiters() >= 2 })
	}
	return q, c
}

// eventually polls cond until it holds, for client-go's delaying queue,
// which moves due items in its own goroutine after a FakeClock step. It
// fails the test after 5s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 5000 {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%s: condition not reached in 5s", what)
}

func wantLen(t *testing.T, q workqueue.TypedInterface[string], want int) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("Len() = %d; want %d", got, want)
	}
}

// waitLen polls until Len() == want. If the wait is long, it steps c by a
// nanosecond now and then: a queue that reads the clock and then arms a
// timer relative to that reading (client-go's and actorq's both do) can
// miss a Step that lands in between, and the timer then waits for the
// next Step.
func waitLen(t *testing.T, q workqueue.TypedInterface[string], c *clocktesting.FakeClock, want int) {
	t.Helper()
	n := 0
	eventually(t, fmt.Sprintf("Len() == %d", want), func() bool {
		if n++; n%100 == 0 {
			c.Step(time.Nanosecond)
		}
		return q.Len() == want
	})
}

func wantGet(t *testing.T, q workqueue.TypedInterface[string], want string) {
	t.Helper()
	got, shutdown := q.Get()
	if shutdown || got != want {
		t.Fatalf("Get() = %q, %v; want %q, false", got, shutdown, want)
	}
}

func wantShutdown(t *testing.T, q workqueue.TypedInterface[string]) {
	t.Helper()
	if got, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get() = %q, false; want shutdown", got)
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

func testShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false after ShutDown; want true")
	}
	q.Add("c") // ignored
	q.AddAfter("d", 0)
	q.ShutDown() // twice is fine
	wantLen(t, q, 1)
	wantGet(t, q, "b")
	wantShutdown(t, q)
	wantShutdown(t, q)
	q.Done("a")
	q.Done("b")
}

func testShutDownWithDrain(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		q.ShutDownWithDrain()
	}()
	eventually(t, "ShuttingDown()", q.ShuttingDown)
	q.Add("c") // ignored while draining
	wantGet(t, q, "b")
	select {
	case <-returned:
		t.Fatal("ShutDownWithDrain returned with items processing")
	default:
	}
	q.Done("a")
	q.Done("b")
	<-returned
	wantShutdown(t, q)
}

func testDelays(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("a", 3*time.Second)
	q.AddAfter("b", time.Second)
	q.AddAfter("c", 2*time.Second)
	q.AddAfter("now", 0)
	wantLen(t, q, 1)
	wantGet(t, q, "now")
	c.Step(time.Second - time.Nanosecond)
	wantLen(t, q, 0)
	c.Step(time.Nanosecond)
	waitLen(t, q, c, 1)
	wantGet(t, q, "b")
	c.Step(2 * time.Second) // a and c both due: deadline order
	waitLen(t, q, c, 2)
	wantGet(t, q, "c")
	wantGet(t, q, "a")
}

func testDelayShortened(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("a", 2*time.Second)
	q.AddAfter("a", time.Second) // shortens
	q.AddAfter("b", time.Second)
	q.AddAfter("b", 2*time.Second) // does not lengthen
	c.Step(time.Second)
	waitLen(t, q, c, 2)
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	q.Done("a")
	q.Done("b")
	c.Step(time.Second) // no second copy of either
	q.Add("end")
	waitLen(t, q, c, 1)
	wantGet(t, q, "end")
}

func testRateLimited(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, impl.Exponential(time.Millisecond, time.Second), "", nil)
	q.AddRateLimited("a") // 1ms
	wantLen(t, q, 0)
	c.Step(time.Millisecond)
	waitLen(t, q, c, 1)
	wantGet(t, q, "a")
	q.AddRateLimited("a") // 2ms, while processing
	q.Done("a")
	c.Step(time.Millisecond)
	wantLen(t, q, 0)
	c.Step(time.Millisecond)
	waitLen(t, q, c, 1)
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

func testMetrics(t *testing.T, impl Impl) {
	rec := &Recorder{}
	q, c := newQueue(t, impl, impl.Exponential(time.Second, time.Second), "metrics", rec)
	q.Add("a")
	q.Add("b")
	q.Add("a") // duplicate: not an add
	check := func(what string, want Snapshot, cmpWork bool) {
		t.Helper()
		// actorq records metrics in the queue's goroutine; a Len round
		// trip makes sure it has applied the caller's calls.
		q.Len()
		got := rec.Snapshot()
		got.Unfinished, got.Longest = 0, 0
		if !cmpWork {
			got.Work = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: metrics = %+v; want %+v", what, got, want)
		}
	}
	check("after adds", Snapshot{Depth: 2, Adds: 2}, true)
	c.Step(time.Second)
	wantGet(t, q, "a")
	check("after Get", Snapshot{Depth: 1, Adds: 2, Latency: []float64{1}}, true)
	q.Len() // the queue has settled after the Get
	c.Step(2 * time.Second)
	eventually(t, "unfinished work", func() bool {
		s := rec.Snapshot()
		return s.Unfinished == 2 && s.Longest == 2
	})
	q.Done("a")
	check("after Done", Snapshot{Depth: 1, Adds: 2, Latency: []float64{1}, Work: []float64{2}}, true)
	q.AddAfter("c", time.Second)
	q.AddRateLimited("d")
	q.AddAfter("e", 0)
	check("after retries", Snapshot{Depth: 2, Adds: 3, Retries: 3, Latency: []float64{1}, Work: []float64{2}}, true)
	c.Step(time.Second)
	eventually(t, "delayed adds", func() bool { return rec.Snapshot().Adds == 5 })
	wantGet(t, q, "b")
	check("after delays", Snapshot{Depth: 3, Adds: 5, Retries: 3, Latency: []float64{1, 4}, Work: []float64{2}}, true)
}

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

func testDiffAddSupersedesDelay(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.AddAfter("a", time.Second)
	q.Add("a")
	wantGet(t, q, "a")
	q.Done("a")
	c.Step(time.Second)
	if impl.Fixed {
		q.Add("end")
		wantLen(t, q, 1) // the delayed copy was dropped
		wantGet(t, q, "end")
		return
	}
	waitLen(t, q, c, 1) // client-go processes a twice (kubernetes#126027)
	wantGet(t, q, "a")
}

func testDiffAddAfterOfReady(t *testing.T, impl Impl) {
	q, c := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.AddAfter("a", time.Second) // a is already ready
	wantGet(t, q, "a")
	q.Done("a")
	c.Step(time.Second)
	if impl.Fixed {
		q.Add("end")
		wantLen(t, q, 1)
		wantGet(t, q, "end")
		return
	}
	waitLen(t, q, c, 1)
	wantGet(t, q, "a")
}

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

func testReAddedAtShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	wantGet(t, q, "a")
	q.Add("a") // to run again after Done
	q.ShutDown()
	wantShutdown(t, q) // nothing ready: a is processing
	q.Done("a")
	wantLen(t, q, 1)
	wantGet(t, q, "a") // handed out again after its Done
	q.Done("a")
	wantShutdown(t, q)
}

// Concurrency runs producers and consumers in real time and checks that no
// item is handed to two consumers at once and every added item is
// processed. It is a stress test for -race.
func Concurrency(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	const producers, consumers, items = 4, 4, 500
	var mu sync.Mutex
	busy := map[string]bool{}
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range consumers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				if busy[item] {
					t.Errorf("item %q handed to two consumers", item)
				}
				busy[item], seen[item] = true, true
				mu.Unlock()
				mu.Lock()
				busy[item] = false
				mu.Unlock()
				q.Done(item)
			}
		})
	}
	var pg sync.WaitGroup
	for p := range producers {
		pg.Go(func() {
			for i := range items {
				q.Add(string(rune('a'+p)) + string(rune('0'+i%50)))
			}
		})
	}
	pg.Wait()
	eventually(t, "queue empty", func() bool { return q.Len() == 0 })
	q.ShutDownWithDrain()
	wg.Wait()
	if len(seen) != producers*50 {
		t.Fatalf("processed %d distinct items; want %d", len(seen), producers*50)
	}
}
