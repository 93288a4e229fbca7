package order

// node is a fairness key's items in one priority: a leaf holds them, an
// inner node holds the next level's keys, whose turns rotate. Without
// fairness keys, a band's root is its only leaf.
type node[T comparable] struct {
	n int // live entries under this node

	// A leaf: its entries in sequence order, those pushed into the middle
	// (an item added again while processing whose place was fixed at the
	// add, say) in a heap of their own; and the keys of its items (the
	// slice the first one came with: the items of a leaf have equal
	// keys), which Pop hands back.
	fifo ring[entry[T]]
	late []entry[T]
	path []string

	// An inner node: children by key, and those with live entries in the
	// order of their turns; wide if children has held more than wideNode.
	children            map[string]*node[T]
	first, last         *node[T]
	parent              *node[T]
	prev, next          *node[T]
	key                 string
	active, inner, wide bool

	// With flow control (flow.go): the key's flow, shared with its nodes
	// in the other bands; the turns it has had in its current turn of the
	// round (a weight of w gives it w in a row), and as many before its
	// last pop, which a push back restores.
	flow           *flow[T]
	used, prevUsed int
}

// front returns the next entry of a leaf, live or not.
func (n *node[T]) front() entry[T] {
	if len(n.late) > 0 && (n.fifo.len() == 0 || n.late[0].seq < n.fifo.front().seq) {
		return n.late[0]
	}
	return n.fifo.front()
}

// leaf returns the leaf of keys under n, making the nodes on the way. It
// gives no turns: the caller counts the entry it adds, then settles the
// leaf.
func (o *Prio[T]) leaf(n *node[T], keys []string) *node[T] {
	x := n
	for i, k := range keys {
		if x.children == nil {
			x.children = make(map[string]*node[T])
		}
		x.inner = true
		c := x.children[k]
		if c == nil {
			c = o.newNode(x, k)
			if i == len(keys)-1 {
				c.path = keys
			}
			x.children[k] = c
			x.wide = x.wide || len(x.children) > wideNode
			if o.flows != nil {
				o.attach(c, x, k)
			}
		}
		x = c
	}
	return x
}

// drop abandons item's live entry in the leaf of keys in band b: the entry
// goes stale, and comes off the counts along the path, which removes the
// nodes left with none; the lowest node left may no longer take a turn.
func (o *Prio[T]) drop(b *band[T], item T, keys []string) {
	x := &b.root
	for _, k := range keys {
		x = x.children[k]
	}
	o.kill(deadKey[T]{item: item, leaf: x})
	var left *node[T]
	for x != nil {
		x.n--
		p := x.parent
		if p != nil && x.n == 0 {
			o.discard(x)
			p.unlink(x)
			delete(p.children, x.key)
			o.freeNode(x)
		} else if left == nil {
			left = x
		}
		x = p
	}
	if o.flows != nil && left != nil {
		o.settle(left, false)
	}
}

// discard uncounts the entries left in leaf, which has no live one, and
// empties it.
func (o *Prio[T]) discard(leaf *node[T]) {
	for leaf.fifo.len() > 0 {
		o.stale(deadKey[T]{item: leaf.fifo.pop().item, leaf: leaf})
	}
	for _, e := range leaf.late {
		o.stale(deadKey[T]{item: e.item, leaf: leaf})
	}
	if cap(leaf.late) > keepRing {
		leaf.late = nil
	} else { // small buffers are kept, as the ring keeps one
		clear(leaf.late)
		leaf.late = leaf.late[:0]
	}
}

// newNode returns a node for key k under parent: a spare one, or a new
// one.
func (o *Prio[T]) newNode(parent *node[T], k string) *node[T] {
	n := len(o.spareNodes)
	if n == 0 {
		return &node[T]{parent: parent, key: k}
	}
	x := o.spareNodes[n-1]
	o.spareNodes[n-1] = nil
	o.spareNodes = o.spareNodes[:n-1]
	x.parent, x.key = parent, k
	return x
}

