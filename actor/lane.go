package actor

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/order"
)

// The lane lets Get take a ready item without a round trip to the owner
// goroutine. The owner pops ready items from the state, in hand-out order,
// into slots that it sends on a buffered channel; a consumer that receives
// a slot claims it with one compare-and-swap. Its invariant:
//
//	a slot in the lane holds an item popped from the state (ready by the
//	rules until a consumer receives it), and before the owner applies a
//	request it has told the state of every claim of a slot that a
//	consumer received before the request was sent (state.Received); a
//	slot not claimed is revoked before its item is returned
//	(state.Return, newest first, which undoes the pops).
//
// So an Add of an item in the lane is a duplicate, a Done of one does
// nothing, Len counts it, and a claim that happened before a request
// (a consumer's own Done, or an Add made after a consumer said it got
// the item) is seen before it: the owner looks at the slots consumers
// have received, before each request (see). It takes the whole lane back
// whenever what it offers might no longer come first: before it serves a
// waiting call, when a consumer gives back a slot, when an item became
// ready ahead of the last one offered, or when an add raised an item the
// lane offers (state.Retake). With RequeueAtAdd it offers one item at a
// time while an item added again while processing waits for its Done,
// whose place may come before; with priorities, the gate (gate.go) keeps
// a Get from passing over its own earlier add. The owner fills the lane
// once a Get has found it empty, and not for GetBatch calls. It is off
// for good, and its channel closed, once Items is called or shutdown
// begins, and from the start with a starvation bound, fairness, a custom
// Storage, or metrics by priority (controller-runtime's): then Get asks
// the owner. (With fairness, a key that an add makes join the turns goes
// before the turns of items offered ahead, which a Get of the adding
// caller could otherwise claim first. controller-runtime records a
// hand-out in its metrics before Get returns, and its own tests read them
// then; the owner learns of a claim only as it next runs.) With
// client-go's metrics, a claim reads the clock and wakes the owner, which
// records the hand-out at that instant as soon as it runs (difference 7
// of the package doc).
//
// Figure: it turns Get's round trip into a channel receive and a
// compare-and-swap (bench/RESULTS.md, "Fast paths").
type lane[T comparable] struct {
	ch      chan *slot[T]
	top     topPrio
	claims  [maxSlots / 64]atomic.Uint64 // a bit per slot index: claimed, and not yet seen
	off     atomic.Bool                  // Items was called: Get asks the owner
	want    atomic.Bool                  // a Get found the lane empty
	blocked atomic.Int32                 // Gets waiting on the lane's channel
	limit   int                          // how many items the owner keeps offered
	atAdd   bool                         // RequeueAtAdd
	stamp   bool                         // with metrics: a claim reads the clock, and wakes the owner to record it

	// The owner's alone.
	closed    bool
	wanted    bool
	all       []*slot[T] // every slot made, by index
	free      []*slot[T]
	sent      []*slot[T]  // offered, oldest first, not yet seen claimed or taken back (nil: seen out of order)
	seen      []*slot[T]  // see's scratch: the claims it found
	base      uint64      // the number of the slot at sent[0]: slots are numbered as offered
	sends     uint64      // the number of slots offered so far
	last      order.Place // the place of the item offered last, while sent is not empty
	seenBatch uint64      // the inbox batch whose requests the claims were last seen for
	floor     int         // top is at least floor
}

// laneSize is how many ready items the owner keeps offered in the lane;
// maxSlots bounds the slots it makes (those in the lane, and those that
// consumers received and have not claimed or given back).
const (
	laneSize = 256
	maxSlots = 1024
)

const (
	slotOffered uint32 = iota
	slotClaimed
	slotRevoked // taken back: no one may claim it
)

