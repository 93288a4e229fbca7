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
// the starvation bound hands it out from the middle of its priority, and
// with a bound every hand-out abandons the entry's copy in the band's
// log): the entry stays where it is, and dead counts it, per item and
// per container (a leaf, or a band's log), until it is reached and
// skipped, or its container goes. An entry reached is live unless dead
// counts one for its item there, so that while nothing is abandoned —
// the common case, and always without raises or a bound — telling the
// live from the stale costs no map operation at all. If an item has a
// stale and a live entry in one container, the first reached counts as
// the stale one: either way the item is handed out once and every count
// stays right.
//
// Every count (n) is of live entries only, and a node with none is
// removed with whatever stale entries it still holds, so a key with
// nothing ready costs nothing and one that has gone costs no memory but
// that of the few nodes kept for the next keys (spareNodes), which spare
// a key that comes and goes with its items an allocation each time, and
// of the keys that offers of the lane emptied, which linger until their
// items are claimed and the lane is next empty or taken back, or until
// maxLingering of them pile up (see Lingering keys).
type prioOrder[T comparable] struct {
	bands  map[int]*band[T]
	prios  []int              // priorities with live items, highest first
	top    *band[T]           // the band of prios[0], nil if none: most adds and every hand-out use it
	dead   map[deadKey[T]]int // stale entries not yet reached, per item and container
	peak   int                // the most keys dead held since it was last made
	bound  int64              // the starvation bound in nanoseconds; 0 for none
	now    func() int64
	keysOf func(T) []string // with fairness and a bound: an item's keys (popStarving)
	n      int

	// Bands whose priority has no ready item left, kept with their
	// (small) buffers for the next priority that needs one: when the
	// lane keeps the order nearly empty, bands come and go with every
	// few items. With fairness, the nodes of keys that have nothing ready
	// left are kept too (spareNodes), since most keys of a skewed
	// workload come and go with every item they have.
	spare      []*band[T]
	spareNodes []*node[T]

	// The lane's turns (lane.go, Fairness): epoch counts the times the
	// lane was taken back (marks of an earlier epoch are void); offering
	// is set while the owner takes an item out to offer it, and stamped
	// the nodes whose turns that took, until the slot is known (offered);
	// repeat says that an offer took a second turn of a key whose first
	// one an offer still in the lane took.
	epoch     uint32
	offering  bool
	stamped   []*node[T]
	repeat    bool
	lingering []*node[T] // keys that offers emptied (see Lingering keys)
	idle      []int      // priorities whose bands offers emptied
}

const (
	// maxSpare is how many empty bands a priority order keeps.
	maxSpare = 2
	// maxSpareNodes is how many nodes of keys with nothing ready it
	// keeps, each with a buffer of at most spareRing entries; and
	// wideNode the number of children above which an inner node that
	// empties lets its map go rather than keep it for the next keys. A
	// take-back of the lane (lane.go, Fairness) brings back many keys at
	// once, and the keys of a hundred tenants come and go around it: at
	// 64 spare nodes PipelineFair allocated 0.04–0.13 times per item, at
	// 128 0.007–0.03 (with a fair lane of 32).
	maxSpareNodes = 128
	spareRing     = 2 * minRing
	wideNode      = 64
)

// deadKey is an item in a container of entries: a leaf, or a band's log.
type deadKey[T comparable] struct {
	item T
	leaf *node[T]
	log  *band[T]
}

// band is the items of one priority.
type band[T comparable] struct {
	idle bool // an offer emptied it; out of prios, kept for its lingering keys
	root node[T]
	log  ring[orderEntry[T]] // with a starvation bound: every entry, in the order it became ready
}

// node is a fairness key's items: a leaf holds them, an inner node holds
// the next level's keys, whose turns rotate.
type node[T comparable] struct {
	n int // live entries under this node

	// A leaf: its entries in sequence order, those pushed back into the
	// middle (an item added again while processing, whose place was fixed
	// at the add, or one offered in the lane and given back) in a heap of
	// their own; and the keys of its items (the slice the first one came
	// with: the items of a leaf have equal keys), which pop hands back.
	fifo ring[orderEntry[T]]
	late []orderEntry[T]
	path []string

	// An inner node: children by key, and those with live entries in the
	// order of their turns; wide if children has held more than wideNode.
	children            map[string]*node[T]
	first, last         *node[T]
	parent              *node[T]
	prev, next          *node[T]
	key                 string
	active, inner, wide bool

	// The offer that last took this key's turn, in epoch offEpoch; and,
	// for an inner node, the first of its children from which on every
	// one's turn was taken by an offer (laneFirst, valid in laneEpoch):
	// the children's turns are those that nothing took, then those that
	// hand-outs and claimed offers took, then those that offers took, in
	// the order offered.
	offSlot   *slot[T]
	offGen    uint32
	offEpoch  uint32
	laneFirst *node[T]
	laneEpoch uint32
	lingers   bool // in prioOrder.lingering
}

