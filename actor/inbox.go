package actor

import (
	"sync"
	"sync/atomic"
)

// inbox carries the callers' requests to the owner goroutine, in one
// order: every request of a caller after its earlier ones, so a caller's
// calls take effect in the order it made them, whatever their kind. A put
// is a lock, an append and an unlock; the owner takes every request
// waiting in one go. Its invariant:
//
//	every request put is in reqs, in the order put, until the owner
//	swaps reqs for its empty batch under the lock; once the owner has
//	said it is about to block (sleeping, under the lock), the next put
//	rings the bell.
//
// A put waits only while the inbox holds addsSize adds (othersSize other
// requests, if it is not an add), on room, a channel the owner closes when
// it takes them (and replaces, since a closed channel is spent), so the
// inbox never holds more than addsSize+othersSize requests plus one Add
// per filter entry. The owner's batch array is reused. Only the owner
// takes requests (or, after the owner ended, the caller holding the
// state).
type inbox[T comparable] struct {
	mu       sync.Mutex
	reqs     []request[T]
	adds     int // adds in reqs that waited for room: at most addsSize
	others   int // requests in reqs other than adds: at most othersSize
	sleeping bool
	bell     chan struct{} // capacity 1
	room     chan struct{} // closed when the owner takes the requests; nil until a put waits

	batch []request[T] // the owner's: the requests taken, served from next on
	next  int

	// puts counts the requests put, taken the requests taken (the
	// owner's): a request's place in the order of requests is the puts
	// before it, which is taken as take returns it.
	puts  atomic.Uint64
	taken uint64
}

// addsSize is how many adds an inbox holds before the next add waits, and
// othersSize how many other requests: more, so that consumers are seldom
// held up by their own Dones behind a flood of adds. Both bound the arrays
// a drained burst leaves behind. roundSize bounds the requests the owner
// serves in one round, so that consumers and due timers are served between
// rounds however long the flood.
const (
	addsSize   = 256
	othersSize = 1024
	roundSize  = 64
)

// ringing is a closed channel: a bell that always rings.
var ringing = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// put sends r, waiting only while the inbox is full. It reports false,
// without sending, if done is closed first. An Add's filter entry, if it
// has one, gets its sent flag here, under the lock (filter.go).
func (in *inbox[T]) put(r request[T], done <-chan struct{}) bool {
	in.mu.Lock()
	switch {
	case r.entry != nil && r.entry.markSent():
		// An Add that takes its item's sent flag, under the lock: its
		// place in the order is here. It does not wait for room: an
		// entry has at most one such Add in the inbox, so they are
		// bounded by the filter.
	case r.op <= opAddList: // an add of any kind
		r.entry = nil // the flag was taken: the Add it marks is in the inbox
		if !in.reserve(&in.adds, addsSize, done) {
			return false
		}
	default:
		// The other requests wait for room of their own, so that a flood
		// of adds does not hold up the Dones that let consumers go on,
		// and a consumer that gets from the lane faster than the owner
		// applies its Dones is held back by them.
		if !in.reserve(&in.others, othersSize, done) {
			return false
		}
	}
	in.reqs = append(in.reqs, r)
	in.puts.Add(1)
	ring := in.sleeping
	in.sleeping = false
	in.mu.Unlock()
	if ring {
		in.wake()
	}
	return true
}

// wake rings the bell, unless a ring is already pending, so that the
// owner looks at what changed: a request, a flag of shared, or a claim
// to record.
func (in *inbox[T]) wake() {
	select {
	case in.bell <- struct{}{}:
	default:
	}
}

// reserve waits, with the lock held and held again on return, until *n,
// a count of requests in reqs, is below limit, and counts one more. It
// reports false if done was closed first (then without the lock).
func (in *inbox[T]) reserve(n *int, limit int, done <-chan struct{}) bool {
	for *n >= limit {
		if in.room == nil {
			in.room = make(chan struct{})
		}
		room := in.room
		in.mu.Unlock()
		select {
		case <-room:
		case <-done:
			return false
		}
		in.mu.Lock()
	}
	*n++
	return true
}

// take returns the next request, if one is there, without waiting, with
// its place in the order of requests (seq) and whether it is the first of
// a batch (first) filled in. The request stays valid until the next take,
// or until idle. A batch's
// array is cleared as a whole once it is served (at the next take, or as
// the owner goes to sleep: idle), so that the collector can have what its
// requests point to.
func (in *inbox[T]) take() *request[T] {
	first := in.next == len(in.batch)
	if first {
		clear(in.batch)
		in.mu.Lock()
		in.batch, in.reqs = in.reqs, in.batch[:0]
		in.adds, in.others = 0, 0
		in.sleeping = false // awake: the owner serves what it took before it sleeps again
		if in.room != nil {
			close(in.room)
			in.room = nil
		}
		in.mu.Unlock()
		in.next = 0
		if len(in.batch) == 0 {
			return nil
		}
	}
	r := &in.batch[in.next]
	r.seq, r.first = in.taken, first
	in.next++
	in.taken++
	return r
}

// len returns how many requests are there now.
func (in *inbox[T]) len() int {
	in.mu.Lock()
	n := len(in.reqs)
	in.mu.Unlock()
	return n + len(in.batch) - in.next
}

// quiet reports whether no request is there now.
func (in *inbox[T]) quiet() bool { return in.len() == 0 }

// idle returns what the owner's select waits on once it has served what
// it took: a bell that rings once requests arrived (then the owner takes
// them), or a closed channel if some are there already. A batch served to
// its end is cleared first: a round can end on a batch's last request
// (roundSize of them) without a take after it, and the owner must not
// sleep on requests that keep their items. The next take, which starts
// every round, marks the owner awake again: until then a put rings the
// bell once more, which at worst wakes the owner for nothing.
func (in *inbox[T]) idle() <-chan struct{} {
	if in.next == len(in.batch) && in.next > 0 {
		clear(in.batch)
		in.batch, in.next = in.batch[:0], 0
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.reqs) > 0 || in.next < len(in.batch) {
		return ringing
	}
	in.sleeping = true
	return in.bell
}
