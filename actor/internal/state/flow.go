package state

import (
	"fmt"

	"github.com/actorq/actorq/actor/internal/order"
)

// Flow control of fairness keys (package order holds its rules; see
// order.Prio's flows): a key may have a cap on its items out (popped or
// processing) at once, which holds back its ready items until one of them
// is Done, and a weight, its turns per round (or share of work time with
// ByWork). An item counts against its keys from the instant it is popped
// (offered to a consumer counts) until its Done, or its Return. Caps hold
// while the queue runs: once shutdown begins, every ready item may be
// handed out.

// KeyLimit is the flow control of the key whose path is Keys.
type KeyLimit struct {
	Keys []string
	order.Limit
}

// Check returns an error if l is not a valid limit.
func (l KeyLimit) Check() error {
	switch {
	case len(l.Keys) == 0:
		return fmt.Errorf("key limit %+v: no key", l)
	case l.Cap < 0:
		return fmt.Errorf("key limit for %q: cap %d below 0 (0 means no cap)", l.Keys, l.Cap)
	case l.Weight < 0:
		return fmt.Errorf("key limit for %q: weight %d below 0 (0 means 1)", l.Keys, l.Weight)
	}
	return nil
}

// SetLimit is the event of a key's limits changing, which takes effect at
// once: a key below its new cap takes its turn again, one at or above it
// is passed over until enough of its items are Done. Without fairness it
// does nothing. l must be valid (Check).
func (q *Queue[T]) SetLimit(l KeyLimit) {
	if !q.fair {
		return
	}
	q.prio.SetLimit(l.Keys, l.Limit)
}

// startWork notes the hand-out instant of item, for fairness by work time.
func (q *Queue[T]) startWork(item T, at int64) {
	if q.started != nil {
		put(q.started, item, at, &q.startPeak)
	}
}

// endWork is the end of item's work at instant now (its entry is e): its
// keys count one item out less, and with fairness by work time are
// charged its work time.
func (q *Queue[T]) endWork(item T, e entry, now int64) {
	var d int64
	if q.started != nil {
		d = now - q.started[item]
		delete(q.started, item)
		q.started = shrunk(q.started, &q.startPeak)
	}
	q.prio.Finish(e.key(), d)
}

// capsOff lifts the caps for good: shutdown has begun.
func (q *Queue[T]) capsOff() {
	if q.fair {
		q.prio.CapsOff()
	}
}
