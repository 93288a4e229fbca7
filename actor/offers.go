package actor

import (
	"math/bits"

	"github.com/actorq/actorq/actor/internal/order"
	"github.com/actorq/actorq/actor/internal/state"
)

// offers is the owner's side of the lane (lane.go): the slots it made,
// those it has offered and not yet seen claimed or taken back, and what
// it needs to keep what it offers first in the hand-out order. Only the
// owner goroutine touches it, and after the owner ended the caller that
// holds the state (the lane is shut by then).
//
// The owner calls it at these points: prepare before it applies a
// request, added after it applied an add, handOver or takeBack when a
// call asks it for items, fill once a round is done, giveBack when a Get
// gives back a slot it could not claim, and close when the lane goes off. f, the
// duplicate filter, may be nil; so may o, for a queue without the lane.
type offers[T comparable] struct {
	l     *lane[T]
	limit int  // the most items offered at once
	fair  bool // fairness: offer fairPerGet items per consumer asking
	atAdd bool // RequeueAtAdd

	all     []*slot[T] // every slot made, by index
	free    []*slot[T]
	sent    []*slot[T] // offered, oldest first, not yet seen claimed or taken back (nil: seen)
	base    uint64     // the number of the slot at sent[0]: slots are numbered as offered
	sends   uint64     // the slots offered so far
	last    order.Place
	floor   int    // top is at least floor
	changes uint64 // with fairness: the state's Changes as of the last offer
	wanted  bool   // a Get found the lane empty: keep it filled
	asking  int    // with fairness: the most Gets seen under way at once (asked)
	gets    int    // the Gets and GetBatches of the inbox batch so far
	shut    bool
}

// fairPerGet is how many items the lane offers, with fairness, for each
// Get seen under way at once: enough that consumers seldom find it empty,
// few enough that a key joining the turns, which takes the lane back,
// costs little (the more offered, the more claims can race out of order).
const fairPerGet = 4

// newOffers makes a lane for a queue configured by cfg; stamp says
// whether the state needs the instant of each hand-out, metrics whether
// it records metrics.
func newOffers[T comparable](cfg Config[T], stamp, metrics bool) *offers[T] {
	l := &lane[T]{stamp: stamp, wake: metrics}
	return &offers[T]{l: l, limit: laneSize, fair: cfg.Fairness != nil, atAdd: cfg.Requeue == RequeueAtAdd}
}

// prepare readies the lane for r, which the owner is about to apply: if r
// is the first of an inbox batch, the state hears of the claims made
// before it was put (every request of a batch was put before the batch
// was taken), and top rises to the priority of an add (a delayed one's
// too: a deadline passing is no request a Get waits behind).
func (o *offers[T]) prepare(q *state.Queue[T], first bool, r *request[T]) {
	if o == nil {
		return
	}
	if first {
		o.see(q)
		o.gets = 0
	}
	switch r.op {
	case opGet:
		o.gets++
	case opAdd, opRetry, opAddAt:
		o.raise(int(r.prio))
	case opAddList:
		o.raise(r.list.prio)
	}
}

// added follows an add at priority p that the owner applied: if p is above
// an item the lane offers, that item no longer comes first (or it is the
// item added, raised), and the lane is taken back.
func (o *offers[T]) added(q *state.Queue[T], f *filter[T], p int, now int64) {
	if o != nil && len(o.sent) > 0 && p > o.last.Prio {
		o.takeBack(q, f, now)
	}
}

// asked records a call that asks the owner for items: a Get (one item)
// keeps the lane filled from now on, a GetBatch stops it, since it has no
// use for it; waiting is the number of calls then waiting. A caller of a
// Get or GetBatch is blocked until its call is answered, so calls
// waiting together, or put in one inbox batch (each answered after the
// batch was taken), have as many callers: that many consumers contend.
func (o *offers[T]) asked(one bool, waiting int) {
	if o == nil {
		return
	}
	o.wanted = one
	if o.fair && one {
		o.asking = max(o.asking, waiting, o.gets)
	}
}

