package state

import (
	"fmt"
	"math"

	"github.com/actorq/actorq/actor/internal/order"
)

// Flow control of fairness keys (package order holds its rules; see
// order.Prio's flows): a key may have a cap on its items out (popped or
// processing) at once, which holds back its ready items until one of them
// is Done, and a weight, its turns per round (or share of work time with
// ByWork). An item counts against its keys from the instant it is popped
// (offered to a consumer counts) until its Done, or its Return. A key may
// also have a rate and a burst, and may be paused until an instant: an
// item spends one of its keys' tokens at its pop, and gets it back at its
// Return; a key without a token, or paused, is passed over until its
// instant comes (order.Prio's rates). Caps, rates and pauses hold while
// the queue runs: once shutdown begins, every ready item may be handed
// out.

// KeyLimit is the flow control of the key whose path is Keys.
type KeyLimit struct {
	Keys []string
	order.Limit
}

// Check returns an error if l is not a valid limit.
func (l KeyLimit) Check() error {
	if len(l.Keys) == 0 {
		return fmt.Errorf("key limit %+v: no key", l)
	}
	if err := CheckLimit(l.Limit); err != nil {
		return fmt.Errorf("key limit for %q: %w", l.Keys, err)
	}
	return nil
}

// maxBucket is the longest a bucket may take to fill (Burst/Rate): about
// a hundred years, so that no instant of a bucket overflows.
const maxBucket = 1 << 62

// CheckLimit returns an error if l is not a valid limit.
func CheckLimit(l order.Limit) error {
	switch {
	case l.Cap < 0:
		return fmt.Errorf("cap %d below 0 (0 means no cap)", l.Cap)
	case l.Weight < 0:
		return fmt.Errorf("weight %d below 0 (0 means 1)", l.Weight)
	case math.IsNaN(l.Rate) || l.Rate < 0:
		return fmt.Errorf("rate %v: not a number of items a second (0 or rate.Inf means no rate)", l.Rate)
	case l.Burst < 0:
		return fmt.Errorf("burst %d below 0", l.Burst)
	case l.Rate > 0 && l.Rate < math.MaxFloat64 && l.Burst == 0:
		return fmt.Errorf("rate %v with a burst of 0: no item could ever start (a burst is at least 1)", l.Rate)
	case l.Rate > 0 && l.Rate < math.MaxFloat64 && float64(l.Burst)/l.Rate*1e9 >= maxBucket:
		return fmt.Errorf("rate %v with burst %d: the bucket takes over a hundred years to fill", l.Rate, l.Burst)
	case l.Adapt != nil && l.Cap != 0:
		return fmt.Errorf("cap %d with an adaptive cap: the adaptive cap is the key's cap, set one of them", l.Cap)
	}
	return nil
}

// SetLimit is the event of a key's limits changing at instant now, which
// takes effect at once: a key below its new cap takes its turn again, one
// at or above it is passed over until enough of its items are Done, and
// its bucket keeps its tokens at the new rate. Without fairness it does
// nothing. l must be valid (Check).
func (q *Queue[T]) SetLimit(l KeyLimit, now int64) {
	if !q.fair {
		return
	}
	q.prio.Tick(now)
	q.prio.SetLimit(l.Keys, l.Limit)
}

// Pause is the event of the key path keys being paused, at instant now,
// until the instant until: its items are passed over until then. A
// pause that ends at or before now, or before one the key has, does
// nothing; so does a pause once shutdown has begun, or without fairness.
func (q *Queue[T]) Pause(keys []string, until, now int64) {
	if !q.fair || q.phase != Running {
		return
	}
	q.prio.Tick(now)
	q.prio.Pause(keys, until)
}

// Rated reports whether a key has, or had, a rate or a pause: the
// transport must then give every pop the instant it happens, since it
// spends tokens.
func (q *Queue[T]) Rated() bool { return q.fair && q.prio.Rated() }

// Adaptive reports whether a key has, or had, an adaptive cap's state
// (order.Prio.Adaptive): the transport must then give every hand-out,
// receive and Done the instant it happens, since they move the cap's
// windows.
func (q *Queue[T]) Adaptive() bool { return q.fair && q.prio.Adaptive() }

// Throttle is the event of a throttle reported at instant now for item:
// the adaptive cap of every key on its path falls, at most once a window
// (order.Prio's adaptive caps), and with until > now each of those keys,
// or the item's own key if none has an adaptive cap, is paused until then.
// A report for an item that is not processing, without fairness, or once
// shutdown has begun does nothing.
func (q *Queue[T]) Throttle(item T, now, until int64) {
	if !q.fair || q.phase != Running {
		return
	}
	e := q.entryOf(item)
	if !e.status().processing() {
		return
	}
	q.prio.Tick(now)
	q.throttle(e.key(), nil, now, until)
}

// ThrottleKey is Throttle for the key path keys, and the adaptive caps on
// its path: a key the queue does not hold is left alone, and with until
// > now the key is paused until then.
func (q *Queue[T]) ThrottleKey(keys []string, now, until int64) {
	if !q.fair || q.phase != Running {
		return
	}
	q.prio.Tick(now)
	q.throttle(0, keys, now, until)
}

// throttle applies a throttle of the key whose id is key (or, if key is
// 0, of the path keys) at now, and the pause until until.
func (q *Queue[T]) throttle(key uint32, keys []string, now, until int64) {
	switch {
	case q.prio.Throttle(key, keys, now, until) || until <= now:
	case key != 0:
		q.prio.Pause(q.prio.Path(key), until)
	default:
		q.prio.Pause(keys, until)
	}
}

// endWork is the end at instant now of the work of an item whose entry is
// e, handed out as out: its keys count one item out less, and with
// fairness by work time are charged its work time.
func (q *Queue[T]) endWork(e entry, out handed, now int64) {
	var d int64
	if q.byWork {
		d = now - out.at
	}
	q.prio.Finish(e.key(), d)
}

// capsOff lifts the caps for good: shutdown has begun.
func (q *Queue[T]) capsOff() {
	if q.fair {
		q.prio.CapsOff()
	}
}
