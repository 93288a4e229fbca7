package bench

import (
	"sync/atomic"

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
)

// countingProvider is an actor.MetricsProvider whose metrics only count
// their calls, so that a benchmark measures what recording costs the queue
// and not a metrics library. Per actor's contract its metrics are used only
// by the queue's owner goroutine, so the counts are plain ints: read them
// after ShutDown has returned.
type countingProvider struct {
	depth, adds, retries      counter
	latency, workDuration     counter
	unfinished, longestRunner counter
}

// counter counts the calls of every metric method.
type counter struct{ n int }

func (c *counter) Inc()            { c.n++ }
func (c *counter) Dec()            { c.n++ }
func (c *counter) Observe(float64) { c.n++ }
func (c *counter) Set(float64)     { c.n++ }

func (p *countingProvider) NewDepthMetric(string) actor.GaugeMetric       { return &p.depth }
func (p *countingProvider) NewAddsMetric(string) actor.CounterMetric      { return &p.adds }
func (p *countingProvider) NewLatencyMetric(string) actor.HistogramMetric { return &p.latency }
func (p *countingProvider) NewWorkDurationMetric(string) actor.HistogramMetric {
	return &p.workDuration
}
func (p *countingProvider) NewUnfinishedWorkSecondsMetric(string) actor.SettableGaugeMetric {
	return &p.unfinished
}
func (p *countingProvider) NewLongestRunningProcessorSecondsMetric(string) actor.SettableGaugeMetric {
	return &p.longestRunner
}
func (p *countingProvider) NewRetriesMetric(string) actor.CounterMetric { return &p.retries }

// atomicProvider is a client-go workqueue.MetricsProvider, which
// controller-runtime's priority queue takes too, whose metrics only count
// their calls, with atomics: cheap, and safe for the queues that call
// them from several goroutines (client-go's and controller-runtime's).
// BenchmarkController gives each queue one, so that all four record
// metrics through the same code.
type atomicProvider struct {
	depth, adds, retries      atomicCounter
	latency, workDuration     atomicCounter
	unfinished, longestRunner atomicCounter
}

// atomicCounter counts the calls of every metric method.
type atomicCounter struct{ n atomic.Int64 }

// Inc counts a call.
func (c *atomicCounter) Inc() { c.n.Add(1) }

// Dec counts a call.
func (c *atomicCounter) Dec() { c.n.Add(1) }

// Observe counts a call.
func (c *atomicCounter) Observe(float64) { c.n.Add(1) }

// Set counts a call.
func (c *atomicCounter) Set(float64) { c.n.Add(1) }

// NewDepthMetric returns the depth counter, whatever the queue's name.
func (p *atomicProvider) NewDepthMetric(string) workqueue.GaugeMetric { return &p.depth }

// NewAddsMetric returns the adds counter.
func (p *atomicProvider) NewAddsMetric(string) workqueue.CounterMetric { return &p.adds }

// NewLatencyMetric returns the latency counter.
func (p *atomicProvider) NewLatencyMetric(string) workqueue.HistogramMetric { return &p.latency }

// NewWorkDurationMetric returns the work duration counter.
func (p *atomicProvider) NewWorkDurationMetric(string) workqueue.HistogramMetric {
	return &p.workDuration
}

// NewUnfinishedWorkSecondsMetric returns the unfinished work counter.
func (p *atomicProvider) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return &p.unfinished
}

// NewLongestRunningProcessorSecondsMetric returns the longest running
// processor counter.
func (p *atomicProvider) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return &p.longestRunner
}

// NewRetriesMetric returns the retries counter.
func (p *atomicProvider) NewRetriesMetric(string) workqueue.CounterMetric { return &p.retries }