// slot carries one item through the lane. The owner writes it before
// sending it; the consumer that receives it reads it, writes at, and
// claims it; the owner reuses it once it has seen the claim, or received
// the slot back (from its own channel, or from a consumer that gave it
// back).
type slot[T comparable] struct {
	item  T
	place order.Place
	at    int64        // with metrics: the consumer's clock reading at its claim
	token bool         // the consumer must give it back (see fill)
	hot   *hotEntry[T] // the item's filter entry, whose flag the consumer clears as it claims
	readd bool         // owner only: add the item again as the claim is seen (addedWhilePopped)
	idx   int          // its index in lane.all and lane.claims; never changes
	num   uint64       // owner only: its number in the lane, as offered
	state atomic.Uint32
}

func newLane[T comparable](cfg Config[T], stamp bool) *lane[T] {
	l := &lane[T]{limit: laneSize, atAdd: cfg.Requeue == RequeueAtAdd, stamp: stamp}
	l.ch = make(chan *slot[T], l.limit)
	return l
}

// get is Get's way to an item: a slot claimed from the lane (w nil), or
// the answer of the owner to w. canceled is true if cancel was closed
// while it waited on the lane.
func (l *lane[T]) get(c *shared[T], cancel <-chan struct{}) (w *waiter[T], item T, prio int, got, canceled bool) {
	if l == nil || l.off.Load() {
		return c.ask(nil, nil, cancel), item, 0, false, false
	}
	var sl *slot[T]
	select {
	case sl = <-l.ch:
	default:
		l.blocked.Add(1)
		l.want.Store(true)
		c.ring()
		select {
		case sl = <-l.ch:
		case <-cancel:
			l.blocked.Add(-1)
			return nil, item, 0, false, true
		}
		l.blocked.Add(-1)
	}
	if sl == nil { // the lane was turned off
		return c.ask(nil, nil, cancel), item, 0, false, false
	}
	if claimed, p, ok := l.claim(c, sl); ok {
		return nil, claimed, p, true, false
	}
	// Revoked, a token, or below top: give the slot back, and take what the
	// owner hands out once it has applied every request sent before this
	// one. The slot's item is not the caller's: item stays the zero value.
	return c.ask(nil, sl, cancel), item, 0, false, false
}

// claim claims sl, which the consumer received from the lane, and returns
// its item and priority; ok is false, and the item the zero value, if sl
// may not be claimed (a token, or below top) or was revoked first. The
// item is read before the compare-and-swap, since the owner may reuse the
// slot once it sees the claim.
func (l *lane[T]) claim(c *shared[T], sl *slot[T]) (item T, prio int, ok bool) {
	if sl.token || !l.top.claimable(sl.place.Prio) {
		return item, 0, false
	}
	claimed, p := sl.item, sl.place.Prio
	if l.stamp {
		sl.at = c.since()
	}
	if sl.hot != nil { // before the item is processing (filter.go)
		sl.hot.noop.Store(false)
		sl.hot.sent.Store(false) // an Add on its way may be applied before this claim
	}
	if !sl.state.CompareAndSwap(slotOffered, slotClaimed) {
		return item, 0, false
	}
	l.claims[sl.idx/64].Or(1 << (sl.idx % 64)) // for the owner to see (lane.see)
	if l.stamp {
		c.ring() // the owner records the hand-out as soon as it runs
	}
	return claimed, p, true
}

// added raises top after an add of items ready now at priority p was
// sent.
func (l *lane[T]) added(p int) {
	if l != nil {
		l.top.raise(p)
	}
}

// turnOff turns the lane off for good (Items): the owner closes it.
func (l *lane[T]) turnOff() {
	if l != nil {
		l.off.Store(true)
	}
}

// fill offers ready items until the lane holds its limit, once a Get has
// found it empty; and first keeps top and what the lane offers in order.
func (l *lane[T]) fill(o *owner[T]) {
	if l.closed {
		return
	}
	if l.off.Load() {
		l.shut(o)
		return
	}
	q, now := o.q, o.now()
	l.see(o)
	if p, ok := q.TopPrio(); ok {
		l.raise(p)
	}
	l.keepOrder(o, now)
	if l.want.Load() {
		l.want.Store(false)
		l.wanted = true
	}
	if !l.wanted && l.blocked.Load() == 0 {
		return
	}
	for len(l.ch) < l.limit && (len(l.free) > 0 || len(l.all) < maxSlots) {
		next, ok := q.Head(now)
		if !ok {
			return
		}
		// With RequeueAtAdd, an item added again while processing may
		// become ready at its Done ahead of what the lane would offer; and
		// an item below top may have an add above it on its way. Then the
		// lane offers one item at a time, which the consumer gives back:
		// a token that brings it to the owner.
		token := l.atAdd && q.Dirty() > 0 || !l.top.claimable(next.Prio) && !l.lower(o, next.Prio)
		if token && len(l.sent) > 0 {
			return
		}
		item, p, _ := q.Pop(now)
		l.offer(o, item, p, token)
		if token {
			return
		}
	}
}