type orderEntry[T comparable] struct {
	item T
	seq  uint64
	at   int64
}

func newPrioOrder[T comparable](bound time.Duration, now func() int64) *prioOrder[T] {
	return &prioOrder[T]{bands: make(map[int]*band[T]), bound: int64(bound), now: now, epoch: 1}
}

func (o *prioOrder[T]) len() int     { return o.n }
func (o *prioOrder[T]) touch(item T) {}

// push adds item at its place.
func (o *prioOrder[T]) push(item T, p place) { o.insert(item, p, false) }

// pushFront adds item back at its place, which is before every other of
// its key: it was handed out first, and taken back.
func (o *prioOrder[T]) pushFront(item T, p place) { o.insert(item, p, true) }

func (o *prioOrder[T]) insert(item T, p place, front bool) {
	b := o.band(p.prio)
	if b == nil {
		if n := len(o.spare); n > 0 {
			b, o.spare = o.spare[n-1], o.spare[:n-1]
		} else {
			b = &band[T]{}
		}
		o.bands[p.prio] = b
		o.listBand(p.prio, b)
	} else if b.idle {
		b.idle = false
		o.listBand(p.prio, b)
	}
	e := orderEntry[T]{item: item, seq: p.seq, at: p.at}
	o.n++
	if o.bound > 0 {
		b.log.push(e) // taken-back entries too: an older entry for the item may be stale
	}
	leaf := o.leaf(&b.root, p.keys, front)
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

// band returns the band of priority prio, nil if it has none.
func (o *prioOrder[T]) band(prio int) *band[T] {
	if len(o.prios) > 0 && o.prios[0] == prio {
		return o.top
	}
	return o.bands[prio]
}

// listBand puts prio, whose band is b, among the priorities with live
// items.
func (o *prioOrder[T]) listBand(prio int, b *band[T]) {
	i, _ := slices.BinarySearchFunc(o.prios, prio, func(a, b int) int { return cmp.Compare(b, a) }) // highest first
	o.prios = slices.Insert(o.prios, i, prio)
	if i == 0 {
		o.top = b
	}
}

// unlistBand takes prio out of the priorities with live items.
func (o *prioOrder[T]) unlistBand(prio int) {
	i := slices.Index(o.prios, prio)
	o.prios = slices.Delete(o.prios, i, i+1)
	if i == 0 {
		o.top = nil
		if len(o.prios) > 0 {
			o.top = o.bands[o.prios[0]]
		}
	}
}

// remove abandons item's place: its entry goes stale, and so does its
// copy in the band's log.
func (o *prioOrder[T]) remove(item T, p place) {
	o.n--
	b := o.band(p.prio)
	if o.bound > 0 {
		o.kill(deadKey[T]{item: item, log: b})
	}
	o.drop(b, item, p.keys)
	if b.root.n == 0 {
		o.dropBand(p.prio, b)
	}
}

// pop removes the next item and returns it with its priority.
func (o *prioOrder[T]) pop() (T, place) {
	if o.bound > 0 && len(o.prios) > 1 {
		if item, p, ok := o.popStarving(); ok {
			return item, p
		}
	}
	prio, b := o.prios[0], o.top
	e, keys := o.popNode(&b.root)
	if o.bound > 0 {
		o.kill(deadKey[T]{item: e.item, log: b})
		o.sweepLog(b)
	}
	o.popped(prio, b)
	return e.item, place{prio: prio, seq: e.seq, at: e.at, keys: keys}
}

// kill counts a stale entry for k.item in k's container.
func (o *prioOrder[T]) kill(k deadKey[T]) {
	if o.dead == nil {
		o.dead = make(map[deadKey[T]]int)
	}
	o.dead[k]++
	o.peak = max(o.peak, len(o.dead))
}

// stale reports whether an entry for k.item just reached in k's container
// is stale, and if so uncounts it.
func (o *prioOrder[T]) stale(k deadKey[T]) bool {
	if len(o.dead) == 0 {
		return false
	}
	c, ok := o.dead[k]
	switch {
	case !ok:
		return false
	case c > 1:
		o.dead[k] = c - 1
		return true
	}
	delete(o.dead, k)
	if len(o.dead) == 0 && o.peak >= shrinkFloor {
		o.dead, o.peak = nil, 0 // Go maps do not shrink: a burst leaves no memory behind
	}
	return true
}

// sweepLog drops the stale entries at the front of b's log.
func (o *prioOrder[T]) sweepLog(b *band[T]) {
	for b.log.len() > 0 && o.stale(deadKey[T]{item: b.log.front().item, log: b}) {
		b.log.pop()
	}
}

// discard uncounts the entries left in leaf, which has no live one, and
// empties it.
func (o *prioOrder[T]) discard(leaf *node[T]) {
	for leaf.fifo.len() > 0 {
		o.stale(deadKey[T]{item: leaf.fifo.pop().item, leaf: leaf})
	}
	for _, e := range leaf.late {
		o.stale(deadKey[T]{item: e.item, leaf: leaf})
	}
	if cap(leaf.late) > keepRing {
		leaf.late = nil
	} else { // small buffers are kept, as the ring keeps one: see spare
		clear(leaf.late)
		leaf.late = leaf.late[:0]
	}
}

// popped takes the entry just handed out from b, the band of prio, off
// the count.
func (o *prioOrder[T]) popped(prio int, b *band[T]) {
	o.n--
	switch {
	case b.root.n > 0:
	case o.offering: // its keys linger: the band stays, out of prios
		b.idle = true
		o.unlistBand(prio)
		o.idle = append(o.idle, prio)
	default:
		o.dropBand(prio, b)
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
		o.sweepLog(b) // handed out, or moved
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
	o.drop(b, oldest.item, keys) // its leaf entry goes stale
	o.popped(prio, b)
	return oldest.item, place{prio: prio, seq: oldest.seq, at: oldest.at, keys: keys}, true
}

// dropBand takes b, the band of prio, which has no live entry left, out
// of the order.
func (o *prioOrder[T]) dropBand(prio int, b *band[T]) {
	for b.log.len() > 0 {
		o.stale(deadKey[T]{item: b.log.pop().item, log: b})
	}
	delete(o.bands, prio)
	o.unlistBand(prio)
	o.spareBand(b)
}

// spareBand keeps b, which has no live entry and is out of the order, for
// the next priority that needs one, unless lingering keys are under it.
func (o *prioOrder[T]) spareBand(b *band[T]) {
	b.root.laneFirst = nil
	if len(b.root.children) > 0 { // lingering keys: they go with it
		o.repeat = true // a key of theirs that comes back takes the lane back
		return
	}
	if len(o.spare) < maxSpare { // its root has no live entry: emptied
		o.spare = append(o.spare, b)
	}
}

// leaf returns the leaf of keys under n, making the nodes on the way, and
// gives the key at each level its turn: if it had none, behind the turns
// of its parent's other keys but before those that offers still in the
// lane took (laneStart), or at the front if front (an item taken back
// gets back the turn it had).
func (o *prioOrder[T]) leaf(n *node[T], keys []string, front bool) *node[T] {
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
		}
		switch {
		case front:
			x.toFront(c)
		case c.active:
		case o.inLane(c): // a lingering key: back to the turn its offer gave it
			o.rejoin(x, c)
		default:
			x.join(c, o.laneStart(x))
		}
		x = c
	}
	return x
}

