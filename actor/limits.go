package actor

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/actorq/actorq/actor/internal/order"
	"github.com/actorq/actorq/actor/internal/state"
)

// The limits of flow control per key, as the package doc says: a key's
// and a level's (caps, weights, rates, adaptive caps), and their checks.
// The requests that set them while the queue runs are in flowcontrol.go;
// the rules themselves are the order's (internal/order).

// KeyLimit is the flow control of one fairness key: the key whose path,
// outermost first, is Keys ({"tenant-a"} for a first-level key,
// {"tenant-a", "ns-1"} for a second-level key within it).
//
// A key at its cap is passed over by every way of taking items (Get,
// GetContext, GetBatch, Items) until one of its items is Done; then it
// takes its turn as usual, at the back of the turns. Items count against
// the cap of every key on their path from the instant they are handed out
// (or offered to consumers ahead of a Get: in the lane, or on the items
// channel) until their Done. Within a key, priorities and first in, first
// out are unchanged; a key at its cap
// holds back only its own items, at every priority (the starvation bound
// too waits for it). Caps hold while the queue runs: once shutdown has
// begun, Get hands out every item still ready, whatever the caps, and a
// drain ends once nothing is processing.
//
// A key with a Rate starts at most Burst of its items at one instant and
// Rate a second on average, on the queue's clock: in every window of
// length W, at most Burst + Rate·W of them are handed out (or offered
// ahead, as caps count), at every level of their path (a namespace's
// items spend their tenant's tokens too). A key without a token is
// passed over as a key at its cap is, and the others go on: no
// head-of-line blocking. The owner goroutine wakes at the instant its
// next token comes, and the key takes its turn again at the back of the
// turns, banking no credit (by work time, at the current virtual time).
// [Queue.PauseKey] holds a key the same way until an instant. Rates and
// pauses hold while the queue runs, as caps do; Len and the depth count
// the items they hold back as queued. The queue keeps a key's bucket
// only while it is not full: a key forgotten comes back with a full
// bucket, which is what it had.
//
// A bucket holds at most Burst tokens, so a token that comes while the
// key's bucket is full and the key waits is lost: while it waits its
// turn behind other keys, behind items of higher priorities, or behind
// items that [Config.StarvationBound] promotes ahead of it. Under such
// waits a key with a small Burst gets less than its Rate; a Burst of the
// tokens that come during a usual wait keeps it at its rate.
//
// A key with an Adaptive cap learns its limit from the throttles its
// workers report ([Queue.Throttled]): see [AdaptiveCap].
//
// Experimental: flow control may change before v1 (README, "Stability").
type KeyLimit struct {
	Keys []string
	// Cap is the most items of the key processing at once; 0 means no
	// cap.
	Cap int
	// Weight is the key's turns per round of the round-robin (taken in a
	// row), or with [Config.FairByWorkTime] its share of the work time;
	// 0 means 1.
	Weight int
	// Rate is the most items of the key started a second, on average;
	// 0 or rate.Inf means no rate.
	Rate rate.Limit
	// Burst, with a Rate, is the most items of the key started at one
	// instant: the size of its bucket, at least 1. With a Burst of 1 the
	// key's items start at least 1/Rate apart, and a token that comes
	// while the key waits its turn behind others is lost; a burst of a
	// few items keeps the key at its rate under load.
	Burst int
	// Adaptive, if not the zero value, is a cap that learns the key's
	// limit from its throttles, in place of Cap (which must then be 0).
	Adaptive AdaptiveCap
}

// Check returns an error if l is not a valid limit: no keys, a Cap,
// Weight or Burst below 0, a Rate below 0 or NaN, a finite Rate with a
// Burst of 0, or an Adaptive cap that is not valid ([AdaptiveCap]) or
// comes with a Cap.
func (l KeyLimit) Check() error {
	if err := l.Adaptive.Check(); err != nil {
		return fmt.Errorf("key limit for %q: %w", l.Keys, err)
	}
	return l.core().Check()
}

func (l KeyLimit) core() state.KeyLimit {
	return state.KeyLimit{Keys: l.Keys, Limit: LevelLimit{l.Cap, l.Weight, l.Rate, l.Burst, l.Adaptive}.core()}
}

