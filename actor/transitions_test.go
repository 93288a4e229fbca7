package actor

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTransitions walks every state of an item against every event and
// checks the state it ends in and each side effect: where the item is in
// the ready order, its deadline, its lane slot, the processing count, the
// metrics, and (through verify) the filter's flag. The item is hot (it has
// a filter entry) whenever it is known, so the flag is checked everywhere.
func TestTransitions(t *testing.T) {
	// Each setup puts item x into one state. y is ready first, so that
	// where x goes in the order shows.
	processingX := func(s *state[string]) {
		s.add("x", want{})
		s.handOut()
	}
	setups := []struct {
		name  string
		state itemState
		do    func(s *state[string]) *slot[string] // returns x's slot, if offered
	}{
		{"absent", absent, func(*state[string]) *slot[string] { return nil }},
		{"ready", ready, func(s *state[string]) *slot[string] { s.add("x", want{}); return nil }},
		{"staged", staged, func(s *state[string]) *slot[string] { s.add("x", want{}); s.stage(); return nil }},
		{"offered", offered, func(s *state[string]) *slot[string] { s.add("x", want{}); sl, _ := s.offer(); return sl }},
		{"claimed", offered, func(s *state[string]) *slot[string] {
			s.add("x", want{})
			sl, _ := s.offer()
			sl.claim(nil) // a consumer claimed it; the owner has not seen it
			return sl
		}},
		{"processing", processing, func(s *state[string]) *slot[string] { processingX(s); return nil }},
		{"processing+dirty", processingDirty, func(s *state[string]) *slot[string] { processingX(s); s.add("x", want{}); return nil }},
		{"delayed", delayed, func(s *state[string]) *slot[string] { s.addAt("x", 10, want{}); return nil }},
		{"processing+delayed", processingDelayed, func(s *state[string]) *slot[string] { processingX(s); s.addAt("x", 10, want{}); return nil }},
	}
	events := []struct {
		name string
		do   func(s *state[string], sl *slot[string])
	}{
		{"add", func(s *state[string], _ *slot[string]) { s.add("x", want{}) }},
		{"addAt earlier", func(s *state[string], _ *slot[string]) { s.addAt("x", 5, want{}) }},
		{"addAt later", func(s *state[string], _ *slot[string]) { s.addAt("x", 20, want{}) }},
		{"due", func(s *state[string], _ *slot[string]) { s.due(10) }},
		{"see claims", func(s *state[string], _ *slot[string]) { s.laneReady() }},
		{"take back", func(s *state[string], sl *slot[string]) {
			if sl != nil && sl.state.Load() == slotOffered {
				s.takeBack([]*slot[string]{sl}) // the owner received it back
			}
		}},
		{"hand out staged", func(s *state[string], _ *slot[string]) {
			if s.isStaged {
				s.handedOut()
			}
		}},
		{"done", func(s *state[string], _ *slot[string]) { s.done("x") }},
		{"drop delays", func(s *state[string], _ *slot[string]) { s.dropDelays() }},
	}
	// wants[setup][event]; order lists the ready order (y is always first
	// unless x is put in front of it).
	wants := map[string]map[string]effect{
		"absent": {
			"add":             {ready, "[y x]", 0, 0, 0, "add +depth"},
			"addAt earlier":   {delayed, "[y]", 5, 0, 0, "delayed"},
			"addAt later":     {delayed, "[y]", 20, 0, 0, "delayed"},
			"due":             {absent, "[y]", 0, 0, 0, ""},
			"see claims":      {absent, "[y]", 0, 0, 0, ""},
			"take back":       {absent, "[y]", 0, 0, 0, ""},
			"hand out staged": {absent, "[y]", 0, 0, 0, ""},
			"done":            {absent, "[y]", 0, 0, 0, ""},
			"drop delays":     {absent, "[y]", 0, 0, 0, "delayed"},
		},
		"ready": {
			"add":             {ready, "[x y]", 0, 0, 0, ""}, // a duplicate: Touch, no metric
			"addAt earlier":   {ready, "[x y]", 0, 0, 0, ""},
			"addAt later":     {ready, "[x y]", 0, 0, 0, ""},
			"due":             {ready, "[x y]", 0, 0, 0, ""},
			"see claims":      {ready, "[x y]", 0, 0, 0, ""},
			"take back":       {ready, "[x y]", 0, 0, 0, ""},
			"hand out staged": {ready, "[x y]", 0, 0, 0, ""},
			"done":            {ready, "[x y]", 0, 0, 0, ""}, // not processing: nothing
			"drop delays":     {ready, "[x y]", 0, 0, 0, "delayed"},
		},
		"staged": {
			"add":             {staged, "[y]", 0, 0, 0, ""},
			"addAt earlier":   {staged, "[y]", 0, 0, 0, ""},
			"addAt later":     {staged, "[y]", 0, 0, 0, ""},
			"due":             {staged, "[y]", 0, 0, 0, ""},
			"see claims":      {staged, "[y]", 0, 0, 0, ""},
			"take back":       {staged, "[y]", 0, 0, 0, ""},
			"hand out staged": {processing, "[y]", 0, 0, 1, "-depth latency"},
			"done":            {staged, "[y]", 0, 0, 0, ""},
			"drop delays":     {staged, "[y]", 0, 0, 0, "delayed"},
		},
		"offered": {
			"add":             {offered, "[y]", 0, 1, 0, ""},
			"addAt earlier":   {offered, "[y]", 0, 1, 0, ""},
			"addAt later":     {offered, "[y]", 0, 1, 0, ""},
			"due":             {offered, "[y]", 0, 1, 0, ""},
			"see claims":      {offered, "[y]", 0, 1, 0, ""},
			"take back":       {ready, "[x y]", 0, 0, 0, ""}, // offered before y was
			"hand out staged": {offered, "[y]", 0, 1, 0, ""},
			"done":            {offered, "[y]", 0, 1, 0, ""},
			"drop delays":     {offered, "[y]", 0, 1, 0, "delayed"},
		},
		"claimed": { // every event sees the claim first
			"add":             {processingDirty, "[y]", 0, 0, 1, "-depth latency add +depth"},
			"addAt earlier":   {processingDelayed, "[y]", 5, 0, 1, "-depth latency delayed"},
			"addAt later":     {processingDelayed, "[y]", 20, 0, 1, "-depth latency delayed"},
			"due":             {offered, "[y]", 0, 1, 0, ""},
			"see claims":      {processing, "[y]", 0, 0, 1, "-depth latency"},
			"take back":       {offered, "[y]", 0, 1, 0, ""},
			"hand out staged": {offered, "[y]", 0, 1, 0, ""},
			"done":            {absent, "[y]", 0, 0, 0, "-depth latency work"},
			"drop delays":     {offered, "[y]", 0, 1, 0, "delayed"},
		},
		"processing": {
			"add":             {processingDirty, "[y]", 0, 0, 1, "add +depth"},
			"addAt earlier":   {processingDelayed, "[y]", 5, 0, 1, "delayed"},
			"addAt later":     {processingDelayed, "[y]", 20, 0, 1, "delayed"},
			"due":             {processing, "[y]", 0, 0, 1, ""},
			"see claims":      {processing, "[y]", 0, 0, 1, ""},
			"take back":       {processing, "[y]", 0, 0, 1, ""},
			"hand out staged": {processing, "[y]", 0, 0, 1, ""},
			"done":            {absent, "[y]", 0, 0, 0, "work"},
			"drop delays":     {processing, "[y]", 0, 0, 1, "delayed"},
		},
		"processing+dirty": {
			"add":             {processingDirty, "[y]", 0, 0, 1, ""},
			"addAt earlier":   {processingDirty, "[y]", 0, 0, 1, ""},
			"addAt later":     {processingDirty, "[y]", 0, 0, 1, ""},
			"due":             {processingDirty, "[y]", 0, 0, 1, ""},
			"see claims":      {processingDirty, "[y]", 0, 0, 1, ""},
			"take back":       {processingDirty, "[y]", 0, 0, 1, ""},
			"hand out staged": {processingDirty, "[y]", 0, 0, 1, ""},
			"done":            {ready, "[y x]", 0, 0, 0, "work"},
			"drop delays":     {processingDirty, "[y]", 0, 0, 1, "delayed"},
		},
		"delayed": {
			"add":             {ready, "[y x]", 0, 0, 0, "delayed add +depth"},
			"addAt earlier":   {delayed, "[y]", 5, 0, 0, ""},
			"addAt later":     {delayed, "[y]", 10, 0, 0, ""}, // never lengthened
			"due":             {ready, "[y x]", 0, 0, 0, "add +depth delayed"},
			"see claims":      {delayed, "[y]", 10, 0, 0, ""},
			"take back":       {delayed, "[y]", 10, 0, 0, ""},
			"hand out staged": {delayed, "[y]", 10, 0, 0, ""},
			"done":            {delayed, "[y]", 10, 0, 0, ""},
			"drop delays":     {absent, "[y]", 0, 0, 0, "delayed"},
		},
		"processing+delayed": {
			"add":             {processingDirty, "[y]", 0, 0, 1, "delayed add +depth"},
			"addAt earlier":   {processingDelayed, "[y]", 5, 0, 1, ""},
			"addAt later":     {processingDelayed, "[y]", 10, 0, 1, ""},
			"due":             {processingDirty, "[y]", 0, 0, 1, "add +depth delayed"},
			"see claims":      {processingDelayed, "[y]", 10, 0, 1, ""},
			"take back":       {processingDelayed, "[y]", 10, 0, 1, ""},
			"hand out staged": {processingDelayed, "[y]", 10, 0, 1, ""},
			"done":            {delayed, "[y]", 10, 0, 0, "work"},
			"drop delays":     {processing, "[y]", 0, 0, 1, "delayed"},
		},
	}
	for _, setup := range setups {
		for _, ev := range events {
			t.Run(setup.name+"/"+ev.name, func(t *testing.T) {
				w, ok := wants[setup.name][ev.name]
				if !ok {
					t.Fatalf("no expectation for %s/%s", setup.name, ev.name)
				}
				p := &countingProvider{}
				s := newState(new(fifo[string]), newFilter[string](), newMetrics[string]("q", p, fixedClock{}, time.Time{}), func() int64 { return 10 })
				// Warm up: x is added twice (a duplicate gives it a filter
				// entry), handed out and done, so it keeps its entry.
				s.add("x", want{})
				s.add("x", want{})
				s.done(s.handOut())
				sl := setup.do(s)
				if got := s.items["x"].state(); got != setup.state {
					t.Fatalf("setup: x is %v; want %v", got, setup.state)
				}
				s.add("y", want{}) // after x, in the order; not counted below
				s.verify(t)
				p.calls = nil
				ev.do(s, sl)
				s.verify(t)
				got := effect{
					to:       s.items["x"].state(),
					order:    orderOf(s),
					deadline: s.delays.deadlines["x"].at,
					inLane:   s.lane.inUse,
					nproc:    s.nproc,
					metrics:  p.String(),
				}
				if got != w {
					t.Errorf("%s, then %s:\n got %v\nwant %v", setup.name, ev.name, got, w)
				}
			})
		}
	}
}

