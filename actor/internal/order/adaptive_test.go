package order

import (
	"math/rand/v2"
	"testing"
)

// adaptEvent is an event of one key's adaptive cap: an item starts or
// stops processing, or a throttle is reported, at an instant.
type adaptEvent struct {
	at   int64
	kind byte // 's' start, 'e' stop, 't' throttle
}

// apply makes e happen to a.
func (a *adaptive) apply(e adaptEvent) {
	switch e.kind {
	case 's':
		a.start(e.at)
	case 'e':
		a.stop(e.at)
	case 't':
		a.throttle(e.at)
	}
}

// modelCap is the rule of adaptive.go replayed literally: window by
// window from the first event's, each window's peak the most items
// processing at any point in it, the cap falling at the window's first
// throttle and moving at its end. It returns the cap after the events,
// as of the window of the last one.
func modelCap(cfg Adapt, events []adaptEvent) int {
	if len(events) == 0 {
		return cfg.Start
	}
	c, proc := cfg.Start, 0
	i := 0
	last := events[len(events)-1].at / cfg.Window
	for w := events[0].at / cfg.Window; ; w++ {
		peak, cut := proc, false
		for ; i < len(events) && events[i].at/cfg.Window <= w; i++ {
			switch events[i].kind {
			case 's':
				proc++
				peak = max(peak, proc)
			case 'e':
				proc--
			case 't':
				if !cut {
					cut = true
					c = max(min(c-1, int(float64(c)*cfg.Backoff)), cfg.Min)
				}
			}
		}
		if w == last {
			return c
		}
		switch {
		case cut:
		case peak > 0 && 2*peak >= c:
			c = min(c+1, cfg.Max)
		case peak == 0 && c < cfg.Start:
			c++
		case peak == 0 && c > cfg.Start:
			c--
		}
	}
}

// checkAdaptive drives an adaptive cap through events and holds it to
// the model, and to the rule's invariants, after every event.
func checkAdaptive(t *testing.T, cfg Adapt, events []adaptEvent) {
	t.Helper()
	a := newAdaptiveAt(&cfg, events[0].at, new(adaptive))
	lastCutWin := int64(-1)
	for i, e := range events {
		before := a.cap
		a.apply(e)
		if want := modelCap(cfg, events[:i+1]); a.cap != want {
			t.Fatalf("event %d (%c at %d): cap = %d; want %d (events %v)", i, e.kind, e.at, a.cap, want, events[:i+1])
		}
		if a.cap < cfg.Min || a.cap > cfg.Max {
			t.Fatalf("event %d: cap %d outside [%d, %d]", i, a.cap, cfg.Min, cfg.Max)
		}
		if e.kind == 't' && a.cap < before {
			if w := e.at / cfg.Window; w == lastCutWin {
				t.Fatalf("event %d: a second decrease in window %d", i, w)
			} else {
				lastCutWin = w
			}
		}
		if e.kind != 't' && a.cap < before && e.at/cfg.Window == a.win && before > cfg.Start {
			// Falling without a throttle is an idle drift toward Start,
			// applied as a window ends: never within a window.
			if w := e.at / cfg.Window; w == events[max(i-1, 0)].at/cfg.Window {
				t.Fatalf("event %d: cap fell from %d to %d within window %d without a throttle", i, before, a.cap, w)
			}
		}
	}
}

// randomEvents returns n events at nondecreasing instants, with stops only
// of items processing.
func randomEvents(r *rand.Rand, n int, window int64) []adaptEvent {
	var events []adaptEvent
	at, proc := int64(r.IntN(3))*window, 0
	for range n {
		switch r.IntN(4) {
		case 0:
			at += r.Int64N(window/2 + 1)
		case 1:
			at += r.Int64N(4 * window)
		case 2:
			at += r.Int64N(40 * window)
		}
		kind := byte('s')
		switch x := r.IntN(10); {
		case x < 3 && proc > 0:
			kind = 'e'
			proc--
		case x < 5:
			kind = 't'
		default:
			proc++
		}
		events = append(events, adaptEvent{at, kind})
	}
	return events
}

func TestAdaptiveModel(t *testing.T) {
	cfgs := []Adapt{
		{Min: 1, Max: 10, Start: 5, Backoff: 0.9, Window: 100},
		{Min: 1, Max: 2, Start: 2, Backoff: 0.5, Window: 7},
		{Min: 3, Max: 50, Start: 3, Backoff: 0.9, Window: 1000},
		{Min: 1, Max: 1000, Start: 500, Backoff: 0.1, Window: 10},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range cfgs {
		for range 300 {
			checkAdaptive(t, cfg, randomEvents(r, 1+r.IntN(60), cfg.Window))
		}
	}
}

func FuzzAdaptive(f *testing.F) {
	f.Add(uint64(1), uint8(5), uint8(10), uint8(1), uint8(90), uint16(100))
	f.Fuzz(func(t *testing.T, seed uint64, start, maxCap, minCap, backoff uint8, window uint16) {
		cfg := Adapt{
			Min:     1 + int(minCap%8),
			Backoff: float64(1+backoff%99) / 100,
			Window:  1 + int64(window),
		}
		cfg.Max = cfg.Min + int(maxCap%40)
		cfg.Start = cfg.Min + int(start)%(cfg.Max-cfg.Min+1)
		r := rand.New(rand.NewPCG(seed, seed>>7))
		checkAdaptive(t, cfg, randomEvents(r, 1+r.IntN(80), cfg.Window))
	})
}

// TestAdaptiveRests holds restsAt to its word: from that instant on, with
// nothing processing, the cap is Start and stays there, and not a window
// before.
func TestAdaptiveRests(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cfg := Adapt{Min: 1, Max: 20, Start: 6, Backoff: 0.7, Window: 100}
	for range 2000 {
		events := randomEvents(r, 1+r.IntN(30), cfg.Window)
		a := newAdaptiveAt(&cfg, events[0].at, new(adaptive))
		for _, e := range events {
			a.apply(e)
		}
		for a.proc > 0 {
			a.stop(events[len(events)-1].at)
		}
		at := a.restsAt()
		if at < events[len(events)-1].at/cfg.Window*cfg.Window {
			t.Fatalf("restsAt() = %d, before the last event's window (%d)", at, events[len(events)-1].at)
		}
		b := *a
		b.advance(at)
		if !b.quiet() {
			t.Fatalf("at restsAt() = %d: cap %d, peak %d, cut %v; want it quiet (cap %d)", at, b.cap, b.peak, b.cut, cfg.Start)
		}
		// Quiet, it is as good as a new key: the same events from then on
		// give a new key's caps.
		fresh := newAdaptiveAt(&cfg, at, new(adaptive))
		for _, e := range randomEvents(r, 1+r.IntN(20), cfg.Window) {
			e.at += at
			for _, x := range []*adaptive{&b, fresh} {
				if e.kind != 'e' || x.proc > 0 {
					x.apply(e)
				}
			}
			if b.cap != fresh.cap {
				t.Fatalf("after rest at %d, at %d: cap %d; a new key's %d", at, e.at, b.cap, fresh.cap)
			}
		}
		if at >= cfg.Window && at/cfg.Window > a.win {
			c := *a
			c.advance(at - cfg.Window)
			if c.quiet() && at-cfg.Window >= a.win*cfg.Window {
				// One window earlier would do only if the cap was at
				// Start already then, which restsAt must have seen.
				t.Fatalf("restsAt() = %d, but the key rested a window earlier (cap %d)", at, c.cap)
			}
		}
	}
}
