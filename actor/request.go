package actor

import "sync"

// Requests are how callers talk to the owner goroutine: values put in one
// queue, the inbox (mailbox.go). Add, AddAfter, Done and DoneBatch are one-way;
// Len, Get (when it cannot use the lane) and GetBatch send a waiter and wait
// for its answer. Because every request of a caller travels on the same
// channel, a caller's calls take effect in the order it made them.

// op is the kind of a request.
type op uint8

const (
	opAdd    op = iota // add item now
	opRetry            // AddAfter with d <= 0: count a retry, add item now
	opAddAt            // AddAfter: count a retry, add item at deadline at
	opDone             // Done of item
	opDones            // Done of each item of a list (DoneBatch)
	opLen              // answer w with the number of ready items
	opGet              // hand w up to cap(w.items) ready items, or wait
	opCancel           // withdraw w, if it is still waiting
)

// request is a message to the owner goroutine.
type request[T comparable] struct {
	op    op
	item  T
	at    int64        // opAddAt: the deadline; others, with metrics: the caller's clock reading (both in nanoseconds since the epoch)
	dones *doneList[T] // opDones: a copy of the items
	w     *waiter[T]   // opLen, opGet, opCancel
}

const (
	// inboxSize is how many adds may be in flight before their senders
	// wait for the owner to take them. It is a hand-over buffer, not storage:
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
	// fill inboxSize cells, and the rest stay free for the calls of
	// consumers, so that a Done seldom waits behind a flood of adds.
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
	case opAdd:
		s.add(r.item)
	case opRetry:
		s.m.retry()
		s.add(r.item)
	case opAddAt:
		s.m.retry()
		s.addAt(r.item, r.at)
	case opDone:
		s.done(r.item)
	case opDones:
		for _, item := range r.dones.items {
			s.done(item)
		}
		r.dones.recycle()
	case opLen:
		s.serveDue()
		r.w.n = s.len()
		r.w.answer()
	case opGet:
		s.waiting = append(s.waiting, r.w)
		s.serveWaiters()
	case opCancel:
		s.cancel(r.w)
	}
}

// doneList is the copy of its items that DoneBatch sends. Lists are
// reused: the owner returns each to the pool it came from.
type doneList[T comparable] struct {
	items []T
	home  *sync.Pool
}

// recycle clears l, so that the collector can have what its items point
// to, and returns it to its pool with its array.
func (l *doneList[T]) recycle() {
	clear(l.items)
	l.items = l.items[:0]
	l.home.Put(l)
}
