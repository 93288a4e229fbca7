package state

import "github.com/actorq/actorq/actor/internal/order"

// Pop takes the next ready item out of the ready order toward a consumer,
// at instant now: by the rules it is processing from now on (an Add marks
// it to run again after its Done, a Done ends it). Until Received records
// that a consumer received it, Len still counts it, and the metrics have
// not seen its hand-out. It returns the item and its place, which Return
// needs; ok is false if nothing is ready.
func (q *Queue[T]) Pop(now int64) (item T, p order.Place, ok bool) {
	if q.order.Len() == 0 {
		return item, p, false
	}
	item, p = q.order.Pop(now)
	var e entry
	switch {
	case q.fifo != nil: // every ready item is at 0: no need to read its entry
		e = entry(Processing)
	case q.prio != nil:
		e = q.entryAt(item, Processing, p.Prio)
	default: // a Storage gives no place
		e = q.items[item]
		p.Prio = q.prioOf(item, e)
		e = e.with(Processing)
	}
	q.delete(q.items, item)
	q.proc[item] = e
	q.nproc++
	q.transit++
	return item, p, true
}

// Received records that a consumer received item, popped at place p, at
// instant at: the metrics' hand-out (depth, queue latency, the start of
// its work), and the end of its count in Len.
func (q *Queue[T]) Received(item T, p order.Place, at int64) {
	q.transit--
	q.m.get(item, p.Prio, at)
}

// HandOut is Pop and Received at once, for a consumer that receives the
// item at instant now.
func (q *Queue[T]) HandOut(now int64) (item T, p order.Place, ok bool) {
	if item, p, ok = q.Pop(now); ok {
		q.Received(item, p, now)
	}
	return item, p, ok
}

// Return puts back item, popped at place p, which no consumer received:
// it is ready again where it was. No other event of item may come between
// its Pop and its Return; items popped together come back newest first,
// which undoes their Pops exactly.
func (q *Queue[T]) Return(item T, p order.Place) {
	e := q.proc[item]
	q.nproc--
	q.transit--
	delete(q.proc, item)
	q.items[item] = e.with(Ready)
	q.order.PushFront(item, p)
}

// Done ends item's processing, at instant now. An item added again
// meanwhile becomes ready, at the place its Requeue rule gives, and one
// delayed meanwhile waits for its deadline. Done of an item that is not
// processing does nothing (client-go would queue a duplicate).
func (q *Queue[T]) Done(item T, now int64) {
	if q.ndirty == 0 && q.delays.Len() == 0 && q.wide == nil && q.keys == nil {
		// Every item processing is only that: one delete tells, by the
		// map's length, whether item was.
		if n := len(q.proc); n > 0 {
			delete(q.proc, item)
			if len(q.proc) < n {
				q.finish(item, now)
			}
		}
		return
	}
	e, ok := q.proc[item]
	if !ok {
		return // not processing
	}
	switch e.status() {
	case Processing:
		q.finish(item, now)
		q.forget(item, e)
	case ProcessingDirty:
		q.finish(item, now)
		seq, ok := q.takePlace(item)
		if !ok {
			seq = q.nextSeq()
		}
		ne := e.with(Ready)
		q.set(item, e, ne)
		q.enqueue(item, ne, seq, now)
	case ProcessingDelayed:
		q.finish(item, now)
		q.set(item, e, e.with(Delayed))
	}
}

// finish is the bookkeeping of an item that stops processing.
func (q *Queue[T]) finish(item T, now int64) {
	q.nproc--
	q.m.done(item, now)
}
