package actor

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// mailbox is the inbox: a bounded queue of requests with many senders and
// one receiver, the owner goroutine. Every request of every caller goes
// through it in one order, so a caller's calls take effect in the order it
// made them, whatever their kind.
//
// It is a ring of cells in the manner of Dmitry Vyukov's bounded queue: a
// sender takes the next ticket by compare-and-swap on tail, writes its
// request into the ticket's cell and publishes it by storing the cell's
// sequence number; the owner takes cells in ticket order and frees each by
// advancing its sequence a lap. No lock is taken on either side, so
// producers, consumers finishing their items and the owner do not queue
// behind one lock, as they would on a channel.
//
// Blocking happens only on channels, which testing/synctest sees as
// durably blocked. The owner, before it blocks, says so (sleeping) and
// looks once more; a sender that publishes while the owner sleeps rings
// its bell. A sender that finds no room says so (waiting) and parks on an
// unbuffered channel, its gate, with its request; the owner receives the
// parked requests straight from the gates, so that under a flood it takes
// many requests per round without waiting for each parked sender to run,
// as a channel's receiver would, and hands each out in its place in the
// order (see parked).
type mailbox[T comparable] struct {
	tail atomic.Uint64 // the next ticket
	_    [56]byte      // keep tail's cache line to the senders
	head uint64        // owner only: the next ticket to take
	_    [56]byte

	cells [mailboxSize]cell[T]

	// adds counts the adds in the ring that the owner has not accounted
	// for: senders add one per add they put, the owner subtracts those it
	// took in one go per round (taken counts them meanwhile). An add is
	// put only while adds < inboxSize, whatever the other requests fill.
	adds  atomic.Int64
	_     [56]byte
	taken int64 // owner only

	sleeping atomic.Bool   // the owner is about to block, or blocked
	bell     chan struct{} // capacity 1: wakes the owner

	// Senders waiting for room, adds and the others apart, since they
	// have room at different fills.
	addGate, others gate[T]
	held            []parked[T] // owner only: received at a gate or spilled, in fence order; held[hh:] not yet taken
	hh              int
	admitted        bool // owner only: a sender was admitted at a gate since the owner last slept

	// Requests that never wait for room (see spills, spillHot) go here when the
	// ring has none, each with its place in the order like a parked one.
	subs    atomic.Uint64 // the last parked.sub handed out
	spillMu sync.Mutex
	spill   []parked[T]
	spilled atomic.Bool // spill is not empty
	spare   []parked[T] // owner only: the last spill, emptied, for the next
}

// gate is where senders that found no room park, handing their request
// to the owner directly: an unbuffered channel, and how many senders wait.
// A sender counts itself in before it parks; the owner counts it out as it
// receives its request (admit), and the sender itself only if it gives up.
type gate[T comparable] struct {
	waiting atomic.Int32
	c       chan parked[T]
}

// parked is a request handed over at a gate. Its place in the order of
// requests is just before ticket fence: the sender read tail before it
// parked, so its earlier requests all have smaller tickets, and its later
// ones, put after the owner received this one, larger or equal ones.
type parked[T comparable] struct {
	r     request[T]
	fence uint64
	// sub orders requests with the same fence: one sender's are made in
	// that order (a list it spilled, then a request it parked with, with
	// the tail unchanged in between).
	sub uint64
}

// cell is one slot of the ring. seq is the ticket the cell is free for
// (ticket: a sender may write it), or that ticket plus one once the
// request is written (the owner may take it).
type cell[T comparable] struct {
	seq atomic.Uint64
	r   request[T]
}

func newMailbox[T comparable](bell chan struct{}) *mailbox[T] {
	m := &mailbox[T]{bell: bell, addGate: gate[T]{c: make(chan parked[T])}, others: gate[T]{c: make(chan parked[T])}}
	for i := range m.cells {
		m.cells[i].seq.Store(uint64(i))
	}
	return m
}

