package order

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/actorq/actorq/actor/internal/heap"
)

// Adaptive caps, one protocol in one file (over 400 lines for that):
// a key's cap that learns the key's limit from the
// throttles its workers report, as an AIMD congestion window does. Time
// is cut into windows of Window nanoseconds on the queue's clock, from
// its epoch: window w is [w·Window, (w+1)·Window).
//
//	a throttle in a window lowers the cap once, at the first throttle
//	of the window, to min(cap−1, ⌊cap·Backoff⌋), not below Min; at the
//	end of a window with no throttle, the cap grows by 1, not above Max,
//	if the key's items processing reached half the cap in it (2·peak ≥
//	cap, peak > 0); a window in which none of the key's items was
//	processing moves the cap 1 toward Start. Otherwise it stays.
//
// So a key's cap stays in [Min, Max], falls at most once per window
// however many throttles the window sees (a burst of correlated
// throttles is one decrease), and grows only while the key uses it. An
// idle key drifts back to Start, where it has nothing to remember.
//
// The rule is applied lazily, at the key's events (an item of it starts
// or stops processing, a pop, a throttle, a read): the windows since its
// last event saw no event, so the items processing stayed as they were,
// and their effect is computed at once (advance), whatever their number.
//
// In the order, a key's adaptive cap is its cap (flow.cap follows it), so
// caps work as flow.go says: a lowered cap revokes nothing, and the key is
// passed over until enough of its items are Done. Invariant: while the
// queue runs, the order's heap of window ends (adapts) holds every key
// blocked at its adaptive cap, at the end of the current window (its cap
// may grow then), and every key that nothing but its adaptive cap keeps
// (no item, no limits of its own, no bucket) while it is not quiet, at
// the instant it is (restsAt), when it is forgotten: a key throttled
// once and left idle holds memory only until it has recovered.
// Once shutdown has begun (CapsOff) nothing is blocked and the heap is
// empty.
//
// A key whose cap is its level's and starts at its Max is dormant until
// its first throttle: no state (flow.ad is nil) and a fixed cap of Start,
// since nothing but a throttle moves such a cap from a new key's. The
// first throttle that counts for it gives it a state (rememberAdapt), as
// of then;
// until some key has one, the transport dates nothing for adaptive caps
// (Adaptive).

// Adapt configures an adaptive cap (Limit.Adapt).
type Adapt struct {
	Min, Max, Start int
	Backoff         float64 // in (0, 1)
	Window          int64   // nanoseconds, > 0
}

// adaptive is an adaptive cap's state.
type adaptive struct {
	cfg       *Adapt
	cap       int   // the cap now
	proc      int   // the key's items processing
	peak      int   // the most of them processing at once in window win
	cut       bool  // the cap fell in window win
	win       int64 // the window of the last event
	end       int64 // the instant window win ends (saturated)
	throttles uint64
	lastCut   int64 // the instant the cap last fell; noCut if never
	wake      int32 // index in the order's heap of window ends, plus one; 0 if not in it
	learnt    int32 // index in the order's list of keys that may have learnt something (learn), plus one; 0 if not in it
}

// noCut is the lastCut of a cap that never fell.
const noCut = math.MinInt64

// newAdaptiveAt makes a the state of a key that starts at instant now:
// at Start, with nothing processing.
func newAdaptiveAt(cfg *Adapt, now int64, a *adaptive) *adaptive {
	*a = adaptive{cfg: cfg, cap: cfg.Start, lastCut: noCut}
	a.setWin(now / cfg.Window)
	return a
}

// setWin makes w the window of the last event.
func (a *adaptive) setWin(w int64) {
	a.win, a.end = w, windowStart(w+1, a.cfg.Window)
}

// windowStart returns the instant window w starts, w·window, saturated.
func windowStart(w, window int64) int64 {
	if w > math.MaxInt64/window {
		return math.MaxInt64
	}
	return w * window
}

// advance applies the ends of the windows before the one of now. An
// event dated before the window of the last one (a claim seen late) is
// taken as of that window.
func (a *adaptive) advance(now int64) {
	if now < a.end {
		return
	}
	w := now / a.cfg.Window
	a.close()
	// The windows a.win+1 to w-1 saw no event: their peak is proc.
	a.closeQuiet(w - a.win - 1)
	a.setWin(w)
	a.peak, a.cut = a.proc, false
}

