package actor

import (
	"math"
	"sync/atomic"
	"time"
)

// The lane lets Get take a ready item without waiting for the owner
// goroutine. The owner moves ready items, oldest first, into slots that it
// sends on a buffered channel (the lane). A consumer that receives a slot
// claims it with one compare-and-swap, and that is the instant the item
// becomes processing. The owner does not hear of the claim; it reads the
// slot whenever it next needs to know, that is whenever an event concerns
// the item (state.claimedUnseen), when Len is asked, and when shutdown
// begins:
//
//   - offered: the item is still ready, so an Add is a duplicate and a Done
//     is the Done of an item that is not processing (both do nothing);
//   - claimed: the item is processing ("claim seen" from then on), so an
//     Add marks it to run again after Done.
//
// Reading the slot either before or after the consumer's claim gives an
// order of events that the contract allows, so the lane keeps every rule of
// a hand-off through the owner. Slots are reused, so the lane allocates
// nothing per item. The owner takes offered slots back (receiving them
// from its own lane, so no consumer can have them) when it must hand out in
// another way (to a GetBatch), or offer in another order (see Priorities).
//
// The owner fills the lane only once a Get has found it empty (and rung the
// bell), and stops after serving a GetBatch, so that batch consumers do not
// make it move items into the lane and back.
//
// With metrics on, the consumer also reads the queue's clock as it claims
// and rings the bell, and the owner sees claims in lane order on every
// round, so the depth, queue latency and work duration are those of the
// claim, recorded as soon as the owner runs.
//
// Priorities. The lane offers items in the ready order: by priority, and
// first in, first out within one. Everything that becomes ready later at
// the same priority goes behind what it offers. Before it offers an item
// that goes before the last one offered (one raised, or made ready at a
// higher priority, or given back as below), the owner takes the lane back
// and offers again in order; so the items offered between two times the
// lane is taken back are in order. What the lane cannot know is an add of
// a higher priority that is still on its way to the owner: a consumer's
// own Get must never pass over an item that its earlier, one-way add made
// ready. So every add that makes items ready now (all but an AddAfter
// with a delay) raises top (shared.top, a topPrio) once its request is in
// the inbox, the owner raises it before it makes an item ready,
// delayed or dirty above it, and a consumer claims a slot only if its
// priority is at least top. top is thus at least the priority of every
// item the owner knows to be ready, delayed or dirty, and of every such
// add that has returned and that the owner has not applied yet; the owner
// lowers it to the next ready item's priority when nothing offered,
// delayed or dirty is above that and the inbox is empty (topPrio says how
// it does so without losing an add on its way). A consumer that may not
// claim its slot gives it back to the owner in a Get request (giveBack),
// after every request it sent before, and the owner hands it what goes
// first then. Since a slot below top always comes back, the owner offers
// an item below top only while the lane is empty: one at a time, a token
// that brings a consumer to the owner, until it can lower top.
//
// A raise of an offered item would change its place while a consumer may
// be about to claim it, so a claim is a compare-and-swap, and the owner
// revokes the slot with one before it raises the item; if the claim came
// first, the item is processing and the add runs it again after its Done.
// A revoked item goes back to the ready order at once, at the back of its
// new priority; its slot, which a consumer may hold, is freed when it
// comes back (giveBack) or when the owner takes the lane back.
//
// A slot that a consumer has received and not yet claimed or given back is
// out of the owner's sight, and its item may go before everything the
// owner could hand out: so while one is held, waiting calls wait, and the
// owner polls instead of blocking, until it is claimed or comes back
// (held). Those moments are short: a consumer claims or gives back right
// after it receives.
//
// Fairness. Offering an item takes its keys' turns, as handing it out
// would: each key on its path goes to the back of its parent's turns, or
// out of them if nothing else of it is ready. While the lane offers items,
// an item that gives a key a turn it does not have (a key with nothing
// ready, whose items may all be offered) would go behind the turns those
// offers took, where handing out one at a time puts it before them. So
// the order marks, at each level, where the turns that offers still in
// the lane took begin, and such a key joins just before them; and a key
// that an offer emptied lingers, out of the turns, until its item is
// claimed, so that if it comes back meanwhile it takes the turn its offer
// gave it (prioOrder.laneStart, rejoin; the marks skip, lazily, offers
// that consumers claimed since). That is exact while the lane offers
// each key at most one turn between two take-backs; an offer that takes a
// key's second turn while the first is still in the lane (repeat) makes
// the marks unable to say where a joining key goes, so from then until
// the lane is taken back or emptied, before it makes such an item ready,
// the owner takes the lane back (state.enqueue, prioOrder.joinsTurns): it
// receives the offered slots from its own lane and puts their items back
// newest first, each at the front of its keys' turns, which undoes the
// offers exactly; then it adds the item and offers again. Since that
// puts back all the lane offers, the lane offers second turns only while
// it holds fewer than fairLaneSize items (state.fairTurn); first turns
// fill it. A slot that a consumer received but has neither claimed nor
// given back yet may count either way (it is about to be claimed, or
// given back, which takes the lane back). For the same reason, a raise
// of an offered item takes the lane back first, and an item given back
// goes back at the front of its turns after the lane is taken back.
// Within a priority the lane follows turns, not sequence numbers, so only
// a higher priority counts as going before what it offers (goesBefore); an
// item made ready above the lane's last offer takes the lane back as it is
// made ready (state.enqueue), not when the owner next offers, so that a
// Get that its caller makes after the add was applied (after a Len, say)
// cannot receive a slot the take-back misses. (A slot that a consumer
// receives while the owner takes the lane back is missed: given back
// later, its item goes to the front of its keys' turns, which can put its
// key ahead of the key of an offer made before it that the take-back put
// back. Only concurrent Gets can meet that window; the fuzz model found it
// with one consumer when the take-back waited for the next offer.) An item
// that a consumer received is handed out: its turn is taken. Two slots
// that consumers received and give back go back in the order they come,
// which may differ from the order offered (only with priorities, and only
// when two consumers give back at once). Like every hand-out through the
// lane, a Get may receive an item offered before the owner applied an add
// sent earlier by the Get's own caller: at the same priority, such an
// add's key gets its turn after what was offered then (see
// Config.Fairness).
//
// The lane is off for good, and its channel closed, from the start with a
// starvation bound (whose oldest-first hand-out the lane does not follow)
// or RequeueAtAdd (where a Done readies an item at its old place, ahead of
// what is offered); also once Items is called, once shutdown begins, and
// from the start with a custom Storage (which must see each Pop when a
// consumer asks). A consumer that finds it off asks the owner instead (see
// Queue.Get).

