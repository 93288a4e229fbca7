package pqcompat

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// registry returns the series of controller-runtime's registry that have
// the label name=queue, as "metric{label=value}" (the depth's priority
// label, the only other label that varies) or "metric_count" and
// "metric_sum" for histograms, with their values.
func registry(t *testing.T, queue string) map[string]float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var mine bool
			key := f.GetName()
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "name":
					mine = l.GetValue() == queue
				case "priority":
					key += fmt.Sprintf("{priority=%s}", l.GetValue())
				}
			}
			if !mine {
				continue
			}
			if h := m.GetHistogram(); h != nil {
				out[key+"_count"] = float64(h.GetSampleCount())
				out[key+"_sum"] = h.GetSampleSum()
				continue
			}
			out[key] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return out
}

// expectSeries fails t unless the series of queue that start with one of
// the prefixes are exactly want (floats compared to within 1e-9).
func expectSeries(t *testing.T, what, queue string, want map[string]float64, prefixes ...string) {
	t.Helper()
	got := map[string]float64{}
	for k, v := range registry(t, queue) {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				got[k] = v
			}
		}
	}
	same := len(got) == len(want)
	for k, v := range want {
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9 {
			same = false
		}
	}
	if !same {
		t.Errorf("%s: series = %v; want %v", what, sorted(got), sorted(want))
	}
}

// sorted formats m with its keys in order.
func sorted(m map[string]float64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, " %s=%g", k, m[k])
	}
	return "{" + strings.TrimSpace(b.String()) + "}"
}

const (
	depth   = "workqueue_depth"
	adds    = "workqueue_adds_total"
	retries = "workqueue_retries_total"
)

// The queues of the metrics cases use the process-wide provider:
// controller-runtime's, which its metrics package gives client-go's
// SetProvider and which controller-runtime's queue uses by default. Its
// depth metric has a priority label.

// testMetricsDepth: an add that makes an item ready counts, and the depth
// is kept by priority: raising a ready item's priority moves it, also
// while the item is locked; a delayed item counts once ready.
func testMetricsDepth(t *testing.T, impl Impl) {
	q, name := newQueue(t, impl)
	defer q.ShutDown()
	q.Add("a")
	q.AddWithOpts(AddOpts{Priority: prio(5)}, "b")
	q.AddWithOpts(AddOpts{Priority: prio(-100)}, "c")
	q.Add("a")
	settle(q)
	expectSeries(t, "three adds", name, map[string]float64{
		depth + "{priority=0}": 1, depth + "{priority=5}": 1, depth + "{priority=-100}": 1, adds: 3,
	}, depth, adds)

	q.AddWithOpts(AddOpts{Priority: prio(5)}, "a") // raised: moved
	expect(t, "Get", got(q), "b@5")
	settle(q)
	expectSeries(t, "raise and Get", name, map[string]float64{
		depth + "{priority=0}": 0, depth + "{priority=5}": 1, depth + "{priority=-100}": 1, adds: 3,
	}, depth, adds)

	expect(t, "Get", got(q), "a@5")
	q.Add("a")                                     // locked, ready: counted
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "a") // raised while locked: moved
	settle(q)
	expectSeries(t, "locked re-add and raise", name, map[string]float64{
		depth + "{priority=0}": 0, depth + "{priority=3}": 1, depth + "{priority=5}": 0, depth + "{priority=-100}": 1, adds: 4,
	}, depth, adds)
	q.Done("a")
	q.Done("b")
	expect(t, "Get after Done", got(q), "a@3")

	q.AddAfter("d", time.Second)
	settle(q)
	expectSeries(t, "delayed", name, map[string]float64{
		depth + "{priority=0}": 0, depth + "{priority=3}": 0, depth + "{priority=5}": 0, depth + "{priority=-100}": 1, adds: 4,
	}, depth, adds)
	time.Sleep(time.Second)
	settle(q)
	expectSeries(t, "delay passed", name, map[string]float64{
		depth + "{priority=0}": 1, depth + "{priority=3}": 0, depth + "{priority=5}": 0, depth + "{priority=-100}": 1, adds: 5,
	}, depth, adds)
}

// testMetricsRetries: a retry is counted for each item added with a
// positive delay (After, or a rate limiter's), whether or not it ends up
// waiting; not for a zero or negative delay, nor after ShutDown.
func testMetricsRetries(t *testing.T, impl Impl) {
	q, name := newQueue(t, impl, withLimiter(newFixedLimiter(time.Second)))
	q.AddAfter("a", 0)
	q.AddAfter("b", -time.Second)
	q.AddWithOpts(AddOpts{After: -time.Second}, "b")
	settle(q)
	expectSeries(t, "no delay", name, map[string]float64{retries: 0, adds: 2}, retries, adds)
	q.AddAfter("c", time.Second)                             // 1
	q.AddWithOpts(AddOpts{After: time.Second}, "d", "e")     // 2
	q.AddAfter("b", time.Second)                             // 1: ready anyway
	q.AddRateLimited("f")                                    // 1
	q.AddWithOpts(AddOpts{RateLimited: true, After: 1}, "a") // 1
	settle(q)
	expectSeries(t, "delays", name, map[string]float64{retries: 6, adds: 2}, retries, adds)
	q.ShutDown()
	q.AddAfter("g", time.Second)
	q.AddRateLimited("h")
	q.Len()
	expectSeries(t, "after ShutDown", name, map[string]float64{retries: 6, adds: 2}, retries, adds)
}

