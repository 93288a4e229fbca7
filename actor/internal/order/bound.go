package order

// Stale entries and the starvation bound. An entry whose item left its
// place (raised, or handed out from the middle of a priority) stays where
// it is, counted in dead, until it is reached and skipped; with a bound,
// each band's log holds every entry in the order it became ready, so
// that the oldest item waiting is found at its front.

// deadKey is an item in a container of entries: a leaf, or a band's log.
type deadKey[T comparable] struct {
	item T
	leaf *node[T]
	log  *band[T]
}

// popStarving hands out the item that has waited longest among those that
// have waited longer than the bound in priorities below the highest, if
// any: the starvation bound.
func (o *Prio[T]) popStarving() (item T, p Place, ok bool) {
	deadline := o.now - o.bound
	best := -1
	var oldest entry[T]
	for i, prio := range o.prios[1:] {
		b := o.bands[prio]
		o.sweepLog(b) // handed out, or moved
		if b.log.len() == 0 {
			continue
		}
		e := b.log.front()
		if o.KeyOf != nil && o.pathBlocked(o.KeyOf(e.item)) {
			continue // its key is at its cap: the priority waits for it
		}
		if e.at <= deadline && (best < 0 || e.at < oldest.at || e.at == oldest.at && e.seq < oldest.seq) {
			best, oldest = i+1, e
		}
	}
	if best < 0 {
		return item, p, false
	}
	prio := o.prios[best]
	b := o.bands[prio]
	b.log.pop()
	var key uint32
	if o.KeyOf != nil {
		key = o.KeyOf(oldest.item)
	}
	f := o.ids.flow(key)
	if o.rec != nil && f != nil {
		o.notePaths(o.leafOf(b, key))
	}
	o.countOut(f)
	o.drop(b, oldest.item, key) // its leaf entry goes stale
	o.tookOut(f)
	o.popped(prio, b)
	return oldest.item, Place{Prio: prio, Seq: oldest.seq, At: oldest.at, Key: key}, true
}

// kill counts a stale entry for k.item in k's container.
func (o *Prio[T]) kill(k deadKey[T]) {
	if o.dead == nil {
		o.dead = make(map[deadKey[T]]int)
	}
	o.dead[k]++
	o.peak = max(o.peak, len(o.dead))
}

// stale reports whether an entry for k.item just reached in k's container
// is stale, and if so uncounts it.
func (o *Prio[T]) stale(k deadKey[T]) bool {
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
func (o *Prio[T]) sweepLog(b *band[T]) {
	for b.log.len() > 0 && o.stale(deadKey[T]{item: b.log.front().item, log: b}) {
		b.log.pop()
	}
}
