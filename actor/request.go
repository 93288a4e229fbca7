package actor

import (
	"math"
	"sync"
)

// Requests are how callers talk to the owner goroutine: values put in one
// queue, the inbox (mailbox.go). Add, AddAfter, Done and DoneBatch are one-way;
// Len, Get (when it cannot use the lane) and GetBatch send a waiter and wait
// for its answer. Because every request of a caller travels on the same
// channel, a caller's calls take effect in the order it made them.

// op is the kind of a request.
type op uint8

const (
	opAdd     op = iota // add item now
	opAddHot            // add item now; the Add set its filter entry's sent flag (filter.go)
	opRetry             // AddAfter with d <= 0: count a retry, add item now
	opAddAt             // AddAfter: count a retry, add item at deadline at
	opAddPrio           // AddWithOpts of one item, now, at priority prio
	opAddList           // AddWithOpts: add each item of a list
	opDone              // Done of item
	opDones             // Done of each item of a list (DoneBatch)
	opLen               // answer w with the number of ready items
	opGet               // hand w up to cap(w.items) ready items, or wait
	opCancel            // withdraw w, if it is still waiting
)

// isAdd reports whether o adds items: the requests that take room from the
// adds' share of the inbox.
func (o op) isAdd() bool { return o <= opAddList }

// spills reports whether requests of kind o never wait for room in the
// inbox: AddWithOpts, which adds a list (or one item) in one message, like
// controller-runtime's buffered adds. When the ring is full they go to the
// mailbox's spill, which has no bound; every other request waits, but for
// an Add that carries its item's filter entry, which spills too and needs
// no bound (mailbox.spillHot).
func (o op) spills() bool { return o == opAddList || o == opAddPrio }

// request is a message to the owner goroutine.
type request[T comparable] struct {
	op   op
	prio int32 // opAddPrio: the priority (in the padding after op)
	item T
	at   int64        // opAddAt: the deadline; others, with metrics: the caller's clock reading (both in nanoseconds since the epoch)
	list *itemList[T] // opAddList, opDones: the items, with what the caller computed for each
	keys []string     // opAdd, opRetry, opAddAt with fairness: the item's keys
	w    *waiter[T]   // opLen, opGet, opCancel
}

const (
	// inboxSize is how many adds (requests that add items) may be in
	// flight before their senders wait for the owner to take them. It is a hand-over buffer, not storage:
	// the owner moves requests into its own unbounded state in batches.
	//
	// It is small on purpose. When the owner's thread loses its CPU to a
	// busy producer's thread (the OS scheduler put both on one CPU), the
	// producer runs on until the inbox is full and only then blocks,
	// giving the CPU back; every item added meanwhile waits that long.
	// With a producer adding 135k items/s (bench's Latency), 512 slots
	// take 3.8 ms to fill, and the Add→Get p99 was 3.7 ms; with 128 slots
	// it was 0.9-1.3 ms and with 64 0.4 ms, with no measurable change in
	// pipeline throughput (bench/RESULTS.md).
	inboxSize = 64
	// mailboxSize is the inbox's capacity: requests that add items may
	// fill inboxSize cells, the others all but inboxSize, so that a Done
	// seldom waits behind a flood of adds, nor an add behind a flood of
	// consumers.
	mailboxSize = 4 * inboxSize
	// roundSize bounds the requests the owner serves in one round, so that
	// consumers and due timers are served between rounds however long the
	// flood.
	roundSize = 64
)

// serve applies one request. The owner goroutine calls it, and so do
// callers for requests still in the inbox after the owner ended.
func (s *state[T]) serve(r request[T]) {
	if r.op != opAddAt {
		s.m.stampAt(r.at)
	}
	switch r.op {
	case opAdd, opAddHot:
		s.add(r.item, want{keys: r.keys})
		if r.op == opAddHot {
			s.filter.unsend(r.item) // after the add: see filter.go
		}
	case opRetry:
		s.retry()
		s.add(r.item, want{keys: r.keys})
	case opAddAt:
		s.retry()
		s.addAt(r.item, r.at, want{keys: r.keys})
	case opDone:
		s.done(r.item)
	case opAddPrio:
		s.add(r.item, want{prio: int(r.prio), keys: r.keys})
	case opAddList:
		s.addList(r.list)
		r.list.recycle()
	case opDones:
		for _, item := range r.list.items {
			s.done(item)
		}
		r.list.recycle()
	case opLen:
		s.serveDue()
		r.w.n = s.len()
		r.w.answer()
	case opGet:
		if r.w.slot != nil { // a Get gives back a lane slot it may not claim
			s.giveBack(r.w.slot)
			r.w.slot = nil
		} else if len(s.lane.ch) > 0 {
			s.reclaimLane() // what the lane offers goes before the rest of its priority
		}
		s.serveDue() // an item due now is ready for this call
		s.waiting = append(s.waiting, r.w)
		s.serveWaiters()
	case opCancel:
		s.cancel(r.w)
	}
}

// itemList is what AddWithOpts and DoneBatch send: a copy of the items,
// and for AddWithOpts what the caller computed for each (its deadline, if
// delayed, and its fairness keys) and the priority they share. Lists are
// reused: the owner returns each to the pool it came from.
type itemList[T comparable] struct {
	items []T
	// at holds, for AddWithOpts, each item's deadline, or now for none;
	// it stays empty while every item is added now (most lists), so
	// that such lists are half the size.
	at   []int64
	keys [][]string // AddWithOpts with fairness: each item's keys
	prio int
	home *sync.Pool
}

