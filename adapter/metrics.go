package adapter

import (
	"reflect"
	"sync"
	_ "unsafe" // for go:linkname

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
)

// clientGoProvider is client-go's global metrics provider, the one
// workqueue.SetProvider sets. controller-runtime sets it in an init function
// of its metrics package, so that every named queue of every controller
// reports to controller-runtime's Prometheus registry; reading it lets
// adapter queues report there too, as the client-go queues they replace
// did. client-go has no getter for it.
//
//go:linkname clientGoProvider k8s.io/client-go/util/workqueue.globalMetricsProvider
var clientGoProvider workqueue.MetricsProvider

// providerMu orders SetProvider before the reads of clientGoProvider made
// by constructors.
var providerMu sync.Mutex

// SetProvider sets the metrics provider of every queue created afterwards
// whose config names no provider: adapter queues and client-go queues alike,
// because it calls client-go's workqueue.SetProvider. As in client-go, only
// the first call (of this function or of client-go's) has an effect.
//
// A provider set earlier with client-go's workqueue.SetProvider, as
// controller-runtime does when its metrics package is imported, is used by
// adapter queues too. A direct call of client-go's SetProvider must not run
// concurrently with the creation of an adapter queue; package init
// functions, where such calls live, are fine.
//
// SetProvider is safe for concurrent use with itself and with the
// constructors of this package.
func SetProvider(metricsProvider MetricsProvider) {
	providerMu.Lock()
	defer providerMu.Unlock()
	workqueue.SetProvider(metricsProvider)
}

// noopProvider is the type of client-go's default global provider, which
// records nothing.
var noopProvider = reflect.TypeOf(clientGoProvider)

// actorProvider returns the provider a queue uses: the config's, else the
// global one, as an actor.MetricsProvider. It returns nil, so that the
// queue keeps no metrics bookkeeping, when the queue is unnamed or the
// provider is client-go's no-op default.
func actorProvider(name string, p MetricsProvider) actor.MetricsProvider {
	if name == "" {
		return nil
	}
	if p == nil {
		providerMu.Lock()
		p = clientGoProvider
		providerMu.Unlock()
	}
	if p == nil || reflect.TypeOf(p) == noopProvider {
		return nil
	}
	return metricsProvider{p}
}

// metricsProvider is a client-go MetricsProvider seen as an
// actor.MetricsProvider. client-go's metric interfaces have the method sets
// of actor's, so each method only passes the metric on.
type metricsProvider struct{ p MetricsProvider }

func (m metricsProvider) NewDepthMetric(name string) actor.GaugeMetric {
	return m.p.NewDepthMetric(name)
}

func (m metricsProvider) NewAddsMetric(name string) actor.CounterMetric {
	return m.p.NewAddsMetric(name)
}

func (m metricsProvider) NewLatencyMetric(name string) actor.HistogramMetric {
	return m.p.NewLatencyMetric(name)
}

func (m metricsProvider) NewWorkDurationMetric(name string) actor.HistogramMetric {
	return m.p.NewWorkDurationMetric(name)
}

func (m metricsProvider) NewUnfinishedWorkSecondsMetric(name string) actor.SettableGaugeMetric {
	return m.p.NewUnfinishedWorkSecondsMetric(name)
}

func (m metricsProvider) NewLongestRunningProcessorSecondsMetric(name string) actor.SettableGaugeMetric {
	return m.p.NewLongestRunningProcessorSecondsMetric(name)
}

func (m metricsProvider) NewRetriesMetric(name string) actor.CounterMetric {
	return m.p.NewRetriesMetric(name)
}