// joinsTurns reports whether an item at place p would give a key a turn
// it does not have, at any level: a key with nothing ready, or its
// priority's first. Such a key goes behind the keys that have turns, but
// before the next turns of those that items offered in the lane took.
func (o *prioOrder[T]) joinsTurns(p place) bool {
	b := o.band(p.prio)
	if b == nil {
		return true
	}
	x := &b.root
	for _, k := range p.keys {
		c := x.children[k]
		if c == nil || !c.active {
			return true
		}
		x = c
	}
	return false
}

// drop abandons item's live entry in the leaf of keys in band b: the entry
// goes stale, and comes off the counts along the path, which removes the
// nodes left with none.
func (o *prioOrder[T]) drop(b *band[T], item T, keys []string) {
	x := &b.root
	for _, k := range keys {
		x = x.children[k]
	}
	o.kill(deadKey[T]{item: item, leaf: x})
	for x != nil {
		x.n--
		p := x.parent
		if p != nil && x.n == 0 {
			o.discard(x)
			p.unlink(x)
			delete(p.children, x.key)
			o.freeNode(x)
		}
		x = p
	}
	if b.root.n == 0 {
		o.discard(&b.root)
		b.root.emptied()
	}
}

// newNode returns a node for key k under parent: a spare one, or a new
// one.
func (o *prioOrder[T]) newNode(parent *node[T], k string) *node[T] {
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
func (o *prioOrder[T]) freeNode(x *node[T]) {
	if len(x.children) > 0 { // lingering keys: they go with it
		o.repeat = true // a key of theirs that comes back takes the lane back
		return
	}
	if x.lingers || len(o.spareNodes) == maxSpareNodes { // a lingering key's node is not reused until swept
		return
	}
	x.emptied()
	buf, late := x.fifo.buf, x.late
	if len(buf) > spareRing {
		buf = nil
	}
	if cap(late) > spareRing {
		late = nil
	}
	*x = node[T]{fifo: ring[orderEntry[T]]{buf: buf}, late: late[:0], children: x.children}
	o.spareNodes = append(o.spareNodes, x)
}

// emptied lets an inner node's map of children go once the node has no
// live entry left, if it held many and holds no lingering key; a narrow
// one keeps it, empty, for the next keys.
func (n *node[T]) emptied() {
	if n.wide && len(n.children) == 0 {
		n.children, n.wide = nil, false
	}
}

// popNode takes the next live entry under n (whose count must be
// positive), and returns it with its leaf's keys: round-robin across
// children, sequence order within a leaf.
func (o *prioOrder[T]) popNode(n *node[T]) (orderEntry[T], []string) {
	if n.inner {
		c := n.first
		e, keys := o.popNode(c)
		n.n--
		n.unlink(c)
		if c.n > 0 {
			n.toBack(c) // its turn is over
			if o.offering {
				o.tookTurn(n, c)
			}
		} else if o.offering {
			// c leaves the turns, but its turn stays the offer's until
			// the item is claimed: it lingers (see Lingering keys).
			o.linger(c)
		} else {
			delete(n.children, c.key)
			o.freeNode(c)
		}
		if n.n == 0 {
			n.emptied()
		}
		return e, keys
	}
	for {
		var e orderEntry[T]
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
			return e, n.path
		}
	}
}

