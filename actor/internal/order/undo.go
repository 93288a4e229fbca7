package order

// Undoing a pop. The transport pops items ahead of their hand-out (the
// lane, the items channel) and puts back those no consumer took
// (PushFront). For hand-out to go on exactly as if they had never been
// popped, a pop ahead notes what it moves in the key trees, and putting
// its item back restores it:
//
//	for each node on the item's path, its place in its parent's turns
//	(in them or not, its turn number, the turns of its weight used) and
//	its parent's virtual time; for every other node it held (its key
//	reached its cap, in another band), its place.
//
// Items popped together come back newest first, so each undo finds the
// trees as its pop left them but for what happened since: keys that
// entered at the back (with higher numbers), limits changed. A node goes
// back to its number, so ahead of those, unless it may not take a turn
// now (held). Items popped ahead and handed out give their notes up
// (Kept).

// undo is what a pop ahead moved.
type undo[T comparable] struct {
	path []mark        // the item's path, top first
	held []heldMark[T] // the other nodes it held, in the order held
}

// mark is a node's place in its parent's turns before a pop.
type mark struct {
	in   bool  // in the turns
	used int32 // turns of its weight used
	seq  int64 // turn number
	vnow int64 // its parent's virtual time

	// Its key's bucket, if it has a rate (rate.go): the instant tat and
	// the count of tokens taken.
	tat   int64
	takes uint64
}

// heldMark is a node held by a pop, and its place in the turns before.
type heldMark[T comparable] struct {
	x    *node[T]
	gen  uint32 // x's generation: a node freed and made again since is another
	used int32
	seq  int64
}

// beginUndo starts the notes of a pop ahead and returns their id for
// its Place. Notes are kept for reuse: as many as the transport has items
// popped ahead at once, which it bounds.
func (o *Prio[T]) beginUndo() uint32 {
	var id uint32
	if n := len(o.freeUndos); n > 0 {
		id, o.freeUndos = o.freeUndos[n-1], o.freeUndos[:n-1]
	} else {
		o.undos = append(o.undos, undo[T]{})
		id = uint32(len(o.undos))
	}
	o.rec = &o.undos[id-1]
	return id
}

// Kept is the event of the item popped ahead at p being handed out at
// instant now: its pop's notes go, and the tokens its pop took are
// dated now, as if it had been popped then (redate); a hand-out without
// an instant (0: a claim from the lane in a queue that stamps none) is
// dated at the order's clock, which is never before its pop.
func (o *Prio[T]) Kept(p Place, now int64) {
	if p.Undo != 0 {
		if o.rated {
			o.Tick(now)
			o.redate(o.ids.flow(p.Key), &o.undos[p.Undo-1], o.clock)
		}
		o.freeUndo(p.Undo)
	}
}

func (o *Prio[T]) freeUndo(id uint32) {
	u := &o.undos[id-1]
	clear(u.held)
	u.path, u.held = u.path[:0], u.held[:0]
	o.freeUndos = append(o.freeUndos, id)
}

// noteHeld notes c, about to be held, if a pop ahead is under way.
func (o *Prio[T]) noteHeld(c *node[T]) {
	if o.rec != nil && c.in == inTurns {
		o.rec.held = append(o.rec.held, heldMark[T]{x: c, gen: c.gen, used: c.used, seq: c.seq})
	}
}

// notePath notes the place of x, on the path of the item a pop ahead is
// taking, before the pop moves it.
func (o *Prio[T]) notePath(x *node[T]) {
	if o.rec != nil {
		m := mark{in: x.in == inTurns, used: x.used, seq: x.seq, vnow: x.parent.flow.vnow}
		if b := x.flow.r; b != nil {
			m.tat, m.takes = b.tat, b.takes
		}
		o.rec.path = append(o.rec.path, m)
	}
}

// notePaths notes the place of every node on the path down to leaf, top
// first.
func (o *Prio[T]) notePaths(leaf *node[T]) {
	if leaf.parent == nil {
		return
	}
	o.notePaths(leaf.parent)
	o.notePath(leaf)
}

// undoPop puts the nodes of leaf's path, to which the item popped ahead
// has just come back, and the other nodes its pop held, back where the
// notes u say they were; the item no longer counts as out, and its keys
// get back the tokens it took (refund).
func (o *Prio[T]) undoPop(leaf *node[T], u *undo[T]) {
	o.nout--
	i := len(u.path)
	for f := leaf.flow; f.parent != nil; f = f.parent {
		was := o.blocked(f)
		f.out--
		if i--; i >= 0 {
			o.refund(f, &u.path[i])
		}
		if was && !o.blocked(f) {
			o.settleFlow(f) // held by something else than the pop: at the back
		}
		o.retagFlow(f)
	}
	// The held nodes first: the pop held the nodes of its path it left at
	// their caps too, and their notes come last.
	for _, h := range u.held {
		if h.x.gen == h.gen && h.x.n > 0 { // held by the pop, or since back at the back
			o.place(h.x, true, h.seq, h.used)
		}
	}
	x := leaf
	for i := len(u.path) - 1; i >= 0; i-- {
		m := u.path[i]
		o.place(x, m.in, m.seq, m.used)
		if o.byWork {
			x.parent.flow.vnow = m.vnow
		}
		x = x.parent
	}
}

// place puts x back in its parent's turns at turn number seq with used
// turns, if it was there (in) and may take a turn now; otherwise it
// settles as any node does. Its parent settles too: a parent that a
// note does not put back may take a turn again.
func (o *Prio[T]) place(x *node[T], in bool, seq int64, used int32) {
	if !in || !o.eligible(x) {
		o.settle(x)
		return
	}
	o.enterAt(x.parent, x, seq)
	x.used = used
	if p := x.parent; p.parent != nil {
		o.settle(p)
	}
}
