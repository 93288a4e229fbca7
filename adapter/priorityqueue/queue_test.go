package priorityqueue_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/adapter"
	"github.com/actorq/actorq/adapter/priorityqueue"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// plainProvider is a MetricsProvider that counts the depth without
// priority and ignores the rest.
type plainProvider struct {
	mu     sync.Mutex
	depth  int
	depths int // NewDepthMetric calls
}

type plainGauge struct{ p *plainProvider }

func (g plainGauge) Inc() { g.p.mu.Lock(); g.p.depth++; g.p.mu.Unlock() }
func (g plainGauge) Dec() { g.p.mu.Lock(); g.p.depth--; g.p.mu.Unlock() }

// noMetric records nothing.
type noMetric struct{}

func (noMetric) Inc()            {}
func (noMetric) Set(float64)     {}
func (noMetric) Observe(float64) {}

func (p *plainProvider) counts() int { p.mu.Lock(); defer p.mu.Unlock(); return p.depths }

func (p *plainProvider) NewDepthMetric(string) workqueue.GaugeMetric {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.depths++
	return plainGauge{p}
}
func (p *plainProvider) NewAddsMetric(string) workqueue.CounterMetric      { return noMetric{} }
func (p *plainProvider) NewLatencyMetric(string) workqueue.HistogramMetric { return noMetric{} }
func (p *plainProvider) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return noMetric{}
}
func (p *plainProvider) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return noMetric{}
}
func (p *plainProvider) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return noMetric{}
}
func (p *plainProvider) NewRetriesMetric(string) workqueue.CounterMetric { return noMetric{} }

// depthByPriority is the result type of priorityProvider's
// NewDepthMetricWithPriority: not controller-runtime's (which is
// internal), but with its methods.
type depthByPriority interface {
	Inc(priority int)
	Dec(priority int)
}

// priorityProvider has controller-runtime's NewDepthMetricWithPriority.
// Its NewDepthMetric must not be called.
type priorityProvider struct {
	*plainProvider
	byPrio map[int]int
}

type prioGauge struct{ p priorityProvider }

func (g prioGauge) Inc(prio int) { g.p.mu.Lock(); g.p.byPrio[prio]++; g.p.mu.Unlock() }
func (g prioGauge) Dec(prio int) { g.p.mu.Lock(); g.p.byPrio[prio]--; g.p.mu.Unlock() }

func (p priorityProvider) NewDepthMetric(string) workqueue.GaugeMetric {
	panic("NewDepthMetric called on a provider with NewDepthMetricWithPriority")
}

func (p priorityProvider) NewDepthMetricWithPriority(string) depthByPriority { return prioGauge{p} }

// Providers whose NewDepthMetricWithPriority does not fit, which get the
// depth without priority.
type (
	incOnly           interface{ Inc(int) }
	incOnlyProvider   struct{ *plainProvider }
	wrongArgsProvider struct{ *plainProvider }
	nilDepthProvider  struct{ *plainProvider }
)

func (incOnlyProvider) NewDepthMetricWithPriority(string) incOnly                { return nil }
func (wrongArgsProvider) NewDepthMetricWithPriority(string, int) depthByPriority { return nil }
func (nilDepthProvider) NewDepthMetricWithPriority(string) depthByPriority       { return nil }

func withProvider(p workqueue.MetricsProvider) priorityqueue.Opt[string] {
	return func(o *priorityqueue.Opts[string]) { o.MetricProvider = p }
}

// TestDepthByPriority checks that a provider with a fitting
// NewDepthMetricWithPriority gets the depth by priority, and its
// NewDepthMetric is not called; other providers get the depth without
// priority.
func TestDepthByPriority(t *testing.T) {
	p := priorityProvider{&plainProvider{}, map[int]int{}}
	q := priorityqueue.New("by-priority", withProvider(p))
	q.AddWithOpts(priorityqueue.AddOpts{Priority: new(2)}, "a", "b")
	q.Add("c")
	q.Get()
	q.Len()
	q.ShutDown()
	p.mu.Lock()
	if got, want := fmt.Sprint(p.byPrio), "map[0:1 2:1]"; got != want {
		t.Errorf("depth by priority = %s; want %s", got, want)
	}
	p.mu.Unlock()

	a, b := &plainProvider{}, &plainProvider{}
	for p, pp := range map[workqueue.MetricsProvider]*plainProvider{incOnlyProvider{a}: a, wrongArgsProvider{b}: b} {
		q := priorityqueue.New("plain", withProvider(p))
		q.AddWithOpts(priorityqueue.AddOpts{Priority: new(2)}, "a", "b")
		q.Len()
		q.ShutDown()
		if pp.counts() != 1 || pp.depth != 2 {
			t.Errorf("%T: NewDepthMetric called %d times, depth %d; want once, 2", p, pp.counts(), pp.depth)
		}
	}

	// A provider whose NewDepthMetricWithPriority returns nil records no
	// depth, and the queue works.
	np := nilDepthProvider{&plainProvider{}}
	q = priorityqueue.New("nil-depth", withProvider(np))
	q.Add("a")
	if item, _ := q.Get(); item != "a" {
		t.Errorf("Get() = %q; want a", item)
	}
	q.ShutDown()
	if np.counts() != 0 {
		t.Errorf("NewDepthMetric called %d times on a provider with NewDepthMetricWithPriority", np.counts())
	}
}

