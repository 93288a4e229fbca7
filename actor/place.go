package actor

// Places: where each ready item goes in the ready order (see place in
// prio.go), as the state machine decides them.

// nextSeq returns a new sequence number: a place after every place given
// before.
func (s *state[T]) nextSeq() uint64 {
	s.seq++
	return s.seq
}

// enqueue puts item, ready with entry e, into the ready order at sequence
// number seq of its priority, under its fairness keys, and notes whether
// it goes before the item staged for the items channel.
func (s *state[T]) enqueue(item T, e entry, seq uint64, keys []string) {
	if s.fifo != nil { // the default order: places do not matter
		s.fifo.r.push(item)
		return
	}
	p := s.placeOf(s.prioOf(item, e), seq, keys)
	if s.prio.fair && len(s.lane.ch) > 0 {
		if o := s.order.(*prioOrder[T]); o.repeat && o.joinsTurns(p) || s.goesBefore(p) {
			s.reclaimLane()
		}
	}
	s.order.push(item, p)
	if s.isStaged && p.prio > s.headPlace.prio {
		s.preempt = true
	}
}

// placeOf returns the place at priority prio and sequence number seq of
// an item with fairness keys keys.
func (s *state[T]) placeOf(prio int, seq uint64, keys []string) place {
	p := place{prio: prio, seq: seq, keys: keys}
	if s.timed {
		p.at = s.since()
	}
	return p
}

// setPlace records the place of an item that is not ready yet (delayed,
// or added again while processing), which RequeueAtAdd keeps for it.
func (s *state[T]) setPlace(item T, seq uint64) {
	if s.places != nil {
		s.places[item] = seq
	}
}

// takePlace returns and forgets the place recorded for item, if any.
func (s *state[T]) takePlace(item T) (uint64, bool) {
	if s.places == nil {
		return 0, false
	}
	seq, ok := s.places[item]
	delete(s.places, item)
	return seq, ok
}

// placeOnAdd returns the place of a delayed item that an Add makes ready
// now: with RequeueAtAdd the place its first Add gave it, unless its
// priority was raised; otherwise a new one.
func (s *state[T]) placeOnAdd(item T, raised bool) uint64 {
	if seq, ok := s.takePlace(item); ok && !raised {
		return seq
	}
	return s.nextSeq()
}

// usePrio turns the default first-in-first-out order into a priority order,
// once an item asks for a priority other than 0. The items ready so far
// keep their order, at priority 0. A custom Storage orders items itself.
func (s *state[T]) usePrio() {
	f, ok := s.order.(*fifo[T])
	if !ok {
		return
	}
	o := s.newPrioOrder()
	for f.len() > 0 {
		item, _ := f.pop()
		o.push(item, s.placeOf(0, s.nextSeq(), nil)) // no fairness: it starts with a priority order
	}
	s.order, s.fifo = o, nil
}

// newPrioOrder makes the priority order of this queue.
func (s *state[T]) newPrioOrder() *prioOrder[T] {
	o := newPrioOrder[T](s.prio.bound, s.since)
	if s.keys != nil && s.prio.bound > 0 { // for popStarving; every item's keys are kept
		o.keysOf = func(item T) []string { return s.keys[item] }
	}
	return o
}
