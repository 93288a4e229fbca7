package actor_test

import (
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// The metric kinds a recorder knows, in the order New asks for them.
const (
	kDepth      = "depth"
	kAdds       = "adds"
	kLatency    = "latency"
	kWork       = "work"
	kUnfinished = "unfinished"
	kLongest    = "longest"
	kRetries    = "retries"
	kDelayed    = "delayed"
)

var clientGoKinds = []string{kDepth, kAdds, kLatency, kWork, kUnfinished, kLongest, kRetries}

// sample is one Set of a gauge: when (since the recorder was made, on the
// bubble's fake clock) and to what.
type sample struct {
	at time.Duration
	v  float64
}

// recorder is a MetricsProvider that records every call of every metric it
// made, for exact checks. The owner goroutine writes while the test reads,
// so it locks.
type recorder struct {
	start time.Time

	mu    sync.Mutex
	made  []string             // kind/name of each New call, in order
	value map[string]float64   // running value of gauges and counters
	obs   map[string][]float64 // every Observe, per kind
	sets  map[string][]sample  // every Set, per kind
	calls int                  // metric calls of any kind
}

func newRecorder() *recorder {
	return &recorder{
		start: time.Now(),
		value: map[string]float64{},
		obs:   map[string][]float64{},
		sets:  map[string][]sample{},
	}
}

func (r *recorder) metric(kind, name string) recMetric {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.made = append(r.made, kind+"/"+name)
	return recMetric{r, kind}
}

func (r *recorder) NewDepthMetric(name string) actor.GaugeMetric  { return r.metric(kDepth, name) }
func (r *recorder) NewAddsMetric(name string) actor.CounterMetric { return r.metric(kAdds, name) }
func (r *recorder) NewLatencyMetric(name string) actor.HistogramMetric {
	return r.metric(kLatency, name)
}
func (r *recorder) NewWorkDurationMetric(name string) actor.HistogramMetric {
	return r.metric(kWork, name)
}
func (r *recorder) NewUnfinishedWorkSecondsMetric(name string) actor.SettableGaugeMetric {
	return r.metric(kUnfinished, name)
}
func (r *recorder) NewLongestRunningProcessorSecondsMetric(name string) actor.SettableGaugeMetric {
	return r.metric(kLongest, name)
}
func (r *recorder) NewRetriesMetric(name string) actor.CounterMetric { return r.metric(kRetries, name) }

// delayedRecorder also records the delayed-items gauge.
type delayedRecorder struct{ *recorder }

func (r delayedRecorder) NewDelayedMetric(name string) actor.SettableGaugeMetric {
	return r.metric(kDelayed, name)
}

// recMetric is every kind of metric at once; kind says which it is.
type recMetric struct {
	r    *recorder
	kind string
}

func (m recMetric) add(d float64) {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	m.r.calls++
	m.r.value[m.kind] += d
}

func (m recMetric) Inc() { m.add(1) }
func (m recMetric) Dec() { m.add(-1) }

func (m recMetric) Set(v float64) {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	m.r.calls++
	m.r.value[m.kind] = v
	m.r.sets[m.kind] = append(m.r.sets[m.kind], sample{time.Since(m.r.start), v})
}

func (m recMetric) Observe(v float64) {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	m.r.calls++
	m.r.obs[m.kind] = append(m.r.obs[m.kind], v)
}

func (r *recorder) valueOf(kind string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.value[kind]
}

// observed returns the values a histogram observed, sorted: a histogram
// keeps no order, and the owner learns of a lane's hand-outs in batches,
// not always in the order they happened.
func (r *recorder) observed(kind string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.obs[kind]))
}

func (r *recorder) setsOf(kind string) []sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sets[kind])
}

// settled returns the value of each gauge's sets at each instant: the
// last set in it, which a scrape after the instant sees. Events stamped at
// one instant of a fake clock may reach the owner before or after its
// refresh at that instant; the values after the instant are the same.
func (r *recorder) settled(kind string) []sample {
	var out []sample
	for _, s := range r.setsOf(kind) {
		if n := len(out); n > 0 && out[n-1].at == s.at {
			out = out[:n-1]
		}
		out = append(out, s)
	}
	return out
}

func (r *recorder) madeList() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.made)
}

func (r *recorder) callCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// settle waits until the owner goroutine has applied every call made so
// far, including the hand-out of an item just received: Len waits for the
// owner's answer, and the owner answers requests in order.
func settle[T comparable](q *actor.Queue[T]) { q.Len() }

