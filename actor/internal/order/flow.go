package order

import (
	"maps"
	"math"
	"slices"

	"github.com/actorq/actorq/actor/internal/heap"
)

// Flow control of fairness keys: a cap on the items of a key that are out
// (popped or processing) at once, a weight (turns per round, or a share of
// work time), and, opt-in, fairness by work time.
//
// A key's flow is shared by its nodes in every band (a key has a node in
// each priority that holds items of it), so caps, weights and virtual
// times span priorities. The flows form a tree of their own, by key path.
// A flow is kept only while its key has work, or limits:
//
//	a flow is kept while items the queue knows hold it (Hold: ready,
//	popped, processing or delayed), while it has a node, an item out or
//	a child flow, or while SetLimit gave it limits.
//
// A key that comes back after its flow went starts anew at its parent's
// virtual time: forgetting it loses nothing, since an idle key banks no
// credit anyway.
type flow[T comparable] struct {
	key      string
	parent   *flow[T]
	children map[string]*flow[T]
	nodes    *node[T] // one per band that holds items of it, linked by sib

	held int // items the queue knows whose keys end at this flow
	out  int // items of the key popped or processing

	// Fairness by work time.
	vtime int64 // work time charged, divided by the weight
	est   int64 // recent work time per item (a moving average): what an item out is charged ahead
	vnow  int64 // as a parent: the largest tag of a child it picked

	// A first-level key, when the order counts keys (busy.go): items
	// ready plus items out, and its index in the ranking.
	load int
	rank int32

	cap, weight int32     // the most items out at once (0 for no cap); turns per round, at least 1
	id          uint32    // while items hold it: its id (keyIDs)
	peak        int32     // the most children since the flow got its map
	proc        int32     // items of the key processing (a subset of out)
	limited     bool      // SetLimit gave it limits other than its level's: kept while it has nothing
	depth       uint8     // its level: 1 for a first-level key
	r           *bucket   // its rate and pause (rate.go); nil if it never had either
	ad          *adaptive // its adaptive cap (adaptive.go); nil if it has none
}

func (f *flow[T]) idOf() uint32 {
	if f == nil {
		return 0
	}
	return f.id
}

// blocked reports whether f's key may not take a turn: at its cap, or
// waiting for a token or the end of a pause (rate.go).
func (o *Prio[T]) blocked(f *flow[T]) bool {
	return f != nil && (f.cap > 0 && f.out >= int(f.cap) || f.r != nil && f.r.wait) && !o.capsOff
}

// tag is the virtual time by which fairness by work time orders the keys:
// the work time charged, and the items out charged ahead at the key's
// recent work time per item.
func (f *flow[T]) tag() int64 { return f.vtime + int64(f.out)*f.est/int64(f.weight) }

// eligible reports whether x may take a turn: the invariant's condition.
func (o *Prio[T]) eligible(x *node[T]) bool {
	return x.n > 0 && (!x.inner || x.kids.any()) && !o.blocked(x.flow)
}

// weight returns the turns per round of x's key.
func (x *node[T]) weight() int32 { return x.flow.weight }

// UseFlows turns fairness keys and their flow control on; byWork orders
// the keys by work time instead of turns. It must be called before the
// first Push.
func (o *Prio[T]) UseFlows(byWork bool) {
	o.flows = &flow[T]{weight: 1}
	o.byWork = byWork
}

// Hold returns the id of the key path keys, for an item the queue has
// just come to know (added or delayed); the item holds the key's flow
// until Release.
func (o *Prio[T]) Hold(keys []string) uint32 {
	f := o.flows
	for _, k := range keys {
		f = o.child(f, k)
	}
	if f.held == 0 {
		f.id = o.ids.add(f)
	}
	f.held++
	return f.id
}

// Release is the event of an item that held key the queue no longer
// knows: the key's flow goes if nothing else keeps it. Once no item holds
// a key, the order has drained.
func (o *Prio[T]) Release(key uint32) {
	f := o.ids.flow(key)
	f.held--
	if f.held == 0 {
		o.ids.remove(f.id)
		f.id = 0
		o.tidy(f)
		if o.ids.live == 0 {
			o.drained()
		}
	}
}

