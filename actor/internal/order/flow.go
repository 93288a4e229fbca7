package order

import (
	"fmt"
	"maps"
	"slices"
)

// Flow control of fairness keys: a cap on the items of a key that are out
// (popped or processing) at once, a weight (turns per round, or a share of
// work time), and, opt-in, fairness by work time.
//
// A key's flow is shared by its nodes in every band (a key has a node in
// each priority that holds items of it), so caps, weights and virtual
// times span priorities. The flows form a tree of their own, by key path,
// that outlives the nodes: a flow is kept while the key has a node, an
// item out, a child flow, or limits that SetLimit gave it.
//
// The rule that makes caps exact is one invariant of the band trees:
//
//	a node is in its parent's turns if and only if it has a live entry
//	that may be handed out: n > 0, not blocked (its flow's out below its
//	cap), and, for an inner node, a child in its turns.
//
// Every change of an out count, a cap or a node's entries restores it
// with settle, which walks up only as far as something changed. A band is
// poppable if its root is eligible; Pop takes the highest such band. Once
// shutdown begins (CapsOff), nothing is blocked: the items still ready are
// handed out whatever the caps.
type flow[T comparable] struct {
	key      string
	parent   *flow[T]
	children map[string]*flow[T]
	nodes    []*node[T] // the key's nodes: one per band that holds items of it

	cap     int  // the most items out at once; 0 for no cap
	weight  int  // turns per round, or share of work time; at least 1
	limited bool // SetLimit gave it limits: kept while it has nothing
	out     int  // items of the key popped or processing

	// Fairness by work time.
	vtime int64 // work time charged, divided by the weight
	est   int64 // recent work time per item (a moving average): what an item out is charged ahead
	vnow  int64 // as a parent: the largest tag of a child it picked
}

// Limit is the flow control of one key.
type Limit struct {
	Cap    int // the most items out at once; 0 for no cap
	Weight int // turns per round, or share of work time; 0 means 1
}

// blocked reports whether f's key may not take a turn: at its cap.
func (o *Prio[T]) blocked(f *flow[T]) bool {
	return f != nil && f.cap > 0 && f.out >= f.cap && !o.capsOff
}

// tag is the virtual time by which fairness by work time orders the keys:
// the work time charged, and the items out charged ahead at the key's
// recent work time per item.
func (f *flow[T]) tag() int64 { return f.vtime + int64(f.out)*f.est/int64(f.weight) }

// UseFlows turns flow control on; byWork orders the keys by work time
// instead of turns. It must be called before the first Push.
func (o *Prio[T]) UseFlows(byWork bool) {
	o.flows = &flow[T]{weight: 1}
	o.byWork = byWork
}

// child returns the flow of key k under f, making it if need be: a new
// flow starts at f's virtual time, with no credit.
func (o *Prio[T]) child(f *flow[T], k string) *flow[T] {
	c := f.children[k]
	if c != nil {
		return c
	}
	if f.children == nil {
		f.children = make(map[string]*flow[T])
	}
	if n := len(o.spareFlows); n > 0 {
		c, o.spareFlows = o.spareFlows[n-1], o.spareFlows[:n-1]
	} else {
		c = &flow[T]{}
	}
	c.key, c.parent, c.weight, c.vtime = k, f, 1, f.vnow
	f.children[k] = c
	return c
}

// tidy forgets f and the flows above it that are kept for nothing; a
// spare keeps its empty map of children for the next key.
func (o *Prio[T]) tidy(f *flow[T]) {
	for f != nil && f.parent != nil && len(f.nodes) == 0 && len(f.children) == 0 && f.out == 0 && !f.limited {
		p := f.parent
		delete(p.children, f.key)
		if len(o.spareFlows) < maxSpareNodes {
			*f = flow[T]{children: f.children, nodes: f.nodes}
			o.spareFlows = append(o.spareFlows, f)
		}
		f = p
	}
}

// attach makes x, a new node of key k under parent, one of k's nodes.
func (o *Prio[T]) attach(x, parent *node[T], k string) {
	f := o.child(parent.flow, k)
	if len(f.nodes) == 0 && f.out == 0 {
		f.vtime = max(f.vtime, f.parent.vnow) // idle until now: no credit
	}
	f.nodes = append(f.nodes, x)
	x.flow = f
}