// effect is where an event left item x, and what else it did.
type effect struct {
	to       itemState
	order    string // the ready order after the event
	deadline int64  // x's deadline, 0 for none
	inLane   int    // slots in use
	nproc    int
	metrics  string // the metric calls the event made (see countingProvider)
}

func (e effect) String() string {
	return fmt.Sprintf("%v, order %s, deadline %d, %d in the lane, %d processing, metrics %q",
		e.to, e.order, e.deadline, e.inLane, e.nproc, e.metrics)
}

// orderOf lists the ready order without changing it.
func orderOf(s *state[string]) string {
	r := s.order.(*fifo[string]).r
	var items []string
	for i := range r.n {
		items = append(items, r.at(i))
	}
	return fmt.Sprint(items)
}

// fixedClock is a Clock that never moves.
type fixedClock struct{}

func (fixedClock) Now() time.Time               { return time.Time{} }
func (fixedClock) NewTimer(time.Duration) Timer { panic("fixedClock: no timers") }

// countingProvider records the metric calls of a queue, in order: add (the
// adds counter), +depth and -depth, latency and work (observations),
// delayed (the delayed-items gauge set), retry, and the two unfinished
// gauges.
type countingProvider struct{ calls []string }

func (p *countingProvider) String() string { return strings.Join(p.calls, " ") }