func mustGet[T comparable](t *testing.T, q *actor.Queue[T], want T) {
	t.Helper()
	if got, shutdown := q.Get(); shutdown || got != want {
		t.Fatalf("Get() = %v, %v; want %v, false", got, shutdown, want)
	}
}

func namedQueue(p actor.MetricsProvider) *actor.Queue[string] {
	return actor.New(actor.Config[string]{Name: "q", MetricsProvider: p})
}

// TestMetricsDepthAndAdds follows client-go's update points: an add that
// makes an item wait counts once and raises the depth, a duplicate does
// neither, a re-add while processing counts and raises the depth, and Done
// of such an item makes it ready without counting again.
func TestMetricsDepthAndAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := namedQueue(r)
		defer q.ShutDown()
		steps := []struct {
			name        string
			do          func()
			depth, adds float64
		}{
			{"Add(a)", func() { q.Add("a") }, 1, 1},
			{"Add(a) again", func() { q.Add("a") }, 1, 1},
			{"Add(b)", func() { q.Add("b") }, 2, 2},
			{"Get() a", func() { mustGet(t, q, "a") }, 1, 2},
			{"Add(a) while processing", func() { q.Add("a") }, 2, 3},
			{"Add(a) again while processing", func() { q.Add("a") }, 2, 3},
			{"Done(a), a ready again", func() { q.Done("a") }, 2, 3},
			{"Get() b", func() { mustGet(t, q, "b") }, 1, 3},
			{"Get() a", func() { mustGet(t, q, "a") }, 0, 3},
			{"Done(b)", func() { q.Done("b") }, 0, 3},
			{"Done(a)", func() { q.Done("a") }, 0, 3},
			{"Done(a) not processing", func() { q.Done("a") }, 0, 3},
			{"Add(a) after Done", func() { q.Add("a") }, 1, 4},
		}
		for _, s := range steps {
			s.do()
			settle(q)
			if got := r.valueOf(kDepth); got != s.depth {
				t.Errorf("after %s: depth = %v; want %v", s.name, got, s.depth)
			}
			if got := r.valueOf(kAdds); got != s.adds {
				t.Errorf("after %s: adds = %v; want %v", s.name, got, s.adds)
			}
		}
	})
}

// TestMetricsLatencyAndWorkDuration checks the observed seconds on the
// bubble's fake clock: latency from the moment an item became ready (for a
// delayed item its deadline, for a re-add while processing the re-add) to
// Get; work duration from Get to Done.
func TestMetricsLatencyAndWorkDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := namedQueue(r)
		defer q.ShutDown()
		sleep := func(s float64) { time.Sleep(time.Duration(s * float64(time.Second))) }

		q.Add("a") // t=0
		sleep(2)
		mustGet(t, q, "a")           // t=2: latency 2
		q.AddAfter("b", time.Second) // ready at t=3
		sleep(3)
		mustGet(t, q, "b") // t=5: latency 2, from the deadline, not the call
		q.Add("a")         // t=5: a processing, runs again after Done
		sleep(1)
		q.Done("a") // t=6: work 4
		sleep(0.5)
		mustGet(t, q, "a")           // t=6.5: latency 1.5, from the re-add
		q.AddAfter("b", time.Second) // b processing: ready again at t=7.5
		sleep(1.5)
		q.Done("b") // t=8: work 3
		sleep(0.25)
		mustGet(t, q, "b") // t=8.25: latency 0.75, from the deadline
		sleep(0.75)
		q.Done("a")    // t=9: work 2.5
		q.Done("b")    // t=9: work 0.75
		q.Done("b")    // not processing: nothing
		q.Done("none") // unknown: nothing
		settle(q)

		if got, want := r.observed(kLatency), []float64{0.75, 1.5, 2, 2}; !slices.Equal(got, want) {
			t.Errorf("latency observations = %v; want %v", got, want)
		}
		if got, want := r.observed(kWork), []float64{0.75, 2.5, 3, 4}; !slices.Equal(got, want) {
			t.Errorf("work duration observations = %v; want %v", got, want)
		}
	})
}

// TestMetricsHandOutDatedByItsEvent hands an item to a waiting Get at the
// end of a round whose last request is a Len, which dates nothing: the
// hand-out takes the instant of the round's add, not that of the Len (an
// owner that dated it as the Len saw the epoch observed a latency from
// the epoch and a work time from it).
func TestMetricsHandOutDatedByItsEvent(t *testing.T) {
	// One P: the Add and the Len below land in one inbox batch, since the
	// caller runs on until Len blocks.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := namedQueue(r)
		defer q.ShutDown()
		time.Sleep(10 * time.Second)
		got := make(chan string)
		go func() { item, _ := q.Get(); got <- item }()
		synctest.Wait() // the Get waits in the owner
		q.Add("a")      // t=10
		q.Len()         // the round's last request
		item := <-got
		time.Sleep(time.Second)
		q.Done(item) // t=11
		settle(q)
		if got, want := r.observed(kLatency), []float64{0}; !slices.Equal(got, want) {
			t.Errorf("latency observations = %v; want %v", got, want)
		}
		if got, want := r.observed(kWork), []float64{1}; !slices.Equal(got, want) {
			t.Errorf("work duration observations = %v; want %v", got, want)
		}
	})
}

