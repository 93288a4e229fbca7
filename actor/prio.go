package actor

import (
	"cmp"
	"slices"
	"time"
)

// place is where a ready item goes in the ready order: its priority, its
// sequence number (first in, first out within a priority: lower goes
// first), the time it became ready (for the starvation bound), and its
// fairness keys.
type place struct {
	prio int
	seq  uint64
	at   int64 // nanoseconds since the queue's epoch
	keys []string
}

// prioOrder is the ready order with priorities: higher first, and within a
// priority in sequence order. With fairness keys, each priority hands out
// round-robin across the first-level keys, then across the second level
// within each, and in sequence order within one key (a tree whose leaves
// hold the items). With a starvation bound, an item that has waited longer
// than the bound goes before every item of a higher priority.
//
// An item's place can be abandoned (when its priority is raised, or when
// the starvation bound hands it out from the middle of its priority): the
// entry stays where it is, and is recognised as stale when reached,
// because cur no longer holds its sequence number. Every count (n) is of
// live entries only, and a node with none is removed with whatever stale
// entries it still holds, so a key with nothing ready costs nothing and
// one that has gone costs no memory.
type prioOrder[T comparable] struct {
	bands  map[int]*band[T]
	prios  []int        // priorities with live items, highest first
	cur    map[T]uint64 // the sequence number of each item's live entry
	peak   int          // the most entries cur held since it was last rebuilt
	bound  int64        // the starvation bound in nanoseconds; 0 for none
	now    func() int64
	keysOf func(T) []string // with fairness: an item's keys
	n      int
}

// band is the items of one priority.
type band[T comparable] struct {
	root node[T]
	log  ring[orderEntry[T]] // with a starvation bound: every entry, in the order it became ready
}

// node is a fairness key's items: a leaf holds them, an inner node holds
// the next level's keys, whose turns rotate.
type node[T comparable] struct {
	n int // live entries under this node

	// A leaf: its entries in sequence order, those pushed back into the
	// middle (an item added again while processing, whose place was fixed
	// at the add) in a heap of their own.
	fifo ring[orderEntry[T]]
	late []orderEntry[T]

	// An inner node: children by key, and those with live entries in the
	// order of their turns.
	children      map[string]*node[T]
	first, last   *node[T]
	parent        *node[T]
	prev, next    *node[T]
	key           string
	active, inner bool
}

type orderEntry[T comparable] struct {
	item T
	seq  uint64
	at   int64
}

func newPrioOrder[T comparable](bound time.Duration, now func() int64) *prioOrder[T] {
	return &prioOrder[T]{bands: make(map[int]*band[T]), cur: make(map[T]uint64), bound: int64(bound), now: now}
}

func (o *prioOrder[T]) len() int     { return o.n }
func (o *prioOrder[T]) touch(item T) {}

// push adds item at its place.
func (o *prioOrder[T]) push(item T, p place) { o.insert(item, p, false) }

// pushFront adds item back at its place, which is before every other of
// its key: it was handed out first, and taken back.
func (o *prioOrder[T]) pushFront(item T, p place) { o.insert(item, p, true) }

func (o *prioOrder[T]) insert(item T, p place, front bool) {
	b := o.bands[p.prio]
	if b == nil {
		b = &band[T]{}
		o.bands[p.prio] = b
		i, _ := slices.BinarySearchFunc(o.prios, p.prio, func(a, b int) int { return cmp.Compare(b, a) }) // highest first
		o.prios = slices.Insert(o.prios, i, p.prio)
	}
	e := orderEntry[T]{item: item, seq: p.seq, at: p.at}
	o.cur[item] = p.seq
	o.peak = max(o.peak, len(o.cur))
	o.n++
	if o.bound > 0 {
		b.log.push(e) // taken-back entries too: an older entry for the item may be stale
	}
	leaf := b.root.leaf(p.keys, front)
	switch {
	case front:
		leaf.fifo.pushFront(e)
	case leaf.fifo.len() > 0 && leaf.fifo.back().seq > p.seq:
		heapPush(&leaf.late, e) // placed before entries already there
	default:
		leaf.fifo.push(e)
	}
	for x := leaf; x != nil; x = x.parent {
		x.n++
	}
}

// remove abandons item's place: its entry goes stale.
func (o *prioOrder[T]) remove(item T, p place) {
	o.forget(item)
	o.n--
	b := o.bands[p.prio]
	b.root.drop(p.keys)
	if b.root.n == 0 {
		o.dropBand(p.prio)
	}
}

// pop removes the next item and returns it with its priority.
func (o *prioOrder[T]) pop() (T, place) {
	if o.bound > 0 && len(o.prios) > 1 {
		if item, p, ok := o.popStarving(); ok {
			return item, p
		}
	}
	prio := o.prios[0]
	b := o.bands[prio]
	e := b.root.pop(o.cur)
	o.popped(e.item, prio)
	var keys []string
	if o.keysOf != nil {
		keys = o.keysOf(e.item) // its path in the tree: keys are fixed while an item is known
	}
	return e.item, place{prio: prio, seq: e.seq, at: e.at, keys: keys}
}