// close applies the end of window a.win.
func (a *adaptive) close() {
	switch {
	case a.cut:
	case a.peak > 0 && 2*a.peak >= a.cap:
		a.cap = min(a.cap+1, a.cfg.Max)
	case a.peak == 0:
		a.cap += cmp.Compare(a.cfg.Start, a.cap)
	}
}

// closeQuiet applies the ends of n windows with no event and no throttle,
// in which proc items were processing throughout: what n calls of close
// would do, computed at once.
func (a *adaptive) closeQuiet(n int64) {
	if n <= 0 {
		return
	}
	var target int // where the cap goes, one step a window
	switch {
	case a.proc == 0:
		target = a.cfg.Start
	case 2*a.proc >= a.cap: // it grows while 2·proc >= cap
		target = min(2*a.proc+1, a.cfg.Max)
	default:
		return
	}
	d := int64(target - a.cap)
	if d < 0 {
		d = max(d, -n)
	} else {
		d = min(d, n)
	}
	a.cap += int(d)
}

// start is the event of an item of the key that starts processing at now.
func (a *adaptive) start(now int64) {
	a.advance(now)
	a.proc++
	a.peak = max(a.peak, a.proc)
}

// stop is the event of an item of the key that stops processing at now.
func (a *adaptive) stop(now int64) {
	a.advance(now)
	a.proc--
}

// throttle is the event of a throttle of the key reported at now.
func (a *adaptive) throttle(now int64) {
	a.advance(now)
	a.throttles++
	if a.cut {
		return
	}
	a.cut = true
	if c := max(min(a.cap-1, int(float64(a.cap)*a.cfg.Backoff)), a.cfg.Min); c < a.cap {
		a.cap, a.lastCut = c, now
	}
}

// quiet reports whether the rule has nothing to remember of the key, as
// of its window: its cap is at Start, did not fall in the window, and
// will not move at the window's end (too few items processing in it to
// grow it, or at Max already). A new key's state would give the same
// caps from now on.
func (a *adaptive) quiet() bool {
	return a.cap == a.cfg.Start && !a.cut && (2*a.peak < a.cap || a.cap == a.cfg.Max)
}

// restsAt returns the instant from which the key, with nothing
// processing from now on, is quiet: its state is then as good as a new
// key's. It must be called after advance.
func (a *adaptive) restsAt() int64 {
	switch {
	case a.proc > 0:
		return math.MaxInt64
	case a.quiet():
		return windowStart(a.win, a.cfg.Window) // now
	}
	ended := *a // as of the end of window win
	ended.close()
	d := int64(ended.cap - a.cfg.Start)
	if d < 0 {
		d = -d
	}
	return windowStart(a.win+1+d, a.cfg.Window)
}

// setAdapt gives f the adaptive cap cfg (nil: none), keeping what it
// learnt if it had the same. A key of a level whose adaptive cap starts
// at its Max gets no state until its first throttle (dormant): until
// then its cap stays at Start whatever its items do, as a fixed cap.
func (o *Prio[T]) setAdapt(f *flow[T], cfg *Adapt) {
	switch {
	case cfg == nil && f.ad == nil:
		return
	case cfg == nil:
		o.dropAdapt(f)
		return
	case f.ad != nil && *f.ad.cfg == *cfg:
	case o.dormant(f, cfg):
		if f.ad != nil {
			o.dropAdapt(f)
		}
		o.adaptCfg = true
		f.cap = int32(cfg.Start)
		return
	case f.ad != nil:
		o.dropAdapt(f)
		fallthrough
	default:
		o.rememberAdapt(f, cfg)
	}
	f.cap = int32(f.ad.cap)
}

// dormant reports whether f, with the adaptive cap cfg, may go without
// its state while the state would be a new key's: cfg is its level's
// (a key with its own is kept anyway) and starts at its Max, so that
// nothing but a throttle moves it.
func (o *Prio[T]) dormant(f *flow[T], cfg *Adapt) bool {
	return cfg != nil && cfg.Start == cfg.Max && cfg == o.levelLimit(int(f.depth)).Adapt
}

// rememberAdapt gives f a new state of the adaptive cap cfg, with its
// items processing as of the order's clock (dropAdapt forgets it). The
// order keeps cfg, which must not change.
func (o *Prio[T]) rememberAdapt(f *flow[T], cfg *Adapt) {
	f.ad = newAdaptiveAt(cfg, o.clock, o.newAdaptiveObject())
	f.ad.proc = int(f.proc) // items of the key processing as it gets the cap
	f.ad.peak = f.ad.proc
	o.adaptive, o.adaptCfg = true, true
}