// detach takes x, a node about to go, off its flow's nodes.
func (o *Prio[T]) detach(x *node[T]) {
	f := x.flow
	for i, y := range f.nodes {
		if y == x {
			last := len(f.nodes) - 1
			f.nodes[i], f.nodes[last] = f.nodes[last], nil
			f.nodes = f.nodes[:last]
			break
		}
	}
	x.flow = nil
	o.tidy(f)
}

// moveOut adds d to the items out of f's key and of every key above it,
// and restores the invariant where a key's being blocked changed.
func (o *Prio[T]) moveOut(f *flow[T], d int) {
	for x := f; x != nil && x.parent != nil; x = x.parent {
		was := o.blocked(x)
		x.out += d
		if o.blocked(x) != was {
			o.settleFlow(x)
		}
	}
	if d < 0 {
		o.tidy(f)
	}
}

// settleFlow restores the invariant for every node of f.
func (o *Prio[T]) settleFlow(f *flow[T]) {
	for _, x := range f.nodes {
		o.settle(x, false)
	}
}

// flowOf returns the flow of the key path keys, or nil if it has none.
func (o *Prio[T]) flowOf(keys []string) *flow[T] {
	f := o.flows
	for _, k := range keys {
		if f = f.children[k]; f == nil {
			return nil
		}
	}
	return f
}

// Finish is the event of an item of keys no longer out, after work time
// d (fairness by work time charges it).
func (o *Prio[T]) Finish(keys []string, d int64) {
	if o.flows == nil {
		return
	}
	f := o.flowOf(keys)
	if o.byWork {
		d = max(d, 0)
		for x := f; x != nil && x.parent != nil; x = x.parent {
			x.vtime += d / int64(x.weight)
			if x.est == 0 {
				x.est = d
			} else {
				x.est += (d - x.est) / 4
			}
		}
	}
	o.moveOut(f, -1)
}

// SetLimit sets the limits of the key path keys.
func (o *Prio[T]) SetLimit(keys []string, l Limit) {
	f := o.flows
	for _, k := range keys {
		f = o.child(f, k)
	}
	was := o.blocked(f)
	f.cap, f.weight, f.limited = l.Cap, max(l.Weight, 1), l.Cap > 0 || l.Weight > 1
	if o.blocked(f) != was {
		o.settleFlow(f)
	}
	o.tidy(f)
}

// CapsOff lifts every cap for good: shutdown has begun. The keys held
// back take their turns at the back, in the order of their paths.
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
	o.capsOff = true
	for _, f := range held {
		o.settleFlow(f)
	}
}

// pathBlocked reports whether a key on the path keys is blocked.
func (o *Prio[T]) pathBlocked(keys []string) bool {
	if o.flows == nil || o.capsOff {
		return false
	}
	f := o.flows
	for _, k := range keys {
		if f = f.children[k]; f == nil {
			return false
		}
		if o.blocked(f) {
			return true
		}
	}
	return false
}

// countOut raises the out counts of f's key and of every key above it, as
// an item of it is popped; tookOut then blocks, in every band, the keys
// that reached their caps. (popNode counts before it frees the leaf,
// which would otherwise let an idle flow go, and settles the band it pops
// from itself.)
func (o *Prio[T]) countOut(f *flow[T]) {
	for x := f; x != nil && x.parent != nil; x = x.parent {
		x.out++
	}
}

func (o *Prio[T]) tookOut(f *flow[T]) {
	for x := f; x != nil && x.parent != nil; x = x.parent {
		if x.cap > 0 && x.out == x.cap && !o.capsOff {
			o.settleFlow(x)
		}
	}
}

// eligible reports whether x may take a turn: the invariant's condition.
func (o *Prio[T]) eligible(x *node[T]) bool {
	return x.n > 0 && (!x.inner || x.first != nil) && !o.blocked(x.flow)
}