// forget drops item's live entry from cur. Go maps do not shrink, so once
// cur holds an eighth of what it held at its peak it is rebuilt, as the
// state's item map is: a burst leaves no memory behind.
func (o *prioOrder[T]) forget(item T) {
	delete(o.cur, item)
	if o.peak >= shrinkFloor && len(o.cur) <= o.peak/8 {
		cur := make(map[T]uint64, 2*len(o.cur)) // not maps.Clone, which keeps the size
		for k, v := range o.cur {
			cur[k] = v
		}
		o.cur, o.peak = cur, len(cur)
	}
}

// popped forgets the live entry of item, just taken from band prio.
func (o *prioOrder[T]) popped(item T, prio int) {
	o.forget(item)
	o.n--
	if o.bands[prio].root.n == 0 {
		o.dropBand(prio)
	}
}

// popStarving hands out the item that has waited longest among those that
// have waited longer than the bound in priorities below the highest, if
// any: the starvation bound.
func (o *prioOrder[T]) popStarving() (item T, p place, ok bool) {
	deadline := o.now() - o.bound
	best := -1
	var oldest orderEntry[T]
	for i, prio := range o.prios[1:] {
		b := o.bands[prio]
		for b.log.len() > 0 && !live(o.cur, b.log.front()) {
			b.log.pop() // stale: handed out, or moved
		}
		if b.log.len() == 0 {
			continue
		}
		if e := b.log.front(); e.at <= deadline && (best < 0 || e.at < oldest.at || e.at == oldest.at && e.seq < oldest.seq) {
			best, oldest = i+1, e
		}
	}
	if best < 0 {
		return item, p, false
	}
	prio := o.prios[best]
	b := o.bands[prio]
	b.log.pop()
	var keys []string
	if o.keysOf != nil {
		keys = o.keysOf(oldest.item)
	}
	b.root.drop(keys) // its leaf entry goes stale
	o.popped(oldest.item, prio)
	return oldest.item, place{prio: prio, seq: oldest.seq, at: oldest.at, keys: keys}, true
}

func (o *prioOrder[T]) dropBand(prio int) {
	delete(o.bands, prio)
	i := slices.Index(o.prios, prio)
	o.prios = slices.Delete(o.prios, i, i+1)
}

// leaf returns the leaf of keys under n, making the nodes on the way, and
// gives the key at each level its turn: at the back of its parent's turns
// if it had none, or at the front if front (an item taken back gets back
// the turn it had).
func (n *node[T]) leaf(keys []string, front bool) *node[T] {
	x := n
	for _, k := range keys {
		if x.children == nil {
			x.children = make(map[string]*node[T])
			x.inner = true
		}
		c := x.children[k]
		if c == nil {
			c = &node[T]{parent: x, key: k}
			x.children[k] = c
		}
		if front {
			x.toFront(c)
		} else if !c.active {
			x.toBack(c)
		}
		x = c
	}
	return x
}

// drop takes one live entry off the counts along keys' path, removing the
// nodes left with none.
func (n *node[T]) drop(keys []string) {
	path := make([]*node[T], 0, len(keys)+1)
	x := n
	path = append(path, x)
	for _, k := range keys {
		x = x.children[k]
		path = append(path, x)
	}
	for i := len(path) - 1; i >= 0; i-- {
		path[i].n--
		if i > 0 && path[i].n == 0 {
			path[i-1].unlink(path[i])
			delete(path[i-1].children, path[i].key)
		}
	}
	if n.n == 0 {
		n.fifo, n.late, n.children = ring[orderEntry[T]]{}, nil, nil
	}
}

// pop takes the next live entry under n (whose count must be positive):
// round-robin across children, sequence order within a leaf.
func (n *node[T]) pop(cur map[T]uint64) orderEntry[T] {
	if n.inner {
		c := n.first
		e := c.pop(cur)
		n.n--
		n.unlink(c)
		if c.n > 0 {
			n.toBack(c) // its turn is over
		} else {
			delete(n.children, c.key)
		}
		if n.n == 0 {
			n.children = nil
		}
		return e
	}
	for {
		var e orderEntry[T]
		if len(n.late) > 0 && (n.fifo.len() == 0 || n.late[0].seq < n.fifo.front().seq) {
			e = heapPop(&n.late)
		} else {
			e = n.fifo.pop()
		}
		if live(cur, e) {
			n.n--
			if n.n == 0 {
				n.fifo, n.late = ring[orderEntry[T]]{}, nil // the stale rest
			}
			return e
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

// live reports whether e is its item's live entry.
func live[T comparable](cur map[T]uint64, e orderEntry[T]) bool {
	seq, ok := cur[e.item]
	return ok && seq == e.seq
}

// heapPush and heapPop keep entries in a min-heap by sequence number.
func heapPush[T comparable](h *[]orderEntry[T], e orderEntry[T]) {
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

func heapPop[T comparable](h *[]orderEntry[T]) orderEntry[T] {
	s := *h
	e := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = orderEntry[T]{}
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
