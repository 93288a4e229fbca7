package state

import "github.com/actorq/actorq/actor/internal/order"

// Pop takes the next ready item out of the ready order toward a
// consumer, at instant now: it is popped. By the rules a popped item is
// still ready until a consumer receives it (Received): an Add is a
// duplicate (one that raises its priority moves it once it is returned),
// a Done does nothing, and Len and the depth count it. It returns the item
// and its place, which Return needs; ok is false if nothing is ready.
func (q *Queue[T]) Pop(now int64) (item T, p order.Place, ok bool) {
	if !q.readyAt(now) {
		return item, p, false
	}
	if q.prio != nil {
		item, p = q.prio.PopAhead(now) // it may come back (Return)
	} else {
		item, p = q.order.Pop(now)
	}
	e, h := q.took(item, &p)
	q.proc.set(item, h, e.with(Popped))
	q.transit++
	return item, p, true
}

// took takes item, just popped from the order at place p, out of the
// table of items, and returns its entry (and its priority in p, which a
// Storage does not give) and its hash.
func (q *Queue[T]) took(item T, p *order.Place) (e entry, h uint32) {
	h = q.items.hash(item)
	switch {
	case q.fifo != nil: // every ready item is at 0: no need to read its entry
		e = entry(Ready)
	case q.prio != nil:
		e = q.entryAt(item, entry(p.Key)<<keyShift, Ready, p.Prio)
	default: // a Storage gives no place
		e = q.items.get(item, h)
		p.Prio = q.prioOf(item, e)
	}
	q.items.del(item, h)
	return e, h
}

// Received is the event of a consumer receiving item, popped at place p,
// at instant at and at place seq of the order of calls: it is processing,
// and the metrics record its hand-out (depth, queue latency, the start of
// its work).
func (q *Queue[T]) Received(item T, p order.Place, at int64, seq uint64) {
	if q.prio != nil {
		q.prio.Kept(p, at)
	}
	q.transit--
	q.nproc++
	s := q.proc.slot(item, q.proc.hash(item))
	e := s.e
	s.e, s.v = e.with(Processing), handed{seq, at}
	if q.fair {
		q.prio.Started(e.key(), at)
	}
	q.m.get(item, q.prioOf(item, e), at)
}

// HandOut is Pop and Received at once, for a consumer that receives the
// item at instant now, at place seq of the order of calls.
func (q *Queue[T]) HandOut(now int64, seq uint64) (item T, p order.Place, ok bool) {
	if !q.readyAt(now) {
		return item, p, false
	}
	item, p = q.order.Pop(now)
	e, h := q.took(item, &p)
	q.proc.put(item, h, e.with(Processing), handed{seq, now})
	q.nproc++
	if q.fair {
		q.prio.Started(e.key(), now)
	}
	q.m.get(item, p.Prio, now)
	return item, p, true
}

// Return puts back item, popped at place p, which no consumer received:
// it is ready again where it was, or, if an add raised it meanwhile, at
// the back of its new priority. Items popped together come back newest
// first, which undoes their Pops exactly.
func (q *Queue[T]) Return(item T, p order.Place, now int64) {
	h := q.proc.hash(item)
	e, _ := q.proc.del(item, h)
	q.transit--
	ne := e.with(Ready)
	q.items.set(item, h, ne)
	q.order.PushFront(item, p) // no longer out, with its turns back
	if q.prioOf(item, e) != p.Prio {
		// Raised while popped: as if the Pop had not taken it, and then
		// the add had raised it, to the back of its new priority.
		q.order.Remove(item, p)
		q.enqueue(item, ne, q.nextSeq(), now)
	}
}

// Done ends item's processing, at instant now and place seq of the order
// of calls. An item added again meanwhile becomes ready, at the place its
// Requeue rule gives, and one delayed meanwhile waits for its deadline.
// Done of an item that is not processing does nothing (client-go would
// queue a duplicate), and so does one made before the item's hand-out.
func (q *Queue[T]) Done(item T, now int64, seq uint64) {
	h := q.proc.hash(item)
	e, out := q.proc.del(item, h) // one look for the usual case: processing
	if e.status().processing() && seq < out.seq {
		q.proc.put(item, h, e, out) // made while the item was on its way to a consumer
		return
	}
	switch e.status() {
	case Processing:
		q.finish(item, e, out, now)
		q.drop(item, e)
	case ProcessingDirty:
		q.finish(item, e, out, now)
		seq := q.takePlace(item)
		q.become(item, h, e, e.with(Ready), seq, now)
	case ProcessingDelayed:
		q.finish(item, e, out, now)
		q.items.set(item, h, e.with(Delayed))
	case Popped:
		q.proc.put(item, h, e, out) // not processing: Done does nothing
	}
}

// finish is the bookkeeping of an item that stops processing, whose
// entry is e, handed out as out.
func (q *Queue[T]) finish(item T, e entry, out handed, now int64) {
	q.nproc--
	q.m.done(item, now)
	if q.fair {
		q.prio.Tick(now) // a key left with nothing is kept only until its bucket is full
		q.endWork(e, out, now)
	}
}
