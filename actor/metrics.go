package actor

import (
	"sync"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/state"
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
	// As client-go's ticker on a fake clock, a refresh counts an item
	// whose Done is stamped at the refresh's very instant.
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

// KeyMetricsProvider is implemented by a [MetricsProvider] that also
// records, for a queue with fairness, the items ready and the items
// processing of each first-level key (an item offered on the items
// channel counts as processing, as it does against a cap). The busiest
// keys (by ready plus processing; [Config.KeyMetricsLimit] of them, 25 by
// default) get a series each, and the others are summed under the key
// "other" (with a real key of that name). A key's series is deleted when
// it has nothing, or falls out of the busiest. The gauges are refreshed
// with the unfinished-work gauges: every 500ms of the queue's clock while
// anything is ready or processing, and once more after.
//
// Experimental: the per-key gauges may change before v1.
type KeyMetricsProvider interface {
	NewKeyDepthMetric(name string) KeyGaugeMetric
	NewKeyProcessingMetric(name string) KeyGaugeMetric
}

// KeyHeldMetricsProvider is implemented by a [KeyMetricsProvider] that
// also records, for each of the busiest first-level keys, its ready items
// held back: at its cap (reason "cap"), or waiting for a token of its
// rate or the end of a pause (reason "rate"); 0 when they are not held.
// Keys held at the second level only count as not held, and the sum of
// the other keys has no series.
//
// Experimental: the per-key gauges may change before v1.
type KeyHeldMetricsProvider interface {
	NewKeyHeldMetric(name, reason string) KeyGaugeMetric
}

// KeyAdaptiveMetricsProvider is implemented by a [KeyMetricsProvider]
// that also records, for each of the busiest first-level keys with an
// adaptive cap ([AdaptiveCap]), the cap it has learnt and the throttles
// reported for it ([Queue.Throttled]) while the queue remembers the key.
//
// Experimental: the per-key gauges may change before v1.
type KeyAdaptiveMetricsProvider interface {
	NewKeyCapMetric(name string) KeyGaugeMetric
	NewKeyThrottlesMetric(name string) KeyGaugeMetric
}

// KeyGaugeMetric is a gauge with a key label.
//
// Experimental: the per-key gauges may change before v1.
type KeyGaugeMetric interface {
	Set(key string, value float64)
	Delete(key string)
}

// PriorityGaugeMetric is a gauge by priority that goes up and down by one.
type PriorityGaugeMetric interface {
	Inc(priority int)
	Dec(priority int)
}

// defaultKeyMetricsLimit is how many keys get series of their own by
// default, as controller-runtime caps the priorities it labels.
const defaultKeyMetricsLimit = 25

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

// newMetrics makes the metrics of a queue, or returns nil when the queue
// is unnamed. A named queue without a provider gets bookkeeping with no
// metric: it keeps the instants its snapshots show (the ages of items).
// It runs in the caller of New, so a provider that panics there panics in
// the caller.
func newMetrics[T comparable](name string, p MetricsProvider, keyed bool, keyLimit int) *state.Metrics[T] {
	if name == "" {
		return nil
	}
	if p == nil {
		p = globalProvider()
	}
	if p == nil {
		return state.NewMetrics[T](state.MetricSet{})
	}
	s := state.MetricSet{ // in client-go's order of the New calls
		Depth:          p.NewDepthMetric(name),
		Adds:           p.NewAddsMetric(name),
		Latency:        p.NewLatencyMetric(name),
		WorkDuration:   p.NewWorkDurationMetric(name),
		Unfinished:     p.NewUnfinishedWorkSecondsMetric(name),
		LongestRunning: p.NewLongestRunningProcessorSecondsMetric(name),
		Retries:        p.NewRetriesMetric(name),
	}
	if dp, ok := p.(DelayedMetricsProvider); ok {
		s.Delayed = dp.NewDelayedMetric(name)
	}
	if pp, ok := p.(PriorityMetricsProvider); ok {
		s.DepthByPrio = pp.NewDepthMetricWithPriority(name)
	}
	if kp, ok := p.(KeyMetricsProvider); ok && keyed {
		s.KeyDepth, s.KeyProcessing = kp.NewKeyDepthMetric(name), kp.NewKeyProcessingMetric(name)
		if hp, ok := p.(KeyHeldMetricsProvider); ok {
			s.KeyHeldByCap, s.KeyHeldByRate = hp.NewKeyHeldMetric(name, "cap"), hp.NewKeyHeldMetric(name, "rate")
		}
		if ap, ok := p.(KeyAdaptiveMetricsProvider); ok {
			s.KeyCap, s.KeyThrottles = ap.NewKeyCapMetric(name), ap.NewKeyThrottlesMetric(name)
		}
		s.KeyLimit = keyLimit
		if keyLimit <= 0 {
			s.KeyLimit = defaultKeyMetricsLimit
		}
	}
	return state.NewMetrics[T](s)
}
