package adapter

import (
	"fmt"
	"reflect"
	"runtime/debug"
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

// The link is checked once, at start-up. A go:linkname that names a
// variable client-go no longer has links anyway, to a variable of the
// adapter's own that nothing else writes, so without the check adapter
// queues would silently ignore every provider set with SetProvider.
func init() {
	if err := checkLinkedProvider(clientGoProvider); err != nil {
		panic(err)
	}
}

// checkLinkedProvider returns an error if p, the value of
// clientGoProvider when this package is initialised, shows that the link
// did not reach client-go's variable.
//
// client-go declares "var globalMetricsProvider MetricsProvider =
// noopMetricsProvider{}", and this package is initialised after client-go's
// workqueue, which it imports, so p is that no-op provider, or a provider
// already set with client-go's SetProvider by a package initialised
// earlier: never nil. If the name no longer exists, clientGoProvider is a
// variable of its own, which only this package could write and never does:
// always nil. So p != nil is a conclusive test of the link, and a safe one:
// it reads the variable once and has no effect. Stronger-looking tests are
// worse. Calling client-go's SetProvider to see the value change would use
// up its once, so the program's own call would be ignored; creating a
// named client-go queue to see which provider it asks would register
// metrics and start a goroutine; checking that p has client-go's
// unexported type noopMetricsProvider would fail for a program whose init
// functions set a provider before this package's.
//
// The one nil that is not a broken link is a nil given to client-go's
// SetProvider before this package's initialisation, which also breaks
// client-go's own named queues (they call the provider's methods). A
// change of the variable's type under the same name cannot be detected
// this way; the adapter's tests of the global provider would catch it.
func checkLinkedProvider(p workqueue.MetricsProvider) error {
	if p != nil {
		return nil
	}
	return fmt.Errorf("adapter: k8s.io/client-go/util/workqueue.globalMetricsProvider, which the adapter reads "+
		"through go:linkname, is nil at start-up: client-go %s has probably renamed or removed it, so queues "+
		"would ignore providers set with SetProvider (or workqueue.SetProvider(nil) was called before the "+
		"adapter's initialisation)", clientGoVersion())
}

// clientGoVersion returns the version of k8s.io/client-go this program is
// built with, for messages.
func clientGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "k8s.io/client-go" {
				if m.Replace != nil {
					return fmt.Sprintf("%s (replaced by %s %s)", m.Version, m.Replace.Path, m.Replace.Version)
				}
				return m.Version
			}
		}
	}
	return "(version unknown)"
}

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

// linkedAtInit is the type of the value clientGoProvider held when this
// package was initialised: client-go's no-op default, unless a package
// initialised earlier set a provider. The tests use it as evidence that
// the link reaches client-go's variable.
var linkedAtInit = reflect.TypeOf(clientGoProvider)

// isNoopProvider reports whether p is client-go's default global provider,
// which records nothing. It is recognised by its type, client-go's
// unexported noopMetricsProvider, so a provider set before this package
// was initialised is not mistaken for it.
func isNoopProvider(p MetricsProvider) bool {
	t := reflect.TypeOf(p)
	return t != nil && t.PkgPath() == "k8s.io/client-go/util/workqueue" && t.Name() == "noopMetricsProvider"
}

// actorProvider returns the provider a queue uses: the config's, else the
// global one, as an actor.MetricsProvider. It returns nil, so that the
// queue keeps no metrics bookkeeping, when the queue is unnamed or the
// provider is client-go's no-op default.
func actorProvider(name string, p MetricsProvider) actor.MetricsProvider {
	if name == "" {
		return nil
	}
	if p == nil {
		p = GlobalMetricsProvider()
	}
	if p == nil || isNoopProvider(p) {
		return nil
	}
	return ActorMetricsProvider(p)
}

// ActorMetricsProvider returns p, a client-go MetricsProvider, as an
// actor.MetricsProvider: client-go's metric interfaces have the method
// sets of actor's, so each method only passes the metric on. It is what
// the queues of this package record to, exported for the other adapters
// built on actor (package priorityqueue).
func ActorMetricsProvider(p MetricsProvider) actor.MetricsProvider { return metricsProvider{p} }

// metricsProvider is a client-go MetricsProvider seen as an
// actor.MetricsProvider (see ActorMetricsProvider).
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