// freeNode keeps x, which has no live entry and holds none, for a later
// key if there is room, with its small buffers: a spare is a node as new
// but for its buffers.
func (o *Prio[T]) freeNode(x *node[T]) {
	if len(o.spareNodes) == maxSpareNodes {
		return
	}
	if x.flow != nil {
		o.detach(x)
	}
	x.emptied()
	buf, late := x.fifo.buf, x.late
	if len(buf) > spareRing {
		buf = nil
	}
	if cap(late) > spareRing {
		late = nil
	}
	*x = node[T]{fifo: ring[entry[T]]{buf: buf}, late: late[:0], children: x.children}
	o.spareNodes = append(o.spareNodes, x)
}

// emptied lets an inner node's map of children go once the node has no
// live entry left, if it held many; a narrow one keeps it, empty, for the
// next keys.
func (n *node[T]) emptied() {
	if n.wide && len(n.children) == 0 {
		n.children, n.wide = nil, false
	}
}

// popNode takes the next live entry under n (which must be eligible),
// and returns it with its leaf's keys and flow: round-robin across
// children (a child of weight w takes w turns in a row), or by work time,
// and sequence order within a leaf. It counts the entry out of its keys
// (countOut); the caller blocks the keys that reached their caps in the
// other bands (tookOut).
func (o *Prio[T]) popNode(n *node[T]) (entry[T], []string, *flow[T]) {
	if n.inner {
		c := n.first
		if o.byWork {
			c = o.pickByWork(n)
		}
		e, keys, f := o.popNode(c)
		n.n--
		c.prevUsed = c.used
		c.used++
		switch {
		case c.n == 0:
			n.unlink(c)
			delete(n.children, c.key)
			o.freeNode(c)
		case !o.eligible(c):
			n.unlink(c)
			c.used = 0
		case o.byWork || c.used >= c.weight():
			c.used = 0
			n.toBack(c) // its turn is over
		}
		if n.n == 0 {
			n.emptied()
		}
		return e, keys, f
	}
	for {
		var e entry[T]
		if len(n.late) > 0 && (n.fifo.len() == 0 || n.late[0].seq < n.fifo.front().seq) {
			e = heapPop(&n.late)
		} else {
			e = n.fifo.pop()
		}
		if !o.stale(deadKey[T]{item: e.item, leaf: n}) {
			n.n--
			if n.n == 0 {
				o.discard(n) // the stale rest
			}
			o.countOut(n.flow)
			return e, n.path, n.flow
		}
	}
}

// The turns of an inner node's children: a doubly linked list of those
// with live entries.

func (n *node[T]) toBack(c *node[T]) {
	if c.active {
		n.unlink(c)
	}
	c.prev, c.next, c.active = n.last, nil, true
	if n.last != nil {
		n.last.next = c
	} else {
		n.first = c
	}
	n.last = c
}

func (n *node[T]) toFront(c *node[T]) {
	if c.active {
		n.unlink(c)
	}
	c.prev, c.next, c.active = nil, n.first, true
	if n.first != nil {
		n.first.prev = c
	} else {
		n.last = c
	}
	n.first = c
}

func (n *node[T]) unlink(c *node[T]) {
	if !c.active {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		n.first = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		n.last = c.prev
	}
	c.prev, c.next, c.active = nil, nil, false
}

// heapPush and heapPop keep entries in a min-heap by sequence number.
func heapPush[T comparable](h *[]entry[T], e entry[T]) {
	*h = append(*h, e)
	s := *h
	for j := len(s) - 1; j > 0; {
		i := (j - 1) / 2
		if s[i].seq <= s[j].seq {
			break
		}
		s[i], s[j] = s[j], s[i]
		j = i
	}
}

func heapPop[T comparable](h *[]entry[T]) entry[T] {
	s := *h
	e := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = entry[T]{}
	s = s[:last]
	for i := 0; ; {
		j := 2*i + 1
		if j >= len(s) {
			break
		}
		if r := j + 1; r < len(s) && s[r].seq < s[j].seq {
			j = r
		}
		if s[i].seq <= s[j].seq {
			break
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
	*h = s
	return e
}