// laneSize is how many ready items the owner keeps offered in the lane.
// With fairness, the lane offers a key a second turn (see Fairness) only
// while it holds fewer than fairLaneSize items, since then a key that
// joins the turns takes the lane back, which puts back all it offers.
// When every join took the lane back, a fair lane of 32 ran best in
// PipelineFair of 8, 16, 32, 64 and 256 (16 producers and one consumer:
// 1.2 µs per item at 32, 2.1 µs at 256); with first turns filling the
// lane up to laneSize and second ones up to 32, PipelineFair ran 12%
// faster than with a lane of 32 (A/B, 6 rounds).
const (
	laneSize     = 256
	fairLaneSize = 32
)

const (
	slotOffered uint32 = iota
	slotClaimed
	slotRevoked // the owner raised the item's priority: no one may claim it
)

// slot carries one item through the lane. The owner writes item before
// sending the slot; the one consumer that receives it reads item and then
// stores slotClaimed; the owner reuses the slot only after loading
// slotClaimed, or after receiving the slot back itself.
type slot[T comparable] struct {
	item  T
	place place        // the item's place in the ready order, for GetWithPriority and taking it back
	hot   *hotEntry[T] // the item's filter entry, whose flag the claim clears
	at    time.Time    // with metrics: the consumer's clock reading at its claim
	state atomic.Uint32
	used  bool   // owner only: in the lane, or claimed and not yet seen
	round uint32 // owner only: the lane's round when the slot was offered
	idx   uint32 // owner only: the slot's index
	sent  uint64 // owner only: when it was sent, counted in sends
	gen   uint32 // owner only: counts the slot's trips through the lane
}

// claim is called by the consumer that received sl from the lane. It
// claims sl and returns its item and the item's priority, or reports false
// if the owner revoked sl first (then the consumer gives it back). If the
// item has a filter entry, claim first clears its flag (filter.go), so the
// claim is one atomic operation, or two for an item added while it waited
// (a flag cleared in vain only sends a later Add to the owner). Everything
// the consumer writes to sl comes before the claim, since the owner may
// reuse sl after it.
func (sl *slot[T]) claim(now func() time.Time) (T, int, bool) {
	item, prio := sl.item, sl.place.prio
	if now != nil {
		sl.at = now()
	}
	if sl.hot != nil {
		sl.hot.noop.Store(false) // before the item is processing
	}
	return item, prio, sl.state.CompareAndSwap(slotOffered, slotClaimed)
}