// settle restores the invariant for x, and up the tree as far as
// something changed. With front, x and every node above it that may take
// a turn go to the front of their parents' turns: an item pushed back
// gets back the turns its Pop took.
func (o *Prio[T]) settle(x *node[T], front bool) {
	for p := x.parent; p != nil; x, p = p, p.parent {
		had := p.first != nil
		switch ok := o.eligible(x); {
		case ok && front:
			p.toFront(x)
		case ok && !x.active:
			p.toBack(x)
			x.used = 0
			o.joins++
		case !ok && x.active:
			p.unlink(x)
			x.used = 0
		default:
			return
		}
		if !front && (p.first != nil) == had {
			return
		}
	}
}

// weight returns the turns per round of x's key.
func (x *node[T]) weight() int {
	if x.flow == nil {
		return 1
	}
	return x.flow.weight
}

// pickByWork returns the child of n, which has children in its turns,
// whose key has the least tag: fairness by work time. Ties go by turns.
func (o *Prio[T]) pickByWork(n *node[T]) *node[T] {
	best := n.first
	for c := best.next; c != nil; c = c.next {
		if c.flow.tag() < best.flow.tag() {
			best = c
		}
	}
	n.flow.vnow = max(n.flow.vnow, best.flow.tag())
	return best
}

// CheckFlows returns an error if the flows break their invariants: out
// must count, for each key, the items out whose paths are in out; a flow
// is kept only for what keeps it; every node is in its parent's turns if
// and only if it is eligible. It is for tests: it looks at everything.
func (o *Prio[T]) CheckFlows(out [][]string) error {
	if o.flows == nil {
		return nil
	}
	want := map[*flow[T]]int{}
	for _, keys := range out {
		f := o.flows
		for _, k := range keys {
			if f = f.children[k]; f == nil {
				return fmt.Errorf("no flow for %q, which has an item out", keys)
			}
			want[f]++
		}
	}
	var check func(f *flow[T], path []string) error
	check = func(f *flow[T], path []string) error {
		if f.parent != nil {
			if f.out != want[f] {
				return fmt.Errorf("flow %q: out = %d; %d items out", path, f.out, want[f])
			}
			if len(f.nodes) == 0 && len(f.children) == 0 && f.out == 0 && !f.limited {
				return fmt.Errorf("flow %q kept for nothing", path)
			}
		}
		for _, x := range f.nodes {
			if x.flow != f {
				return fmt.Errorf("flow %q: a node of another flow", path)
			}
		}
		for k, c := range f.children {
			if c.parent != f || c.key != k {
				return fmt.Errorf("flow %q: child %q linked wrong", path, k)
			}
			if err := check(c, append(slices.Clip(path), k)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(o.flows, nil); err != nil {
		return err
	}
	var walk func(x *node[T], path []string) error
	walk = func(x *node[T], path []string) error {
		inTurns := map[*node[T]]bool{}
		for c := x.first; c != nil; c = c.next {
			inTurns[c] = true
		}
		for k, c := range x.children {
			p := append(slices.Clip(path), k)
			if c.flow == nil || !slices.Contains(c.flow.nodes, c) {
				return fmt.Errorf("node %q: not among its flow's nodes", p)
			}
			if inTurns[c] != o.eligible(c) || c.active != inTurns[c] {
				return fmt.Errorf("node %q: in turns %v, active %v, eligible %v", p, inTurns[c], c.active, o.eligible(c))
			}
			if err := walk(c, p); err != nil {
				return err
			}
		}
		return nil
	}
	for prio, b := range o.bands {
		if err := walk(&b.root, []string{fmt.Sprint(prio)}); err != nil {
			return err
		}
	}
	return nil
}

// KeyCount is what a first-level key holds: items ready, and items out.
type KeyCount struct {
	Key        string
	Ready, Out int
}

// KeyCounts calls yield for each first-level key that holds an item ready
// or out.
func (o *Prio[T]) KeyCounts(yield func(KeyCount)) {
	if o.flows == nil {
		return
	}
	for k, f := range o.flows.children {
		c := KeyCount{Key: k, Out: f.out}
		for _, x := range f.nodes {
			c.Ready += x.n
		}
		if c.Ready+c.Out > 0 {
			yield(c)
		}
	}
}