// peek returns the place of the next item, leaving it where it is, unless
// stale entries or the starvation bound make that more than a look.
func (o *prioOrder[T]) peek() (place, bool) {
	if len(o.dead) > 0 || o.bound > 0 {
		return place{}, false
	}
	prio := o.prios[0]
	n := &o.top.root
	for n.inner {
		n = n.first
	}
	var e orderEntry[T]
	if len(n.late) > 0 && (n.fifo.len() == 0 || n.late[0].seq < n.fifo.front().seq) {
		e = n.late[0]
	} else {
		e = n.fifo.front()
	}
	return place{prio: prio, seq: e.seq, at: e.at, keys: n.path}, true
}

// The lane's turns (lane.go, Fairness). Offering an item takes the turns
// of its keys, as handing it out does, but until a consumer claims it, a
// key that joins the turns goes before those that offers took: so each
// inner node marks where, in its children's turns, those that offers took
// begin (laneFirst), and each node which offer took its turn last.

// newEpoch voids every mark: the lane was taken back.
func (o *prioOrder[T]) newEpoch() {
	o.epoch++
	o.repeat = false
	clear(o.stamped)
	o.stamped = o.stamped[:0]
	o.sweep(true)
}

// laneEmpty notes that consumers received every offer: the marks may
// go.
func (o *prioOrder[T]) laneEmpty() {
	o.repeat = false
	if len(o.lingering) > 0 || len(o.idle) > 0 {
		o.sweep(true)
	}
}

// tookTurn notes that the offer under way took c's turn in n: c went to
// the back of n's turns.
func (o *prioOrder[T]) tookTurn(n, c *node[T]) {
	o.stamp(c)
	if n.laneEpoch != o.epoch || n.laneFirst == nil {
		n.laneFirst, n.laneEpoch = c, o.epoch
	}
}

// stamp notes that the offer under way took c's turn, in this epoch; its
// slot comes with offered.
func (o *prioOrder[T]) stamp(c *node[T]) {
	c.offSlot, c.offEpoch = nil, o.epoch
	o.stamped = append(o.stamped, c)
}

// offered gives the nodes whose turns the offer under way took the slot it
// is offered in.
func (o *prioOrder[T]) offered(sl *slot[T]) {
	for i, c := range o.stamped {
		c.offSlot, c.offGen = sl, sl.gen
		o.stamped[i] = nil
	}
	o.stamped = o.stamped[:0]
}

