package state

import (
	"math"
	"time"

	"github.com/actorq/actorq/actor/internal/order"
)

// The metric kinds have the method sets of actor's (and client-go's).
type (
	Gauge interface {
		Inc()
		Dec()
	}
	SettableGauge interface{ Set(float64) }
	Counter       interface{ Inc() }
	Histogram     interface{ Observe(float64) }
	PrioGauge     interface {
		Inc(int)
		Dec(int)
	}
)

// MetricSet is a queue's metric values, as a MetricsProvider made them.
// A nil field records nothing.
type MetricSet struct {
	Depth          Gauge
	DepthByPrio    PrioGauge // instead of Depth, if the provider has it
	Adds           Counter
	Latency        Histogram
	WorkDuration   Histogram
	Unfinished     SettableGauge
	LongestRunning SettableGauge
	Retries        Counter
	Delayed        SettableGauge

	// With fairness: the items ready and the items out (popped or
	// processing) of each first-level key, refreshed with the unfinished
	// work. The KeyLimit busiest keys (by ready plus out) get a series
	// each; the others are summed under OtherKey.
	KeyDepth, KeyProcessing KeyGauge
	KeyLimit                int
	// The ready items of each of those busiest keys held back at its cap,
	// and by its rate or a pause.
	KeyHeldByCap, KeyHeldByRate KeyGauge
	// The cap each of those busiest keys with an adaptive cap has learnt,
	// and the throttles reported for it.
	KeyCap, KeyThrottles KeyGauge
}

// KeyGauge is a gauge with a key label.
type KeyGauge interface {
	Set(key string, v float64)
	Delete(key string)
}

// OtherKey is the key under which the keys beyond KeyLimit are summed.
const OtherKey = "other"

// UpdatePeriod is how often the unfinished-work gauges are refreshed while
// items are processing (client-go's unfinishedWorkUpdatePeriod).
const UpdatePeriod = 500 * time.Millisecond

// Metrics is the bookkeeping of a named queue's metrics. A nil *Metrics
// records nothing and costs one comparison per event.
//
// Values and update points are client-go's: an add that makes an item
// wait (depth up, adds), a hand-out (depth down, latency from the item
// becoming ready, or its deadline passing), a Done (work duration). The
// instant of each event is the one the event method is given: the
// caller's reading of the clock when it made the call, so that the values
// are client-go's however late the owner applies it. The two
// unfinished-work gauges are refreshed at the instants client-go's ticker
// fires, every UpdatePeriod counted from the queue's creation, while
// anything is processing (and once more after, to show zero); the
// transport asks Refresh when to wake.
//
// A metric that panics is recovered: a broken provider cannot end the
// goroutine that applies events.
type Metrics[T comparable] struct {
	s MetricSet

	addTimes   map[T]int64 // when each waiting item became ready
	startTimes map[T]int64 // when each processing item was handed out
	addPeak    int         // the peaks of the two maps since each was made
	startPeak  int
	owed       bool  // a refresh is due at next: something processed since the last
	next       int64 // the next refresh instant

	// The last refresh: its instant and the values it set. A Done stamped
	// before it but applied after it (it was still on its way to the
	// owner) is taken out of them at once, as if applied before the
	// refresh, as it was in client-go; so is a hand-out stamped before it.
	refreshedAt    int64
	total, longest float64

	// The Dones stamped at the instant doneAt (the latest stamped so
	// far): their items' ages then, summed and the oldest. A refresh at
	// that instant counts them, applied before it or not: the refresh
	// at an instant goes before the events stamped at it, as client-go's
	// ticker does on a fake clock, so that a tie has one answer.
	doneAt                 int64
	doneTotal, doneLongest float64

	// Per-key gauges: the keys with a series now (and before the last
	// refresh).
	shown, was map[string]bool
}

// NewMetrics returns the bookkeeping of the metrics in s.
func NewMetrics[T comparable](s MetricSet) *Metrics[T] {
	return &Metrics[T]{s: s, addTimes: make(map[T]int64), startTimes: make(map[T]int64), doneAt: math.MinInt64}
}

// ByPriority reports whether the depth is recorded by priority
// (controller-runtime's metrics).
func (m *Metrics[T]) ByPriority() bool { return m != nil && m.s.DepthByPrio != nil }

func seconds(ns int64) float64 { return time.Duration(ns).Seconds() }