// countingClock is the real clock (fake inside a bubble) that counts how
// often a timer is armed: each arming can wake the owner at most once.
type countingClock struct{ armed atomic.Int64 }

func (c *countingClock) Now() time.Time { return time.Now() }

func (c *countingClock) NewTimer(d time.Duration) actor.Timer {
	c.armed.Add(1)
	return countingTimer{time.NewTimer(d), c}
}

type countingTimer struct {
	t *time.Timer
	c *countingClock
}

func (t countingTimer) C() <-chan time.Time { return t.t.C }
func (t countingTimer) Stop() bool          { return t.t.Stop() }
func (t countingTimer) Reset(d time.Duration) bool {
	t.c.armed.Add(1)
	return t.t.Reset(d)
}

// TestMetricsUnfinishedWork checks the two "unfinished" gauges: refreshed
// at client-go's instants (every 500ms of the queue's clock, counted from
// the queue's creation) while anything is processing, set to 0 once after,
// and then left alone: an idle queue arms no timer.
func TestMetricsUnfinishedWork(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name             string
		run              func(q *actor.Queue[string])
		unfinished, long []sample
	}{
		{
			name: "two items",
			run: func(q *actor.Queue[string]) {
				q.Add("a")
				q.Add("b")
				q.Get() // t=0
				time.Sleep(ms(250))
				q.Get() // t=0.25
				time.Sleep(ms(950))
				q.Done("a") // t=1.2
				time.Sleep(ms(500))
				q.Done("b") // t=1.7
			},
			unfinished: []sample{{ms(500), 0.75}, {ms(1000), 1.75}, {ms(1500), 1.25}, {ms(2000), 0}},
			long:       []sample{{ms(500), 0.5}, {ms(1000), 1}, {ms(1500), 1.25}, {ms(2000), 0}},
		},
		{
			name: "done before the first refresh",
			run: func(q *actor.Queue[string]) {
				q.Add("a")
				q.Get() // t=0
				time.Sleep(ms(200))
				q.Done("a")
			},
			unfinished: []sample{{ms(500), 0}},
			long:       []sample{{ms(500), 0}},
		},
		{
			name: "processing starts late",
			run: func(q *actor.Queue[string]) {
				time.Sleep(ms(300))
				q.Add("a")
				q.Get() // t=0.3
				time.Sleep(ms(600))
				q.Done("a") // t=0.9
			},
			unfinished: []sample{{ms(500), 0.2}, {ms(1000), 0}},
			long:       []sample{{ms(500), 0.2}, {ms(1000), 0}},
		},
		{
			name:       "never processing",
			run:        func(q *actor.Queue[string]) { q.Add("a"); q.AddAfter("b", time.Second) },
			unfinished: nil,
			long:       nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				clock := new(countingClock)
				q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: r, Clock: clock})
				defer q.ShutDown()
				tt.run(q)
				time.Sleep(time.Minute)
				settle(q)
				if got := r.setsOf(kUnfinished); !slices.Equal(got, tt.unfinished) {
					t.Errorf("unfinished work sets = %v; want %v", got, tt.unfinished)
				}
				if got := r.setsOf(kLongest); !slices.Equal(got, tt.long) {
					t.Errorf("longest running sets = %v; want %v", got, tt.long)
				}
				// Idle now: nothing may wake the queue any more.
				armed, calls := clock.armed.Load(), r.callCount()
				time.Sleep(time.Hour)
				settle(q)
				if got := clock.armed.Load(); got != armed {
					t.Errorf("idle queue armed %d timers in an hour; want 0", got-armed)
				}
				if got := r.callCount(); got != calls {
					t.Errorf("idle queue made %d metric calls in an hour; want 0", got-calls)
				}
			})
		})
	}
}

// fixedLimiter delays every retry by d.
type fixedLimiter struct{ d time.Duration }

func (l fixedLimiter) When(string) time.Duration { return l.d }
func (fixedLimiter) Forget(string)               {}
func (fixedLimiter) NumRequeues(string) int      { return 0 }