// fill offers ready items until the lane holds its limit, once a Get has
// found it empty; first it sees the claims and keeps what it offers in
// order.
func (o *offers[T]) fill(q *state.Queue[T], f *filter[T], now int64, quiet func() bool) {
	if o == nil || o.shut {
		return
	}
	if o.l.off.Load() {
		o.close(q, f, now)
		return
	}
	o.see(q)
	o.keepOrder(q, f, now)
	if !o.wanted || o.atAdd && (q.Dirty() > 0 || q.Delayed() > 0) || o.fair && o.asking < 2 {
		// With RequeueAtAdd, an item added again while processing, or
		// delayed, keeps a place that may come before what the lane would
		// offer (at its Done, or at an Add that cuts its delay short).
		// With fairness, a claim that comes before the owner applied its
		// caller's own calls would take its turn before theirs: the lane
		// offers only to consumers that contend. Meanwhile Gets ask the
		// owner.
		return
	}
	limit := o.limit
	if o.fair {
		limit = min(o.asking*fairPerGet, o.limit)
	}
	n := len(o.sent)
	for room := limit - o.l.len(); room > 0 && (len(o.free) > 0 || len(o.all) < maxSlots); room-- {
		item, p, ok := q.Pop(now)
		if !ok {
			break
		}
		if !o.l.top.claimable(p.Prio) && !o.lower(q, p.Prio, quiet) {
			q.Return(item, p, now) // below an add that may be on its way: Gets ask the owner
			break
		}
		o.offer(item, p, f.offered(item, p.Prio), q.Changes())
	}
	o.l.put(o.sent[n:])
}

// offer readies item, popped at place p, in a slot, for fill to put in
// the ring; changes is the state's Changes after the pop. A slot's state
// is slotOffered (zero) until it is claimed or revoked: release zeroes it.
func (o *offers[T]) offer(item T, p order.Place, hot *hotEntry[T], changes uint64) {
	var sl *slot[T]
	if n := len(o.free); n > 0 {
		sl, o.free = o.free[n-1], o.free[:n-1]
	} else {
		sl = &slot[T]{idx: len(o.all)}
		o.all = append(o.all, sl)
	}
	sl.item, sl.place, sl.hot, sl.num = item, p, hot, o.sends
	o.sent = append(o.sent, sl)
	o.sends++
	o.last = p
	o.changes = changes
}

// keepOrder takes the lane back if what it offers might no longer come
// first: an item became ready at a higher priority than the last one
// offered or ahead of it in its priority, or, with fairness, the state's
// count of items that may go before popped ones changed (a key joined the
// turns, or an item took a place before items of its key).
func (o *offers[T]) keepOrder(q *state.Queue[T], f *filter[T], now int64) {
	if o == nil || len(o.sent) == 0 {
		return
	}
	if p, ok := q.TopPrio(); ok {
		o.raise(p)
		if p > o.last.Prio {
			o.takeBack(q, f, now)
			return
		}
	}
	if o.fair {
		if q.Changes() != o.changes {
			o.takeBack(q, f, now) // a key that joined may go before
		}
		return
	}
	if h, ok := q.Head(now); ok && h.Prio == o.last.Prio && h.Seq < o.last.Seq {
		o.takeBack(q, f, now)
	}
}

// raise makes top at least p.
func (o *offers[T]) raise(p int) {
	if p > o.floor {
		o.l.top.raise(p)
		o.floor = p
	}
}

// lower lowers top to p, the priority of the next item, if nothing the
// owner cannot see may be above it: a request in the inbox (quiet reports
// none), an item added again while processing or delayed (whose
// priorities it does not track), or a slot above p that a consumer may
// still give back.
func (o *offers[T]) lower(q *state.Queue[T], p int, quiet func() bool) bool {
	if q.Dirty() > 0 || q.Delayed() > 0 || !quiet() {
		return false
	}
	for _, sl := range o.sent {
		if sl != nil && sl.place.Prio > p && sl.state.Load() == slotOffered {
			return false
		}
	}
	if !o.l.top.lower(p, quiet) {
		return false
	}
	o.floor = p
	return true
}

