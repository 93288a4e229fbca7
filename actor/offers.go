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
// holds the state (the lane is off by then). It holds, from install, the
// state it offers from, the filter, and the gate (gate.go). Every method
// the owner calls (ARCHITECTURE.md lists them) does nothing on a nil
// offers, for a queue without the lane.
type offers[T comparable] struct {
	l     *lane[T]
	q     *state.Queue[T]
	f     *filter[T] // or nil
	top   *topPrio
	c     *shared[T]
	fair  bool // fairness: offer fairPerGet items per consumer asking
	atAdd bool // RequeueAtAdd

	all     []*slot[T] // every slot made, by index
	free    []*slot[T]
	unseen  []*slot[T] // offered, oldest first, not yet seen claimed or taken back (nil: seen)
	base    uint64     // the number of the slot at unseen[0]: slots are numbered as offered, unseen[i] is base+i
	last    order.Place
	changes uint64 // with fairness: the state's Changes as of the last offer
	wanted  bool   // a Get found the lane empty: keep it filled
	asking  int    // with fairness: the most Gets seen under way at once (asked)
	gets    int    // the Gets and GetBatches of the inbox batch so far
}

// fairPerGet is how many items the lane offers, with fairness, for each
// Get seen under way at once: enough that consumers seldom find it empty,
// few enough that a key joining the turns, which takes the lane back,
// costs little (the more offered, the more claims can race out of order).
const fairPerGet = 4

// newOffers makes the lane of o's queue, configured by cfg, and the gate.
func newOffers[T comparable](cfg Config[T], o *owner[T]) *offers[T] {
	return &offers[T]{
		l: &lane[T]{phase: &o.c.phase}, q: o.q, f: o.c.filter, top: &topPrio{}, c: o.c,
		fair: cfg.Fairness != nil, atAdd: cfg.Requeue == RequeueAtAdd,
	}
}

// prepare readies the lane for r, which the owner is about to apply: if r
// is the first of an inbox batch, the state hears of the claims made
// before it was put (every request of a batch was put before the batch
// was taken); an add raises top to its priority (a delayed one's too: a
// deadline passing is no request a Get waits behind), and takes the lane
// back if that is above what it offers (or one of the items it offers is
// the item added, raised).
func (o *offers[T]) prepare(first bool, r *request[T]) {
	if o == nil {
		return
	}
	if first {
		o.see()
		o.gets = 0
	}
	var p int
	switch r.op {
	case opGet:
		o.gets++
		return
	case opAdd, opRetry, opAddAt:
		p = int(r.prio)
	case opAddList:
		p = r.list.prio
	default:
		return
	}
	o.top.raise(p)
	if len(o.unseen) > 0 && p > o.last.Prio {
		o.takeBack()
	}
}

// asked is the event of a call w that asks the owner for items, waiting
// being the number of calls then waiting. A Get gives back the slot it
// received and could not claim (revoked, or below top), if any. A Get
// (one item) keeps the lane filled from now on, a GetBatch stops it,
// since it has no use for it. A caller of a Get or GetBatch is blocked
// until its call is answered, so calls waiting together, or put in one
// inbox batch (each answered after the batch was taken), have as many
// callers: that many consumers contend.
func (o *offers[T]) asked(w *waiter[T], waiting int) {
	if o == nil {
		return
	}
	if sl := w.slot; sl != nil {
		w.slot = nil
		if sl.unclaimed() {
			o.takeBack() // revokes sl, and returns its item
		}
		o.release(sl)
	}
	o.wanted = w.get
	if o.fair && w.get {
		o.asking = max(o.asking, waiting, o.gets)
	}
}

// fill offers ready items until the lane holds its limit, once a Get has
// found it empty; first it sees the claims and keeps what it offers in
// order.
func (o *offers[T]) fill() {
	if o == nil {
		return
	}
	if o.l.closed() {
		o.takeBack()
		return
	}
	o.see()
	o.keepOrder()
	if !o.wanted || o.atAdd && (o.q.Dirty() > 0 || o.q.Delayed() > 0) || o.fair && o.asking < 2 {
		// With RequeueAtAdd, an item added again while processing, or
		// delayed, keeps a place that may come before what the lane would
		// offer (at its Done, or at an Add that cuts its delay short).
		// With fairness, a claim that comes before the owner applied its
		// caller's own calls would take its turn before theirs: the lane
		// offers only to consumers that contend. Meanwhile Gets ask the
		// owner.
		return
	}
	limit := laneSize
	if o.fair {
		limit = min(o.asking*fairPerGet, laneSize)
	}
	n, now := len(o.unseen), o.c.stamp(popInstant, 0)
	for room := limit - o.l.len(); room > 0 && (len(o.free) > 0 || len(o.all) < maxSlots); room-- {
		item, p, ok := o.q.Pop(now)
		if !ok {
			break
		}
		if !o.top.claimable(p.Prio) && !o.lower(p.Prio) {
			o.q.Return(item, p, now) // below an add that may be on its way: Gets ask the owner
			break
		}
		// A free slot is offered (taken is false) from its release.
		var sl *slot[T]
		if k := len(o.free); k > 0 {
			sl, o.free = o.free[k-1], o.free[:k-1]
		} else {
			sl = &slot[T]{idx: len(o.all)}
			o.all = append(o.all, sl)
		}
		sl.item, sl.place, sl.num = item, p, o.base+uint64(len(o.unseen))
		if e := o.f.offered(item, p.Prio); e != nil {
			sl.hot.Store(e) // a released slot carries none
		}
		o.unseen = append(o.unseen, sl)
		o.last, o.changes = p, o.q.Changes()
	}
	o.l.put(o.unseen[n:])
}

