package actor

import (
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/order"
	"github.com/actorq/actorq/actor/internal/state"
)

// The lane lets Get take a ready item without a round trip to the owner
// goroutine. The owner pops ready items from the state, in hand-out
// order, into slots that it puts in a ring; a Get receives one and claims
// it, or, if the lane is empty or off or its claim fails, asks the owner
// as it would without the lane. This file is the whole protocol, and one
// type: the ring, the slots, the claim bits, the priority gate, and the
// owner's side (what it offers, and when it takes it back). It is longer
// than 400 lines because it is one protocol; no other file reads or
// writes a slot's fields.
//
// A slot's state is one word:
//
//	          claim (consumer, CAS)
//	offered ─────────────────────────► claimed ──┐ see (owner): the state hears
//	  ▲  │                                       │ of the claim, and the slot
//	  │  │ revoke (owner, CAS)                   │ is released
//	  │  └─────────────────────────────► revoked ┤ the owner has it back (from
//	  │                                          │ the ring, or from a Get that
//	  └──────────── release (owner) ◄────────────┘ gives it back), and releases it
//
// The owner fills a released slot and puts it in the ring; a consumer
// receives it (moving the ring's head) and claims it with a
// compare-and-swap from offered to claimed, then sets its claim bit; the
// owner revokes a slot with a compare-and-swap from offered to revoked,
// so exactly one of the two wins. The owner releases a slot (offered
// again, for another offer) once it has seen its claim bit, or once it
// has a revoked slot back. A consumer that may not claim its slot (below
// the gate), or whose claim fails, gives it back in its Get request.
//
// The invariant that keeps the order exact:
//
//	an offered or claimed slot holds an item popped from the state (ready
//	by the rules until the state hears of its claim); a claim notes how
//	many requests were put before it (after), and the state hears of it
//	(Received) after those requests and before the others; a slot not
//	claimed is revoked before its item goes back (state.Return, newest
//	first, which undoes the pops exactly); a consumer claims a slot only
//	at or above the gate's top, which is at least the priority of every
//	ready, dirty or delayed item and of every add not yet applied whose
//	call has returned.
//
// So an Add of an item in the lane is a duplicate, a Done of one does
// nothing, Len counts it, and a claim takes effect where its caller's
// calls put it: after those it made before, before its Done. The owner
// takes the lane back (recall) whenever what it offers might no longer
// come first (keepOrder), and the gate keeps a Get from claiming past an
// item at a higher priority that its caller's own earlier add made ready.
// With fairness the lane offers only to consumers that contend (a claim
// made before the owner applied its caller's add would take its key's
// turn before that add's), a few items per consumer asking, so a key that
// joins the turns waits behind those at most.
//
// The ring has one writer, the owner, and many takers:
//
//	head <= tail <= head+laneSize, and ring[i%laneSize] holds the slot
//	offered i-th for every i in [head, tail); the owner writes ring[t]
//	and then moves tail to t+1; a taker reads ring[h%laneSize] and then
//	moves head from h to h+1 with a compare-and-swap, which fails if h is
//	stale, since head only grows. The owner takes the rest back by moving
//	head to tail the same way.
//
// The gate lets a Get claim without waiting for the owner, yet never pass
// over an item that its caller's own earlier add made ready at a higher
// priority. Callers raise top after they send an add, the owner as it
// applies one (before). A consumer below top gives its slot back in a Get
// request, after every request it sent before, and the owner hands it
// what goes first then. A queue whose items are all at one priority never
// finds a slot below top. The owner lowers top, once the lane has nothing
// at top left to offer, to the next item's priority, if nothing it cannot
// see may be above it (lowerTo). Lowering must not lose an add on its
// way, whose raise found top high enough and did nothing: the owner marks
// top, looks at the inbox, and only then swaps the lower value in with a
// compare-and-swap that fails if a raise saw the mark and cleared it. The
// atomics are sequentially consistent, so an add is in the inbox when the
// owner looks, or its raise sees the mark, or it comes after the lowering
// and raises top itself. The word holds the priority shifted left by one,
// and the mark in bit 0; priorities beyond ±2^62 are stored rounded up,
// which only makes top higher: safe.
type lane[T comparable] struct {
	// Shared by consumers and the owner.
	head   atomic.Uint64 // the next index to take
	_      [56]byte      // head and tail on cache lines of their own
	tail   atomic.Uint64 // the next index the owner writes
	_      [56]byte
	ring   [laneSize]atomic.Pointer[slot[T]]
	claims [maxSlots / 64]atomic.Uint64 // a bit per slot index: claimed, and not yet seen
	_      [56]byte
	top    atomic.Int64   // the gate (see above)
	phase  *atomic.Uint32 // the queue's lifecycle word: the lane is off once laneOffBits are set
	_      [48]byte

	// The owner's (and, after it ended, the caller's that holds the
	// state; the lane is off by then), from newLane.
	q      *state.Queue[T]
	filter *filter[T] // or nil
	inbox  *inbox[T]
	clock  *stamps
	fair   bool // fairness: offer fairPerGet items per consumer asking
	atAdd  bool // RequeueAtAdd

	all     []*slot[T] // every slot made, by index
	free    []*slot[T] // released, offered to nobody
	unseen  []*slot[T] // offered, oldest first, not yet seen claimed or taken back (nil: seen)
	base    uint64     // the number of the slot at unseen[0]: slots are numbered as offered, unseen[i] is base+i
	last    order.Place
	changes uint64 // with fairness: the state's Changes as of the last offer
	wanted  bool   // a Get found the lane empty: keep it filled
	asking  int    // with fairness: the most Gets seen under way at once (asked)
	gets    int    // the Gets and GetBatches of the inbox batch so far
}