// offer sends item, popped at place p, in a slot; a token must be given
// back.
func (l *lane[T]) offer(o *owner[T], item T, p order.Place, token bool) {
	var sl *slot[T]
	if n := len(l.free); n > 0 {
		sl, l.free = l.free[n-1], l.free[:n-1]
	} else {
		sl = &slot[T]{idx: len(l.all)}
		l.all = append(l.all, sl)
	}
	sl.item, sl.place, sl.token, sl.num = item, p, token, l.sends
	sl.state.Store(slotOffered)
	l.sent = append(l.sent, sl)
	l.sends++
	l.last = p
	o.filterOffer(item, sl)
	l.ch <- sl
}

// keepOrder takes the lane back if what it offers might no longer come
// first: an item became ready ahead of the last one offered.
func (l *lane[T]) keepOrder(o *owner[T], now int64) {
	if len(l.sent) == 0 {
		return
	}
	if h, ok := o.q.Head(now); ok && (h.Prio > l.last.Prio || h.Prio == l.last.Prio && h.Seq < l.last.Seq) {
		l.takeBack(o)
	}
}

// raise makes top at least p. Owner only.
func (l *lane[T]) raise(p int) {
	if p > l.floor {
		l.top.raise(p)
		l.floor = p
	}
}

// lower lowers top to p, the priority of the next item, if nothing the
// owner cannot see may be above it: a request in the inbox, an item added
// again while processing or delayed (whose priorities it does not track),
// or a slot above p that a consumer may still give back.
func (l *lane[T]) lower(o *owner[T], p int) bool {
	if o.q.Dirty() > 0 || o.q.Delayed() > 0 || o.c.inbox.len() > 0 {
		return false
	}
	for _, sl := range l.sent {
		if sl != nil && sl.place.Prio > p && sl.state.Load() == slotOffered {
			return false
		}
	}
	if !l.top.lower(p, func() bool { return o.c.inbox.len() == 0 }) {
		return false
	}
	l.floor = p
	return true
}

// prepare prepares the lane for r, which the owner is about to apply:
// the claims consumers made before r was sent are seen (once per batch of
// the inbox: every request of a batch was sent before the batch was
// taken), and top rises to the priority of an add (a delayed item's too:
// a deadline passing is no request a Get waits behind).
func (l *lane[T]) prepare(o *owner[T], r request[T]) {
	if b := o.c.inbox.batches(); b != l.seenBatch {
		l.seenBatch = b
		l.see(o)
	}
	switch r.op {
	case opAdd, opRetry, opAddAt:
		l.raise(int(r.prio))
	case opAddList:
		l.raise(r.list.prio)
	}
}

// applied follows an add the owner applied: if it raised an item the lane
// offers, the lane is taken back, so that the item goes to its new place.
func (l *lane[T]) applied(o *owner[T]) {
	if o.q.Retake() {
		l.takeBack(o)
	}
}

// takeBack revokes every slot not claimed and returns its item to the
// state, newest first, which undoes their pops, and takes back the slots
// still in the channel. A claimed slot stays in sent until see finds its
// claim.
func (l *lane[T]) takeBack(o *owner[T]) {
	if l == nil || len(l.sent) == 0 {
		return
	}
	l.see(o)
	now := o.now()
	for i := len(l.sent) - 1; i >= 0; i-- {
		if sl := l.sent[i]; sl != nil && sl.state.CompareAndSwap(slotOffered, slotRevoked) {
			l.sent[i] = nil
			o.q.Return(sl.item, sl.place, now)
			o.filterSync(sl.item)
		}
	}
	l.dropSeen()
	for { // revoked, and no consumer has them
		select {
		case sl, ok := <-l.ch:
			if ok { // closed (shut): nothing left in it
				l.release(sl)
				continue
			}
		default:
		}
		break
	}
}

