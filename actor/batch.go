package actor

import "sync"

// The batch inbox lets a caller hand the owner a request without a
// channel operation, and the owner take every request waiting in one go.
// Its invariant:
//
//	every request put is in reqs, in the order put, until the owner
//	swaps reqs for its empty batch under the lock; once the owner has
//	said it is about to block (sleeping, under the lock), the next put
//	rings the bell.
//
// A put is a lock, an append and an unlock. It waits only while the inbox
// holds batchSize adds (othersSize other requests, if it is not an add),
// on room, a channel the owner closes when it takes them (and replaces,
// since a closed channel is spent), so the inbox never holds more than
// batchSize+othersSize requests plus one Add per filter entry. The owner's
// batch array is reused.
//
// Figure: see bench/RESULTS.md, "Fast paths".
type batchInbox[T comparable] struct {
	mu       sync.Mutex
	reqs     []request[T]
	adds     int // adds in reqs that waited for room: at most batchSize
	others   int // requests in reqs other than adds: at most batchSize
	sleeping bool
	bell     chan struct{} // capacity 1
	room     chan struct{} // closed when the owner takes the requests; nil until a put waits

	batch []request[T] // the owner's: the requests taken, served from next on
	next  int
	swaps uint64 // the owner's: counts the batches taken
}

// batchSize is how many adds a batch inbox holds before the next add
// waits, and othersSize how many other requests: more, so that consumers
// are seldom held up by their own Dones behind a flood of adds. Both
// bound the arrays a drained burst leaves behind.
const (
	batchSize  = 256
	othersSize = 1024
)

// busy is a closed channel: a select case that is always ready.
var busy = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func newBatchInbox[T comparable]() *batchInbox[T] {
	return &batchInbox[T]{bell: make(chan struct{}, 1)}
}

func (in *batchInbox[T]) put(r request[T], hot *hotEntry[T], done <-chan struct{}) bool {
	in.mu.Lock()
	switch {
	case hot.mark():
		// An Add that takes its item's sent flag: its place in the order
		// is here. It does not wait for room: an entry has at most one
		// such Add in the inbox, so they are bounded by the filter.
		r.hot = hot
	case r.op.adds():
		if !in.wait(&in.adds, batchSize, done) {
			return false
		}
	default:
		// The other requests wait for room of their own, so that a flood
		// of adds does not hold up the Dones that let consumers go on,
		// and a consumer that gets from the lane faster than the owner
		// applies its Dones is held back by them.
		if !in.wait(&in.others, othersSize, done) {
			return false
		}
	}
	in.reqs = append(in.reqs, r)
	ring := in.sleeping
	in.sleeping = false
	in.mu.Unlock()
	if ring {
		select {
		case in.bell <- struct{}{}:
		default:
		}
	}
	return true
}

// wait waits, with the lock held and held again on return, until *n, a
// count of requests in reqs, is below limit, and counts one more. It
// reports false if done was closed first (then without the lock).
func (in *batchInbox[T]) wait(n *int, limit int, done <-chan struct{}) bool {
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

// take returns the next request, which stays valid until the next take.
// A batch's array is cleared as a whole once it is served, so that the
// collector can have what its requests point to.
func (in *batchInbox[T]) take() (*request[T], bool) {
	if in.next == len(in.batch) {
		clear(in.batch)
		in.mu.Lock()
		in.batch, in.reqs = in.reqs, in.batch[:0]
		in.adds, in.others = 0, 0
		if in.room != nil {
			close(in.room)
			in.room = nil
		}
		in.mu.Unlock()
		in.next = 0
		if len(in.batch) == 0 {
			return nil, false
		}
		in.swaps++
	}
	in.next++
	return &in.batch[in.next-1], true
}

func (in *batchInbox[T]) len() int {
	in.mu.Lock()
	n := len(in.reqs)
	in.mu.Unlock()
	return n + len(in.batch) - in.next
}

func (in *batchInbox[T]) idle() <-chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.reqs) > 0 || in.next < len(in.batch) {
		return busy
	}
	in.sleeping = true
	return in.bell
}

func (in *batchInbox[T]) woke() {
	in.mu.Lock()
	in.sleeping = false
	in.mu.Unlock()
}