// dropAdapt takes f's adaptive cap away, and f out of the lists that
// hold it.
func (o *Prio[T]) dropAdapt(f *flow[T]) {
	if f.ad.wake != 0 {
		o.adapts.remove(f)
	}
	o.learn(f, false)
	o.keepAdaptive(f.ad)
	f.ad = nil
}

// advanceAdapt applies the rule to f's cap up to now (advance), and
// makes the key's cap follow: a key below it takes its turn again, one
// at or above it is passed over.
func (o *Prio[T]) advanceAdapt(f *flow[T], now int64) {
	f.ad.advance(now)
	o.followCap(f)
}

// followCap makes f's cap its adaptive cap's, and restores the
// invariants that depend on it.
func (o *Prio[T]) followCap(f *flow[T]) {
	a := f.ad
	if c := int32(a.cap); c != f.cap {
		was := o.blocked(f)
		if c < f.cap {
			o.changes++ // an item popped ahead may be over the lower cap
		}
		f.cap = c
		if o.blocked(f) != was {
			o.settleFlow(f)
		}
	}
	if learning := a.throttles > 0 || !a.quiet(); learning != (a.learnt != 0) {
		o.learn(f, learning)
	}
	if a.wake != 0 || f.out >= int(f.cap) || o.keptForNothing(f) {
		o.rewakeAdapt(f) // else it is not in the heap, and need not be
	}
}

// learn puts f in the list of keys that may have something learnt by now
// (learning: a throttle, or a cap not quiet: one that is not at its
// start, fell in its window, or may grow at its end), or takes it out.
func (o *Prio[T]) learn(f *flow[T], learning bool) {
	a := f.ad
	switch {
	case learning && a.learnt == 0:
		o.learnt = append(o.learnt, f)
		a.learnt = int32(len(o.learnt))
	case !learning && a.learnt != 0:
		i, last := int(a.learnt-1), len(o.learnt)-1
		o.learnt[i] = o.learnt[last]
		o.learnt[i].ad.learnt = int32(i + 1)
		o.learnt[last] = nil
		o.learnt = o.learnt[:last]
		a.learnt = 0
		if last == 0 && cap(o.learnt) > shrinkFloor {
			o.learnt = nil
		}
	}
}

// rewakeAdapt restores the invariant of the heap of window ends for f.
func (o *Prio[T]) rewakeAdapt(f *flow[T]) {
	a := f.ad
	at := int64(math.MaxInt64)
	switch {
	case o.capsOff:
	case f.out >= int(f.cap):
		at = a.end // blocked at its cap: it may grow then
	case o.keptForNothing(f) && a.restsAt() > o.clock:
		at = a.restsAt()
	}
	switch {
	case at != math.MaxInt64:
		o.adapts.set(f, heap.Key{At: at})
	case a.wake != 0:
		o.adapts.remove(f)
	}
}

// adaptPlace is where f keeps its place in the heap of window ends.
func adaptPlace[T comparable](f *flow[T]) *int32 { return &f.ad.wake }

// tickAdapt applies the window ends due by the order's clock, instant by
// instant: a key blocked at its cap may grow, and a key that has
// recovered and that nothing else keeps is forgotten. The keys of one
// instant go in the order in which keys enter turns together: children
// before their parents, keys in the order of their paths (postOrder).
func (o *Prio[T]) tickAdapt() {
	for _, at, ok := o.adapts.due(o.clock); ok; _, at, ok = o.adapts.due(o.clock) {
		due := o.dueAdapts[:0]
		for f, t, ok := o.adapts.due(at); ok && t == at; f, t, ok = o.adapts.due(at) {
			o.adapts.remove(f)
			due = append(due, f)
		}
		if len(due) > 1 {
			slices.SortFunc(due, postOrder)
		}
		for _, f := range due {
			o.advanceAdapt(f, o.clock)
			o.tidy(f)
		}
		if o.ids.live == 0 {
			o.drained() // the keys that nothing but their caps kept went
		}
		clear(due)
		if o.dueAdapts = due; cap(due) > shrinkFloor {
			o.dueAdapts = nil // an instant at which many keys rested
		}
	}
}

// postOrder orders keys as a walk of the tree of keys that visits a key's
// children, in the order of their keys, before the key.
func postOrder[T comparable](a, b *flow[T]) int {
	da, db := a.depth, b.depth
	for da > db {
		if a = a.parent; a == b {
			return -1 // a below b: first
		}
		da--
	}
	for db > da {
		if b = b.parent; b == a {
			return 1
		}
		db--
	}
	for a.parent != b.parent {
		a, b = a.parent, b.parent
	}
	return strings.Compare(a.key, b.key)
}

