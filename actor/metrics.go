package actor

import (
	"sync"
	"sync/atomic"
	"time"
)

// The metric interfaces have the method sets of client-go's workqueue metric
// interfaces, so client-go metric values (and Prometheus collectors) can be
// used directly.

// GaugeMetric is a gauge that goes up and down by one.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a gauge set to a value.
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric is a counter that goes up by one.
type CounterMetric interface {
	Inc()
}

// HistogramMetric observes values, in seconds.
type HistogramMetric interface {
	Observe(float64)
}

// A MetricsProvider makes the metrics of a named queue. Its methods have
// the names and meanings of client-go's workqueue.MetricsProvider; the
// adapter module turns a client-go provider into one.
//
// The New methods are called once per queue, in [New]. The metric values
// they return are then used only by the queue's owner goroutine; a metric
// that panics is recovered there and the queue keeps working.
type MetricsProvider interface {
	// NewDepthMetric: items waiting to be handed out, counting an item
	// added again while it is processing.
	NewDepthMetric(name string) GaugeMetric
	// NewAddsMetric: adds that made an item wait to run.
	NewAddsMetric(name string) CounterMetric
	// NewLatencyMetric: seconds from an item becoming ready (for a delayed
	// item, its deadline being reached) to a consumer receiving it.
	NewLatencyMetric(name string) HistogramMetric
	// NewWorkDurationMetric: seconds from a consumer receiving an item to
	// its Done.
	NewWorkDurationMetric(name string) HistogramMetric
	// NewUnfinishedWorkSecondsMetric: sum of the ages of the items being
	// processed, refreshed every 500ms of the queue's clock while any is.
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	// NewLongestRunningProcessorSecondsMetric: age of the oldest item being
	// processed, refreshed with the unfinished work seconds.
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	// NewRetriesMetric: calls to AddAfter and AddRateLimited.
	NewRetriesMetric(name string) CounterMetric
}

// DelayedMetricsProvider is implemented by a [MetricsProvider] that also
// records how many items wait on a delay, which client-go does not report.
type DelayedMetricsProvider interface {
	NewDelayedMetric(name string) SettableGaugeMetric
}

var global struct {
	once sync.Once
	p    atomic.Pointer[MetricsProvider]
}

// SetProvider sets the MetricsProvider used by named queues whose Config
// has none. Only the first call has an effect, as with client-go's
// workqueue.SetProvider; queues created before it record nothing. It is
// safe for concurrent use.
func SetProvider(p MetricsProvider) {
	global.once.Do(func() { global.p.Store(&p) })
}

func globalProvider() MetricsProvider {
	if p := global.p.Load(); p != nil {
		return *p
	}
	return nil
}

// updatePeriod is how often the unfinished-work gauges are refreshed while
// items are processing (client-go's unfinishedWorkUpdatePeriod).
const updatePeriod = 500 * time.Millisecond

// metrics is the bookkeeping of a named queue with a provider. A nil
// *metrics records nothing and costs one comparison per call. Only the
// owner goroutine uses it.
type metrics[T comparable] struct {
	clock Clock

	depth          GaugeMetric
	adds           CounterMetric
	latency        HistogramMetric
	workDuration   HistogramMetric
	unfinished     SettableGaugeMetric
	longestRunning SettableGaugeMetric
	retries        CounterMetric
	delayed        SettableGaugeMetric

	addTimes   map[T]time.Time // when each waiting item became ready
	startTimes map[T]time.Time // when each processing item was handed out
	published  bool            // the unfinished gauges last showed work
}