// slots are the lane's slots, owned by the owner goroutine.
type slots[T comparable] struct {
	ch       chan *slot[T] // the lane, while it is on; nil once it is off
	top      *topPrio      // shared.top
	floor    int           // top is at least floor: the owner's last raise or lowering
	all      []*slot[T]    // by index
	free     []uint32      // indices of unused slots
	inUse    int           // slots offered, or claimed and not yet seen
	back     []*slot[T]    // scratch for reclaimLane
	last     place         // the place of the item offered last,
	hasLast  bool          // since the lane was last taken back
	round    uint32        // counts the times the lane was taken back
	sends    uint64        // counts the slots sent on the lane
	sent     []sent        // with metrics: slots in the order sent on the lane,
	sentHead int           // from sent[sentHead] on
}

// topPrio is top (see Priorities above): at least the priority of every
// item that is ready, delayed or added again while processing, and of
// every add of a ready item that a caller has sent, unless the owner has
// applied it (an AddAfter with a delay does not raise it: no Get can pass
// over an item that is not ready yet, and the owner raises top before it
// makes the item delayed). Callers raise it after they send an add
// (raise); the owner raises it
// before it makes an item ready above it (slots.lift), and lowers it when
// nothing above the next ready item is left (owner.lowerTop).
//
// Lowering must not lose an add that is on its way: an add whose raise
// found top high enough did nothing, trusting the owner to keep it so
// until it applies the add. So the owner lowers in three steps: it marks
// top as being lowered, looks whether the inbox holds anything it has not
// applied, and only then swaps the lowered value in, with a
// compare-and-swap that fails if a caller's raise saw the mark meanwhile
// and cleared it. Every atomic operation is sequentially consistent, so an
// add is either in the inbox when the owner looks (an add sent before its
// raise saw no mark), or its raise sees the mark, or its raise comes after
// the lowering and raises top itself.
//
// The word holds the priority shifted left by one, and the mark in bit 0.
// Priorities beyond ±2^62 are stored rounded up (2^62-1 stands for
// everything above), which only makes top higher: safe, since a slot at
// or above top may be claimed.
type topPrio struct {
	w atomic.Int64
}

const (
	topMax = 1<<62 - 1 // stands for every priority from here up
	topMin = -1 << 62
)

// topWord returns the word for top p, without the mark.
func topWord(p int) int64 { return int64(min(max(p, topMin), topMax)) << 1 }

// topOf returns the top priority a word stands for.
func topOf(w int64) int64 {
	if v := w >> 1; v != topMax {
		return v
	}
	return math.MaxInt64
}

// claimable reports whether a consumer may claim a slot at priority p.
func (t *topPrio) claimable(p int) bool { return int64(p) >= topOf(t.w.Load()) }

// raise makes top at least p, and clears a lowering's mark. Any goroutine
// may call it.
func (t *topPrio) raise(p int) {
	for {
		w := t.w.Load()
		if w&1 == 0 && topOf(w) >= int64(p) {
			return
		}
		if t.w.CompareAndSwap(w, max(w&^1, topWord(p))) {
			return
		}
	}
}

// lower lowers top to p if it is higher, unless quiet, called once top is
// marked, reports that the inbox holds something the owner has not
// applied, or a caller's raise cleared the mark. It reports whether it
// did. Owner only.
func (t *topPrio) lower(p int, quiet func() bool) bool {
	w, nw := t.w.Load(), topWord(p)
	if nw >= w || !t.w.CompareAndSwap(w, w|1) {
		return false
	}
	if quiet() && t.w.CompareAndSwap(w|1, nw) {
		return true
	}
	t.w.CompareAndSwap(w|1, w) // fails only if a raise cleared the mark
	return false
}

// mayComeBack reports whether a slot that a consumer could still give
// back, offered and neither claimed nor revoked, would keep top from
// coming down to p: one above p (a consumer that received it may have to
// give it back once an add raises top, after another consumer claimed a
// slot behind it at p), or one offered before the lane was last taken back
// (its item may go after what the lane offered since).
func (l *slots[T]) mayComeBack(p int) bool {
	if l.inUse == 0 {
		return false
	}
	for _, sl := range l.all {
		if sl.used && (sl.place.prio > p || sl.round != l.round) && sl.state.Load() == slotOffered {
			return true
		}
	}
	return false
}

// lift raises top before the owner makes an item with entry e ready,
// delayed or dirty, if its priority may be above top.
func (l *slots[T]) lift(e entry) {
	p := e.prio()
	if e&wideBit != 0 && p > 0 {
		p = math.MaxInt // above what an entry holds: the highest top
	}
	if p > l.floor {
		l.top.raise(p)
		l.floor = p
	}
}