// laneSize is the ring's size: the most items the owner keeps offered.
// maxSlots bounds the slots it makes: those in the ring, and those that
// consumers took and have not claimed or given back. fairPerGet is how
// many items the lane offers, with fairness, for each Get seen under way
// at once: enough that consumers seldom find it empty, few enough that a
// key joining the turns, which takes the lane back, costs little (the
// more offered, the more claims can race out of order).
const (
	laneSize   = 256
	maxSlots   = 1024
	fairPerGet = 4
)

// slot carries one item through the lane.
type slot[T comparable] struct {
	item  T           // the owner's, written before it offers the slot
	place order.Place // the owner's, likewise
	state atomic.Uint32

	// The item's filter entry, whose flags a claim clears, or nil: the
	// owner sets it as it offers the slot, and again if it gives the
	// popped item an entry (carry).
	entry atomic.Pointer[entry[T]]

	// The claimer's, written before its claim.
	at      int64     // the instant of its claim (receiveInstant)
	after   uint64    // the requests put before its claim (inbox.puts): it comes after them
	cleared *entry[T] // the entry whose flags it cleared

	idx int    // its index in lane.all; never changes
	num uint64 // the owner's: its number in the lane, as offered
}

// The states of a slot.
const (
	slotOffered uint32 = iota // from its release: in the ring, or with a consumer
	slotClaimed               // a consumer's claim won
	slotRevoked               // the owner's revoke won
)

// newLane makes the lane of the queue configured by cfg, whose state is
// q, filter f (or nil), inbox in, clock c and lifecycle word phase.
func newLane[T comparable](cfg Config[T], q *state.Queue[T], f *filter[T], in *inbox[T], c *stamps, phase *atomic.Uint32) *lane[T] {
	return &lane[T]{
		phase: phase, q: q, filter: f, inbox: in, clock: c,
		fair: cfg.Fairness != nil, atAdd: cfg.Requeue == RequeueAtAdd,
	}
}

// The consumers' side: receive, then claim. Any goroutine.

// receive takes a slot from the ring, or returns nil if there is none or
// the lane is off. It never waits. l may be nil.
func (l *lane[T]) receive() *slot[T] {
	if l == nil || l.off() {
		return nil
	}
	for {
		h := l.head.Load()
		if h == l.tail.Load() {
			return nil
		}
		sl := l.ring[h%laneSize].Load()
		if l.head.CompareAndSwap(h, h+1) {
			return sl
		}
	}
}

// claim claims sl, which its caller received, at the instant at and after
// the first after requests, and returns its item and priority; ok is
// false if sl is below the gate's top, or the owner revoked it first:
// then the caller gives sl back (back) in a request to the owner.
func (l *lane[T]) claim(sl *slot[T], at int64, after uint64) (item T, prio int, ok bool) {
	item, prio = sl.item, sl.place.Prio // read before the claim: the owner reuses the slot once it has seen it
	if !l.claimable(prio) || !l.seize(sl, at, after) {
		var zero T
		return zero, 0, false
	}
	return item, prio, true
}