func (m *Metrics[T]) add(item T, prio int, at int64) {
	if m == nil {
		return
	}
	if m.keyed() && !m.owed {
		m.owe(at) // the key gauges show ready items too
	}
	inc(m.s.Adds)
	m.depthInc(prio)
	if _, ok := m.addTimes[item]; !ok {
		put(m.addTimes, item, at, &m.addPeak)
	}
}

// get records that item was handed out at instant at.
func (m *Metrics[T]) get(item T, prio int, at int64) {
	if m == nil {
		return
	}
	m.depthDec(prio)
	if t, ok := m.addTimes[item]; ok {
		observe(m.s.Latency, seconds(at-t))
		delete(m.addTimes, item)
		m.addTimes = shrunk(m.addTimes, &m.addPeak)
	}
	if !m.owed {
		// The first processing since the gauges were last refreshed: the
		// next refresh is client-go's next tick after the hand-out.
		m.owe(at)
	}
	put(m.startTimes, item, at, &m.startPeak)
	if at < m.refreshedAt {
		// Handed out before the last refresh, learned of after it (a
		// lane claim): client-go's refresh counted it.
		age := seconds(m.refreshedAt - at)
		m.total += age
		m.longest = max(m.longest, age)
		set(m.s.Unfinished, m.total)
		set(m.s.LongestRunning, m.longest)
	}
}

// moveDepth moves a ready item's count in the depth from priority from to
// priority to, as controller-runtime's does when a priority is raised.
func (m *Metrics[T]) moveDepth(from, to int) {
	if m == nil || m.s.DepthByPrio == nil {
		return
	}
	m.depthDec(from)
	m.depthInc(to)
}

func (m *Metrics[T]) depthInc(prio int) {
	defer recoverMetric()
	if m.s.DepthByPrio != nil {
		m.s.DepthByPrio.Inc(prio)
	} else if m.s.Depth != nil {
		m.s.Depth.Inc()
	}
}

func (m *Metrics[T]) depthDec(prio int) {
	defer recoverMetric()
	if m.s.DepthByPrio != nil {
		m.s.DepthByPrio.Dec(prio)
	} else if m.s.Depth != nil {
		m.s.Depth.Dec()
	}
}

func (m *Metrics[T]) done(item T, at int64) {
	if m == nil {
		return
	}
	if t, ok := m.startTimes[item]; ok {
		observe(m.s.WorkDuration, seconds(at-t))
		delete(m.startTimes, item)
		m.startTimes = shrunk(m.startTimes, &m.startPeak)
		if at < m.refreshedAt { // so was t: the refresh counted it
			m.unrefresh(seconds(m.refreshedAt - t))
		}
		switch age := seconds(at - t); {
		case at > m.doneAt:
			m.doneAt, m.doneTotal, m.doneLongest = at, age, age
		case at == m.doneAt:
			m.doneTotal += age
			m.doneLongest = max(m.doneLongest, age)
		}
	}
}

// unrefresh takes out of the last refresh's gauges an item that it counted
// as processing for age seconds but whose Done was stamped before it.
func (m *Metrics[T]) unrefresh(age float64) {
	if age < m.longest {
		m.total = max(m.total-age, 0)
		set(m.s.Unfinished, m.total)
		return
	}
	m.updateUnfinished(m.refreshedAt) // it was the longest running
}

func (m *Metrics[T]) retry() {
	if m != nil {
		inc(m.s.Retries)
	}
}

func (m *Metrics[T]) setDelayed(n int) {
	if m != nil {
		set(m.s.Delayed, float64(n))
	}
}

// Refresh refreshes the unfinished-work gauges if a refresh instant has
// passed by now since something was processing, and returns the next
// instant to wake for; ok is false when no refresh is owed, so that an idle
// queue arms nothing.
func (q *Queue[T]) Refresh(now int64) (next int64, ok bool) {
	m := q.m
	if m == nil || !m.owed {
		return 0, false
	}
	if now >= m.next {
		m.updateUnfinished(now)
		m.next = (now/int64(UpdatePeriod) + 1) * int64(UpdatePeriod)
		m.owed = len(m.startTimes) > 0
		if m.keyed() {
			q.updateKeys()
			m.owed = m.owed || q.order.Len()+q.transit > 0
		}
	}
	return m.next, m.owed
}

// KeysDue reports whether Refresh at now would refresh the per-key
// gauges.
func (q *Queue[T]) KeysDue(now int64) bool {
	m := q.m
	return m != nil && m.owed && now >= m.next && m.keyed()
}