// Path returns the key path whose id is key, in a new slice.
func (o *Prio[T]) Path(key uint32) []string { return o.ids.flow(key).path() }

// child returns the flow of key k under f, making it if need be: a new
// flow starts at f's virtual time, with no credit.
func (o *Prio[T]) child(f *flow[T], k string) *flow[T] {
	c := f.children[k]
	if c != nil {
		return c
	}
	if f.children == nil {
		f.children = o.newChildren()
	}
	c = o.newFlow()
	c.key, c.parent, c.weight, c.vtime, c.depth = k, f, 1, f.vnow, f.depth+1
	if int(c.depth) <= len(o.levels) {
		o.limit(c, o.levels[c.depth-1])
	}
	f.children[k] = c
	f.peak = max(f.peak, int32(min(len(f.children), math.MaxInt32)))
	return c
}

// tidy forgets f and the flows above it that are kept for nothing. A map
// of children that empties is made anew if it held many; a small one is
// kept apart (spares.go) for the next flow that gets children, so that
// spare flows, most of which become keys without children, keep no map.
func (o *Prio[T]) tidy(f *flow[T]) {
	for f != nil && f.parent != nil && o.keptForNothing(f) {
		if b := f.r; b != nil && (b.wake != 0 || b.tat > o.clock && !o.capsOff) {
			if b.wake == 0 {
				o.wakeAt(f, heap.Key{At: b.tat}) // kept until its bucket is full (rate.go)
			}
			return
		}
		if a := f.ad; a != nil {
			if a.advance(o.clock); a.restsAt() > o.clock && !o.capsOff {
				o.followCap(f) // kept until it has recovered (adaptive.go)
				return
			}
			o.dropAdapt(f)
		}
		p := f.parent
		delete(p.children, f.key)
		if len(p.children) == 0 && p.peak >= shrinkFloor {
			p.children, p.peak = nil, 0
		}
		if f.children != nil && f.peak <= spareRing {
			o.keepChildren(f.children)
		}
		r := f.r
		*f = flow[T]{}
		if r != nil {
			*r = bucket{}
			f.r = r
		}
		o.keepFlow(f)
		f = p
	}
}

// keptForNothing reports whether f has nothing of its own that keeps it:
// no item, no child, no limits of its own. (A bucket that is not full,
// or an adaptive cap not at rest, may keep it still.)
func (o *Prio[T]) keptForNothing(f *flow[T]) bool {
	return f.nodes == nil && len(f.children) == 0 && f.out == 0 && f.held == 0 && !f.limited
}

// countOut raises the out counts of f's key and of every key above it, as
// an item of it is popped; tookOut then blocks, in every band, the keys
// that reached their caps, and by work time moves their nodes to their
// new places. (popNode counts before it frees the leaf, and settles the
// band it pops from itself.)
func (o *Prio[T]) countOut(f *flow[T]) {
	if f == nil {
		return
	}
	o.nout++
	for x := f; x.parent != nil; x = x.parent {
		if x.ad != nil && !o.capsOff {
			// Its cap as of the pop, before the pop's own blocking: the
			// windows since its last event (tookOut settles).
			x.ad.advance(o.clock)
			x.cap = int32(x.ad.cap)
		}
		x.out++
	}
	if o.rated {
		o.take(f)
	}
}

func (o *Prio[T]) tookOut(f *flow[T]) {
	for x := f; x != nil && x.parent != nil; x = x.parent {
		if x.cap > 0 && x.out == int(x.cap) && !o.capsOff || x.r != nil && x.r.wait {
			o.settleFlow(x)
		}
		if x.ad != nil && !o.capsOff {
			o.followCap(x) // blocked now, it waits for a window's end
			if o.blocked(x) {
				o.settleFlow(x)
			}
		}
		o.retagFlow(x)
	}
}

// moveOut adds d to the items out of f's key and of every key above it,
// and restores the invariant where a key's being blocked, or its tag,
// changed.
func (o *Prio[T]) moveOut(f *flow[T], d int) {
	o.nout += d
	for x := f; x.parent != nil; x = x.parent {
		was := o.blocked(x)
		x.out += d
		if o.blocked(x) != was {
			o.settleFlow(x)
		}
		o.retagFlow(x)
	}
	if d < 0 {
		o.tidy(f)
	}
}