// sent is a slot as it was sent on the lane, for seeing claims in the order
// the lane hands them out.
type sent struct {
	idx, gen uint32
}

// take fills a free slot with item, at place p, and returns it with its
// index.
func (l *slots[T]) take(item T, hot *hotEntry[T], p place, ordered bool) (uint32, *slot[T]) {
	var idx uint32
	if n := len(l.free); n > 0 {
		idx = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		idx = uint32(len(l.all))
		l.all = append(l.all, new(slot[T]))
	}
	sl := l.all[idx]
	l.last, l.hasLast = place{prio: p.prio, seq: p.seq}, true
	l.sends++
	sl.item, sl.place, sl.hot, sl.used, sl.round, sl.idx, sl.sent = item, p, hot, true, l.round, idx, l.sends
	sl.gen++
	sl.state.Store(slotOffered)
	l.inUse++
	if ordered {
		l.sent = append(l.sent, sent{idx, sl.gen})
	}
	return idx, sl
}

// claimed reports whether the slot at idx has been claimed.
func (l *slots[T]) claimed(idx uint32) bool {
	return l.all[idx].state.Load() == slotClaimed
}

// goesBefore reports whether an item at place p goes before the item the
// lane offered last, so that offering it behind that one would be out of
// order: it was given back, or raised or made ready at a higher priority.
// With fairness only a higher priority counts: within one, turns decide
// (see Fairness above).
func (s *state[T]) goesBefore(p place) bool {
	l := &s.lane
	if l.inUse == 0 || !l.hasLast {
		return false
	}
	if s.prio.fair {
		return p.prio > l.last.prio
	}
	return p.prio > l.last.prio || p.prio == l.last.prio && p.seq < l.last.seq
}

// revoke makes the slot at idx unclaimable, unless a consumer has claimed it
// already; it reports whether it did.
func (l *slots[T]) revoke(idx uint32) bool {
	return l.all[idx].state.CompareAndSwap(slotOffered, slotRevoked)
}

// release frees the slot at idx and returns the consumer's clock reading
// at its claim (zero without metrics, or if it was not claimed).
func (l *slots[T]) release(idx uint32) time.Time {
	var zero T
	sl := l.all[idx]
	at := sl.at
	sl.item, sl.place, sl.hot, sl.used, sl.at = zero, place{}, nil, false, time.Time{}
	l.free = append(l.free, idx)
	l.inUse--
	return at
}

// seeClaims applies the claims at the head of the lane, in the order the
// lane handed them out, and stops at the first slot still offered. With
// metrics on, the owner calls it on every round, so that depth and latency
// follow claims closely even though no one tells it of them.
func (s *state[T]) seeClaims() {
	l := &s.lane
	for l.sentHead < len(l.sent) {
		e := l.sent[l.sentHead]
		sl := l.all[e.idx]
		if st := sl.state.Load(); sl.used && sl.gen == e.gen && st != slotRevoked {
			if st != slotClaimed {
				if l.sentHead >= 64 && 2*l.sentHead >= len(l.sent) {
					n := copy(l.sent, l.sent[l.sentHead:])
					l.sent, l.sentHead = l.sent[:n], 0
				}
				return
			}
			s.lookup(sl.item) // sees the claim
		}
		l.sentHead++
	}
	l.sent, l.sentHead = l.sent[:0], 0 // reuse the array: no allocation per item
}

// reclaimLane takes back the slots offered in the lane that no consumer has
// received: their items are ready again, ahead of the others.
func (s *state[T]) reclaimLane() {
	if s.lane.ch == nil {
		return
	}
	s.takeHead(-1)
	s.lane.hasLast = false
	s.lane.round++
	if o, ok := s.order.(*prioOrder[T]); ok {
		o.newEpoch()
	}
}

// takeHead receives up to n slots (every one, if n < 0) from the front
// of the lane, where no consumer has them, and puts their items back where
// they were.
func (s *state[T]) takeHead(n int) {
	back := s.lane.back[:0]
take:
	for n < 0 || len(back) < n {
		select {
		case sl := <-s.lane.ch:
			back = append(back, sl)
		default: // consumers took the rest
			break take
		}
	}
	s.takeBack(back)
	s.lane.back = back // its array, for the next time: no allocation per reclaim
}