// owe schedules a refresh at client-go's next tick after at.
func (m *Metrics[T]) owe(at int64) {
	if m.s.Unfinished == nil && m.s.LongestRunning == nil && !m.keyed() {
		return // nothing to refresh: the owner need not wake
	}
	m.owed = true
	m.next = (at/int64(UpdatePeriod) + 1) * int64(UpdatePeriod)
}

// keyed reports whether m records per-key gauges.
func (m *Metrics[T]) keyed() bool { return m.s.KeyDepth != nil || m.s.KeyProcessing != nil }

// updateKeys sets the per-key gauges: a series for each of the busiest
// keys (ties in no particular order), the sum of the others under
// OtherKey, and deletes the series of keys that have none now. The order
// keeps its first-level keys ranked by load at every event, so that this
// costs O(KeyLimit), whatever the number of keys.
func (q *Queue[T]) updateKeys() {
	m := q.m
	if q.prio == nil || !q.fair {
		return
	}
	if m.shown == nil {
		m.shown, m.was = map[string]bool{}, map[string]bool{}
	}
	m.shown, m.was = m.was, m.shown
	clear(m.shown)
	limit := m.s.KeyLimit
	var shown order.KeyCount
	keys, ready, out := q.prio.Busiest(limit, func(c order.KeyCount) {
		m.setKey(c.Key, c.Ready, c.Out)
		m.setHeld(c.Key, c.Ready, c.Held)
		if c.Adaptive {
			m.setAdaptive(c.Key, c.Cap, c.Throttles)
		}
		shown.Ready += c.Ready
		shown.Out += c.Out
	})
	if keys > limit {
		m.setKey(OtherKey, ready-shown.Ready, out-shown.Out)
	}
	for k := range m.was {
		if !m.shown[k] {
			deleteSeries(m.s.KeyDepth, k)
			deleteSeries(m.s.KeyProcessing, k)
			deleteSeries(m.s.KeyHeldByCap, k)
			deleteSeries(m.s.KeyHeldByRate, k)
			deleteSeries(m.s.KeyCap, k)
			deleteSeries(m.s.KeyThrottles, k)
		}
	}
}

// setAdaptive sets the adaptive-cap gauges of key: the cap it has learnt,
// and the throttles reported for it.
func (m *Metrics[T]) setAdaptive(key string, capacity int, throttles uint64) {
	setSeries(m.s.KeyCap, key, float64(capacity))
	setSeries(m.s.KeyThrottles, key, float64(throttles))
}

// setHeld sets the held gauges of key, whose ready items are held back
// for the reason held ("" if they are not).
func (m *Metrics[T]) setHeld(key string, ready int, held string) {
	for _, g := range []struct {
		g   KeyGauge
		why string
	}{{m.s.KeyHeldByCap, "cap"}, {m.s.KeyHeldByRate, "rate"}} {
		n := 0
		if held == g.why {
			n = ready
		}
		setSeries(g.g, key, float64(n))
	}
}

func (m *Metrics[T]) setKey(key string, ready, out int) {
	m.shown[key] = true
	setSeries(m.s.KeyDepth, key, float64(ready))
	setSeries(m.s.KeyProcessing, key, float64(out))
}

// setSeries sets g's series of key to v, if there is a g; a panicking
// metric is recovered (deleteSeries deletes it).
func setSeries(g KeyGauge, key string, v float64) {
	if g != nil {
		defer recoverMetric()
		g.Set(key, v)
	}
}

func deleteSeries(g KeyGauge, key string) {
	if g != nil {
		defer recoverMetric()
		g.Delete(key)
	}
}

// updateUnfinished sets the unfinished-work gauges at now.
func (m *Metrics[T]) updateUnfinished(now int64) {
	var total, oldest float64
	if now == m.doneAt {
		total, oldest = m.doneTotal, m.doneLongest
	}
	for _, t := range m.startTimes {
		age := seconds(now - t)
		total += age
		oldest = max(oldest, age)
	}
	set(m.s.Unfinished, total)
	set(m.s.LongestRunning, oldest)
	m.refreshedAt, m.total, m.longest = now, total, oldest
}

// The helpers below record nothing for a nil metric and recover a
// panicking one.

func inc(c Counter) {
	if c != nil {
		defer recoverMetric()
		c.Inc()
	}
}

func set(g SettableGauge, v float64) {
	if g != nil {
		defer recoverMetric()
		g.Set(v)
	}
}

func observe(h Histogram, v float64) {
	if h != nil {
		defer recoverMetric()
		h.Observe(v)
	}
}

func recoverMetric() { _ = recover() }