// TestMetricsRetries: every AddAfter and AddRateLimited call counts as a
// retry, whatever it does to the queue, as in client-go; a delayed item
// counts as an add (and raises the depth) only when its deadline passes.
func TestMetricsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: r, RateLimiter: fixedLimiter{time.Second}})
		defer q.ShutDown()
		steps := []struct {
			name                 string
			do                   func()
			retries, adds, depth float64
		}{
			{"Add(a)", func() { q.Add("a") }, 0, 1, 1},
			{"AddAfter(b, 1s)", func() { q.AddAfter("b", time.Second) }, 1, 1, 1},
			{"AddAfter(c, 0)", func() { q.AddAfter("c", 0) }, 2, 2, 2},
			{"AddAfter(d, -1s)", func() { q.AddAfter("d", -time.Second) }, 3, 3, 3},
			{"AddRateLimited(e)", func() { q.AddRateLimited("e") }, 4, 3, 3},
			{"AddAfter(b, 2s), later than pending", func() { q.AddAfter("b", 2*time.Second) }, 5, 3, 3},
			{"AddAfter(a, 1s), a ready", func() { q.AddAfter("a", time.Second) }, 6, 3, 3},
			{"1s later, b and e due", func() { time.Sleep(time.Second) }, 6, 5, 5},
			{"1h later", func() { time.Sleep(time.Hour) }, 6, 5, 5},
		}
		for _, s := range steps {
			s.do()
			settle(q)
			for _, c := range []struct {
				kind string
				want float64
			}{{kRetries, s.retries}, {kAdds, s.adds}, {kDepth, s.depth}} {
				if got := r.valueOf(c.kind); got != c.want {
					t.Errorf("after %s: %s = %v; want %v", s.name, c.kind, got, c.want)
				}
			}
		}
	})
}

// TestMetricsDelayed checks the delayed-items gauge, which only a
// DelayedMetricsProvider gets: set on every change of the number of items
// waiting on a delay, and to 0 when the queue shuts down.
func TestMetricsDelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := namedQueue(delayedRecorder{r})
		steps := []struct {
			name string
			do   func()
			want float64
		}{
			{"AddAfter(a, 1s)", func() { q.AddAfter("a", time.Second) }, 1},
			{"AddAfter(b, 2s)", func() { q.AddAfter("b", 2*time.Second) }, 2},
			{"AddAfter(a, 500ms), shortened", func() { q.AddAfter("a", 500*time.Millisecond) }, 2},
			{"AddAfter(b, 3s), not lengthened", func() { q.AddAfter("b", 3*time.Second) }, 2},
			{"Add(b) supersedes the delay", func() { q.Add("b") }, 1},
			{"500ms later, a due", func() { time.Sleep(500 * time.Millisecond) }, 0},
			{"AddAfter(c, 1s)", func() { q.AddAfter("c", time.Second) }, 1},
			{"ShutDown drops it", q.ShutDown, 0},
		}
		for _, s := range steps {
			s.do()
			settle(q)
			if got := r.valueOf(kDelayed); got != s.want {
				t.Errorf("after %s: delayed = %v; want %v", s.name, got, s.want)
			}
		}
		var got []float64
		for _, s := range r.setsOf(kDelayed) {
			got = append(got, s.v)
		}
		if want := []float64{1, 2, 1, 0, 1, 0}; !slices.Equal(got, want) {
			t.Errorf("delayed sets = %v; want %v", got, want)
		}
	})
}

// TestMetricsMade checks which metrics New asks for, and that it asks in
// the caller's goroutine, before New returns.
func TestMetricsMade(t *testing.T) {
	var clientGo, withDelayed []string
	for _, k := range clientGoKinds {
		clientGo = append(clientGo, k+"/q")
	}
	withDelayed = append(slices.Clone(clientGo), kDelayed+"/q")
	tests := []struct {
		name string
		p    func(r *recorder) actor.MetricsProvider
		want []string
	}{
		{"MetricsProvider", func(r *recorder) actor.MetricsProvider { return r }, clientGo},
		{"DelayedMetricsProvider", func(r *recorder) actor.MetricsProvider { return delayedRecorder{r} }, withDelayed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				q := namedQueue(tt.p(r))
				defer q.ShutDown()
				if got := r.madeList(); !slices.Equal(got, tt.want) {
					t.Errorf("New made %v; want %v", got, tt.want)
				}
			})
		})
	}
}

