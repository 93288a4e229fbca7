package compattest

import (
	"slices"
	"sync"

	"k8s.io/client-go/util/workqueue"
)

// Recorder is a MetricsProvider that records every value for one queue
// name. It is safe for concurrent use.
type Recorder struct {
	mu                          sync.Mutex
	depth, adds, retries        int
	latency, work               []float64
	unfinished, longest         float64
	unfinishedSets, longestSets int
}

// Snapshot is what a Recorder recorded: the counters and gauges, every
// histogram observation in order, and the last values of the two
// unfinished-work gauges.
type Snapshot struct {
	Depth, Adds, Retries int
	Latency, Work        []float64
	Unfinished, Longest  float64
}

// Snapshot returns a copy of the values recorded so far.
func (r *Recorder) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Snapshot{r.depth, r.adds, r.retries, slices.Clone(r.latency), slices.Clone(r.work), r.unfinished, r.longest}
}

// Gauges is what a Recorder recorded of the two unfinished-work gauges:
// their last values and how many times each was set.
type Gauges struct {
	Unfinished, Longest         float64
	UnfinishedSets, LongestSets int
}

// Gauges returns the unfinished-work gauges recorded so far.
func (r *Recorder) Gauges() Gauges {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Gauges{r.unfinished, r.longest, r.unfinishedSets, r.longestSets}
}

type metric struct {
	r   *Recorder
	set func(r *Recorder, delta int, v float64)
}

func (m metric) Inc()              { m.do(1, 0) }
func (m metric) Dec()              { m.do(-1, 0) }
func (m metric) Set(v float64)     { m.do(0, v) }
func (m metric) Observe(v float64) { m.do(0, v) }
func (m metric) do(d int, v float64) {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	m.set(m.r, d, v)
}

func (r *Recorder) NewDepthMetric(string) workqueue.GaugeMetric {
	return metric{r, func(r *Recorder, d int, _ float64) { r.depth += d }}
}
func (r *Recorder) NewAddsMetric(string) workqueue.CounterMetric {
	return metric{r, func(r *Recorder, d int, _ float64) { r.adds += d }}
}
func (r *Recorder) NewLatencyMetric(string) workqueue.HistogramMetric {
	return metric{r, func(r *Recorder, _ int, v float64) { r.latency = append(r.latency, v) }}
}
func (r *Recorder) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return metric{r, func(r *Recorder, _ int, v float64) { r.work = append(r.work, v) }}
}
func (r *Recorder) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return metric{r, func(r *Recorder, _ int, v float64) { r.unfinished = v; r.unfinishedSets++ }}
}
func (r *Recorder) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return metric{r, func(r *Recorder, _ int, v float64) { r.longest = v; r.longestSets++ }}
}
func (r *Recorder) NewRetriesMetric(string) workqueue.CounterMetric {
	return metric{r, func(r *Recorder, d int, _ float64) { r.retries += d }}
}
