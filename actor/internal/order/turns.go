package order

// The children of an inner node, in one band. The rule that makes caps
// exact and picks cheap is one invariant:
//
//	a child with live entries is in its parent's turns if it may take a
//	turn (it is eligible: not blocked at its cap, and, for an inner
//	node, with a child in its own turns), and in its parent's held list
//	if it may not; a child with none is not a child any more.
//
// The turns are a list by turns (the next to take a turn first: O(1) a
// pick), or with fairness by work time a min-heap by the flow's tag, ties
// broken by turn number (O(log A) a pick, for A children in the turns).
// Every change of whether a node is eligible restores the invariant with
// settle, which walks up only as far as something changed; every change
// of a flow's tag moves each of its nodes to its place in its heap
// (retag). So a pick looks only at keys that may take a turn.
type kids[T comparable] struct {
	turns list[T]   // by turns
	heap  []turn[T] // by work time
	held  list[T]   // with live entries, not eligible
}

// turn is a child in a heap of turns: its flow's tag when it was last
// placed (kept equal to the flow's tag), and its turn number, which
// breaks ties as the list by turns would (the back gets a number above
// every other, the front one below).
type turn[T comparable] struct {
	tag, seq int64
	x        *node[T]
}

func (a *turn[T]) before(b *turn[T]) bool {
	return a.tag < b.tag || a.tag == b.tag && a.seq < b.seq
}

// where is the list or heap a node is in among its parent's children.
type where uint8

const (
	nowhere where = iota
	inTurns
	inHeld
)

// any reports whether some child may take a turn.
func (k *kids[T]) any() bool { return k != nil && (k.turns.first != nil || len(k.heap) > 0) }

// kept returns k for a spare band or the spare children's lists, emptied,
// or nil if its heap has grown past what a spare keeps.
func (k *kids[T]) kept() *kids[T] {
	if k == nil || cap(k.heap) > spareRing {
		return nil
	}
	k.heap = k.heap[:0]
	return k
}

// nextTurn returns the child of n whose turn it is; n must have one. By
// work time, the picked tag becomes n's virtual time if it is later.
func (o *Prio[T]) nextTurn(n *node[T]) *node[T] {
	k := n.kids
	if !o.byWork {
		return k.turns.first
	}
	n.flow.vnow = max(n.flow.vnow, k.heap[0].tag)
	return k.heap[0].x
}

// enter puts c, a child of p that may take a turn, at the back of p's
// turns (or the front), wherever it was.
func (o *Prio[T]) enter(p, c *node[T], front bool) {
	o.visits++
	k := p.kids
	if c.in == inHeld {
		k.held.remove(c)
		c.in = nowhere
	}
	if !o.byWork {
		if c.in == inTurns {
			k.turns.remove(c)
		}
		if front {
			k.turns.pushFront(c)
		} else {
			k.turns.pushBack(c)
		}
		c.in = inTurns
		return
	}
	var seq int64
	if front {
		o.front--
		seq = o.front
	} else {
		o.back++
		seq = o.back
	}
	t := turn[T]{tag: c.flow.tag(), seq: seq, x: c}
	if c.in == inTurns {
		k.heap[c.idx] = t
		o.fix(k.heap, int(c.idx))
		return
	}
	c.in = inTurns
	c.idx = int32(len(k.heap))
	k.heap = append(k.heap, t)
	o.up(k.heap, int(c.idx))
}

// hold puts c, a child of p that may not take a turn, in p's held list.
func (o *Prio[T]) hold(p, c *node[T]) {
	if c.in == inHeld {
		return
	}
	o.leave(p, c)
	p.kids.held.pushBack(c)
	c.in = inHeld
}

// leave takes c out of p's turns or held list.
func (o *Prio[T]) leave(p, c *node[T]) {
	o.visits++
	k := p.kids
	switch {
	case c.in == inHeld:
		k.held.remove(c)
	case c.in == inTurns && !o.byWork:
		k.turns.remove(c)
	case c.in == inTurns:
		i, last := int(c.idx), len(k.heap)-1
		moved := k.heap[last]
		k.heap[last] = turn[T]{}
		k.heap = k.heap[:last]
		if i != last {
			put(k.heap, i, moved)
			o.fix(k.heap, i)
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
	if t := x.flow.tag(); h[x.idx].tag != t {
		h[x.idx].tag = t
		o.fix(h, int(x.idx))
	}
}

// settle restores the invariant for x, and up the tree as far as
// something changed. With front, x and every node above it that may take
// a turn go to the front of their parents' turns: an item pushed back
// gets back the turns its Pop took.
func (o *Prio[T]) settle(x *node[T], front bool) {
	for p := x.parent; p != nil; x, p = p, p.parent {
		o.visits++
		had := p.kids.any()
		switch ok := o.eligible(x); {
		case ok && front:
			o.enter(p, x, true)
		case ok && x.in != inTurns:
			o.enter(p, x, false)
			x.used = 0
			o.joins++
		case !ok && x.in == inTurns:
			o.hold(p, x)
			x.used = 0
		default:
			return
		}
		if !front && p.kids.any() == had {
			return
		}
	}
}

// The heap of turns: a 4-ary min-heap by (tag, seq), half as deep as a
// binary one, so that a move touches half as many nodes; each node knows
// its index.
const arity = 4

// put places t at index i of h.
func put[T comparable](h []turn[T], i int, t turn[T]) {
	h[i] = t
	t.x.idx = int32(i)
}

func (o *Prio[T]) fix(h []turn[T], i int) {
	if !o.down(h, i) {
		o.up(h, i)
	}
}

func (o *Prio[T]) up(h []turn[T], j int) {
	t := h[j]
	for j > 0 {
		o.visits++
		i := (j - 1) / arity
		if !t.before(&h[i]) {
			break
		}
		put(h, j, h[i])
		j = i
	}
	put(h, j, t)
}

// down reports whether h[i] moved.
func (o *Prio[T]) down(h []turn[T], i int) bool {
	t, start := h[i], i
	for {
		first := arity*i + 1
		if first >= len(h) {
			break
		}
		j, end := first, min(first+arity, len(h))
		o.visits += end - first // the children looked at
		for c := first + 1; c < end; c++ {
			if h[c].before(&h[j]) {
				j = c
			}
		}
		if !h[j].before(&t) {
			break
		}
		put(h, i, h[j])
		i = j
	}
	put(h, i, t)
	return i > start
}

// list is a doubly linked list of nodes, by their prev and next.
type list[T comparable] struct{ first, last *node[T] }

func (l *list[T]) pushBack(c *node[T]) {
	c.prev, c.next = l.last, nil
	if l.last != nil {
		l.last.next = c
	} else {
		l.first = c
	}
	l.last = c
}

func (l *list[T]) pushFront(c *node[T]) {
	c.prev, c.next = nil, l.first
	if l.first != nil {
		l.first.prev = c
	} else {
		l.last = c
	}
	l.first = c
}

func (l *list[T]) remove(c *node[T]) {
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		l.first = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		l.last = c.prev
	}
	c.prev, c.next = nil, nil
}
