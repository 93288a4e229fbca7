package bench

import "github.com/actorq/actorq/actor"

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