// exercise runs every kind of operation on q, with time passing while
// items are processing and waiting on a delay.
func exercise(t *testing.T, q *actor.Queue[string]) {
	t.Helper()
	q.Add("a")
	q.Add("b")
	q.AddAfter("c", 500*time.Millisecond)
	q.AddRateLimited("d") // fixedLimiter: 1s
	mustGet(t, q, "a")
	q.Add("a")
	time.Sleep(2 * time.Second)
	q.Done("a")
	for _, want := range []string{"b", "c", "d", "a"} {
		mustGet(t, q, want)
	}
	time.Sleep(time.Second)
	for _, item := range []string{"a", "b", "c", "d"} {
		q.Done(item)
	}
	q.AddAfter("e", time.Hour)
	time.Sleep(time.Minute)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() = %d; want 0", got)
	}
}

// TestMetricsUnnamedQueue: a queue without a name records nothing, and
// does not even ask its provider for metrics.
func TestMetricsUnnamedQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := actor.New(actor.Config[string]{MetricsProvider: delayedRecorder{r}, RateLimiter: fixedLimiter{time.Second}})
		exercise(t, q)
		q.ShutDown()
		if got := r.madeList(); len(got) != 0 {
			t.Errorf("unnamed queue made metrics %v; want none", got)
		}
		if got := r.callCount(); got != 0 {
			t.Errorf("unnamed queue made %d metric calls; want 0", got)
		}
	})
}

// panicMetric panics in every method.
type panicMetric struct{}

func (panicMetric) Inc()            { panic("metric: Inc") }
func (panicMetric) Dec()            { panic("metric: Dec") }
func (panicMetric) Set(float64)     { panic("metric: Set") }
func (panicMetric) Observe(float64) { panic("metric: Observe") }

// partialProvider is a recorder whose metrics of the kinds in broken are
// replaced by broken ones (panicking, or nil when nilMetrics is set).
type partialProvider struct {
	*recorder
	broken     map[string]bool
	nilMetrics bool
}

func (p partialProvider) pick(m recMetric) any {
	if !p.broken[m.kind] {
		return m
	}
	if p.nilMetrics {
		return nil
	}
	return panicMetric{}
}

func gauge(v any) actor.GaugeMetric {
	m, _ := v.(actor.GaugeMetric)
	return m
}

func counter(v any) actor.CounterMetric {
	m, _ := v.(actor.CounterMetric)
	return m
}

func histogram(v any) actor.HistogramMetric {
	m, _ := v.(actor.HistogramMetric)
	return m
}

func settable(v any) actor.SettableGaugeMetric {
	m, _ := v.(actor.SettableGaugeMetric)
	return m
}

func (p partialProvider) NewDepthMetric(name string) actor.GaugeMetric {
	return gauge(p.pick(p.metric(kDepth, name)))
}
func (p partialProvider) NewAddsMetric(name string) actor.CounterMetric {
	return counter(p.pick(p.metric(kAdds, name)))
}
func (p partialProvider) NewLatencyMetric(name string) actor.HistogramMetric {
	return histogram(p.pick(p.metric(kLatency, name)))
}
func (p partialProvider) NewWorkDurationMetric(name string) actor.HistogramMetric {
	return histogram(p.pick(p.metric(kWork, name)))
}
func (p partialProvider) NewUnfinishedWorkSecondsMetric(name string) actor.SettableGaugeMetric {
	return settable(p.pick(p.metric(kUnfinished, name)))
}
func (p partialProvider) NewLongestRunningProcessorSecondsMetric(name string) actor.SettableGaugeMetric {
	return settable(p.pick(p.metric(kLongest, name)))
}
func (p partialProvider) NewRetriesMetric(name string) actor.CounterMetric {
	return counter(p.pick(p.metric(kRetries, name)))
}
func (p partialProvider) NewDelayedMetric(name string) actor.SettableGaugeMetric {
	return settable(p.pick(p.metric(kDelayed, name)))
}

