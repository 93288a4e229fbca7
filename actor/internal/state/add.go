package state

// Add is an immediate add of item at the priority o asks for, at instant
// now. Once a shutdown has begun it does nothing: the transport applies
// what was sent before a shutdown before it begins, so an add that comes
// later was concurrent with it, and is ignored as client-go ignores an
// Add once shutting down.
//
//   - absent: ready, at the back of its priority;
//   - ready: a duplicate, unless it raises the priority: then it goes to
//     the back of its new priority (popped, once it is returned);
//   - processing: dirty, at the priority o asks for (that of its next run);
//   - dirty: a duplicate, unless it raises the priority;
//   - delayed: ready now, the deadline dropped (and processing+delayed:
//     dirty), at the higher of the two priorities.
//
// It returns where the add found the item (Absent for an add the queue
// ignored once shutting down): a transport may treat an item it knew as
// hot.
func (q *Queue[T]) Add(item T, o Opts, now int64) (was Status) {
	if q.phase != Running {
		return Absent
	}
	if o.Retry {
		q.m.retry()
	}
	return q.add(item, o, now)
}

func (q *Queue[T]) add(item T, o Opts, now int64) (was Status) {
	if q.fifo != nil && o.Prio == 0 && q.delays.Len() == 0 {
		if was, ok := q.addFIFO(item, now); ok {
			return was
		}
	}
	e, h := q.lookup(item)
	if q.before(item, h, e, o.Seq) {
		return Popped // made while the item was on its way to a consumer
	}
	switch was = e.status(); was {
	case Absent:
		e = q.know(item, o).with(Ready)
		q.set(item, h, 0, e)
		q.arrive(item, e, now)
	case Processing:
		q.m.add(item, o.Prio, now)
		q.become(item, h, e, q.entryAt(item, e, ProcessingDirty, q.usePrioFor(o.Prio)), 0, now)
	case Delayed, ProcessingDelayed:
		raised := q.raises(item, e, o)
		p, seq := max(q.prioOf(item, e), o.Prio), q.takePlace(item)
		if raised {
			seq = 0 // the back of its new priority
		}
		q.delays.Cancel(item)
		q.m.setDelayed(q.delays.Len())
		q.m.add(item, p, now)
		st := Ready
		if was == ProcessingDelayed {
			st = ProcessingDirty
		}
		q.become(item, h, e, q.entryAt(item, e, st, p), seq, now)
	default: // Ready, Popped, ProcessingDirty
		q.again(item, h, e, o, now)
	}
	return was
}

// again is an add of item, whose entry is e (h is its hash), that will
// run anyway (it is ready, popped or dirty): a duplicate, unless it
// raises the priority; then it goes to the back of its new priority.
func (q *Queue[T]) again(item T, h uint32, e entry, o Opts, now int64) {
	was, old := e.status(), q.prioOf(item, e)
	if !q.raises(item, e, o) {
		if was == Ready {
			q.order.Touch(item)
		}
		return
	}
	q.m.moveDepth(old, o.Prio)
	if was != Ready {
		q.become(item, h, e, q.entryAt(item, e, was, o.Prio), 0, now)
		return
	}
	// Ready: the item takes its new place before it leaves its old one,
	// so that its keys never look idle (with fairness by work time, an
	// idle key starts again at its parent's virtual time).
	oldPlace := q.placeOf(e, old, 0, now)
	q.become(item, h, e, q.entryAt(item, e, was, o.Prio), 0, now)
	q.order.Remove(item, oldPlace)
}

// arrive counts item, new to the queue and ready with entry e, and puts
// it at the back of its priority.
func (q *Queue[T]) arrive(item T, e entry, now int64) {
	q.m.add(item, q.prioOf(item, e), now)
	q.enqueue(item, e, q.nextSeq(), now)
}