// Started is the event of an item of key that starts processing at
// instant now (received by a consumer): each key on its path counts it
// (flow.proc), and each adaptive cap there.
func (o *Prio[T]) Started(key uint32, now int64) {
	for f := o.ids.flow(key); f != nil && f.parent != nil; f = f.parent {
		f.proc++
		if f.ad != nil && !o.capsOff {
			f.ad.start(now)
			o.followCap(f)
		}
	}
}

// stopped is the event of an item of the key of f that stops processing
// at the order's clock.
func (o *Prio[T]) stopped(f *flow[T]) {
	for ; f != nil && f.parent != nil; f = f.parent {
		f.proc--
		if f.ad != nil && !o.capsOff {
			f.ad.stop(o.clock)
			o.followCap(f)
		}
	}
}

// Throttle is the event of a throttle reported at instant now for an
// item of key (0: for the key path keys instead): the adaptive cap of
// every key on the path falls, at most once a window, and with until >
// now each of those keys is paused until then (Pause), outermost first.
// A key with no flow, or no adaptive cap, is left as it is. It reports
// whether a key on the path has an adaptive cap.
func (o *Prio[T]) Throttle(key uint32, keys []string, now, until int64) (counted bool) {
	if !o.adaptCfg || o.capsOff {
		return false
	}
	o.clock = max(o.clock, now)
	f := o.ids.flow(key)
	if key == 0 {
		f = o.flows
		for _, k := range keys {
			if f = f.children[k]; f == nil {
				return false
			}
		}
	}
	for g := f; g != nil && g.parent != nil; g = g.parent {
		if cfg := o.levelLimit(int(g.depth)).Adapt; g.ad == nil && !g.limited && o.dormant(g, cfg) {
			o.rememberAdapt(g, cfg) // its first throttle
		}
		if g.ad != nil {
			g.ad.throttle(o.clock)
			o.followCap(g)
			counted = true
		}
	}
	if counted && until > o.clock {
		o.pauseAdaptive(f, until)
	}
	return counted
}

// pauseAdaptive pauses until until the keys with adaptive caps on f's
// path, outermost first.
func (o *Prio[T]) pauseAdaptive(f *flow[T], until int64) {
	if f.parent.parent != nil {
		o.pauseAdaptive(f.parent, until)
	}
	if f.ad != nil {
		o.pauseFlow(f, until)
	}
}

// Adaptive reports whether a key has, or had, an adaptive cap's state
// (a dormant one has none: setAdapt): the transport must then date every
// hand-out, receive and Done. Until then, no instant matters to a cap.
func (o *Prio[T]) Adaptive() bool { return o.adaptive }

// LearntCap is a key's adaptive cap, for a snapshot.
type LearntCap struct {
	Path            []string
	Cap, Processing int
	Min, Max, Start int
	Throttles       uint64
	LastCut         int64 // the instant the cap last fell
	HasCut          bool  // LastCut is set
}

// Learnt yields up to n keys whose adaptive caps learnt something (a cap
// not at its start, or a throttle) as of the order's clock, by path. It
// applies the window ends since each key's last event first, as an event
// of the key would; once shutdown has begun, the caps stay as they were.
func (o *Prio[T]) Learnt(n int, yield func(LearntCap)) {
	if !o.capsOff { // once shutdown has begun, the caps no longer move
		for _, f := range slices.Clone(o.learnt) {
			o.advanceAdapt(f, o.clock)
		}
	}
	caps := make([]LearntCap, 0, len(o.learnt))
	for _, f := range o.learnt {
		a := f.ad
		if a.cap == a.cfg.Start && a.throttles == 0 {
			continue // busy in its window, with nothing learnt yet
		}
		caps = append(caps, LearntCap{
			Path: f.path(), Cap: a.cap, Processing: int(f.proc),
			Min: a.cfg.Min, Max: a.cfg.Max, Start: a.cfg.Start,
			Throttles: a.throttles, LastCut: a.lastCut, HasCut: a.lastCut != noCut,
		})
	}
	slices.SortFunc(caps, func(a, b LearntCap) int { return slices.Compare(a.Path, b.Path) })
	for _, c := range caps[:min(n, len(caps))] {
		yield(c)
	}
}