// seize claims sl, at the instant at and after the first after requests,
// unless the owner revoked it first, and reports whether it did. A
// consumer's claim and the owner's hand-over both seize.
func (l *lane[T]) seize(sl *slot[T], at int64, after uint64) bool {
	sl.at, sl.after, sl.cleared = at, after, sl.entry.Load()
	sl.cleared.clear() // before the item is processing (filter.go)
	if !sl.state.CompareAndSwap(slotOffered, slotClaimed) {
		return false
	}
	l.claims[sl.idx/64].Or(1 << (sl.idx % 64))
	return true
}

// back returns how a Get gives sl back to the owner (waiter.back): 1 + its
// index, or 0 for no slot.
func (sl *slot[T]) back() int {
	if sl == nil {
		return 0
	}
	return sl.idx + 1
}

// raise makes top at least p, and clears a lowering's mark. Any goroutine
// may call it, after it sent an add; l may be nil.
func (l *lane[T]) raise(p int) {
	for l != nil {
		w := l.top.Load()
		if w&1 == 0 && topOf(w) >= int64(p) {
			return
		}
		if l.top.CompareAndSwap(w, max(w&^1, topWord(p))) {
			return
		}
	}
}

// claimable reports whether a consumer may claim a slot at priority p.
func (l *lane[T]) claimable(p int) bool { return int64(p) >= topOf(l.top.Load()) }

// off reports whether the lane is off for good (laneOffBits): Gets ask the
// owner, which takes back what the lane offers.
func (l *lane[T]) off() bool { return l.phase.Load()&laneOffBits != 0 }

const (
	topMax = 1<<62 - 1 // stands for every priority from here up
	topMin = -1 << 62
)

// topWord returns the gate's word for top p, without the mark.
func topWord(p int) int64 { return int64(min(max(p, topMin), topMax)) << 1 }

// topOf returns the top priority a gate's word stands for.
func topOf(w int64) int64 {
	if v := w >> 1; v != topMax {
		return v
	}
	return math.MaxInt64
}

// The owner's side. It calls the lane at five points (before, asked, fill,
// recall, see), each of which does nothing on a nil lane, for a queue
// without one; the filter asks it carry and claimOf.

// before readies the lane for r, the request the owner is about to apply:
// if r is the first of an inbox batch, the state hears of the claims made
// before it was put (every request of a batch was put before the batch
// was taken); an add raises top to its priority (a delayed one's too: a
// deadline passing is no request a Get waits behind), and takes the lane
// back if that is above what it offers (or one of the items it offers is
// the item added, raised).
func (l *lane[T]) before(r *request[T]) {
	if l == nil {
		return
	}
	if r.first {
		l.see()
		l.gets = 0
	}
	var p int
	switch r.op {
	case opGet:
		if l.fair {
			l.gets++
		}
		return
	case opAdd, opRetry, opAddAt:
		p = int(r.prio)
	case opAddList:
		p = r.list.prio
	default:
		return
	}
	l.raise(p)
	if len(l.unseen) > 0 && p > l.last.Prio {
		l.recall()
	}
}

// asked follows r, a Get or GetBatch that asks the owner, waiting being
// the number of calls waiting before it. A Get gives back the slot it
// received and could not claim, if any. A Get (one item) keeps the lane
// filled from now on, a GetBatch stops it, since it has no use for it. A
// caller of a Get or GetBatch is blocked until its call is answered, so
// calls waiting together, or put in one inbox batch (each answered after
// the batch was taken), have as many callers: that many consumers
// contend.
//
// A Get that no call waits before takes the oldest item the lane offers,
// if the lane is still in order (keepOrder): asked returns it, handed out
// at r's instant and place, and ok true. Otherwise the lane is taken back,
// since what it offers goes first to the calls waiting.
func (l *lane[T]) asked(r *request[T], waiting int) (item T, prio int, ok bool) {
	if l == nil {
		return item, 0, false
	}
	w := r.w
	if w.back > 0 {
		sl := l.all[w.back-1]
		if sl.state.Load() == slotOffered {
			l.recall() // revokes sl, and returns its item
		}
		l.release(sl)
	}
	l.wanted = w.get
	if l.fair && w.get {
		l.asking = max(l.asking, waiting+1, l.gets)
	}
	if w.get && waiting == 0 && len(l.unseen) > 0 {
		l.keepOrder()
		at := l.clock.stamp(handOutInstant, r.at)
		for sl := l.receive(); sl != nil; sl = l.receive() {
			item, p := sl.item, sl.place
			if l.seize(sl, at, r.seq) {
				l.see() // this claim, and those made before it
				return item, p.Prio, true
			}
			l.release(sl) // revoked: its item went back already
		}
	}
	l.recall()
	return item, 0, false
}