// newMetrics makes the metrics of a queue, or returns nil when the queue is
// unnamed or no provider is set. It runs in the caller of New, so a provider
// that panics there panics in the caller.
func newMetrics[T comparable](name string, p MetricsProvider, clock Clock) *metrics[T] {
	if name == "" {
		return nil
	}
	if p == nil {
		p = globalProvider()
	}
	if p == nil {
		return nil
	}
	m := &metrics[T]{
		clock:          clock,
		depth:          safeGauge{p.NewDepthMetric(name)},
		adds:           safeCounter{p.NewAddsMetric(name)},
		latency:        safeHistogram{p.NewLatencyMetric(name)},
		workDuration:   safeHistogram{p.NewWorkDurationMetric(name)},
		unfinished:     safeSettable{p.NewUnfinishedWorkSecondsMetric(name)},
		longestRunning: safeSettable{p.NewLongestRunningProcessorSecondsMetric(name)},
		retries:        safeCounter{p.NewRetriesMetric(name)},
		delayed:        safeSettable{},
		addTimes:       make(map[T]time.Time),
		startTimes:     make(map[T]time.Time),
	}
	if dp, ok := p.(DelayedMetricsProvider); ok {
		m.delayed = safeSettable{dp.NewDelayedMetric(name)}
	}
	return m
}

func (m *metrics[T]) add(item T) {
	if m == nil {
		return
	}
	m.adds.Inc()
	m.depth.Inc()
	if _, ok := m.addTimes[item]; !ok {
		m.addTimes[item] = m.clock.Now()
	}
}

func (m *metrics[T]) get(item T) {
	if m == nil {
		return
	}
	m.getAt(item, m.clock.Now())
}

// getAt records that item was handed out at now (for an item claimed from
// the lane, the consumer's reading of the clock when it claimed it).
func (m *metrics[T]) getAt(item T, now time.Time) {
	m.depth.Dec()
	if t, ok := m.addTimes[item]; ok {
		m.latency.Observe(now.Sub(t).Seconds())
		delete(m.addTimes, item)
	}
	m.startTimes[item] = now
}

func (m *metrics[T]) done(item T) {
	if m == nil {
		return
	}
	if t, ok := m.startTimes[item]; ok {
		m.workDuration.Observe(m.clock.Now().Sub(t).Seconds())
		delete(m.startTimes, item)
	}
}

func (m *metrics[T]) retry() {
	if m == nil {
		return
	}
	m.retries.Inc()
}

// shutdown lowers the depth by the n items that were waiting when the
// queue ended: Get hands them out without the owner goroutine, and items
// added again while processing are dropped.
func (m *metrics[T]) shutdown(n int) {
	if m == nil {
		return
	}
	for range n {
		m.depth.Dec()
	}
}

func (m *metrics[T]) setDelayed(n int) {
	if m == nil {
		return
	}
	m.delayed.Set(float64(n))
}

// wantsTick reports whether the unfinished-work gauges need a refresh in
// updatePeriod: while items are processing, and once more after, to show 0.
func (m *metrics[T]) wantsTick() bool {
	return m != nil && (len(m.startTimes) > 0 || m.published)
}

// updateUnfinished refreshes the unfinished-work gauges.
func (m *metrics[T]) updateUnfinished() {
	if m == nil {
		return
	}
	now := m.clock.Now()
	var total, oldest float64
	for _, t := range m.startTimes {
		age := now.Sub(t).Seconds()
		total += age
		oldest = max(oldest, age)
	}
	m.unfinished.Set(total)
	m.longestRunning.Set(oldest)
	m.published = len(m.startTimes) > 0
}

// The safe wrappers recover a panicking metric, so that a broken provider
// cannot end the owner goroutine. A nil metric records nothing.

type safeGauge struct{ g GaugeMetric }

func (s safeGauge) Inc() {
	if s.g != nil {
		defer recoverMetric()
		s.g.Inc()
	}
}

func (s safeGauge) Dec() {
	if s.g != nil {
		defer recoverMetric()
		s.g.Dec()
	}
}

type safeCounter struct{ c CounterMetric }

func (s safeCounter) Inc() {
	if s.c != nil {
		defer recoverMetric()
		s.c.Inc()
	}
}

type safeHistogram struct{ h HistogramMetric }

func (s safeHistogram) Observe(v float64) {
	if s.h != nil {
		defer recoverMetric()
		s.h.Observe(v)
	}
}

type safeSettable struct{ g SettableGaugeMetric }

func (s safeSettable) Set(v float64) {
	if s.g != nil {
		defer recoverMetric()
		s.g.Set(v)
	}
}

func recoverMetric() { _ = recover() }