// TestMetricsBrokenProvider: metrics that panic, or are nil, are skipped;
// the queue loses nothing, its owner goroutine survives, and the other
// metrics keep recording exactly.
func TestMetricsBrokenProvider(t *testing.T) {
	all := map[string]bool{}
	for _, k := range append(clientGoKinds, kDelayed) {
		all[k] = true
	}
	tests := []struct {
		name       string
		broken     map[string]bool
		nilMetrics bool
	}{
		{"all panic", all, false},
		{"all nil", all, true},
		{"depth and unfinished panic", map[string]bool{kDepth: true, kUnfinished: true}, false},
		{"latency and delayed nil", map[string]bool{kLatency: true, kDelayed: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				p := partialProvider{r, tt.broken, tt.nilMetrics}
				q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: p, RateLimiter: fixedLimiter{time.Second}})
				exercise(t, q)
				q.ShutDown()
				// What the healthy metrics must show after exercise, which
				// the reference run without broken metrics below confirms.
				ref := newRecorder()
				rq := actor.New(actor.Config[string]{Name: "q", MetricsProvider: delayedRecorder{ref}, RateLimiter: fixedLimiter{time.Second}})
				exercise(t, rq)
				rq.ShutDown()
				if ref.valueOf(kAdds) != 5 || ref.valueOf(kRetries) != 3 ||
					len(ref.observed(kLatency)) != 5 || len(ref.observed(kWork)) != 5 {
					t.Fatalf("reference run: adds %v, retries %v, latency %v, work %v; want 5, 3, 5 and 5 observations",
						ref.valueOf(kAdds), ref.valueOf(kRetries), ref.observed(kLatency), ref.observed(kWork))
				}
				for _, k := range append(clientGoKinds, kDelayed) {
					if tt.broken[k] {
						continue
					}
					if got, want := r.valueOf(k), ref.valueOf(k); got != want {
						t.Errorf("%s = %v; want %v", k, got, want)
					}
					if got, want := r.observed(k), ref.observed(k); !slices.Equal(got, want) {
						t.Errorf("%s observations = %v; want %v", k, got, want)
					}
					if got, want := r.settled(k), ref.settled(k); !slices.Equal(got, want) {
						t.Errorf("%s sets = %v; want %v", k, got, want)
					}
				}
			})
		})
	}
}

// panicProvider panics when asked for a metric.
type panicProvider struct{ *recorder }

func (panicProvider) NewDepthMetric(string) actor.GaugeMetric { panic("provider: NewDepthMetric") }

// TestMetricsProviderPanicsInNew: a provider that panics while New asks it
// for metrics panics in the caller of New, before any goroutine starts (the
// bubble would report one left behind).
func TestMetricsProviderPanicsInNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defer func() {
			if got := recover(); got != "provider: NewDepthMetric" {
				t.Errorf("New panicked with %v; want provider: NewDepthMetric", got)
			}
		}()
		actor.New(actor.Config[string]{Name: "q", MetricsProvider: panicProvider{newRecorder()}})
		t.Error("New returned; want a panic")
	})
}

const globalChild = "ACTORQ_TEST_GLOBAL_PROVIDER"

// TestMetricsGlobalProvider checks actor.SetProvider. Its first call wins
// for the whole process, so the checks run in a fresh copy of the test
// binary and this is the only test that calls it.
func TestMetricsGlobalProvider(t *testing.T) {
	if os.Getenv(globalChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMetricsGlobalProvider$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), globalChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child test binary: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "--- PASS: TestMetricsGlobalProvider") {
			t.Fatalf("child test binary did not run the test:\n%s", out)
		}
		return
	}
	synctest.Test(t, func(t *testing.T) {
		global, second, own := newRecorder(), newRecorder(), newRecorder()
		// Queues made before SetProvider, named or not, must not stop it
		// from taking effect for the queues made after.
		actor.New(actor.Config[string]{}).ShutDown()
		actor.New(actor.Config[string]{Name: "early"}).ShutDown()
		actor.SetProvider(global)
		actor.SetProvider(second) // no effect: the first call wins

		q := actor.New(actor.Config[string]{Name: "global"})
		q.Add("a")
		mustGet(t, q, "a")
		q.Done("a")
		q.ShutDown()

		o := actor.New(actor.Config[string]{Name: "own", MetricsProvider: own})
		o.Add("a")
		o.ShutDown()

		u := actor.New(actor.Config[string]{})
		u.Add("a")
		u.ShutDown()

		var want []string
		for _, k := range clientGoKinds {
			want = append(want, k+"/global")
		}
		if got := global.madeList(); !slices.Equal(got, want) {
			t.Errorf("global provider made %v; want %v", got, want)
		}
		if got := global.valueOf(kAdds); got != 1 {
			t.Errorf("global provider adds = %v; want 1", got)
		}
		if got := global.observed(kWork); len(got) != 1 {
			t.Errorf("global provider work durations = %v; want one", got)
		}
		if got := second.madeList(); len(got) != 0 {
			t.Errorf("second SetProvider's provider made %v; want none", got)
		}
		if got := own.madeList(); len(got) != len(clientGoKinds) || own.valueOf(kAdds) != 1 {
			t.Errorf("queue's own provider made %v with %v adds; want %d metrics, 1 add", got, own.valueOf(kAdds), len(clientGoKinds))
		}
	})
}

// nopMetric and nopProvider cost nothing but the calls.
type nopMetric struct{}

