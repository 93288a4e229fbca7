package exporter

import (
	"errors"
	"fmt"
	"slices"

	"github.com/actorq/actorq/actor"
	"github.com/prometheus/client_golang/prometheus"
)

// A Provider is an [actor.MetricsProvider] and [actor.DelayedMetricsProvider]
// (and, for the per-key gauges, an [actor.KeyMetricsProvider],
// [actor.KeyHeldMetricsProvider] and [actor.KeyAdaptiveMetricsProvider])
// that records a queue's metrics in Prometheus collectors, one series per
// queue name. Give it to a queue in [actor.Config].MetricsProvider or
// process-wide with [actor.SetProvider]; only named queues record.
//
// A Provider is safe for concurrent use by multiple goroutines, and one
// Provider serves any number of queues. Two queues with the same name share
// their series.
type Provider struct {
	f flavour
	c collectors
}

var (
	_ actor.MetricsProvider            = (*Provider)(nil)
	_ actor.DelayedMetricsProvider     = (*Provider)(nil)
	_ actor.KeyMetricsProvider         = (*Provider)(nil)
	_ actor.KeyHeldMetricsProvider     = (*Provider)(nil)
	_ actor.KeyAdaptiveMetricsProvider = (*Provider)(nil)
)

// New registers the workqueue metrics in reg, as client-go's standard
// Prometheus provider (k8s.io/component-base/metrics/prometheus/workqueue)
// defines them, and returns a Provider that records into them:
//
//	workqueue_depth                              gauge      {name}
//	workqueue_adds_total                         counter    {name}
//	workqueue_queue_duration_seconds             histogram  {name}
//	workqueue_work_duration_seconds              histogram  {name}
//	workqueue_unfinished_work_seconds            gauge      {name}
//	workqueue_longest_running_processor_seconds  gauge      {name}
//	workqueue_retries_total                      counter    {name}
//	workqueue_delayed_items                      gauge      {name}
//	workqueue_key_depth                          gauge      {name, key}
//	workqueue_key_processing                     gauge      {name, key}
//	workqueue_key_held_items                     gauge      {name, reason, key}
//	workqueue_key_cap                            gauge      {name, key}
//	workqueue_key_throttles                      gauge      {name, key}
//
// The last six are actorq's own: the number of items waiting on a
// delay, and for a queue with fairness the items ready and processing per
// first-level key (see [actor.KeyMetricsProvider]: the busiest keys, the
// rest summed under key="other"), the ready items held back by reason
// ([actor.KeyHeldMetricsProvider]), and for a key with an adaptive cap the
// cap it has learnt and the throttles reported for it
// ([actor.KeyAdaptiveMetricsProvider]). client-go and controller-runtime
// have no per-key metrics; the depth cannot take a key label, since one
// name has one set of labels in a registry.
// A nil reg means [prometheus.DefaultRegisterer].
//
// Where reg already holds an identical collector (an earlier New on the
// same registry), New records into that one instead. Any other conflict
// (the same name with other labels or help text) is an error, and then New
// registers nothing.
func New(reg prometheus.Registerer) (*Provider, error) {
	return newProvider(reg, componentBase)
}

// NewControllerRuntime is like [New], but defines the seven client-go
// metrics as controller-runtime's metrics package does (labels "name" and
// "controller", both set to the queue's name; depth also "priority", set to
// ""; its help texts and buckets). Given controller-runtime's
// metrics.Registry, which already holds those collectors, it records into
// them, so actorq queues appear next to controller-runtime's own.
// workqueue_delayed_items gets the labels "name" and "controller", and the
// per-key gauges those and "key".
func NewControllerRuntime(reg prometheus.Registerer) (*Provider, error) {
	return newProvider(reg, controllerRuntime)
}

func newProvider(reg prometheus.Registerer, f flavour) (*Provider, error) {
	if reg == nil {
		reg = prometheus.DefaultRegisterer
	}
	c := f.newCollectors()
	var r registration
	use(&r, reg, &c.depth)
	use(&r, reg, &c.adds)
	use(&r, reg, &c.latency)
	use(&r, reg, &c.workDuration)
	use(&r, reg, &c.unfinished)
	use(&r, reg, &c.longestRunning)
	use(&r, reg, &c.retries)
	use(&r, reg, &c.delayed)
	use(&r, reg, &c.keyDepth)
	use(&r, reg, &c.keyProcessing)
	use(&r, reg, &c.keyHeld)
	use(&r, reg, &c.keyCap)
	use(&r, reg, &c.keyThrottles)
	if r.err != nil {
		r.undo(reg)
		return nil, r.err
	}
	return &Provider{f: f, c: c}, nil
}

// registration registers collectors one by one, remembering the ones it
// added so that a failure can take them back.
type registration struct {
	added []prometheus.Collector
	err   error
}