// AdaptiveCap is a cap on a key's items processing at once that learns
// the key's limit from the throttles its workers report
// ([Queue.Throttled], [Queue.ThrottledKey]), as a TCP congestion window
// or Netflix's AIMD limit does, for a key that stands for a throttling
// scope (a cloud account, a subscription). Time is cut into windows of
// Window on the queue's clock:
//
//   - A throttle lowers the cap, at most once a window however many the
//     window sees (a burst of correlated throttles is one decrease), to
//     the lesser of cap−1 and ⌊cap·Backoff⌋, never below Min.
//   - A window with no throttle in which the key's items processing
//     reached half the cap grows it by 1, never above Max.
//   - A window in which none of the key's items was processing moves the
//     cap 1 toward Start: an idle key recovers, and is forgotten once it
//     is back at its start.
//
// A lowered cap revokes nothing: the items processing above it finish,
// and until then the key is passed over as a key at its cap is, while the
// others go on. The queue keeps a key's adaptive state only while the key
// has work or its cap differs from Start. The zero value is no adaptive
// cap.
//
// Experimental: flow control may change before v1.
type AdaptiveCap struct {
	Min     int           // the least the cap falls to; 0 means 1
	Max     int           // the most it grows to; at least Min and 1
	Start   int           // the cap of a key the queue does not remember; 0 means Max
	Backoff float64       // the factor of a decrease, in (0, 1); 0 means 0.9
	Window  time.Duration // the length of a window; more than 0
}

// Check returns an error if a is not a valid adaptive cap: Min below 0,
// Max below 1 or Min, a Start outside [Min, Max], a Backoff outside
// (0, 1), or a Window of 0 or less. The zero value is valid: no cap.
func (a AdaptiveCap) Check() error {
	if a == (AdaptiveCap{}) {
		return nil
	}
	if _, err := a.core(); err != nil {
		return err
	}
	return nil
}

// core returns the order's configuration of a, or nil for the zero value.
func (a AdaptiveCap) core() (*order.Adapt, error) {
	if a == (AdaptiveCap{}) {
		return nil, nil
	}
	c := &order.Adapt{Min: max(a.Min, 1), Max: a.Max, Start: a.Start, Backoff: a.Backoff, Window: int64(a.Window)}
	if c.Start == 0 {
		c.Start = a.Max
	}
	if c.Backoff == 0 {
		c.Backoff = 0.9
	}
	switch {
	case a.Min < 0:
		return nil, fmt.Errorf("adaptive cap: Min %d below 0", a.Min)
	case a.Max < c.Min:
		return nil, fmt.Errorf("adaptive cap: Max %d below Min %d (and 1)", a.Max, c.Min)
	case c.Start < c.Min || c.Start > c.Max:
		return nil, fmt.Errorf("adaptive cap: Start %d outside [Min, Max] = [%d, %d]", a.Start, c.Min, c.Max)
	case !(c.Backoff > 0 && c.Backoff < 1):
		return nil, fmt.Errorf("adaptive cap: Backoff %v outside (0, 1)", a.Backoff)
	case a.Window <= 0:
		return nil, fmt.Errorf("adaptive cap: Window %v: more than 0 is needed", a.Window)
	}
	return c, nil
}

// LevelLimit is the flow control of every key of one level
// ([Config.LevelLimits]); its fields mean what a [KeyLimit]'s do.
//
// Experimental: flow control may change before v1.
type LevelLimit struct {
	Cap      int
	Weight   int
	Rate     rate.Limit
	Burst    int
	Adaptive AdaptiveCap
}

// Check returns an error if l is not a valid limit, as [KeyLimit.Check].
func (l LevelLimit) Check() error {
	err := l.Adaptive.Check()
	if err == nil {
		err = state.CheckLimit(l.core())
	}
	if err != nil {
		return errors.New("level limit: " + err.Error())
	}
	return nil
}

// core returns the order's limit of l, which must be valid (Check).
func (l LevelLimit) core() order.Limit {
	a, _ := l.Adaptive.core()
	return order.Limit{Cap: l.Cap, Weight: l.Weight, Rate: float64(l.Rate), Burst: l.Burst, Adapt: a}
}