// add appends item with its deadline (the caller appends its fairness
// keys to keys).
func (l *itemList[T]) add(item T, at int64) {
	if at != now || len(l.at) > 0 {
		for len(l.at) < len(l.items) {
			l.at = append(l.at, now)
		}
		l.at = append(l.at, at)
	}
	l.items = append(l.items, item)
}

// deadline returns the deadline of the list's i-th item, or now.
func (l *itemList[T]) deadline(i int) int64 {
	if i < len(l.at) {
		return l.at[i]
	}
	return now
}

// now marks an item of an itemList that is added at once.
const now = math.MinInt64

// recycle clears l, so that the collector can have what its items point
// to, and returns it to its pool with its arrays.
func (l *itemList[T]) recycle() {
	clear(l.items)
	clear(l.keys)
	l.items, l.at, l.keys, l.prio = l.items[:0], l.at[:0], l.keys[:0], 0
	l.home.Put(l)
}

// addList applies an AddWithOpts: each item at the list's priority, now or
// at its deadline. Like controller-runtime's, it counts a retry for each
// item delayed.
func (s *state[T]) addList(l *itemList[T]) {
	for i, item := range l.items {
		w := want{prio: l.prio}
		if l.keys != nil {
			w.keys = l.keys[i]
		}
		if at := l.deadline(i); at != now {
			s.retry()
			s.addAt(item, at, w)
		} else {
			s.add(item, w)
		}
	}
}

// retry counts a retry for an add that delays its item (or AddAfter with
// no delay), unless shutdown has begun: then the add is ignored, and as in
// client-go nothing is counted.
func (s *state[T]) retry() {
	if s.phase == running {
		s.m.retry()
	}
}

// callTime returns the clock reading a request carries for the metrics
// (see metrics.at), or 0 when the queue records no metrics.
func (c *shared[T]) callTime() int64 {
	if c.stamp == nil {
		return 0
	}
	return c.since()
}

// ask sends a waiter for up to cap(buf) items (a Get's one, if buf is nil)
// and returns it answered. If cancel is closed first, it withdraws the
// waiter, which is then answered either as canceled or, if items were
// handed to it first, with them.
func (c *shared[T]) ask(buf []T, cancel <-chan struct{}) *waiter[T] {
	return c.askWith(buf, nil, cancel)
}

// confirm is the ask of a Get that received the lane slot sl but may not
// claim it (see lane.go): the owner takes the slot back as it takes the
// request, and hands the Get whatever goes first by then, sl's item or
// another.
func (c *shared[T]) confirm(sl *slot[T], cancel <-chan struct{}) *waiter[T] {
	return c.askWith(nil, sl, cancel)
}

func (c *shared[T]) askWith(buf []T, sl *slot[T], cancel <-chan struct{}) *waiter[T] {
	w := c.waiter()
	w.items, w.slot = buf, sl
	if buf == nil {
		w.items = w.one[:0]
	}
	r := request[T]{op: opGet, w: w, at: c.callTime()}
	if !c.send(r) {
		c.withRest(func(s *state[T]) { s.serve(r) })
		<-w.ready
		return w
	}
	select {
	case <-w.ready:
		return w
	case <-cancel:
		c.send(request[T]{op: opCancel, w: w}) // if the owner has ended, it answered w
	case <-c.done:
	}
	c.await(w)
	return w
}

// waiter returns a waiter from the pool.
func (c *shared[T]) waiter() *waiter[T] {
	if w, ok := c.waiters.Get().(*waiter[T]); ok {
		return w
	}
	return newWaiter[T]()
}

// release returns an answered waiter to the pool.
func (c *shared[T]) release(w *waiter[T]) {
	var zero T
	w.items, w.one[0], w.n, w.shutdown, w.canceled, w.slot = nil, zero, 0, false, false, nil
	c.waiters.Put(w)
}

// send hands r to the owner goroutine. It reports false, without sending,
// if the owner has ended. Only a full inbox makes it wait, and then only
// until the owner takes a round of requests.
//
// A request that lands in the inbox as the owner ends may find nobody to
// take it: the owner serves what it finds after closing done, so if done
// is closed after the send, the sender serves the inbox itself.
func (c *shared[T]) send(r request[T]) bool { return c.sendHot(r, nil) }

// sendHot is send for an Add of an item whose filter entry is hot, which
// the Add's request sets the sent flag of (filter.go).
func (c *shared[T]) sendHot(r request[T], hot *hotEntry[T]) bool {
	if !c.inbox.put(r, hot, c.done) {
		return false
	}
	select {
	case <-c.done:
		c.drainRest()
	default:
	}
	return true
}

// drainRest serves the requests left in the inbox after the owner ended.
func (c *shared[T]) drainRest() { c.withRest(func(*state[T]) {}) }

// await waits until the request that carried w has been answered, by the
// owner or, if it ended first, by whichever caller serves what was left in
// the inbox (withRest does, so await does it if nobody has).
func (c *shared[T]) await(w *waiter[T]) {
	select {
	case <-w.ready:
	case <-c.done:
		c.drainRest()
		<-w.ready
	}
}