type countingMetric struct {
	p        *countingProvider
	inc, dec string
}

func (m countingMetric) Inc()            { m.p.calls = append(m.p.calls, m.inc) }
func (m countingMetric) Dec()            { m.p.calls = append(m.p.calls, m.dec) }
func (m countingMetric) Set(float64)     { m.p.calls = append(m.p.calls, m.inc) }
func (m countingMetric) Observe(float64) { m.p.calls = append(m.p.calls, m.inc) }

func (p *countingProvider) NewDepthMetric(string) GaugeMetric {
	return countingMetric{p, "+depth", "-depth"}
}
func (p *countingProvider) NewAddsMetric(string) CounterMetric { return countingMetric{p, "add", ""} }
func (p *countingProvider) NewLatencyMetric(string) HistogramMetric {
	return countingMetric{p, "latency", ""}
}
func (p *countingProvider) NewWorkDurationMetric(string) HistogramMetric {
	return countingMetric{p, "work", ""}
}
func (p *countingProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return countingMetric{p, "unfinished", ""}
}
func (p *countingProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return countingMetric{p, "longest", ""}
}
func (p *countingProvider) NewRetriesMetric(string) CounterMetric {
	return countingMetric{p, "retry", ""}
}
func (p *countingProvider) NewDelayedMetric(string) SettableGaugeMetric {
	return countingMetric{p, "delayed", ""}
}
