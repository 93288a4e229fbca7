package order

import (
	"math"
	"slices"

	"github.com/actorq/actorq/actor/internal/heap"
)

// Rates and pauses of fairness keys: a key may start at most Burst items
// at one instant and Rate a second on average, and may be paused until
// an instant. A key that may not start an item now waits: it is blocked
// as a key at its cap is, so the keys that may go on take their turns (no
// head-of-line blocking), until the instant it may, when it enters its
// parent's turns at the back, banking no credit.
//
// A key's bucket is the generic cell rate algorithm: one instant, tat,
// the theoretical arrival time of the next item. An item starts at
// instant t (a pop: handed out, or offered ahead) if
//
//	tat - (Burst-1)·tau <= t, and then tat = max(tat, t) + tau,
//
// where tau is the interval of the rate, rounded up to a nanosecond: in
// every window of length W, at most Burst + W/tau <= Burst + Rate·W items
// start. The bucket is full again at tat; a key whose bucket is full and
// that has nothing else to keep it is forgotten, which changes no
// decision, since a full bucket is what a new key has.
//
// Invariant: while the queue runs, the order's heap of wakes holds every
// key that waits, at the instant it may start an item (its token, or the
// end of its pause; ties: the order they began to wait), and every key
// that nothing but its bucket keeps (no item, no limits of its own) while
// the bucket is not full, at the instant it is; a key listed so that
// takes items again stays listed until then. A busy key whose bucket is
// not full is not listed: pops cost no heap operation until a key waits.
// The transport wakes at the heap's first instant (NextWake) and calls
// Tick. Once shutdown has begun (CapsOff) nothing waits and the heap is
// empty.
//
// A pop ahead that comes back gives its tokens back (refund), and one
// handed out has them dated at its hand-out (Kept, redate), each only if
// no pop took a token of the key since: then the bucket is exactly as if
// the pop had happened at that instant, or not at all. Otherwise the
// token stays spent at the pop's instant (giving it back then could let
// one item too many start), and the window bound holds for the instants
// tokens are spent at, not for the hand-outs of items offered ahead.

// bucket is a key's rate and pause.
type bucket struct {
	tau     int64  // nanoseconds per item; 0 for no rate
	burst   int64  // items that may start at one instant
	tat     int64  // the theoretical arrival time of the next item
	pause   int64  // paused until this instant
	takes   uint64 // tokens taken so far: a pop's notes tell whether one was taken since
	waitSeq uint64 // while it waits: the order it began to, among the keys that wait
	wait    bool   // may not start an item before its wake
	wake    int32  // index in the heap of wakes, plus one; 0 if not in it
}

// interval returns the nanoseconds per item of rate, rounded up; 0 for
// no rate (0, or infinite: +Inf, or x/time/rate's Inf, the largest
// float64).
func interval(rate float64) int64 {
	if rate <= 0 || rate >= math.MaxFloat64 {
		return 0
	}
	return max(int64(math.Ceil(1e9/rate)), 1)
}

// setRate gives f the rate and burst of l.
func (o *Prio[T]) setRate(f *flow[T], l Limit) {
	tau := interval(l.Rate)
	if tau == 0 && f.r == nil {
		return
	}
	if f.r == nil {
		f.r = &bucket{}
	}
	f.r.tau, f.r.burst = tau, int64(max(l.Burst, 1))
}

// eligibleAt returns the instant from which f may start an item.
func (b *bucket) eligibleAt() int64 {
	at := b.pause
	if b.tau > 0 {
		at = max(at, b.tat-(b.burst-1)*b.tau)
	}
	return at
}

// take spends a token of every key from f up, for an item that starts
// now (the order's clock); a key left without one waits. The caller
// settles the nodes of the keys that now wait (tookOut).
func (o *Prio[T]) take(f *flow[T]) {
	for x := f; x.parent != nil; x = x.parent {
		if b := x.r; b != nil && b.tau > 0 {
			b.tat = max(b.tat, o.clock) + b.tau
			b.takes++
			o.rewake(x)
		}
	}
}

// rewake restores the invariant for f's bucket after it changed: whether
// f waits, and its place in the heap of wakes. It does not settle f's
// nodes.
func (o *Prio[T]) rewake(f *flow[T]) {
	b := f.r
	if o.capsOff {
		return // nothing waits, and the heap is empty for good
	}
	at, was := b.eligibleAt(), b.wait
	b.wait = at > o.clock
	switch {
	case b.wait:
		if !was {
			o.wakeSeq++
			b.waitSeq = o.wakeSeq
		}
		o.wakeAt(f, heap.Key{At: at, Seq: b.waitSeq})
	case b.wake != 0 && b.tat > o.clock: // idle: kept until its bucket is full
		o.wakeAt(f, heap.Key{At: b.tat})
	case b.wake != 0:
		o.unwake(f)
	}
}

// wakePlace is where f keeps its place in the heap of wakes.
func wakePlace[T comparable](f *flow[T]) *int32 { return &f.r.wake }

// wakeAt puts f in the heap of wakes at k, or moves it there.
func (o *Prio[T]) wakeAt(f *flow[T], k heap.Key) { o.wakes.set(f, k) }

// unwake takes f out of the heap of wakes.
func (o *Prio[T]) unwake(f *flow[T]) { o.wakes.remove(f) }