// TestProviders checks which provider a queue uses: the process-wide one
// is controller-runtime's (its metrics package sets it in an init
// function), and Opts.MetricProvider overrides it.
func TestProviders(t *testing.T) {
	g := adapter.GlobalMetricsProvider()
	if typ := reflect.TypeOf(g); typ == nil || typ.PkgPath() != "sigs.k8s.io/controller-runtime/pkg/internal/metrics" {
		t.Fatalf("adapter.GlobalMetricsProvider() = %T; want controller-runtime's WorkqueueMetricsProvider", g)
	}
	name := fmt.Sprintf("providers-%d", time.Now().UnixNano())
	p := &plainProvider{}
	q := priorityqueue.New(name, withProvider(p))
	q.Add("a")
	q.Len()
	q.ShutDown()
	if p.depth != 1 {
		t.Errorf("Opts.MetricProvider's depth = %d; want 1", p.depth)
	}
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == name {
					t.Errorf("%s has a series for %s, whose Opts name a provider", f.GetName(), name)
				}
			}
		}
	}
}

// fixedLimiter delays every item by d and counts the calls.
type fixedLimiter struct {
	d     time.Duration
	mu    sync.Mutex
	whens int
}

func (l *fixedLimiter) When(string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.whens++
	return l.d
}
func (l *fixedLimiter) Forget(string) {}
func (l *fixedLimiter) NumRequeues(string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.whens
}

// TestNewQueue checks that NewQueue uses the limiter the controller
// passes, or the default one (exponential from 5ms) for nil, as
// controller-runtime's default NewQueue does.
func TestNewQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &fixedLimiter{d: time.Hour}
		q := priorityqueue.NewQueue[string]("new-queue", l)
		defer q.ShutDown()
		q.AddRateLimited("a")
		if got := q.NumRequeues("a"); got != 1 {
			t.Errorf("NumRequeues(a) = %d; want 1 (the limiter passed in)", got)
		}
		time.Sleep(time.Hour - time.Nanosecond)
		if got := q.Len(); got != 0 {
			t.Errorf("Len() before the limiter's delay = %d; want 0", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := q.Len(); got != 1 {
			t.Errorf("Len() at the limiter's delay = %d; want 1", got)
		}

		d := priorityqueue.NewQueue[string]("", nil)
		defer d.ShutDown()
		d.AddRateLimited("a")
		time.Sleep(5*time.Millisecond - time.Nanosecond)
		if got := d.Len(); got != 0 {
			t.Errorf("default limiter: Len() before 5ms = %d; want 0", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := d.Len(); got != 1 {
			t.Errorf("default limiter: Len() at 5ms = %d; want 1", got)
		}
	})
}

// TestShutDownTwice checks that ShutDown and ShutDownWithDrain may be
// called again (controller-runtime's panic, closing a closed channel).
func TestShutDownTwice(t *testing.T) {
	q := priorityqueue.New[string]("")
	q.ShutDown()
	q.ShutDown()
	q.ShutDownWithDrain()
	if !q.ShuttingDown() {
		t.Errorf("ShuttingDown() = false after ShutDown")
	}
}

// TestFairness checks that with Config.Fairness a tenant's backlog does
// not hold up another tenant's items: within a priority, hand-out goes
// round-robin across tenants.
func TestFairness(t *testing.T) {
	tenant := func(key string) []string { before, _, _ := strings.Cut(key, "/"); return []string{before} }
	q := priorityqueue.NewWithConfig("", priorityqueue.Config[string]{Fairness: tenant})
	defer q.ShutDown()
	for i := range 10000 {
		q.Add(fmt.Sprintf("big/%d", i))
	}
	for i := range 10 {
		q.Add(fmt.Sprintf("small/%d", i))
	}
	q.AddWithOpts(priorityqueue.AddOpts{Priority: new(1)}, "big/urgent")
	var small []int
	for n := range 21 {
		item, prio, _ := q.GetWithPriority()
		if n == 0 && (item != "big/urgent" || prio != 1) {
			t.Errorf("first hand-out = %s@%d; want big/urgent@1 (priorities first)", item, prio)
		}
		if strings.HasPrefix(item, "small/") {
			small = append(small, n)
		}
		q.Done(item)
	}
	if len(small) != 10 || small[9] > 20 {
		t.Errorf("small's 10 items handed out at %v of the first 21; want all, alternating with big's", small)
	}
}

// TestStarvationBound checks that with Config.StarvationBound a low
// priority item is handed out once it has waited that long, however many
// higher priority items keep coming; without it, it waits for them all.
func TestStarvationBound(t *testing.T) {
	for _, bound := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := priorityqueue.NewWithConfig("", priorityqueue.Config[string]{StarvationBound: bound})
				defer q.ShutDown()
				q.AddWithOpts(priorityqueue.AddOpts{Priority: new(-100)}, "initial-list")
				start := time.Now()
				var handedOut time.Duration
				for i := range 30 { // one fresh event per 100ms, one hand-out per 100ms
					q.Add(fmt.Sprintf("event-%d", i))
					time.Sleep(100 * time.Millisecond)
					item, _ := q.Get()
					q.Done(item)
					if item == "initial-list" {
						handedOut = time.Since(start)
						break
					}
				}
				switch {
				case bound == 0 && handedOut != 0:
					t.Errorf("without a bound, the low priority item was handed out after %v, before the events", handedOut)
				case bound > 0 && (handedOut < bound || handedOut > bound+100*time.Millisecond):
					t.Errorf("with a bound of %v, the low priority item was handed out after %v", bound, handedOut)
				}
			})
		})
	}
}