func (nopMetric) Inc()            {}
func (nopMetric) Dec()            {}
func (nopMetric) Set(float64)     {}
func (nopMetric) Observe(float64) {}

type nopProvider struct{}

func (nopProvider) NewDepthMetric(string) actor.GaugeMetric            { return nopMetric{} }
func (nopProvider) NewAddsMetric(string) actor.CounterMetric           { return nopMetric{} }
func (nopProvider) NewLatencyMetric(string) actor.HistogramMetric      { return nopMetric{} }
func (nopProvider) NewWorkDurationMetric(string) actor.HistogramMetric { return nopMetric{} }
func (nopProvider) NewUnfinishedWorkSecondsMetric(string) actor.SettableGaugeMetric {
	return nopMetric{}
}
func (nopProvider) NewLongestRunningProcessorSecondsMetric(string) actor.SettableGaugeMetric {
	return nopMetric{}
}
func (nopProvider) NewRetriesMetric(string) actor.CounterMetric       { return nopMetric{} }
func (nopProvider) NewDelayedMetric(string) actor.SettableGaugeMetric { return nopMetric{} }

// BenchmarkMetrics measures the cost of metrics per item through the
// pipeline Add, Get, Done: off (unnamed queue) and on (named, no-op
// provider, so only the queue's own bookkeeping is measured).
func BenchmarkMetrics(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  actor.Config[int]
	}{
		{"off", actor.Config[int]{}},
		{"on", actor.Config[int]{Name: "bench", MetricsProvider: nopProvider{}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := actor.New(bc.cfg)
			defer q.ShutDown()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q.Add(i)
				item, _ := q.Get()
				q.Done(item)
				i++
			}
		})
	}
}

// TestMetricsDepthAfterShutDown checks that depth ends at 0 once the queue
// is shut down and its leftovers taken, as client-go's does, counting the
// item that was added again while processing and comes back at its Done.
func TestMetricsDepthAfterShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := namedQueue(r)
		q.Add("a")
		q.Add("b")
		mustGet(t, q, "a")
		q.Add("a") // dirty: ready again at its Done, after the shutdown
		settle(q)
		if got := r.valueOf(kDepth); got != 2 {
			t.Fatalf("depth before ShutDown = %v; want 2", got)
		}
		q.ShutDown()
		mustGet(t, q, "b")
		q.Done("a")
		if got := r.valueOf(kDepth); got != 1 {
			t.Fatalf("depth after ShutDown and Done(a) = %v; want 1", got)
		}
		mustGet(t, q, "a")
		q.Done("a")
		q.Done("b")
		if got := r.valueOf(kDepth); got != 0 {
			t.Fatalf("depth after ShutDown = %v; want 0", got)
		}
	})
}

// TestMetricsLaneClaimWhileIdle checks that an item a consumer claims from
// the lane while the owner goroutine sleeps is recorded at once, with the
// latency of the claim.
func TestMetricsLaneClaimWhileIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		q := namedQueue(r)
		defer q.ShutDown()
		q.Add("x")
		mustGet(t, q, "x") // a Get: the owner fills the lane from now on
		q.Done("x")
		q.Add("a")
		q.Add("b")
		synctest.Wait() // a and b offered in the lane; the owner sleeps
		time.Sleep(time.Second)
		mustGet(t, q, "a") // claimed from the lane
		synctest.Wait()
		if got := r.valueOf(kDepth); got != 1 {
			t.Fatalf("depth after the claim = %v; want 1", got)
		}
		if got, want := r.observed(kLatency), []float64{0, 1}; !slices.Equal(got, want) {
			t.Fatalf("latencies = %v; want %v (a claimed 1s after it was added)", got, want)
		}
		q.Done("a")
	})
}

// prioRecorder also records the depth by priority.
type prioRecorder struct {
	*recorder
	depth map[int]int // guarded by recorder.mu
}

func (r prioRecorder) NewDepthMetricWithPriority(string) actor.PriorityGaugeMetric { return r }

func (r prioRecorder) Inc(p int) { r.mu.Lock(); r.depth[p]++; r.mu.Unlock() }
func (r prioRecorder) Dec(p int) { r.mu.Lock(); r.depth[p]--; r.mu.Unlock() }

// depthNow returns the depth by priority, without the priorities at 0.
func (r prioRecorder) depthNow() map[int]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[int]int{}
	for p, n := range r.depth {
		if n != 0 {
			m[p] = n
		}
	}
	return m
}