// giveBack is the event of a Get giving back the slot sl, which it
// received from the lane but may not claim: its item is ready again, in
// the place it was offered from. Slots come back in any order, so it is
// put back by its sequence number, behind those offered before it that
// came back first (the default order, which has none, is turned into a
// priority order, whose sequence numbers follow the order in which the
// lane offered its items).
//
// The items the lane offers between two times it is taken back go in
// order (offer takes the lane back before it would offer one out of
// order), so whatever the lane still holds goes after sl's item if it was
// offered in the lane's current round. Otherwise, or if an older call is
// waiting (which would take items from the order before older ones
// offered in the lane), what the lane offers may go before the order's
// next item: reclaimFor takes back what goes first, so that whoever is
// served next gets it. The caller of giveBack waits next for one item.
// With fairness the lane is taken back first, so that sl's item goes back
// at the front of its turns.
func (s *state[T]) giveBack(sl *slot[T]) {
	if sl.state.Load() == slotRevoked {
		// Its item is back in the order since the raise that revoked
		// it; what the lane offers may go before the rest of the order.
		s.lane.release(sl.idx)
		if len(s.lane.ch) > 0 {
			s.reclaimLane()
		}
		return
	}
	s.usePrio()
	if s.prio.fair {
		s.reclaimLane()
		s.unoffer(sl.item, sl.place)
		return
	}
	stale := sl.round != s.lane.round || len(s.waiting) > 0
	s.unoffer(sl.item, sl.place) // by its sequence number: before or after the reclaim alike
	if stale {
		s.reclaimFor(s.wanted() + 1)
	}
}

// reclaimFor takes back from the lane what waiting calls that want n
// items must get before anything the ready order holds. The items the lane
// offers between two times it is taken back go in order, so if the order's
// next item goes after the last item the lane offered, every offered item
// goes before the whole order, and the first n slots of the lane are what
// the waiting calls get: reclaimFor takes back only those, and the rest
// stays offered, in order, to the consumers that receive it. (In
// PipelinePrio a Get that gives back an item at -100 while the lane offers
// items at 0 took back a whole lane, about 28 slots on average, for the one
// item it then got.) While a consumer holds a slot it may give back, no
// waiting call is served (see held), so it takes nothing back: what the
// lane offers goes first anyway. Otherwise, or with fairness (whose turns
// sequence numbers do not tell), in the default order (whose places have
// none), or if the lane holds no more than n slots, it takes the whole
// lane back, as reclaimLane.
func (s *state[T]) reclaimFor(n int) {
	l := &s.lane
	if s.prio.fair || s.fifo != nil || !l.hasLast || len(l.ch) <= n || !s.afterLane() {
		s.reclaimLane()
		return
	}
	if s.held() {
		return
	}
	s.takeHead(n)
}

// afterLane reports whether the next item of a priority order (without
// fairness) goes after the last item the lane offered since it was last
// taken back, and so after everything it offers.
func (s *state[T]) afterLane() bool {
	if s.order.len() == 0 {
		return true
	}
	p, last := s.nextPlace(), s.lane.last
	return p.prio < last.prio || p.prio == last.prio && p.seq > last.seq
}

// nextPlace returns the place of the next item of a priority order, which
// is not empty, leaving the item where it is.
func (s *state[T]) nextPlace() place {
	if o, ok := s.order.(*prioOrder[T]); ok {
		if p, ok := o.peek(); ok {
			return p
		}
		o.repeat = true // the pop and push below may move the lane's marks: a key that joins takes the lane back
	}
	item, p := s.order.pop()
	s.order.pushFront(item, p)
	return p
}

// wanted returns how many items the waiting calls want.
func (s *state[T]) wanted() int {
	n := 0
	for _, w := range s.waiting {
		n += cap(w.items) - len(w.items)
	}
	return n
}

// held reports whether a consumer has received a slot from the lane and
// neither claimed it nor given it back yet. Such a slot's item may come
// back (its priority is below top), and it goes before what the owner
// offered after it, or what the order holds, so a waiting call is not
// served until none is left (see serveWaiters). The lane hands slots out
// first in, first out, so those received are the ones sent before the
// len(ch) still in the channel; a slot received after this look belongs to
// a Get that decides after it.
func (s *state[T]) held() bool {
	l := &s.lane
	if l.inUse == 0 {
		return false
	}
	received := l.sends - uint64(len(l.ch))
	for _, sl := range l.all {
		if sl.used && sl.sent <= received && sl.state.Load() == slotOffered {
			return true
		}
	}
	return false
}

// laneReady counts the items offered in the lane and not yet claimed (a
// revoked slot's item is in the order), and sees the claimed ones on the
// way.
func (s *state[T]) laneReady() int {
	if s.lane.inUse == 0 {
		return 0
	}
	n := 0
	for _, sl := range s.lane.all {
		if !sl.used {
			continue
		}
		switch sl.state.Load() {
		case slotClaimed:
			s.lookup(sl.item)
		case slotOffered:
			n++
		} // revoked: its item is in the order
	}
	return n
}