// use registers *c in reg, or replaces *c with the identical collector reg
// already holds. After an error it does nothing.
func use[C prometheus.Collector](r *registration, reg prometheus.Registerer, c *C) {
	if r.err != nil {
		return
	}
	err := reg.Register(*c)
	if err == nil {
		r.added = append(r.added, *c)
		return
	}
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) {
		r.err = fmt.Errorf("exporter: %w", err)
		return
	}
	existing, ok := are.ExistingCollector.(C)
	if !ok {
		r.err = fmt.Errorf("exporter: %w, as a %T; want a %T", err, are.ExistingCollector, *c)
		return
	}
	*c = existing
}

func (r *registration) undo(reg prometheus.Registerer) {
	for _, c := range r.added {
		reg.Unregister(c)
	}
}

// NewDepthMetric returns the workqueue_depth series of the queue name.
func (p *Provider) NewDepthMetric(name string) actor.GaugeMetric {
	return p.c.depth.WithLabelValues(p.f.depthValues(name)...)
}

// NewAddsMetric returns the workqueue_adds_total series of the queue name.
func (p *Provider) NewAddsMetric(name string) actor.CounterMetric {
	return p.c.adds.WithLabelValues(p.f.values(name)...)
}

// NewLatencyMetric returns the workqueue_queue_duration_seconds series of
// the queue name.
func (p *Provider) NewLatencyMetric(name string) actor.HistogramMetric {
	return p.c.latency.WithLabelValues(p.f.values(name)...)
}

// NewWorkDurationMetric returns the workqueue_work_duration_seconds series
// of the queue name.
func (p *Provider) NewWorkDurationMetric(name string) actor.HistogramMetric {
	return p.c.workDuration.WithLabelValues(p.f.values(name)...)
}

// NewUnfinishedWorkSecondsMetric returns the
// workqueue_unfinished_work_seconds series of the queue name.
func (p *Provider) NewUnfinishedWorkSecondsMetric(name string) actor.SettableGaugeMetric {
	return p.c.unfinished.WithLabelValues(p.f.values(name)...)
}

// NewLongestRunningProcessorSecondsMetric returns the
// workqueue_longest_running_processor_seconds series of the queue name.
func (p *Provider) NewLongestRunningProcessorSecondsMetric(name string) actor.SettableGaugeMetric {
	return p.c.longestRunning.WithLabelValues(p.f.values(name)...)
}

// NewRetriesMetric returns the workqueue_retries_total series of the queue
// name.
func (p *Provider) NewRetriesMetric(name string) actor.CounterMetric {
	return p.c.retries.WithLabelValues(p.f.values(name)...)
}

// NewDelayedMetric returns the workqueue_delayed_items series of the queue
// name: how many of its items wait on a delay.
func (p *Provider) NewDelayedMetric(name string) actor.SettableGaugeMetric {
	return p.c.delayed.WithLabelValues(p.f.values(name)...)
}

// NewKeyDepthMetric returns the workqueue_key_depth series of the queue
// name, by key.
//
// Experimental: the per-key gauges may change before v1.
func (p *Provider) NewKeyDepthMetric(name string) actor.KeyGaugeMetric {
	return keyGauge{p.c.keyDepth, p.f.values(name)}
}

// NewKeyProcessingMetric returns the workqueue_key_processing series of
// the queue name, by key.
//
// Experimental: the per-key gauges may change before v1.
func (p *Provider) NewKeyProcessingMetric(name string) actor.KeyGaugeMetric {
	return keyGauge{p.c.keyProcessing, p.f.values(name)}
}

// NewKeyHeldMetric returns the workqueue_key_held_items series of the
// queue name for reason ("cap" or "rate"), by key.
//
// Experimental: the per-key gauges may change before v1.
func (p *Provider) NewKeyHeldMetric(name, reason string) actor.KeyGaugeMetric {
	return keyGauge{p.c.keyHeld, append(p.f.values(name), reason)}
}

// NewKeyCapMetric returns the workqueue_key_cap series of the queue
// name, by key: the cap each key with an adaptive cap has learnt.
//
// Experimental: the per-key gauges may change before v1.
func (p *Provider) NewKeyCapMetric(name string) actor.KeyGaugeMetric {
	return keyGauge{p.c.keyCap, p.f.values(name)}
}

// NewKeyThrottlesMetric returns the workqueue_key_throttles series of the
// queue name, by key: the throttles reported for each key with an
// adaptive cap while the queue remembers the key.
//
// Experimental: the per-key gauges may change before v1.
func (p *Provider) NewKeyThrottlesMetric(name string) actor.KeyGaugeMetric {
	return keyGauge{p.c.keyThrottles, p.f.values(name)}
}

// keyGauge is the series of one queue in a gauge vector with a key label.
type keyGauge struct {
	v      *prometheus.GaugeVec
	values []string // the queue's label values, without the key
}

func (g keyGauge) Set(key string, v float64) {
	g.v.WithLabelValues(append(slices.Clip(g.values), key)...).Set(v)
}

func (g keyGauge) Delete(key string) {
	g.v.DeleteLabelValues(append(slices.Clip(g.values), key)...)
}
