package order

import "github.com/actorq/actorq/actor/internal/heap"

// The children of an inner node, in one band. The rule that makes caps
// exact and picks cheap is one invariant:
//
//	a child with live entries is in its parent's turns if it may take a
//	turn (it is eligible: not blocked at its cap, and, for an inner
//	node, with a child in its own turns), and in its parent's held list
//	if it may not; a child with none is not a child any more.
//
// A child in the turns has a turn number (seq): a child that enters the
// turns gets a number above every other, and the turns go in the order
// of their numbers (by turns), or by the flow's tag with ties broken by
// number (by work time). The turns are a list in number order (O(1) a
// pick), or by work time a min-heap (O(log A) a pick, for A children in
// the turns). Every change of whether a node is eligible restores the
// invariant with settle, which walks up only as far as something
// changed; every change of a flow's tag moves each of its nodes to its
// place in its heap (retag). So a pick looks only at keys that may take
// a turn. A pop that may be undone notes the number and turns used of
// every child it moves (undo.go), and putting its item back puts them
// back at those numbers: where they were, whatever entered since.
type kids[T comparable] struct {
	turns list[T]   // by turns, in number order
	heap  []turn[T] // by work time
	held  list[T]   // with live entries, not eligible
}

// turn is a child in a heap of turns, keyed by its flow's tag when it
// was last placed (kept equal to the flow's tag: At) and its turn number
// (Seq). The heap is binary (package heap), and each child knows its index
// in it.
type turn[T comparable] = heap.Item[*node[T]]

// where is the list or heap a node is in among its parent's children.
type where uint8

const (
	nowhere where = iota
	inTurns
	inHeld
)

// any reports whether some child may take a turn.
func (k *kids[T]) any() bool { return k != nil && (k.turns.first != nil || len(k.heap) > 0) }

// kept returns k, empty, for the spare children's lists, or nil if its
// heap has grown past what a spare keeps.
func (k *kids[T]) kept() *kids[T] {
	if k == nil || cap(k.heap) > spareRing {
		return nil
	}
	k.heap = k.heap[:0]
	return k
}

// nextTurn returns the child of n whose turn it is; n must have one.
func (o *Prio[T]) nextTurn(n *node[T]) *node[T] {
	if !o.byWork {
		return n.kids.turns.first
	}
	return n.kids.heap[0].Val
}

// enter puts c, a child of p that may take a turn, at the back of p's
// turns, wherever it was.
func (o *Prio[T]) enter(p, c *node[T]) {
	o.back++
	o.enterAt(p, c, o.back)
}

// enterAt puts c, a child of p, in p's turns with turn number seq,
// wherever it was: at the back for a new number, or back where it was
// for the number it had (undo.go).
func (o *Prio[T]) enterAt(p, c *node[T], seq int64) {
	k := p.kids
	if c.in == inHeld {
		k.held.remove(c)
		c.in = nowhere
	}
	c.seq = seq
	if !o.byWork {
		if c.in == inTurns {
			k.turns.remove(c)
		}
		k.turns.insert(c)
		c.in = inTurns
		return
	}
	t := turn[T]{Key: heap.Key{At: c.flow.tag(), Seq: uint64(seq)}, Val: c}
	if c.in == inTurns {
		k.heap[c.idx] = t
		placed(k.heap, int(c.idx), heap.Fix(k.heap, int(c.idx)))
		return
	}
	c.in = inTurns
	k.heap = append(k.heap, t)
	placed(k.heap, len(k.heap)-1, heap.Up(k.heap, len(k.heap)-1))
}

// hold puts c, a child of p that may not take a turn, in p's held list.
// A pop that may be undone notes where c was.
func (o *Prio[T]) hold(p, c *node[T]) {
	if c.in == inHeld {
		return
	}
	o.noteHeld(c)
	o.leave(p, c)
	p.kids.held.pushBack(c)
	c.in = inHeld
}

// leave takes c out of p's turns or held list.
func (o *Prio[T]) leave(p, c *node[T]) {
	k := p.kids
	switch {
	case c.in == inHeld:
		k.held.remove(c)
	case c.in == inTurns && !o.byWork:
		k.turns.remove(c)
	case c.in == inTurns:
		i, last := int(c.idx), len(k.heap)-1
		k.heap[i] = k.heap[last]
		k.heap[last] = turn[T]{}
		k.heap = k.heap[:last]
		if i < last {
			placed(k.heap, i, heap.Fix(k.heap, i))
		}
	}
	c.in = nowhere
}

// retag moves x to its place in its parent's heap of turns after its
// flow's tag changed.
func (o *Prio[T]) retag(x *node[T]) {
	if !o.byWork || x.in != inTurns {
		return
	}
	h := x.parent.kids.heap
	if t := x.flow.tag(); h[x.idx].At != t {
		h[x.idx].At = t
		placed(h, int(x.idx), heap.Fix(h, int(x.idx)))
	}
}

// settle restores the invariant for x, and up the tree as far as
// something changed. A node that becomes eligible enters at the back of
// its parent's turns, its turn starting anew, and counts in Changes.
func (o *Prio[T]) settle(x *node[T]) {
	for p := x.parent; p != nil; x, p = p, p.parent {
		had := p.kids.any()
		switch ok := o.eligible(x); {
		case ok && x.in != inTurns:
			o.enter(p, x)
			x.used = 0
			o.changes++
		case !ok && x.in == inTurns:
			o.hold(p, x)
			x.used = 0
		default:
			return
		}
		if p.kids.any() == had {
			return
		}
	}
}

// placed tells the children on the path between indices i and j of h,
// the items a sift moved, where they are.
func placed[T comparable](h []turn[T], i, j int) {
	lo, hi := min(i, j), max(i, j)
	for {
		h[hi].Val.idx = int32(hi)
		if hi == lo {
			return
		}
		hi = heap.Parent(hi)
	}
}

// list is a doubly linked list of nodes, by their prev and next: a
// parent's turns in number order, or its held list.
type list[T comparable] struct{ first, last *node[T] }

func (l *list[T]) pushBack(c *node[T]) { l.insertBefore(c, nil) }

// insert puts c in the list in the order of turn numbers: at the back
// for a number above every other (an entry), else before the first node
// with a number as high (a node put back where it was, near the front).
func (l *list[T]) insert(c *node[T]) {
	var next *node[T]
	if l.last != nil && l.last.seq >= c.seq {
		for next = l.first; next.seq < c.seq; next = next.next {
		}
	}
	l.insertBefore(c, next)
}

// insertBefore puts c in the list before next, or at the back for nil.
func (l *list[T]) insertBefore(c, next *node[T]) {
	prev := l.last
	if next != nil {
		prev = next.prev
	}
	l.link(prev, c)
	l.link(c, next)
}

func (l *list[T]) remove(c *node[T]) {
	l.link(c.prev, c.next)
	c.prev, c.next = nil, nil
}

// link makes b follow a in the list; a nil a makes b the first, a nil b
// makes a the last.
func (l *list[T]) link(a, b *node[T]) {
	if a != nil {
		a.next = b
	} else {
		l.first = b
	}
	if b != nil {
		b.prev = a
	} else {
		l.last = a
	}
}