// tryPut adds r unless there is no room for it. Any goroutine may call it.
// Adds (of items, one or a list) have room while fewer than inboxSize of
// them are in the ring, and the other requests (Done, Get, Len) while they
// leave inboxSize cells free, so that neither kind waits behind a flood of
// the other: a Done seldom waits behind producers, and an add is not kept
// out by a thousand consumers' Gets.
//
// hot is, for an Add of an item with a filter entry, that entry: the
// request sets its sent flag once it has its ticket, and is then an
// opAddHot (filter.go).
func (m *mailbox[T]) tryPut(r request[T], hot *hotEntry[T]) bool {
	add := r.op.isAdd()
	limit := uint64(mailboxSize - inboxSize)
	if add {
		if m.adds.Load() >= inboxSize {
			return false
		}
		limit = mailboxSize
	}
	for {
		t := m.tail.Load()
		// Fewer than limit requests are waiting once the owner has taken
		// ticket t-limit, which moved that cell's sequence a lap on.
		if t >= limit && m.cells[(t-limit)%mailboxSize].seq.Load() < t-limit+mailboxSize {
			return false
		}
		c := &m.cells[t%mailboxSize]
		if c.seq.Load() != t {
			if c.seq.Load() < t {
				return false // the cell still holds a request of the last lap
			}
			continue // another sender took the ticket
		}
		if !m.tail.CompareAndSwap(t, t+1) {
			continue
		}
		if add {
			m.adds.Add(1) // before the owner can take it
		}
		if hot != nil && hot.sent.CompareAndSwap(false, true) {
			r.op = opAddHot // else another Add of the item is in the inbox, before this one
		}
		c.r = r
		c.seq.Store(t + 1)
		if m.sleeping.Load() && m.sleeping.CompareAndSwap(true, false) {
			select {
			case m.bell <- struct{}{}:
			default:
			}
		}
		return true
	}
}

// put adds r, waiting for room if there is none (except for requests that
// spill, and Adds with a filter entry, hot: see tryPut and spillHot). It
// reports false, without adding r, if done is closed first.
func (m *mailbox[T]) put(r request[T], hot *hotEntry[T], done <-chan struct{}) bool {
	g := &m.others
	if r.op.isAdd() {
		g = &m.addGate
	}
	for !m.tryPut(r, hot) {
		if r.op.spills() {
			m.spillOver(m.place(r))
			return true
		}
		if hot != nil {
			m.spillHot(r, hot)
			return true
		}
		g.waiting.Add(1)
		if m.tryPut(r, nil) { // the owner may have made room before it saw us
			g.waiting.Add(-1)
			return true
		}
		select {
		case g.c <- m.place(r): // the owner took it, and counted us out
			return true
		case <-done:
			g.waiting.Add(-1)
			return false
		}
	}
	return true
}

// spillHot spills r, an Add of an item with the filter entry hot, if it
// sets the entry's sent flag once it has its place in the order; else
// another Add of the item is in the inbox, before it, and it would change
// nothing after that one, so it is dropped (filter.go). Such Adds need no
// bound: an entry has at most one in the inbox. An entry evicted since the
// caller looked it up (dead, checked after the flag) may keep its flag
// set after that Add was applied, so r then spills as a plain Add.
func (m *mailbox[T]) spillHot(r request[T], hot *hotEntry[T]) {
	p := m.place(r)
	switch {
	case hot.sent.CompareAndSwap(false, true):
		p.r.op = opAddHot
		m.spillOver(p)
	case hot.dead.Load():
		m.spillOver(p)
	}
}

// place gives r, which is not in the ring, its place in the order of
// requests (see parked): after every request its sender put before.
func (m *mailbox[T]) place(r request[T]) parked[T] {
	return parked[T]{r, m.tail.Load(), m.subs.Add(1)}
}

// spillOver adds p to the spill, and rings the bell if the owner sleeps.
// p has the place in the order that a sender parked at a gate would have.
func (m *mailbox[T]) spillOver(p parked[T]) {
	m.spillMu.Lock()
	m.spill = append(m.spill, p)
	m.spilled.Store(true)
	m.spillMu.Unlock()
	if m.sleeping.Load() && m.sleeping.CompareAndSwap(true, false) {
		select {
		case m.bell <- struct{}{}:
		default:
		}
	}
}

// hold puts p among the held requests, in order of fence, then sub. The
// array is reused: taken requests are dropped from its front before it
// would grow.
func (m *mailbox[T]) hold(p parked[T]) {
	if m.hh > 0 && len(m.held) == cap(m.held) {
		n := copy(m.held, m.held[m.hh:])
		clear(m.held[n:])
		m.held, m.hh = m.held[:n], 0
	}
	i := len(m.held)
	m.held = append(m.held, p)
	for ; i > m.hh && (m.held[i-1].fence > p.fence || m.held[i-1].fence == p.fence && m.held[i-1].sub > p.sub); i-- {
		m.held[i] = m.held[i-1]
	}
	m.held[i] = p
}

// heldDue reports whether the next held request's place has come.
func (m *mailbox[T]) heldDue() bool {
	return m.hh < len(m.held) && m.held[m.hh].fence <= m.head
}