// takeBack revokes every slot not claimed and returns its item to the
// state, newest first, which undoes their pops, and takes back the slots
// still in the channel. A claimed slot stays in sent until see finds its
// claim.
func (o *offers[T]) takeBack(q *state.Queue[T], f *filter[T], now int64) {
	if o == nil || len(o.sent) == 0 {
		return
	}
	o.see(q)
	for i := len(o.sent) - 1; i >= 0; i-- {
		if sl := o.sent[i]; sl != nil && sl.state.CompareAndSwap(slotOffered, slotRevoked) {
			o.sent[i] = nil
			q.Return(sl.item, sl.place, now)
			f.sync(q, sl.item)
		}
	}
	o.dropSeen()
	o.l.drain(o.release) // revoked, and no consumer has them
}

// handOver hands out the oldest item the lane offers, for a Get that
// asked the owner, and returns it and its place; ok is false if the lane
// offers none. The owner takes its slot from the ring and claims it, as
// a consumer would, and the state hears of the claim at once. The lane
// must be in order (keepOrder).
func (o *offers[T]) handOver(q *state.Queue[T], at int64, seq uint64) (item T, p order.Place, ok bool) {
	if o == nil {
		return item, p, false
	}
	for sl := o.l.receive(); sl != nil; sl = o.l.receive() {
		item, p = sl.item, sl.place
		sl.at, sl.after = at, seq
		sl.hot.claiming()
		if o.l.claimed(sl) {
			o.see(q) // this claim, and those made before it
			return item, p, true
		}
		o.release(sl) // revoked: its item went back already
	}
	var zero T
	return zero, order.Place{}, false
}

// giveBack is the event of a consumer giving back sl, which it received
// but could not claim: revoked, or below top.
func (o *offers[T]) giveBack(q *state.Queue[T], f *filter[T], sl *slot[T], now int64) {
	if sl.state.Load() == slotOffered {
		o.takeBack(q, f, now) // revokes sl, and returns its item
	}
	o.release(sl)
}

// see tells the state of every claim the consumers have made so far:
// each sets its slot's bit in claims. A claim comes after the requests
// put before it (slot.after): the state applies a request it receives
// later but that came before the claim as if before (state.Queue), so
// the order in which claims are seen does not matter.
func (o *offers[T]) see(q *state.Queue[T]) {
	if o == nil {
		return
	}
	for w := range (len(o.all) + 63) / 64 {
		if o.l.claims[w].Load() == 0 {
			continue
		}
		for x := o.l.claims[w].Swap(0); x != 0; x &= x - 1 {
			sl := o.all[w*64+bits.TrailingZeros64(x)]
			o.sent[sl.num-o.base] = nil
			q.Received(sl.item, sl.place, sl.at, sl.after)
			o.release(sl)
		}
	}
	o.dropSeen()
}

// claimed reports whether a consumer claimed item's slot and the state has
// not heard of it yet.
func (o *offers[T]) claimed(item T) bool {
	if o == nil {
		return false
	}
	for _, sl := range o.sent {
		if sl != nil && sl.item == item && sl.state.Load() == slotClaimed {
			return true
		}
	}
	return false
}

// dropSeen drops the seen slots at the front of sent, keeping its array.
func (o *offers[T]) dropSeen() {
	k := 0
	for k < len(o.sent) && o.sent[k] == nil {
		k++
	}
	if k == 0 {
		return
	}
	n := copy(o.sent, o.sent[k:])
	clear(o.sent[n:])
	o.sent = o.sent[:n]
	o.base += uint64(k)
}

// release makes sl free for another offer.
func (o *offers[T]) release(sl *slot[T]) {
	*sl = slot[T]{idx: sl.idx}
	o.free = append(o.free, sl)
}

// close turns the lane off for good: it takes back what is offered. Gets
// ask the owner from then on.
func (o *offers[T]) close(q *state.Queue[T], f *filter[T], now int64) {
	if o == nil || o.shut {
		return
	}
	o.l.off.Store(true)
	o.takeBack(q, f, now)
	o.shut = true
}