// NextWake returns the earliest instant at which a key's bucket or pause
// changes, or a window of an adaptive cap ends (adaptive.go), if any: the
// transport calls Tick then.
func (o *Prio[T]) NextWake() (int64, bool) {
	switch {
	case len(o.adapts.items) > 0 && (len(o.wakes.items) == 0 || o.adapts.items[0].At < o.wakes.items[0].At):
		return o.adapts.items[0].At, true // a window's end (adaptive.go)
	case len(o.wakes.items) > 0:
		return o.wakes.items[0].At, true
	}
	return 0, false
}

// Tick moves the order's clock to now (never back): every key that may
// start an item again enters its parent's turns at the back, in the order
// of the instants it could (ties: the order they began to wait), starting
// at its parent's virtual time; a key whose bucket is full again and that
// nothing else keeps is forgotten.
func (o *Prio[T]) Tick(now int64) {
	o.clock = max(o.clock, now)
	if _, _, ok := o.wakes.due(o.clock); ok {
		o.tick()
	}
	if _, _, ok := o.adapts.due(o.clock); ok {
		o.tickAdapt()
	}
}

func (o *Prio[T]) tick() {
	for f, _, ok := o.wakes.due(o.clock); ok; f, _, ok = o.wakes.due(o.clock) {
		o.unwake(f)
		if f.r.wait {
			f.r.wait = false
			if o.byWork {
				f.vtime = max(f.vtime, f.parent.vnow)
			}
			o.settleFlow(f)
			o.retagFlow(f)
		}
		o.rewake(f)
		o.tidy(f)
	}
}

// Pause holds the key path keys until the instant until: its items are
// passed over until then, as a key at its cap is. A pause that ends at
// or before the order's clock does nothing; a later one that ends before
// the key's pause does nothing either.
func (o *Prio[T]) Pause(keys []string, until int64) {
	if until <= o.clock || o.capsOff {
		return
	}
	f := o.flows
	for _, k := range keys {
		f = o.child(f, k)
	}
	o.pauseFlow(f, until)
}

// pauseFlow is Pause for the key of f.
func (o *Prio[T]) pauseFlow(f *flow[T], until int64) {
	if f.r == nil {
		f.r = &bucket{burst: 1}
	}
	o.rated = true
	if until <= f.r.pause {
		return
	}
	f.r.pause = until
	was := o.blocked(f)
	o.rewake(f)
	o.changes++
	if o.blocked(f) != was {
		o.settleFlow(f)
	}
}

// refund gives back the token that a pop ahead took from f, noted in m,
// if no pop took one of f's since: the bucket is then as if the pop had
// not happened. (If one did, the token is lost, which never lets more
// items start than the rate.) The caller settles f's nodes.
func (o *Prio[T]) refund(f *flow[T], m *mark) {
	b := f.r
	if b == nil || b.tau == 0 || b.takes != m.takes+1 {
		return
	}
	b.tat, b.takes = m.tat, m.takes
	o.rewake(f)
}

// redate dates the tokens that a pop ahead of the leaf flow f took, noted
// in u, at the instant now of its hand-out, for each key that no pop took
// a token of since (for the others the token stays dated at the pop):
// an item offered ahead spends its token as it is handed out.
func (o *Prio[T]) redate(f *flow[T], u *undo[T], now int64) {
	i := len(u.path)
	for ; f.parent != nil; f = f.parent {
		i--
		if b := f.r; i >= 0 && b != nil && b.tau > 0 && b.takes == u.path[i].takes+1 {
			was := o.blocked(f)
			b.tat = max(u.path[i].tat, now) + b.tau
			o.rewake(f)
			if o.blocked(f) != was {
				o.settleFlow(f)
			}
		}
	}
}

// Rated reports whether a key has, or had, a rate or a pause.
func (o *Prio[T]) Rated() bool { return o.rated }

// HeldKey is a key whose items are held back, and why: at its cap, or
// waiting until the instant At for a token or the end of a pause.
type HeldKey struct {
	Path []string
	Why  string // "cap", "token" or "pause"
	At   int64
}

// Waiting yields up to n keys that wait for a token or the end of a
// pause, the earliest instant first, in O(n log n) whatever the number of
// keys.
func (o *Prio[T]) Waiting(n int, yield func(HeldKey)) {
	for i := range heap.Walk(o.wakes.items) {
		if n <= 0 {
			return
		}
		f := o.wakes.items[i].Val
		if !f.r.wait {
			continue
		}
		h := HeldKey{Path: f.path(), Why: "token", At: f.r.eligibleAt()}
		if h.At == f.r.pause {
			h.Why = "pause"
		}
		yield(h)
		n--
	}
}

// Capped yields the path of each key on the path whose id is key that
// is at its cap, outermost first.
func (o *Prio[T]) Capped(key uint32, yield func(path []string)) {
	var capped []*flow[T]
	for f := o.ids.flow(key); f != nil && f.parent != nil; f = f.parent {
		if f.cap > 0 && f.out >= int(f.cap) && !o.capsOff {
			capped = append(capped, f)
		}
	}
	for i := len(capped) - 1; i >= 0; i-- {
		yield(capped[i].path())
	}
}

// path returns f's key path, in a new slice.
func (f *flow[T]) path() []string {
	var path []string
	for ; f != nil && f.parent != nil; f = f.parent {
		path = append(path, f.key)
	}
	slices.Reverse(path)
	return path
}
