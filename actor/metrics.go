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

// PriorityMetricsProvider is implemented by a [MetricsProvider] whose
// depth metric has a priority label, as controller-runtime's has. A queue
// with such a provider records its depth there, by priority, instead of in
// NewDepthMetric's.
type PriorityMetricsProvider interface {
	NewDepthMetricWithPriority(name string) PriorityGaugeMetric
}

// PriorityGaugeMetric is a gauge by priority that goes up and down by one.
type PriorityGaugeMetric interface {
	Inc(priority int)
	Dec(priority int)
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
// owner goroutine uses it while it runs; after it ends, the callers that
// take turns with the queue's state (lifetime.go).
//
// Values and update points are client-go's: an add that makes an item wait
// (depth up, adds), a hand-out (depth down, latency from the item becoming
// ready, or its deadline passing), a Done (work duration). The two
// unfinished-work gauges are refreshed at the instants client-go's ticker
// fires, every updatePeriod counted from the queue's creation, while
// anything is processing (and once more after, to show zero), and not
// once shutdown has begun; an idle queue arms no timer for them.
type metrics[T comparable] struct {
	clock Clock
	epoch time.Time // the queue's creation: refreshes are at epoch + k*updatePeriod

	depth          GaugeMetric
	depthByPrio    PriorityGaugeMetric // instead of depth, if the provider has it
	adds           CounterMetric
	latency        HistogramMetric
	workDuration   HistogramMetric
	unfinished     SettableGaugeMetric
	longestRunning SettableGaugeMetric
	retries        CounterMetric
	delayed        SettableGaugeMetric

	// at is the instant of the event being applied: the caller's clock
	// reading when it made the call (requests carry it), or the owner's
	// for events of its own (a deadline passing, a hand-out to a waiting
	// call). Metrics then show client-go's values, which stamp each call
	// when it is made, however late the owner applies it.
	at time.Time

	addTimes   map[T]time.Time // when each waiting item became ready
	startTimes map[T]time.Time // when each processing item was handed out
	owed       bool            // a refresh is due at next: something processed since the last
	next       int64           // the next refresh instant, in nanoseconds since epoch

	// The last refresh: its reading of the clock and the values it set. A
	// Done stamped before that reading but applied after it (it was still
	// on its way to the owner) is taken out of them at once, as if it had
	// been applied before the refresh, as it was in client-go.
	refreshedAt    time.Time
	total, longest float64
}

// newMetrics makes the metrics of a queue, or returns nil when the queue is
// unnamed or no provider is set. It runs in the caller of New, so a provider
// that panics there panics in the caller.
func newMetrics[T comparable](name string, p MetricsProvider, clock Clock, epoch time.Time) *metrics[T] {
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
		epoch:          epoch,
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
	if pp, ok := p.(PriorityMetricsProvider); ok {
		m.depthByPrio = safePriorityGauge{pp.NewDepthMetricWithPriority(name)}
	}
	return m
}

// stampAt sets the instant of the events about to be applied to the
// caller's reading of the clock, in nanoseconds since the epoch.
func (m *metrics[T]) stampAt(since int64) {
	if m != nil {
		m.at = m.epoch.Add(time.Duration(since))
	}
}

// stampNow sets the instant of the events about to be applied to now: the
// owner's own events, and the calls applied directly after it ended.
func (m *metrics[T]) stampNow() {
	if m != nil {
		m.at = m.clock.Now()
	}
}

func (m *metrics[T]) add(item T, prio int) {
	if m == nil {
		return
	}
	m.adds.Inc()
	m.depthInc(prio)
	if _, ok := m.addTimes[item]; !ok {
		m.addTimes[item] = m.at
	}
}

// get records that item was handed out at at (for an item claimed from the
// lane, the consumer's reading of the clock when it claimed it).
func (m *metrics[T]) get(item T, prio int, at time.Time) {
	if m == nil {
		return
	}
	m.depthDec(prio)
	if t, ok := m.addTimes[item]; ok {
		m.latency.Observe(at.Sub(t).Seconds())
		delete(m.addTimes, item)
	}
	if !m.owed {
		// The first processing since the gauges were last refreshed: the
		// next refresh is client-go's next tick after the hand-out.
		m.owed = true
		m.next = (int64(at.Sub(m.epoch))/int64(updatePeriod) + 1) * int64(updatePeriod)
	}
	m.startTimes[item] = at
	if at.Before(m.refreshedAt) {
		// Claimed before the last refresh, learned of after it (a lane
		// claim): client-go's refresh counted it.
		age := m.refreshedAt.Sub(at).Seconds()
		m.total += age
		m.longest = max(m.longest, age)
		m.unfinished.Set(m.total)
		m.longestRunning.Set(m.longest)
	}
}

// moveDepth moves a ready item's count in the depth from priority from to
// priority to, as controller-runtime's does when a priority is raised.
func (m *metrics[T]) moveDepth(from, to int) {
	if m == nil || m.depthByPrio == nil {
		return
	}
	m.depthByPrio.Dec(from)
	m.depthByPrio.Inc(to)
}

func (m *metrics[T]) depthInc(prio int) {
	if m.depthByPrio != nil {
		m.depthByPrio.Inc(prio)
	} else {
		m.depth.Inc()
	}
}

func (m *metrics[T]) depthDec(prio int) {
	if m.depthByPrio != nil {
		m.depthByPrio.Dec(prio)
	} else {
		m.depth.Dec()
	}
}

func (m *metrics[T]) done(item T) {
	if m == nil {
		return
	}
	if t, ok := m.startTimes[item]; ok {
		m.workDuration.Observe(m.at.Sub(t).Seconds())
		delete(m.startTimes, item)
		if m.at.Before(m.refreshedAt) { // so was t: the refresh counted it
			m.unrefresh(m.refreshedAt.Sub(t).Seconds())
		}
	}
}

// unrefresh takes out of the last refresh's gauges an item that it counted
// as processing for age seconds but whose Done was stamped before it.
func (m *metrics[T]) unrefresh(age float64) {
	if age < m.longest {
		m.total = max(m.total-age, 0)
		m.unfinished.Set(m.total)
		return
	}
	m.updateUnfinished(m.refreshedAt) // it was the longest running
}

func (m *metrics[T]) retry() {
	if m == nil {
		return
	}
	m.retries.Inc()
}

func (m *metrics[T]) setDelayed(n int) {
	if m == nil {
		return
	}
	m.delayed.Set(float64(n))
}

// refresh refreshes the unfinished-work gauges if a refresh instant has
// passed since something was processing, and returns the next instant to
// wake for (nanoseconds since the epoch); ok is false when no refresh is
// owed, so that an idle queue arms nothing. The owner calls it on every
// round while the queue runs: however late it learns of a hand-out (a lane
// claim), the refresh happens as soon as it does, with the values client-go
// would show at that reading of the clock.
func (m *metrics[T]) refresh() (next int64, ok bool) {
	if m == nil || !m.owed {
		return 0, false
	}
	now := m.clock.Now()
	if n := int64(now.Sub(m.epoch)); n >= m.next {
		m.updateUnfinished(now)
		m.next = (n/int64(updatePeriod) + 1) * int64(updatePeriod)
		m.owed = len(m.startTimes) > 0
	}
	return m.next, m.owed
}

// updateUnfinished sets the unfinished-work gauges at now.
func (m *metrics[T]) updateUnfinished(now time.Time) {
	var total, oldest float64
	for _, t := range m.startTimes {
		age := now.Sub(t).Seconds()
		total += age
		oldest = max(oldest, age)
	}
	m.unfinished.Set(total)
	m.longestRunning.Set(oldest)
	m.refreshedAt, m.total, m.longest = now, total, oldest
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

type safePriorityGauge struct{ g PriorityGaugeMetric }

func (s safePriorityGauge) Inc(p int) {
	if s.g != nil {
		defer recoverMetric()
		s.g.Inc(p)
	}
}

func (s safePriorityGauge) Dec(p int) {
	if s.g != nil {
		defer recoverMetric()
		s.g.Dec(p)
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