// TestDepthByPriorityOnRaise: raising the priority of an item that is
// waiting to be handed out, in whatever state (ready, staged on the items
// channel, added again while processing), moves its count in the depth
// from the old priority to the new one, as controller-runtime's queue
// does; the depth never goes negative and is empty once all is taken.
func TestDepthByPriorityOnRaise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := prioRecorder{newRecorder(), map[int]int{}}
		q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: rec, Requeue: actor.RequeueAtAdd})
		defer q.ShutDown()
		check := func(what string, want map[int]int) {
			t.Helper()
			q.Len()
			if got := rec.depthNow(); !maps.Equal(got, want) {
				t.Errorf("%s: depth by priority = %v; want %v", what, got, want)
			}
		}
		q.AddWithOpts(actor.AddOpts{Priority: -5}, "ready")
		q.AddWithOpts(actor.AddOpts{Priority: 7}, "held")
		check("two adds", map[int]int{-5: 1, 7: 1})
		if item, _ := q.Get(); item != "held" {
			t.Fatalf("Get() = %q; want held", item)
		}
		q.AddWithOpts(actor.AddOpts{Priority: 1}, "held") // dirty, counted at 1
		check("re-added while processing", map[int]int{-5: 1, 1: 1})
		q.AddWithOpts(actor.AddOpts{Priority: 3}, "held") // raised while dirty
		check("raised while processing", map[int]int{-5: 1, 3: 1})
		q.AddWithOpts(actor.AddOpts{Priority: 2}, "ready") // raised while ready
		check("raised while ready", map[int]int{2: 1, 3: 1})
		q.Done("held")
		// The items channel stages the next item (held, at 3); raising it
		// there moves its count too.
		items := q.Items()
		synctest.Wait()
		q.AddWithOpts(actor.AddOpts{Priority: 9}, "held")
		check("raised while staged", map[int]int{2: 1, 9: 1})
		for _, want := range []string{"held", "ready"} {
			if item := <-items; item != want {
				t.Fatalf("<-Items() = %q; want %q", item, want)
			}
			q.Done(want)
		}
		check("all taken", map[int]int{})
	})
}

// holdClock is the bubble's clock, whose next reading, once asked for,
// keeps its caller for the hold before returning: a call stamped at one
// instant that reaches the owner goroutine later.
type holdClock struct {
	countingClock
	hold atomic.Int64
}

func (c *holdClock) Now() time.Time {
	t := time.Now()
	if d := c.hold.Swap(0); d != 0 {
		time.Sleep(time.Duration(d))
	}
	return t
}

// TestMetricsUnfinishedLateCalls: a Done or a lane claim stamped before a
// refresh of the unfinished-work gauges, but applied after it, changes the
// gauges at once to what client-go showed at that refresh, which saw the
// Done or the hand-out when the call was made.
func TestMetricsUnfinishedLateCalls(t *testing.T) {
	wantValues := func(t *testing.T, r *recorder, when string, unfinished, longest float64) {
		t.Helper()
		if got := r.valueOf(kUnfinished); got != unfinished {
			t.Errorf("%s: unfinished work = %v; want %v", when, got, unfinished)
		}
		if got := r.valueOf(kLongest); got != longest {
			t.Errorf("%s: longest running = %v; want %v", when, got, longest)
		}
	}
	tests := []struct {
		name                        string
		late                        func(t *testing.T, q *actor.Queue[string]) // made at 1.25s, reaching the owner at 1.95s
		wantUnfinished, wantLongest float64
	}{
		{
			name:           "done",
			late:           func(t *testing.T, q *actor.Queue[string]) { q.Done("a") },
			wantUnfinished: 0, wantLongest: 0,
		},
		{
			name:           "claim",
			late:           func(t *testing.T, q *actor.Queue[string]) { mustGet(t, q, "b") },
			wantUnfinished: 1.75, wantLongest: 1.5, // a for 1.5s, b for 0.25s
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				clock := new(holdClock)
				q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: r, Clock: clock})
				defer q.ShutDown()
				q.Add("a")
				q.Add("b")
				mustGet(t, q, "a") // at 0
				// Not at 1s, when the owner refreshes the gauges and reads
				// the clock too, and could be the one held.
				time.Sleep(1250 * time.Millisecond)
				clock.hold.Store(int64(700 * time.Millisecond))
				tt.late(t, q) // the refresh at 1.5s comes first
				if clock.hold.Load() != 0 {
					t.Fatal("the late call did not read the clock")
				}
				settle(q)
				wantValues(t, r, "after the late call", tt.wantUnfinished, tt.wantLongest)
				q.Done("a")
				q.Done("b")
				time.Sleep(time.Minute)
				settle(q)
				wantValues(t, r, "a minute later", 0, 0)
			})
		})
	}
}
