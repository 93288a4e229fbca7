package priorityqueue

import (
	"reflect"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/adapter"
	"k8s.io/client-go/util/workqueue"
)

// metricsProvider returns the provider a queue named name uses: p, else
// the one set process-wide, as an actor.MetricsProvider; nil for an
// unnamed queue or when there is none.
//
// controller-runtime's provider records the depth with a priority label,
// through a method whose result type is in one of its internal packages,
// so a provider's NewDepthMetricWithPriority is found by reflection: any
// method of that name that takes the queue's name and returns a value with
// Inc(int) and Dec(int). Such a provider gets the depth by priority, and
// its NewDepthMetric is not called, as controller-runtime's queue does.
// controller-runtime's cap on distinct priority labels lives in its
// provider's metric, so it applies here too.
func metricsProvider(name string, p workqueue.MetricsProvider) actor.MetricsProvider {
	if name == "" {
		return nil
	}
	if p == nil {
		p = adapter.GlobalMetricsProvider()
	}
	if p == nil {
		return nil
	}
	m := reflect.ValueOf(p).MethodByName("NewDepthMetricWithPriority")
	if !m.IsValid() {
		return adapter.ActorMetricsProvider(p)
	}
	t := m.Type()
	if t.NumIn() != 1 || t.In(0) != reflect.TypeFor[string]() || t.IsVariadic() ||
		t.NumOut() != 1 || !t.Out(0).Implements(reflect.TypeFor[actor.PriorityGaugeMetric]()) {
		return adapter.ActorMetricsProvider(p)
	}
	return priorityProvider{adapter.ActorMetricsProvider(p), m}
}

// priorityProvider is a provider whose depth metric has a priority label:
// newDepth is its NewDepthMetricWithPriority method.
type priorityProvider struct {
	actor.MetricsProvider
	newDepth reflect.Value
}

// NewDepthMetric returns nil: the depth goes to the metric by priority.
func (m priorityProvider) NewDepthMetric(string) actor.GaugeMetric { return nil }

// NewDepthMetricWithPriority implements actor.PriorityMetricsProvider.
func (m priorityProvider) NewDepthMetricWithPriority(name string) actor.PriorityGaugeMetric {
	g, _ := m.newDepth.Call([]reflect.Value{reflect.ValueOf(name)})[0].Interface().(actor.PriorityGaugeMetric)
	return g
}