// fill offers ready items until the lane holds its limit, once a Get has
// found it empty; first it sees the claims and keeps what it offers in
// order. Once the lane is off, it takes back what the lane offers.
func (l *lane[T]) fill() {
	if l == nil {
		return
	}
	if l.off() {
		l.recall()
		return
	}
	l.see()
	l.keepOrder()
	limit := l.limit()
	if limit == 0 {
		return
	}
	n, now := len(l.unseen), l.clock.stamp(popInstant, 0)
	for room := limit - l.len(); room > 0 && (len(l.free) > 0 || len(l.all) < maxSlots); room-- {
		item, p, ok := l.q.Pop(now)
		if !ok {
			break
		}
		if !l.claimable(p.Prio) && !l.lowerTo(p.Prio) {
			l.q.Return(item, p, now) // below an add that may be on its way: Gets ask the owner
			break
		}
		var sl *slot[T] // a released one, or a new one
		if k := len(l.free); k > 0 {
			sl, l.free = l.free[k-1], l.free[:k-1]
		} else {
			sl = &slot[T]{idx: len(l.all)}
			l.all = append(l.all, sl)
		}
		sl.item, sl.place, sl.num = item, p, l.base+uint64(len(l.unseen))
		if e := l.filter.offered(item, p.Prio); e != nil {
			sl.entry.Store(e) // a released slot carries none
		}
		l.unseen = append(l.unseen, sl)
		l.last, l.changes = p, l.q.Changes()
	}
	l.put(l.unseen[n:])
}

// limit returns how many items the lane may hold now: none until a Get
// has found it empty (wanted). With RequeueAtAdd, none while an item
// added again while processing, or delayed, keeps a place that may come
// before what the lane would offer (at its Done, or at an Add that cuts
// its delay short). With fairness, none until consumers contend (a claim
// that comes before the owner applied its caller's own calls would take
// its turn before theirs), then fairPerGet per consumer. Meanwhile Gets
// ask the owner.
func (l *lane[T]) limit() int {
	switch {
	case !l.wanted, l.atAdd && (l.q.Dirty() > 0 || l.q.Delayed() > 0), l.fair && l.asking < 2:
		return 0
	case l.fair:
		return min(l.asking*fairPerGet, laneSize)
	}
	return laneSize
}

// keepOrder takes the lane back if what it offers might no longer come
// first: an item became ready at a higher priority than the last one
// offered or ahead of it in its priority, or, with fairness, the state's
// count of items that may go before popped ones changed (a key joined the
// turns, or an item took a place before items of its key). It leaves the
// gate alone: the gate guards adds on their way, and each raised it
// (before).
func (l *lane[T]) keepOrder() {
	if len(l.unseen) == 0 {
		return
	}
	if p, ok := l.q.TopPrio(); ok && p > l.last.Prio {
		l.recall()
		return
	}
	if l.fair {
		if l.q.Changes() != l.changes {
			l.recall() // a key that joined may go before
		}
		return
	}
	if h, ok := l.q.Head(l.clock.stamp(popInstant, 0)); ok && h.Prio == l.last.Prio && h.Seq < l.last.Seq {
		l.recall()
	}
}

// lowerTo lowers top to p, the priority of the next item, if nothing the
// owner cannot see may be above it: a request in the inbox, an item added
// again while processing or delayed (whose priorities it does not track),
// or a slot above p that a consumer may still give back. It reports
// whether it did.
func (l *lane[T]) lowerTo(p int) bool {
	if l.q.Dirty() > 0 || l.q.Delayed() > 0 || !l.inbox.quiet() {
		return false
	}
	for _, sl := range l.unseen {
		if sl != nil && sl.place.Prio > p && sl.state.Load() == slotOffered {
			return false
		}
	}
	return l.lower(p, l.inbox.quiet)
}

// lower lowers top to p if it is higher, unless quiet, called once top is
// marked, reports that the inbox holds something the owner has not
// applied, or a caller's raise cleared the mark. It reports whether it
// did.
func (l *lane[T]) lower(p int, quiet func() bool) bool {
	w, nw := l.top.Load(), topWord(p)
	if nw >= w || !l.top.CompareAndSwap(w, w|1) {
		return false
	}
	if quiet() && l.top.CompareAndSwap(w|1, nw) {
		return true
	}
	l.top.CompareAndSwap(w|1, w) // fails only if a raise cleared the mark
	return false
}