// giveBack is the event of a consumer giving back sl, which it received
// but could not claim: revoked, or below top.
func (l *lane[T]) giveBack(o *owner[T], sl *slot[T]) {
	if sl.state.Load() == slotOffered {
		l.takeBack(o) // revokes sl, and returns its item
	}
	l.release(sl)
}

// see records every claim the consumers have made so far: each sets its
// slot's bit in claims. With metrics, the state hears of them in the
// order the slots were offered (the hand-out order), whatever their
// indexes, so that the metrics record the hand-outs in that order;
// without, the order is that of the bits, since no rule depends on it (the
// sort cost the pipeline 12%: 437 against 386 ns/item, 6 interleaved
// rounds).
func (l *lane[T]) see(o *owner[T]) {
	seen := l.seen[:0]
	for w := range (len(l.all) + 63) / 64 {
		if l.claims[w].Load() == 0 {
			continue
		}
		for x := l.claims[w].Swap(0); x != 0; x &= x - 1 {
			sl := l.all[w*64+bits.TrailingZeros64(x)]
			l.sent[sl.num-l.base] = nil
			seen = append(seen, sl)
		}
	}
	if len(seen) > 1 && o.metrics { // metrics record hand-outs in offer order
		slices.SortFunc(seen, func(a, b *slot[T]) int { return cmp.Compare(a.num, b.num) })
	}
	for i, sl := range seen {
		l.received(o, sl)
		seen[i] = nil
	}
	l.seen = seen[:0]
	l.dropSeen()
}

// dropSeen drops the seen slots at the front of sent.
func (l *lane[T]) dropSeen() {
	k := 0
	for k < len(l.sent) && l.sent[k] == nil {
		k++
	}
	l.drop(k)
}

// drop drops the first n slots of sent, keeping its array.
func (l *lane[T]) drop(n int) {
	if n == 0 {
		return
	}
	k := copy(l.sent, l.sent[n:])
	clear(l.sent[k:])
	l.sent = l.sent[:k]
	l.base += uint64(n)
}

// received is the event of a consumer's claim of sl, which the owner has
// seen: the state records the hand-out, and the slot is free again.
func (l *lane[T]) received(o *owner[T], sl *slot[T]) {
	o.q.Received(sl.item, sl.place, sl.at)
	if sl.readd {
		o.q.AddSeenLate(sl.item, sl.at)
		o.filterSync(sl.item)
	}
	l.release(sl)
}

// addedWhilePopped follows an Add of item that had set its filter entry's
// sent flag, applied while item was popped, as a duplicate, and whose flag
// the owner has cleared since. If item's slot is claimed already, Adds
// made between the claim and that clear may have found the flag set and
// counted on this Add, which came before the claim: the item is added
// again as the claim is seen (received). A slot claimed after the clear
// needs nothing: Adds after its claim find the flag clear (filter.go).
func (l *lane[T]) addedWhilePopped(item T) {
	for _, sl := range l.sent {
		if sl != nil && sl.item == item && sl.state.Load() == slotClaimed {
			sl.readd = true
		}
	}
}

// release makes sl free for another offer.
func (l *lane[T]) release(sl *slot[T]) {
	var zero T
	sl.item, sl.place, sl.token, sl.hot, sl.at, sl.readd = zero, order.Place{}, false, nil, 0, false
	l.free = append(l.free, sl)
}

// shut turns the lane off for good: it takes back what is offered and
// closes the channel, which sends every consumer waiting on it to the
// owner instead.
func (l *lane[T]) shut(o *owner[T]) {
	if l.closed {
		return
	}
	l.off.Store(true)
	l.takeBack(o)
	l.closed = true
	close(l.ch)
}
