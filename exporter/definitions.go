package exporter

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The metric names, without the "workqueue_" prefix (Subsystem).
const (
	subsystem         = "workqueue"
	depthKey          = "depth"
	addsKey           = "adds_total"
	queueLatencyKey   = "queue_duration_seconds"
	workDurationKey   = "work_duration_seconds"
	unfinishedWorkKey = "unfinished_work_seconds"
	longestRunningKey = "longest_running_processor_seconds"
	retriesKey        = "retries_total"
	delayedKey        = "delayed_items"
	keyDepthKey       = "key_depth"
	keyProcessingKey  = "key_processing"
	keyHeldKey        = "key_held_items"
	keyCapKey         = "key_cap"
	keyThrottlesKey   = "key_throttles"
)

// Help texts shared by both flavours.
const (
	helpAdds         = "Total number of adds handled by workqueue"
	helpWorkDuration = "How long in seconds processing an item from workqueue takes."
	helpLongest      = "How many seconds has the longest running processor for workqueue been running."
	helpRetries      = "Total number of retries handled by workqueue"
	helpDelayed      = "Current number of items waiting on a delay before they are added to workqueue"
	helpKeyDepth     = "Current number of items ready in workqueue, per first-level fairness key (the busiest keys; the rest under key=\"other\")"
	helpKeyProc      = "Current number of items being processed from workqueue, per first-level fairness key (the busiest keys; the rest under key=\"other\")"
	helpKeyHeld      = "Current number of items ready in workqueue and held back, per first-level fairness key (the busiest keys) and reason: cap (the key is at its cap) or rate (it waits for a token of its rate, or the end of a pause)"
	helpKeyCap       = "Current cap learnt by the adaptive cap of each first-level fairness key that has one (the busiest keys)"
	helpKeyThrottles = "Number of throttles reported for each first-level fairness key with an adaptive cap (the busiest keys) while workqueue remembers the key"
)

// flavour is one set of definitions of the seven client-go workqueue
// metrics: names, help texts, labels and buckets as one project registers
// them. The label values of a queue are derived from its name alone.
type flavour struct {
	help struct{ depth, latency, unfinished string }
	// labels are the label names of every metric but depth; depthLabels
	// those of depth.
	labels, depthLabels []string
	// values and depthValues give the label values for a queue name.
	values, depthValues func(name string) []string
	// histogram completes the options of the two histograms.
	histogram func(o *prometheus.HistogramOpts)
}

// componentBase is k8s.io/component-base/metrics/prometheus/workqueue, the
// provider Kubernetes' own components install into client-go: label
// "name", buckets from 1µs to 1000s.
var componentBase = flavour{
	help: struct{ depth, latency, unfinished string }{
		depth:   "Current depth of workqueue",
		latency: "How long in seconds an item stays in workqueue before being requested.",
		unfinished: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
			"Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
	},
	labels:      []string{"name"},
	depthLabels: []string{"name"},
	values:      func(name string) []string { return []string{name} },
	depthValues: func(name string) []string { return []string{name} },
	histogram: func(o *prometheus.HistogramOpts) {
		o.Buckets = prometheus.ExponentialBuckets(10e-7, 10, 10)
	},
}

// controllerRuntime is sigs.k8s.io/controller-runtime/pkg/metrics'
// workqueue.go: labels "name" and "controller" (both the queue's name),
// depth also "priority" (empty), buckets from 10ns to 1000s plus native
// histograms.
var controllerRuntime = flavour{
	help: struct{ depth, latency, unfinished string }{
		depth:   "Current depth of workqueue by workqueue and priority",
		latency: "How long in seconds an item stays in workqueue before being requested",
		unfinished: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
			"Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
	},
	labels:      []string{"name", "controller"},
	depthLabels: []string{"name", "controller", "priority"},
	values:      func(name string) []string { return []string{name, name} },
	depthValues: func(name string) []string { return []string{name, name, ""} },
	histogram: func(o *prometheus.HistogramOpts) {
		o.Buckets = prometheus.ExponentialBuckets(10e-9, 10, 12)
		o.NativeHistogramBucketFactor = 1.1
		o.NativeHistogramMaxBucketNumber = 100
		o.NativeHistogramMinResetDuration = time.Hour
	},
}

// collectors are the Prometheus vectors a Provider records into.
type collectors struct {
	depth          *prometheus.GaugeVec
	adds           *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	workDuration   *prometheus.HistogramVec
	unfinished     *prometheus.GaugeVec
	longestRunning *prometheus.GaugeVec
	retries        *prometheus.CounterVec
	delayed        *prometheus.GaugeVec
	keyDepth       *prometheus.GaugeVec
	keyProcessing  *prometheus.GaugeVec
	keyHeld        *prometheus.GaugeVec
	keyCap         *prometheus.GaugeVec
	keyThrottles   *prometheus.GaugeVec
}

// newCollectors makes, but does not register, the collectors of f.
func (f flavour) newCollectors() collectors {
	histogram := func(name, help string) *prometheus.HistogramVec {
		o := prometheus.HistogramOpts{Subsystem: subsystem, Name: name, Help: help}
		f.histogram(&o)
		return prometheus.NewHistogramVec(o, f.labels)
	}
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: name, Help: help}, labels)
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: name, Help: help}, f.labels)
	}
	return collectors{
		depth:          gauge(depthKey, f.help.depth, f.depthLabels),
		adds:           counter(addsKey, helpAdds),
		latency:        histogram(queueLatencyKey, f.help.latency),
		workDuration:   histogram(workDurationKey, helpWorkDuration),
		unfinished:     gauge(unfinishedWorkKey, f.help.unfinished, f.labels),
		longestRunning: gauge(longestRunningKey, helpLongest, f.labels),
		retries:        counter(retriesKey, helpRetries),
		delayed:        gauge(delayedKey, helpDelayed, f.labels),
		keyDepth:       gauge(keyDepthKey, helpKeyDepth, append(slices.Clip(f.labels), "key")),
		keyProcessing:  gauge(keyProcessingKey, helpKeyProc, append(slices.Clip(f.labels), "key")),
		keyHeld:        gauge(keyHeldKey, helpKeyHeld, append(slices.Clip(f.labels), "reason", "key")),
		keyCap:         gauge(keyCapKey, helpKeyCap, append(slices.Clip(f.labels), "key")),
		keyThrottles:   gauge(keyThrottlesKey, helpKeyThrottles, append(slices.Clip(f.labels), "key")),
	}
}