// settleFlow restores the invariant for every node of f.
func (o *Prio[T]) settleFlow(f *flow[T]) {
	for x := f.nodes; x != nil; x = x.sib {
		o.settle(x)
	}
}

// retagFlow moves every node of f to its place in its heap of turns, by
// work time.
func (o *Prio[T]) retagFlow(f *flow[T]) {
	if !o.byWork {
		return
	}
	for x := f.nodes; x != nil; x = x.sib {
		o.retag(x)
	}
}

// Finish is the event of an item of key no longer out, after work time d
// (fairness by work time charges it).
func (o *Prio[T]) Finish(key uint32, d int64) {
	if o.flows == nil {
		return
	}
	f := o.ids.flow(key)
	if o.byWork {
		d = max(d, 0)
		for x := f; x.parent != nil; x = x.parent {
			x.vtime += d / int64(x.weight)
			if x.est == 0 {
				x.est = d
			} else {
				x.est += (d - x.est) / 4
			}
		}
	}
	o.stopped(f)
	o.load(f, -1)
	o.moveOut(f, -1)
}

// CapsOff lifts every cap, rate and pause for good: shutdown has begun.
// The keys held back take their turns at the back, in the order of their
// paths; the keys kept for their buckets alone are forgotten.
func (o *Prio[T]) CapsOff() {
	if o.flows == nil || o.capsOff {
		return
	}
	var held []*flow[T]
	var walk func(f *flow[T])
	walk = func(f *flow[T]) {
		if o.blocked(f) {
			held = append(held, f)
		}
		for _, k := range slices.Sorted(maps.Keys(f.children)) {
			walk(f.children[k])
		}
	}
	walk(o.flows)
	for _, f := range slices.Clone(o.learnt) {
		o.advanceAdapt(f, o.clock) // the adaptive caps as of the shutdown
	}
	o.capsOff = true
	for _, f := range held {
		o.settleFlow(f)
	}
	for len(o.wakes.items) > 0 {
		f := o.wakes.items[0].Val
		o.unwake(f)
		f.r.wait = false
		o.tidy(f)
	}
	for len(o.adapts.items) > 0 {
		f := o.adapts.items[0].Val
		o.adapts.remove(f)
		o.tidy(f)
	}
}

// pathBlocked reports whether a key on the path whose id is key is
// blocked.
func (o *Prio[T]) pathBlocked(key uint32) bool {
	if o.capsOff {
		return false
	}
	for f := o.ids.flow(key); f != nil && f.parent != nil; f = f.parent {
		if o.blocked(f) {
			return true
		}
	}
	return false
}

// keyIDs gives ids to the flows that items hold, so that an item's keys
// are one small number (in a state entry, and a Place): ids[id] is the
// flow of id, 0 is no id, and free holds the ids given back, which are
// given again first. The slab is made anew once no id is in use, if it
// grew past shrinkFloor.
type keyIDs[T comparable] struct {
	ids  []*flow[T]
	free []uint32
	live int
	most int // the most ids in use at once since the order last drained
}

func (k *keyIDs[T]) flow(id uint32) *flow[T] {
	if id == 0 {
		return nil
	}
	return k.ids[id]
}

func (k *keyIDs[T]) add(f *flow[T]) uint32 {
	k.live++
	k.most = max(k.most, k.live)
	if n := len(k.free); n > 0 {
		id := k.free[n-1]
		k.free = k.free[:n-1]
		k.ids[id] = f
		return id
	}
	if len(k.ids) == 0 {
		k.ids = append(k.ids, nil) // 0 is no id
	}
	if uint64(len(k.ids)) > math.MaxUint32 {
		panic("order: more than 2^32-1 fairness keys with items at once")
	}
	k.ids = append(k.ids, f)
	return uint32(len(k.ids) - 1)
}

// drained starts the count of the most ids in use at once anew: the
// order drained.
func (k *keyIDs[T]) drained() { k.most = 0 }

func (k *keyIDs[T]) remove(id uint32) {
	k.live--
	k.ids[id] = nil
	if k.live == 0 && len(k.ids) > shrinkFloor {
		k.ids, k.free = nil, nil
		return
	}
	k.free = append(k.free, id)
}
