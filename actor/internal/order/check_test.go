package order

import (
	"errors"
	"fmt"
	"slices"

	"github.com/actorq/actorq/actor/internal/heap"
)

// checkFlows returns an error if the flows or the band trees break their
// invariants. held has the key id of every item the queue knows, out that
// of every item out. Each flow's held and out counts must match them; a
// flow is kept only for what keeps it; every node is in its parent's
// turns if and only if it is eligible, in its held list otherwise, and
// only while it has live entries; each heap of turns is in order, with
// its flows' tags; the ranking of busy keys is in order of load.
func (o *Prio[T]) checkFlows(held, out []uint32) error {
	if o.flows == nil {
		return nil
	}
	for name, h := range map[string]*keyHeap[T]{"wakes": &o.wakes, "window ends": &o.adapts} {
		if err := h.check(); err != nil {
			return fmt.Errorf("the heap of %s: %w", name, err)
		}
	}
	if o.nout != len(out) {
		return fmt.Errorf("nout = %d; %d items out", o.nout, len(out))
	}
	wantHeld, wantOut := map[*flow[T]]int{}, map[*flow[T]]int{}
	for _, id := range held {
		f := o.ids.flow(id)
		if f == nil {
			return fmt.Errorf("no flow for id %d, which an item holds", id)
		}
		wantHeld[f]++
	}
	for _, id := range out {
		for f := o.ids.flow(id); f != nil && f.parent != nil; f = f.parent {
			wantOut[f]++
		}
	}
	nodes := 0
	var check func(f *flow[T], path []string) error
	check = func(f *flow[T], path []string) error {
		if err := o.checkFlow(f, path, wantHeld[f], wantOut[f]); err != nil {
			return err
		}
		for x := f.nodes; x != nil; x = x.sib {
			nodes++
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
	if err := o.checkIDs(); err != nil {
		return err
	}
	reached := 0
	for prio, b := range o.bands {
		n, err := o.checkNode(&b.root, fmt.Sprint(prio))
		if err != nil {
			return err
		}
		reached += n
	}
	if reached != nodes {
		return fmt.Errorf("%d nodes in the bands; %d among the flows", reached, nodes)
	}
	if err := o.checkEntries(); err != nil {
		return err
	}
	return o.checkBusy()
}

func (o *Prio[T]) checkFlow(f *flow[T], path []string, held, out int) error {
	if f.held != held || f.parent != nil && f.out != out {
		return fmt.Errorf("flow %q: held, out = %d, %d; want %d, %d", path, f.held, f.out, held, out)
	}
	if (f.held > 0) != (f.id != 0) || f.id != 0 && o.ids.flow(f.id) != f {
		return fmt.Errorf("flow %q: id %d while held %d", path, f.id, f.held)
	}
	if f.parent != nil && f.nodes == nil && len(f.children) == 0 && f.out == 0 && f.held == 0 && !f.limited {
		return fmt.Errorf("flow %q kept for nothing", path)
	}
	ready := 0
	parents := map[*node[T]]bool{}
	for x := f.nodes; x != nil; x = x.sib {
		if x.flow != f || parents[x.parent] || x.n <= 0 {
			return fmt.Errorf("flow %q: a node of another flow, a second in its band, or with no live entry", path)
		}
		parents[x.parent] = true
		if x.parent.flow != f.parent {
			return fmt.Errorf("flow %q: node under a node of another key", path)
		}
		ready += x.n
	}
	if o.busy != nil && f.parent == o.flows {
		if f.load != ready+f.out || (f.load > 0) != (int(f.rank) < len(o.busy.keys) && o.busy.keys[f.rank] == f) {
			return fmt.Errorf("flow %q: load %d (ready %d, out %d), ranked %v", path, f.load, ready, f.out, int(f.rank) < len(o.busy.keys) && o.busy.keys[f.rank] == f)
		}
	}
	return nil
}

func (o *Prio[T]) checkIDs() error {
	live := 0
	for i, f := range o.ids.ids {
		if f != nil {
			live++
			if f.id != uint32(i) {
				return fmt.Errorf("id %d: its flow has id %d", i, f.id)
			}
		}
	}
	if live != o.ids.live || len(o.ids.ids) > 0 && live+len(o.ids.free) != len(o.ids.ids)-1 {
		return fmt.Errorf("%d ids in use, %d free, of %d; live = %d", live, len(o.ids.free), len(o.ids.ids), o.ids.live)
	}
	return nil
}

// checkNode checks the children of x and below, and returns the number of
// nodes under x.
func (o *Prio[T]) checkNode(x *node[T], path string) (int, error) {
	if !x.inner {
		return 0, nil
	}
	k := x.kids
	var children []*node[T]
	for i, t := range k.heap {
		c := t.Val
		if c.in != inTurns || int(c.idx) != i || t.At != c.flow.tag() || t.Seq != uint64(c.seq) {
			return 0, fmt.Errorf("node %s: heap slot %d: in %d, idx %d, tag %d (flow's %d)", path, i, c.in, c.idx, t.At, c.flow.tag())
		}
		if p := k.heap[heap.Parent(i)].Key; i > 0 && (t.At < p.At || t.At == p.At && t.Seq < p.Seq) {
			return 0, fmt.Errorf("node %s: heap out of order at %d", path, i)
		}
		children = append(children, c)
	}
	for _, l := range []struct {
		list *list[T]
		in   where
	}{{&k.turns, inTurns}, {&k.held, inHeld}} {
		var prev *node[T]
		for c := l.list.first; c != nil; prev, c = c, c.next {
			if c.in != l.in || c.prev != prev {
				return 0, fmt.Errorf("node %s: list of %d linked wrong", path, l.in)
			}
			children = append(children, c)
		}
		if l.list.last != prev {
			return 0, fmt.Errorf("node %s: list of %d ends wrong", path, l.in)
		}
	}
	count, sum := len(children), 0
	for _, c := range children {
		p := path + "/" + c.flow.key
		if c.parent != x || c.n <= 0 || (c.in == inTurns) != o.eligible(c) {
			return 0, fmt.Errorf("node %s: parent ok %v, n %d, in turns %v, eligible %v", p, c.parent == x, c.n, c.in == inTurns, o.eligible(c))
		}
		sum += c.n
		n, err := o.checkNode(c, p)
		if err != nil {
			return 0, err
		}
		count += n
	}
	if sum != x.n {
		return 0, fmt.Errorf("node %s: n = %d; its children hold %d", path, x.n, sum)
	}
	return count, nil
}

// chainLen returns the number of entries in the list c.
func (o *Prio[T]) chainLen(c chain) int {
	n := 0
	for i := c.head; i != 0; i = o.ents.at(i).next {
		n++
	}
	return n
}

// checkEntries returns an error if the slab of entries breaks its
// invariant: every slot handed out is in one leaf's list, or on the free
// list with the zero item, once; each list ends at its tail.
func (o *Prio[T]) checkEntries() error {
	s := &o.ents
	seen := map[uint32]bool{}
	mark := func(i uint32, what string) error {
		if i == 0 || i >= s.top || seen[i] {
			return fmt.Errorf("entries: slot %d (of %d) in %s: out of range, or seen before", i, s.top, what)
		}
		seen[i] = true
		return nil
	}
	var err error
	for prio, b := range o.bands {
		walkNodes(&b.root, func(x *node[T]) {
			last := uint32(0)
			for i := x.fifo.head; i != 0 && err == nil; i = s.at(i).next {
				err = mark(i, fmt.Sprintf("a node of priority %d", prio))
				last = i
			}
			if err == nil && last != x.fifo.tail {
				err = fmt.Errorf("entries: a node of priority %d ends at %d, its tail is %d", prio, last, x.fifo.tail)
			}
		})
		if err != nil {
			return err
		}
	}
	if len(seen) != s.n {
		return fmt.Errorf("entries: %d in the leaves; the slab counts %d", len(seen), s.n)
	}
	var zero T
	for i := s.free; i != 0; i = s.at(i).next {
		if err := mark(i, "the free list"); err != nil {
			return err
		}
		if s.at(i).item != zero {
			return fmt.Errorf("entries: free slot %d holds an item", i)
		}
	}
	if s.top > 0 && len(seen) != int(s.top)-1 {
		return fmt.Errorf("entries: %d slots used or free; %d handed out", len(seen), s.top-1)
	}
	return nil
}

func (o *Prio[T]) checkBusy() error {
	if o.busy == nil {
		return nil
	}
	total := 0
	for l, r := range o.busy.runs {
		for i := r.start; i < r.start+r.n; i++ {
			if o.busy.keys[i].load != l {
				return fmt.Errorf("busy: key %d of the run of %d has load %d", i, l, o.busy.keys[i].load)
			}
		}
		total += r.n
	}
	for i, f := range o.busy.keys {
		if int(f.rank) != i || i > 0 && f.load > o.busy.keys[i-1].load {
			return fmt.Errorf("busy: key %d (rank %d) out of order", i, f.rank)
		}
	}
	if total != len(o.busy.keys) {
		return fmt.Errorf("busy: runs hold %d keys of %d", total, len(o.busy.keys))
	}
	return nil
}

// checkEmpty returns an error if the order, holding no item and none out,
// keeps anything for the keys or items it has seen beyond its bounded
// spares: a node, a flow without limits or children, an id, a stale
// entry, a ranked key, or a map or slab grown past shrinkFloor; or if it
// holds strongly spares that a burst over many keys left (spares.go), or
// a spare node or flow keeps children's lists or a map (they are kept
// apart).
func (o *Prio[T]) checkEmpty() error {
	var errs []error
	if o.n != 0 || len(o.bands) != 0 || len(o.prios) != 0 || o.nout != 0 {
		errs = append(errs, fmt.Errorf("%d ready in %d bands, %d out", o.n, len(o.bands), o.nout))
	}
	if len(o.dead) != 0 || o.peak >= shrinkFloor {
		errs = append(errs, fmt.Errorf("dead holds %d (peak %d)", len(o.dead), o.peak))
	}
	if sp := &o.sp; len(sp.bands) > maxSpare || sp.big() {
		errs = append(errs, fmt.Errorf("spares: %d bands, %d nodes, %d flows, %d children's lists, %d maps", len(sp.bands), len(sp.nodes), len(sp.flows), len(sp.kids), len(sp.maps)))
	}
	for _, x := range o.sp.nodes {
		if x.kids != nil {
			errs = append(errs, errors.New("a spare node keeps a children's list"))
			break
		}
	}
	for _, f := range o.sp.flows {
		if f.children != nil {
			errs = append(errs, errors.New("a spare flow keeps a map of children"))
			break
		}
	}
	if f := o.flows; f != nil {
		var walk func(f *flow[T]) int
		walk = func(f *flow[T]) int {
			n := 0
			if !f.limited && f.parent != nil && len(f.children) == 0 {
				n++ // kept for nothing: a parent is kept for its children
			}
			for _, c := range f.children {
				n += walk(c)
			}
			return n
		}
		if n := walk(f); n > 0 || f.peak >= shrinkFloor {
			errs = append(errs, fmt.Errorf("%d flows kept for nothing, root map peak %d", n, f.peak))
		}
		if o.ids.live != 0 || len(o.ids.ids) > shrinkFloor+1 || len(o.ids.free) > shrinkFloor {
			errs = append(errs, fmt.Errorf("ids: %d live, slab of %d, %d free", o.ids.live, len(o.ids.ids), len(o.ids.free)))
		}
	}
	if b := o.busy; b != nil && (len(b.keys) != 0 || len(b.runs) != 0 || b.peak >= shrinkFloor) {
		errs = append(errs, fmt.Errorf("busy: %d keys, %d runs, peak %d", len(b.keys), len(b.runs), b.peak))
	}
	return errors.Join(errs...)
}

// check holds h to its invariant: each key knows its place, and no key
// comes before its parent.
func (h *keyHeap[T]) check() error {
	for i, it := range h.items {
		if p := *h.place(it.Val); p != int32(i+1) {
			return fmt.Errorf("key %q at %d thinks it is at %d", it.Val.path(), i, p-1)
		}
		if q := h.items[heap.Parent(i)].Key; i > 0 && (it.At < q.At || it.At == q.At && it.Seq < q.Seq) {
			return fmt.Errorf("key %q at %d comes before its parent", it.Val.path(), i)
		}
	}
	return nil
}