// unspill moves the spilled requests to the held ones.
func (m *mailbox[T]) unspill() {
	m.spillMu.Lock()
	spill := m.spill
	m.spill = m.spare
	m.spilled.Store(false)
	m.spillMu.Unlock()
	for _, p := range spill {
		m.hold(p)
	}
	clear(spill) // let the collector have what the requests point to
	m.spare = spill[:0]
}

// take removes the next request, if one is there: a request received at a
// gate or spilled whose place has come, or else the ring's next. Owner
// only (or, after the owner ended, the caller holding the state).
//
// A sender spills before it puts its later requests in the ring, so once
// take has seen one of those, it sees the spill too: it looks at the spill
// before it takes from the ring.
func (m *mailbox[T]) take() (r request[T], ok bool) {
	if m.spilled.Load() {
		m.unspill()
	}
	if m.heldDue() {
		r = m.held[m.hh].r
		m.held[m.hh] = parked[T]{}
		if m.hh++; m.hh == len(m.held) {
			m.held, m.hh = m.held[:0], 0
		}
		return r, true
	}
	c := &m.cells[m.head%mailboxSize]
	if c.seq.Load() != m.head+1 {
		m.settle()
		return r, false // empty, or the next sender has not finished writing
	}
	if m.spilled.Load() { // spilled before this cell was written
		return m.take()
	}
	r = c.r
	c.r = request[T]{} // let the collector have what the request points to
	c.seq.Store(m.head + mailboxSize)
	m.head++
	if r.op.isAdd() {
		m.taken++
	}
	return r, true
}

// settle gives the room of the adds taken since the last call back to the
// senders. The owner calls it at the end of each round (take calls it when
// it finds the ring empty).
func (m *mailbox[T]) settle() {
	if m.taken > 0 {
		m.adds.Add(-m.taken)
		m.taken = 0
	}
}

// admit receives up to n requests from senders parked at the gates, and
// reports how many. take hands each out in its place. A sender that has
// said it waits but is not parked yet is left for the owner's next round:
// sleep does not let the owner block meanwhile.
func (m *mailbox[T]) admit(n int) int {
	took := 0
	for _, g := range [...]*gate[T]{&m.others, &m.addGate} {
		for took < n && g.waiting.Load() > 0 {
			select {
			case p := <-g.c:
				// The sender no longer waits: counted out here rather
				// than when it runs again, so that sleep does not take a
				// sender that was admitted and not yet run for one about
				// to park.
				g.waiting.Add(-1)
				m.hold(p)
				m.admitted = true
				took++
				continue
			default:
			}
			break
		}
	}
	return took
}

// quiet reports whether the owner has taken every request sent so far:
// none is in the ring or held, and none spilled. A sender parked at a gate
// has not returned from put, so what it sends later comes after. Owner
// only.
func (m *mailbox[T]) quiet() bool {
	return m.tail.Load() == m.head && m.hh == len(m.held) && !m.spilled.Load()
}

// waiting reports whether a sender waits at a gate.
func (m *mailbox[T]) waiting() bool {
	return m.addGate.waiting.Load() > 0 || m.others.waiting.Load() > 0
}

// sleep tells senders that the owner is about to block, and reports
// whether it may: false if a request arrived meanwhile, or a sender waits
// at a gate (it is parked, or about to park, and the owner admits it on
// its next round), or, at GOMAXPROCS=1, senders were admitted since the
// last sleep (it yields to them first). After it returns true, a sender
// rings the bell; the owner calls wake once it runs again.
func (m *mailbox[T]) sleep() bool {
	m.sleeping.Store(true)
	c := &m.cells[m.head%mailboxSize]
	if c.seq.Load() == m.head+1 || m.heldDue() || m.waiting() || m.spilled.Load() {
		m.sleeping.Store(false)
		if c.seq.Load() != m.head+1 {
			runtime.Gosched() // let the waiting sender park
		}
		return false
	}
	if m.admitted {
		m.admitted = false
		if runtime.GOMAXPROCS(0) == 1 {
			// The senders admitted since the last sleep are runnable on
			// the owner's only processor: yield to them rather than
			// block, since their next requests then arrive in one
			// round. With more processors they run elsewhere, and a
			// yield would only wake another thread to take the owner.
			m.sleeping.Store(false)
			runtime.Gosched()
			return false
		}
	}
	return true
}

// wake clears the sleeping flag once the owner runs again.
func (m *mailbox[T]) wake() { m.sleeping.Store(false) }