// keepOrder takes the lane back if what it offers might no longer come
// first: an item became ready at a higher priority than the last one
// offered or ahead of it in its priority, or, with fairness, the state's
// count of items that may go before popped ones changed (a key joined the
// turns, or an item took a place before items of its key). It leaves the
// gate alone: the gate guards adds on their way, and each raised it
// (prepare).
func (o *offers[T]) keepOrder() {
	if len(o.unseen) == 0 {
		return
	}
	if p, ok := o.q.TopPrio(); ok && p > o.last.Prio {
		o.takeBack()
		return
	}
	if o.fair {
		if o.q.Changes() != o.changes {
			o.takeBack() // a key that joined may go before
		}
		return
	}
	if h, ok := o.q.Head(o.c.stamp(popInstant, 0)); ok && h.Prio == o.last.Prio && h.Seq < o.last.Seq {
		o.takeBack()
	}
}

// lower lowers top to p, the priority of the next item, if nothing the
// owner cannot see may be above it: a request in the inbox, an item added
// again while processing or delayed (whose priorities it does not track),
// or a slot above p that a consumer may still give back.
func (o *offers[T]) lower(p int) bool {
	if o.q.Dirty() > 0 || o.q.Delayed() > 0 || !o.c.inbox.quiet() {
		return false
	}
	for _, sl := range o.unseen {
		if sl != nil && sl.place.Prio > p && sl.unclaimed() {
			return false
		}
	}
	return o.top.lower(p, o.c.inbox.quiet)
}

// takeBack revokes every slot not claimed and returns its item to the
// state, newest first, which undoes their pops, and takes back the slots
// still in the ring. A slot claimed before its revoke stays in unseen
// until see finds its claim: see, once more, drops the slots done with.
func (o *offers[T]) takeBack() {
	if o == nil || len(o.unseen) == 0 {
		return
	}
	o.see()
	now := o.c.stamp(popInstant, 0)
	for i := len(o.unseen) - 1; i >= 0; i-- {
		if sl := o.unseen[i]; sl != nil && sl.revoke() {
			o.unseen[i] = nil
			o.q.Return(sl.item, sl.place, now)
			o.f.sync(sl.item)
		}
	}
	o.see()
	o.l.empty(o.release) // revoked, and no consumer has them
}

// handOver hands out the oldest item the lane offers, if it is still in
// order (keepOrder), for a Get that asked the owner, at the instant at
// and as the event seq; ok is false if the lane offers none. The owner
// takes its slot from the ring and claims it, as a consumer would, and
// the state hears of the claim at once.
func (o *offers[T]) handOver(at int64, seq uint64) (item T, p order.Place, ok bool) {
	if o == nil {
		return item, p, false
	}
	o.keepOrder()
	for sl := o.l.receive(); sl != nil; sl = o.l.receive() {
		item, p = sl.item, sl.place
		if o.l.claim(sl, at, seq) {
			o.see() // this claim, and those made before it
			return item, p, true
		}
		o.release(sl) // revoked: its item went back already
	}
	var zero T
	return zero, order.Place{}, false
}

// see tells the state of every claim the takers have made so far, and
// drops the slots done with (seen, or revoked) from the front of unseen,
// keeping its array. A claim comes after the requests put before it
// (slot.after): the state applies a request it receives later but that
// came before the claim as if before (state.Queue), so the order in which
// claims are seen does not matter.
func (o *offers[T]) see() {
	if o == nil {
		return
	}
	for w := range (len(o.all) + 63) / 64 {
		for x := o.l.takeClaims(w); x != 0; x &= x - 1 {
			sl := o.all[w*64+bits.TrailingZeros64(x)]
			o.unseen[sl.num-o.base] = nil
			o.q.Received(sl.item, sl.place, sl.at, sl.after)
			o.release(sl)
		}
	}
	k := 0
	for k < len(o.unseen) && o.unseen[k] == nil {
		k++
	}
	if k > 0 {
		n := copy(o.unseen, o.unseen[k:])
		clear(o.unseen[n:])
		o.unseen = o.unseen[:n]
		o.base += uint64(k)
	}
}

// slotOf returns the slot that offers item, popped, or nil.
func (o *offers[T]) slotOf(item T) *slot[T] {
	for _, sl := range o.unseen {
		if sl != nil && sl.item == item {
			return sl
		}
	}
	return nil
}

// claimOf reports whether item, popped, has been claimed, and whether
// that claim cleared the flags of e; if it has, the state hears of the
// claims made so far (see).
func (o *offers[T]) claimOf(item T, e *hotEntry[T]) (claimed, cleared bool) {
	if o == nil {
		return false, false
	}
	sl := o.slotOf(item) // in unseen: offered or claimed, never revoked
	if sl == nil || sl.unclaimed() {
		return false, false
	}
	cleared = sl.cleared == e // written before the claim
	o.see()
	return true, cleared
}

// entered follows an entry e that the filter made for item, or nil: if
// item is popped, its slot carries e from now on, for the claim to clear.
func (o *offers[T]) entered(item T, e *hotEntry[T]) {
	if o == nil || e == nil || o.q.Status(item) != state.Popped {
		return
	}
	if sl := o.slotOf(item); sl != nil {
		sl.hot.Store(e)
	}
}

// release makes sl free for another offer.
func (o *offers[T]) release(sl *slot[T]) {
	*sl = slot[T]{idx: sl.idx}
	o.free = append(o.free, sl)
}