// inLane reports whether an offer still in the lane (or received and
// neither claimed nor given back yet) took c's turn.
func (o *prioOrder[T]) inLane(c *node[T]) bool {
	sl := c.offSlot
	return c.offEpoch == o.epoch && sl != nil && sl.gen == c.offGen && sl.used && sl.state.Load() == slotOffered
}

// laneStart returns the first of n's children whose turn an offer still in
// the lane took, if any, from which on every child's was: it moves n's
// mark past those whose offers were claimed, whose turns are taken for
// good.
func (o *prioOrder[T]) laneStart(n *node[T]) *node[T] {
	if n.laneEpoch != o.epoch {
		return nil
	}
	x := n.laneFirst
	for x != nil && !o.inLane(x) {
		x = x.next
	}
	n.laneFirst = x
	return x
}

// Lingering keys. A key that an offer empties leaves its parent's turns,
// but until a consumer claims the item, the key's place in the turns is
// the one the offer gave it: at the back, in the order offered. So the key
// stays in its parent's children (and an emptied band in bands, out of
// prios), inactive, until a consumer claims its item and the lingering
// keys are swept (sweep); a key that comes back meanwhile takes the place
// its offer gave it (rejoin).

// linger keeps c, which the offer under way emptied, as a lingering key.
func (o *prioOrder[T]) linger(c *node[T]) {
	o.stamp(c)
	if !c.lingers {
		c.lingers = true
		o.lingering = append(o.lingering, c)
	}
}

// rejoin gives c, a lingering key whose offer is still in the lane, back
// its turn in n: behind the turns that earlier offers took, before those
// that later ones took.
func (o *prioOrder[T]) rejoin(n, c *node[T]) {
	at, sent := (*node[T])(nil), c.offSlot.sent
	for y := n.last; y != nil && o.inLane(y) && y.offSlot.sent > sent; y = y.prev {
		at = y
	}
	first := o.laneStart(n)
	n.join(c, at)
	if first == nil || at == first {
		n.laneFirst, n.laneEpoch = c, o.epoch
	}
}

// maxLingering is how many lingering keys an order keeps before it sweeps
// those whose offers were claimed, while the lane is never empty.
const maxLingering = 2 * laneSize

// sweep lets go of the lingering keys whose offers were claimed, or of
// every one if all (the lane holds none of the offers: it was taken back,
// or consumers received all it offered), and of the bands left with none.
func (o *prioOrder[T]) sweep(all bool) {
	for freed := true; freed; {
		freed = false
		kept := o.lingering[:0]
		for _, c := range o.lingering {
			switch {
			case c.n > 0 || c.active: // came back
				c.lingers = false
			case len(c.children) > 0 || !all && o.inLane(c):
				kept = append(kept, c)
			default:
				c.lingers = false
				if p := c.parent; p.children[c.key] == c {
					delete(p.children, c.key)
					o.freeNode(c)
					freed = true
				}
			}
		}
		clear(o.lingering[len(kept):])
		o.lingering = kept
	}
	idle := o.idle[:0]
	for _, prio := range o.idle {
		b := o.bands[prio]
		switch {
		case b == nil || !b.idle: // came back, or went
		case len(b.root.children) > 0:
			idle = append(idle, prio)
		default:
			delete(o.bands, prio)
			b.idle = false
			b.root.emptied()
			o.spareBand(b)
		}
	}
	o.idle = idle
}

// nextRepeats reports whether the next item's first-level key (with
// fairness keys) has a turn that an offer still in the lane took, so that
// offering the item would take that key's second turn.
func (o *prioOrder[T]) nextRepeats() bool {
	root := &o.top.root
	return root.inner && root.first == o.laneStart(root)
}

// The turns of an inner node's children: a doubly linked list of those
// with live entries.

// join gives c, which has no turn, one before at, or at the back if at is
// nil.
func (n *node[T]) join(c, at *node[T]) {
	if at == nil {
		n.toBack(c)
		return
	}
	c.prev, c.next, c.active = at.prev, at, true
	if at.prev != nil {
		at.prev.next = c
	} else {
		n.first = c
	}
	at.prev = c
}

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

// unlink takes c out of the turns; the lane's mark, if c holds it, moves
// to the turn after c's.
func (n *node[T]) unlink(c *node[T]) {
	if !c.active {
		return
	}
	if n.laneFirst == c {
		n.laneFirst = c.next
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
