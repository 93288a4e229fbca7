package order

import "github.com/actorq/actorq/actor/internal/heap"

// node is a fairness key's items in one priority band: a leaf holds them,
// an inner node holds the next level's keys, which take turns (turns.go).
// Without fairness keys, a band's root is its only leaf. A key has a node
// in a band only while it has a live entry there: a node whose count
// falls to zero goes, with whatever stale entries it still holds.
type node[T comparable] struct {
	n int // live entries under this node

	// Its key's flow (flow.go), shared with its nodes in the other bands
	// (sib links them), and its parent: the node of the parent key in the
	// same band, by which the key's nodes are told apart.
	flow   *flow[T]
	parent *node[T]
	sib    *node[T]

	// Its place among its parent's children (turns.go): in a list by
	// prev and next (the turns by turns, or held), or at idx in the
	// heap of turns by work time; its turn number, and with weights the
	// turns it has had in its current turn of the round (a weight of w
	// gives it w in a row). gen counts the times the node was freed, so
	// that a note of a pop ahead (undo.go) knows it for the same node.
	prev, next *node[T]
	seq        int64
	idx        int32
	used       int32
	gen        uint32
	in         where
	inner      bool

	kids *kids[T] // an inner node's children

	// A leaf: its entries in sequence order, in the order's slab
	// (entries.go), those pushed into the middle (an item added again
	// while processing whose place was fixed at the add, say) in a heap
	// of their own, made when first needed.
	fifo chain
	late *[]heap.Item[entry[T]]
}

// lateFirst reports whether the next entry of leaf n is in its late heap.
func (o *Prio[T]) lateFirst(n *node[T]) bool {
	return n.late != nil && len(*n.late) > 0 && (n.fifo.empty() || (*n.late)[0].Seq < o.ents.seqAt(n.fifo.head))
}

// front returns the next entry of leaf n, live or not.
func (o *Prio[T]) front(n *node[T]) entry[T] {
	if o.lateFirst(n) {
		return (*n.late)[0].Val
	}
	return o.ents.front(&n.fifo)
}

// pushLate adds e to the late heap of a leaf.
func (n *node[T]) pushLate(e entry[T]) {
	if n.late == nil {
		n.late = new([]heap.Item[entry[T]])
	}
	heap.Push(n.late, heap.Item[entry[T]]{Key: heap.Key{Seq: e.seq}, Val: e})
}

// leafOf returns the leaf of the key whose id is key in band b (the root
// for 0), making the nodes on the way.
func (o *Prio[T]) leafOf(b *band[T], key uint32) *node[T] {
	if key == 0 {
		return &b.root
	}
	return o.nodeOf(o.ids.flow(key), b)
}

// nodeOf returns the node of flow f in band b, making it and the nodes
// above it if need be. A new node has no live entry yet: it waits in its
// parent's held list until the caller counts one and settles it. A key
// that had no node and no item out was idle until now: it starts at its
// parent's virtual time, with no credit.
func (o *Prio[T]) nodeOf(f *flow[T], b *band[T]) *node[T] {
	if f.parent == nil {
		return &b.root
	}
	p := o.nodeOf(f.parent, b)
	for x := f.nodes; x != nil; x = x.sib {
		if x.parent == p {
			return x
		}
	}
	if f.nodes == nil && f.out == 0 {
		f.vtime = max(f.vtime, f.parent.vnow)
	}
	x := o.newNode()
	x.flow, x.parent, x.sib = f, p, f.nodes
	f.nodes = x
	if p.kids == nil {
		p.kids = o.newKids()
	}
	p.inner = true
	p.kids.held.pushBack(x)
	x.in = inHeld
	return x
}

// drop abandons item's live entry in the leaf of key in band b: the entry
// goes stale, and comes off the counts along the path, which removes the
// nodes left with none; the lowest node left may no longer take a turn.
func (o *Prio[T]) drop(b *band[T], item T, key uint32) {
	x := o.leafOf(b, key)
	o.kill(deadKey[T]{item: item, leaf: x})
	var left *node[T]
	for x != nil {
		x.n--
		p := x.parent
		if p != nil && x.n == 0 {
			o.discard(x)
			o.leave(p, x)
			o.freeNode(x)
		} else if left == nil {
			left = x
		}
		x = p
	}
	if left != nil {
		o.settle(left)
	}
}

// discard uncounts the entries left in leaf, which has no live one, and
// empties it.
func (o *Prio[T]) discard(leaf *node[T]) {
	for !leaf.fifo.empty() {
		o.stale(deadKey[T]{item: o.ents.pop(&leaf.fifo).item, leaf: leaf})
	}
	if leaf.late == nil {
		return
	}
	for _, e := range *leaf.late {
		o.stale(deadKey[T]{item: e.Val.item, leaf: leaf})
	}
	if cap(*leaf.late) > spareRing {
		leaf.late = nil
	} else { // a small heap is kept
		clear(*leaf.late)
		*leaf.late = (*leaf.late)[:0]
	}
}

// freeNode takes x, which has no live entry and holds none, and is out of
// its parent's children, off its flow's nodes (which may let the flow
// go), and keeps it for a later key if there is room, with its small
// late heap: a spare is a node as new but for it (spares.go). The
// children's lists of an inner node are kept apart, for the next node
// that gets children: a node has them only while it is inner, so that
// spares that were leaves keep no heap of turns.
func (o *Prio[T]) freeNode(x *node[T]) {
	o.detach(x)
	if k := x.kids.kept(); k != nil {
		o.keepKids(k)
	}
	*x = node[T]{late: x.late, gen: x.gen + 1}
	o.keepNode(x)
}

// detach takes x off its flow's nodes, and forgets the flow if nothing
// else keeps it.
func (o *Prio[T]) detach(x *node[T]) {
	f := x.flow
	for p := &f.nodes; *p != nil; p = &(*p).sib {
		if *p == x {
			*p = x.sib
			break
		}
	}
	o.tidy(f)
}

// popNode takes the next live entry under n (which must be eligible),
// and returns it with its leaf's flow: the child whose turn it is (a
// child of weight w takes w turns in a row; by work time, the one with
// the least virtual time, whose tag becomes n's virtual time if it is
// later), and sequence order within a leaf. It counts
// the entry out of its keys (countOut); the caller blocks the keys that
// reached their caps in the other bands, and places their nodes anew
// there (tookOut).
func (o *Prio[T]) popNode(n *node[T]) (entry[T], *flow[T]) {
	if !n.inner {
		return o.popLeaf(n), n.flow
	}
	c := o.nextTurn(n)
	o.notePath(c)
	if o.byWork {
		n.flow.vnow = max(n.flow.vnow, n.kids.heap[0].At)
	}
	e, f := o.popNode(c)
	n.n--
	c.used++
	switch {
	case c.n == 0:
		o.leave(n, c)
		o.freeNode(c)
	case !o.eligible(c):
		o.hold(n, c)
		c.used = 0
	case o.byWork || c.used >= c.weight():
		c.used = 0
		o.enter(n, c) // its turn is over
	}
	return e, f
}

// popLeaf takes the next live entry of leaf n, and counts it out of its
// keys.
func (o *Prio[T]) popLeaf(n *node[T]) entry[T] {
	for {
		var e entry[T]
		if o.lateFirst(n) {
			e = heap.Pop(n.late).Val
		} else {
			e = o.ents.pop(&n.fifo)
		}
		if !o.stale(deadKey[T]{item: e.item, leaf: n}) {
			n.n--
			if n.n == 0 {
				o.discard(n) // the stale rest
			}
			o.countOut(n.flow)
			return e
		}
	}
}