// testMetricsTimes: latency from ready to hand-out, work duration from
// hand-out to Done, and the unfinished work gauges at controller-runtime's
// ticks, every 500ms from the queue's creation.
func testMetricsTimes(t *testing.T, impl Impl) {
	q, name := newQueue(t, impl)
	defer q.ShutDown()
	const (
		latency    = "workqueue_queue_duration_seconds"
		work       = "workqueue_work_duration_seconds"
		unfinished = "workqueue_unfinished_work_seconds"
		longest    = "workqueue_longest_running_processor_seconds"
	)
	q.Add("a")
	q.AddAfter("b", 100*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	expect(t, "Get", got(q), "a@0") // waited 200ms
	expect(t, "Get", got(q), "b@0") // waited 100ms since ready
	time.Sleep(time.Second)         // t = 1.2s: ticks at 0.5s and 1s
	settle(q)
	expectSeries(t, "two processing at 1.2s", name, map[string]float64{
		latency + "_count": 2, latency + "_sum": 0.3,
		work + "_count": 0, work + "_sum": 0,
		unfinished: 1.6, longest: 0.8,
	}, latency, work, unfinished, longest)
	q.Done("a")
	time.Sleep(400 * time.Millisecond) // t = 1.6s: tick at 1.5s
	settle(q)
	expectSeries(t, "one processing at 1.6s", name, map[string]float64{
		latency + "_count": 2, latency + "_sum": 0.3,
		work + "_count": 1, work + "_sum": 1,
		unfinished: 1.3, longest: 1.3,
	}, latency, work, unfinished, longest)
	q.Done("b")
	time.Sleep(500 * time.Millisecond) // t = 2.1s: tick at 2s
	settle(q)
	expectSeries(t, "none processing at 2.1s", name, map[string]float64{
		latency + "_count": 2, latency + "_sum": 0.3,
		work + "_count": 2, work + "_sum": 2.4,
		unfinished: 0, longest: 0,
	}, latency, work, unfinished, longest)
}

// testMetricsCardinality: controller-runtime's provider labels at most 25
// distinct priorities; from the 26th on, every change of the depth goes to
// the label "exceeded_cardinality_limit", even for priorities seen
// before.
func testMetricsCardinality(t *testing.T, impl Impl) {
	q, name := newQueue(t, impl)
	defer q.ShutDown()
	want := map[string]float64{}
	for p := range 30 {
		q.AddWithOpts(AddOpts{Priority: prio(p)}, fmt.Sprint(p))
		if p < 25 {
			want[fmt.Sprintf("%s{priority=%d}", depth, p)] = 1
		}
	}
	want[depth+"{priority=exceeded_cardinality_limit}"] = 5
	settle(q)
	expectSeries(t, "30 priorities added", name, want, depth)
	takeAll(q, 30)
	want[depth+"{priority=exceeded_cardinality_limit}"] = 5 - 30
	settle(q)
	expectSeries(t, "30 priorities handed out", name, want, depth)
}

// recorder is a MetricsProvider with no depth by priority, which records
// the metrics it makes and the depth.
type recorder struct {
	mu    sync.Mutex
	made  []string
	depth int
}

type recMetric struct {
	r    *recorder
	kind string
}

func (m recMetric) Inc() {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	if m.kind == "depth" {
		m.r.depth++
	}
}

func (m recMetric) Dec() {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	m.r.depth--
}

func (recMetric) Set(float64)     {}
func (recMetric) Observe(float64) {}

func (r *recorder) metric(kind, name string) recMetric {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.made = append(r.made, kind+":"+name)
	return recMetric{r, kind}
}

func (r *recorder) NewDepthMetric(name string) workqueue.GaugeMetric  { return r.metric("depth", name) }
func (r *recorder) NewAddsMetric(name string) workqueue.CounterMetric { return r.metric("adds", name) }
func (r *recorder) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return r.metric("latency", name)
}
func (r *recorder) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return r.metric("work", name)
}
func (r *recorder) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return r.metric("unfinished", name)
}
func (r *recorder) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return r.metric("longest", name)
}
func (r *recorder) NewRetriesMetric(name string) workqueue.CounterMetric {
	return r.metric("retries", name)
}

// testUnnamed: an unnamed queue asks its provider for nothing; a named
// one with a provider whose depth has no priority keeps its depth there.
func testUnnamed(t *testing.T, impl Impl) {
	r := &recorder{}
	q := impl.New("", withProvider(r))
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "a")
	q.Len()
	q.ShutDown()
	expect(t, "metrics made for an unnamed queue", len(r.made), 0)

	q, name := newQueue(t, impl, withProvider(r))
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "a", "b")
	expect(t, "Len()", settle(q), 2)
	expect(t, "Get", got(q), "a@1")
	settle(q)
	r.mu.Lock()
	defer r.mu.Unlock()
	expect(t, "depth", r.depth, 1)
	slices.Sort(r.made)
	expect(t, "metrics made", strings.Join(r.made, " "), strings.ReplaceAll(
		"adds:N depth:N latency:N longest:N retries:N unfinished:N work:N", "N", name))
}
