package state

import (
	"cmp"
	"slices"
)

// NextDue returns the earliest deadline, if any item is delayed, or the
// earliest instant a key's token comes or its pause ends (or its bucket
// is full again). It may be a deadline that was superseded since: waking
// for it early is harmless.
func (q *Queue[T]) NextDue() (int64, bool) {
	at, ok := q.delays.Next()
	if q.fair {
		if w, wok := q.prio.NextWake(); wok && (!ok || w < at) {
			return w, true
		}
	}
	return at, ok
}

// Due makes every key whose token came, or whose pause ended, by now take
// its turns again (order.Prio's Tick), then every delayed item whose
// deadline is at or before now ready (a processing one dirty), in a new
// place, as of now. Items due at the
// same instant take their places in the order their deadlines were set
// (client-go's), or, with RequeueAtAdd, as controller-runtime's queue
// orders them: by priority, then by the place of their first add or last
// raise.
func (q *Queue[T]) Due(now int64) {
	if q.fair {
		q.prio.Tick(now) // keys first: they wait in the order they began to
	}
	n := q.delays.Len()
	if q.requeue == RequeueAtAdd {
		q.dueInPlaceOrder(now)
	} else {
		for {
			item, _, ok := q.delays.PopDue(now)
			if !ok {
				break
			}
			q.isDue(item, now)
		}
	}
	if q.delays.Len() != n {
		q.m.setDelayed(q.delays.Len())
	}
}

// dueItem is an item whose deadline, at, has passed, with what orders it
// among the items due at once.
type dueItem[T comparable] struct {
	item  T
	at    int64
	prio  int
	place uint64
}

// dueInPlaceOrder makes the items due at now ready in controller-runtime's
// order: by deadline, then priority (highest first), then place.
func (q *Queue[T]) dueInPlaceOrder(now int64) {
	due := q.dueBuf[:0]
	for {
		item, at, ok := q.delays.PopDue(now)
		if !ok {
			break
		}
		due = append(due, dueItem[T]{item, at, q.prioOf(item, q.entryOf(item)), q.places[item]})
	}
	if len(due) > 1 {
		slices.SortStableFunc(due, func(a, b dueItem[T]) int {
			if c := cmp.Compare(a.at, b.at); c != 0 {
				return c
			}
			if c := cmp.Compare(b.prio, a.prio); c != 0 {
				return c
			}
			return cmp.Compare(a.place, b.place)
		})
	}
	for i := range due {
		q.isDue(due[i].item, now)
		due[i] = dueItem[T]{}
	}
	q.dueBuf = due[:0]
}

// isDue is the event of item's deadline passing: a delayed item becomes
// ready, a processing one dirty, in a new place.
func (q *Queue[T]) isDue(item T, now int64) {
	e, h := q.lookup(item)
	q.m.add(item, q.prioOf(item, e), now)
	if e.status() == ProcessingDelayed {
		q.setPlace(item, q.nextSeq())
		q.set(item, h, e, e.with(ProcessingDirty))
		return
	}
	q.takePlace(item)
	ne := e.with(Ready)
	q.set(item, h, e, ne)
	q.enqueue(item, ne, q.nextSeq(), now)
}

// Drain begins a ShutDownWithDrain: from now on adds do nothing, and the
// pending delays are dropped (a processing item's delay included; it
// stays processing).
func (q *Queue[T]) Drain() {
	if q.phase == Running {
		q.phase = Draining
	}
	q.dropDelays()
	q.capsOff()
}

// End is the end of the owner goroutine: adds do nothing and delays are
// dropped, as in Drain; the items ready stay ready, and those processing
// come back at their Done if they were added again.
func (q *Queue[T]) End() {
	q.phase = Ended
	q.dropDelays()
	q.capsOff()
}

// dropDelays forgets every pending delay.
func (q *Queue[T]) dropDelays() {
	q.delays.All(func(item T, _ int64) bool {
		e, h := q.lookup(item)
		q.takePlace(item)
		if e.status() == ProcessingDelayed {
			q.set(item, h, e, e.with(Processing))
		} else {
			q.forget(item, h, e)
		}
		return true
	})
	q.delays.Reset()
	q.m.setDelayed(0)
}