// become stores ne, item's entry after an add or a Done (old before; h is
// its hash), and
// places the item by its new state: a ready one in the order at place
// seq, a dirty one's next run at seq (0 for a new place, at the back).
// A popped item, raised, goes to the back of its new priority once it is
// returned (Return).
func (q *Queue[T]) become(item T, h uint32, old, ne entry, seq uint64, now int64) {
	q.set(item, h, old, ne)
	st := ne.status()
	if st != Ready && st != ProcessingDirty {
		return
	}
	if seq == 0 {
		seq = q.nextSeq()
	}
	if st == Ready {
		q.enqueue(item, ne, seq, now)
	} else {
		q.setPlace(item, seq)
	}
}

// before reports whether an event at place seq of the order of calls came
// before the hand-out of item, whose entry is e (h is its hash), if it is
// processing.
func (q *Queue[T]) before(item T, h uint32, e entry, seq uint64) bool {
	return e.status().processing() && seq < q.proc.slot(item, h).v.seq
}

// addFIFO is add of an item that is not processing, when nothing is
// delayed and every item is at priority 0: an item the table of items
// holds is ready, and the add a duplicate. ok is false, and it does
// nothing, if the item is popped or processing.
func (q *Queue[T]) addFIFO(item T, now int64) (was Status, ok bool) {
	h := q.items.hash(item)
	if q.proc.get(item, h) != 0 {
		return Absent, false
	}
	if _, added := q.items.add(item, h, entry(Ready)); !added {
		return Ready, true
	}
	q.arrive(item, entry(Ready), now)
	return Absent, true
}

// AddAt is an add of item that takes effect at deadline at, at the
// priority o asks for, made at instant now. A delay can be shortened,
// never lengthened, and an item that will run anyway stays as it is (only
// its priority may rise). Once a shutdown has begun it does nothing. A
// deadline already due is made ready by the next Due.
//
//   - absent: delayed (and processing: processing+delayed);
//   - delayed: its deadline becomes at, if earlier;
//   - ready, popped or dirty: an Add.
func (q *Queue[T]) AddAt(item T, at int64, o Opts, now int64) {
	if q.phase != Running {
		return
	}
	if o.Retry {
		q.m.retry()
	}
	e, h := q.lookup(item)
	if q.before(item, h, e, o.Seq) {
		return // made while the item was on its way to a consumer: a duplicate
	}
	switch e.status() {
	case Absent, Processing:
		st, ke := ProcessingDelayed, e
		if e.status() == Absent {
			st, ke = Delayed, q.hold(o)
		}
		q.delays.Set(item, at)
		q.m.setDelayed(q.delays.Len())
		q.setPlace(item, q.nextSeq())
		q.set(item, h, e, q.entryAt(item, ke, st, q.usePrioFor(o.Prio)))
	case Delayed, ProcessingDelayed:
		q.delays.Shorten(item, at)
		if q.raises(item, e, o) {
			q.setPlace(item, q.nextSeq())
			q.set(item, h, e, q.entryAt(item, e, e.status(), o.Prio))
		}
	default:
		q.add(item, o, now)
	}
}

// know returns the entry of an item the queue did not know, at the
// priority o asks for, holding its keys.
func (q *Queue[T]) know(item T, o Opts) entry {
	return q.entryAt(item, q.hold(o), Absent, q.usePrioFor(o.Prio))
}

// hold returns an entry that holds the fairness keys o carries, for an
// item new to the queue; the item holds them until the queue forgets it.
func (q *Queue[T]) hold(o Opts) entry {
	if !q.fair {
		return 0
	}
	return entry(q.prio.Hold(o.Keys)) << keyShift
}

// usePrioFor returns p, having turned the order into a priority order if
// p is not 0.
func (q *Queue[T]) usePrioFor(p int) int {
	if p != 0 {
		q.usePrio()
	}
	return p
}

// raises reports whether o asks for a priority above that of item, whose
// entry is e, and turns the order into a priority order if so.
func (q *Queue[T]) raises(item T, e entry, o Opts) bool {
	if o.Prio <= q.prioOf(item, e) {
		return false
	}
	q.usePrio()
	return true
}