// recall revokes every slot not claimed and returns its item to the
// state, newest first, which undoes their pops, and takes back the slots
// still in the ring. A slot claimed before its revoke stays in unseen
// until see finds its claim: see, once more, drops the slots done with.
func (l *lane[T]) recall() {
	if l == nil || len(l.unseen) == 0 {
		return
	}
	l.see()
	now := l.clock.stamp(popInstant, 0)
	for i := len(l.unseen) - 1; i >= 0; i-- {
		if sl := l.unseen[i]; sl != nil && sl.state.CompareAndSwap(slotOffered, slotRevoked) {
			l.unseen[i] = nil
			l.q.Return(sl.item, sl.place, now)
		}
	}
	l.see()
	l.empty(l.release) // revoked, and no consumer has them
}

// see tells the state of every claim the takers have made so far, and
// drops the slots done with (seen, or revoked) from the front of unseen,
// keeping its array. A claim comes after the requests put before it
// (slot.after): the state applies a request it receives later but that
// came before the claim as if before (state.Queue), so the order in which
// claims are seen does not matter.
func (l *lane[T]) see() {
	if l == nil || len(l.unseen) == 0 {
		return // every slot claimed and not yet seen is in unseen
	}
	for w := range (len(l.all) + 63) / 64 {
		if l.claims[w].Load() == 0 {
			continue
		}
		for x := l.claims[w].Swap(0); x != 0; x &= x - 1 {
			sl := l.all[w*64+bits.TrailingZeros64(x)]
			l.unseen[sl.num-l.base] = nil
			l.q.Received(sl.item, sl.place, sl.at, sl.after)
			l.release(sl)
		}
	}
	k := 0
	for k < len(l.unseen) && l.unseen[k] == nil {
		k++
	}
	if k > 0 {
		n := copy(l.unseen, l.unseen[k:])
		clear(l.unseen[n:])
		l.unseen = l.unseen[:n]
		l.base += uint64(k)
	}
}

// carry makes the slot of item, popped, carry e from now on, for the
// claim to clear (filter.added): an entry made for item since it was
// offered.
func (l *lane[T]) carry(item T, e *entry[T]) {
	if sl := l.slotOf(item); sl != nil {
		sl.entry.Store(e)
	}
}

// claimOf reports whether item, popped, has been claimed, and whether
// that claim cleared the flags of e; if it has, the state hears of the
// claims made so far (see). The filter asks it (filter.added).
func (l *lane[T]) claimOf(item T, e *entry[T]) (claimed, cleared bool) {
	sl := l.slotOf(item) // offered or claimed, never revoked
	if sl == nil || sl.state.Load() == slotOffered {
		return false, false
	}
	cleared = sl.cleared == e // written before the claim
	l.see()
	return true, cleared
}

// slotOf returns the slot that offers item, popped, or nil.
func (l *lane[T]) slotOf(item T) *slot[T] {
	for _, sl := range l.unseen {
		if sl != nil && sl.item == item {
			return sl
		}
	}
	return nil
}

// release makes sl free for another offer: offered, to nobody yet.
func (l *lane[T]) release(sl *slot[T]) {
	*sl = slot[T]{idx: sl.idx}
	l.free = append(l.free, sl)
}

// put offers sls at the tail of the ring, which must have room for them,
// and moves the tail once.
func (l *lane[T]) put(sls []*slot[T]) {
	if len(sls) == 0 {
		return
	}
	t := l.tail.Load()
	for i, sl := range sls {
		l.ring[(t+uint64(i))%laneSize].Store(sl)
	}
	l.tail.Store(t + uint64(len(sls)))
}

// len returns how many slots the ring holds.
func (l *lane[T]) len() int { return int(l.tail.Load() - l.head.Load()) }

// empty takes every slot left in the ring and calls f with each.
func (l *lane[T]) empty(f func(*slot[T])) {
	for {
		h, t := l.head.Load(), l.tail.Load()
		if h == t {
			return
		}
		if l.head.CompareAndSwap(h, t) {
			for i := h; i < t; i++ {
				f(l.ring[i%laneSize].Load())
			}
			return
		}
	}
}
