package actor

import (
	"math"
	"sync"

	"github.com/actorq/actorq/actor/internal/state"
)

// Requests are how callers talk to the owner goroutine: values sent on its
// inbox, in each caller's order. Add, AddAfter, AddWithOpts, Done and
// DoneBatch are one-way; Len, GetBatch and Get (when it does not take an
// item from the lane, lane.go) send a waiter and wait for its answer.

// op is the kind of a request.
type op uint8

const (
	opAdd      op = iota // add item now, at priority prio
	opRetry              // AddAfter with d <= 0: count a retry, add item now
	opAddAt              // AddAfter: count a retry, add item at deadline due
	opAddList            // AddWithOpts: add each item of a list
	opDone               // Done of item
	opDones              // Done of each item of a list (DoneBatch)
	opLen                // answer w with the number of ready items
	opGet                // hand w up to cap(w.items) ready items, or wait
	opCancel             // withdraw w, if it is still waiting
	opLimit              // set the key limit w.limit, or pause its key until w.pause, and answer w
	opSnapshot           // answer w with a snapshot of up to w.snapN items of each state
	opThrottle           // a throttle of w.limit.Keys, or if none of the item w.one[0], with a pause until w.pause; answer w
)

// request is a message to the owner goroutine. The caller fills it in,
// but for its place in the order of calls, which the inbox gives it as
// the owner takes it; the owner applies it as one value (owner.r).
type request[T comparable] struct {
	op    op
	first bool  // the first of its inbox batch: every request of a batch was put before the batch was taken
	prio  int32 // opAdd: the priority
	item  T
	at    int64        // the instant of the call, if the queue reads it (callInstant, doneInstant), in nanoseconds since the epoch
	seq   uint64       // its place in the order of calls: the requests put before it
	due   int64        // opAddAt: the deadline, in nanoseconds since the epoch
	keys  []string     // with fairness, opAdd, opRetry, opAddAt: the item's keys
	list  *itemList[T] // opAddList, opDones
	w     *waiter[T]   // opLen, opGet, opCancel
	entry *entry[T]    // opAdd: the item's filter entry, whose sent flag this Add takes (inbox.put), or nil
}

// itemList is what AddWithOpts and DoneBatch send: a copy of the items,
// and for AddWithOpts what the caller computed for each (its deadline, if
// delayed, and its fairness keys) and the priority they share. Lists are
// reused: the owner returns each to the pool it came from.
type itemList[T comparable] struct {
	items []T
	due   []int64    // AddWithOpts: each item's deadline, or noDeadline
	keys  [][]string // with fairness: each item's keys
	prio  int
	home  *sync.Pool
}

// noDeadline marks an item of an itemList that is added at once.
const noDeadline = math.MinInt64

// recycle clears l, so that the collector can have what its items point
// to, and returns it to its pool with its arrays.
func (l *itemList[T]) recycle() {
	clear(l.items)
	clear(l.keys)
	l.items, l.due, l.keys, l.prio = l.items[:0], l.due[:0], l.keys[:0], 0
	l.home.Put(l)
}

// A waiter is a call that waits for the owner goroutine's answer: Len,
// GetBatch, and Get when it asks the owner. The caller sends it in a
// request and receives on reply; the owner (or, after it ended, the caller
// holding the state) answers exactly once. Waiters are reused, so a caller
// must take the answer before it returns its waiter to the pool.
type waiter[T comparable] struct {
	items    []T               // opGet: the items handed out, up to cap(items), all processing
	one      [1]T              // the buffer of a Get
	prio     int               // opGet: the priority of the first item
	get      bool              // opGet: a Get (it keeps the lane filled), not a GetBatch
	back     int               // opGet of a Get: a lane slot it gives back (slot.back), or 0
	n        int               // opLen: the answer
	shutdown bool              // opGet: nothing was ready and the queue is shutting down
	canceled bool              // opGet: withdrawn before any item was ready
	limit    state.KeyLimit    // opLimit: the limit to set
	pause    int64             // opLimit, opThrottle: noDeadline, or pause until this instant
	snapN    int               // opSnapshot: the items of each state asked for
	snap     state.Snapshot[T] // opSnapshot: the answer
	reply    chan struct{}     // answer sends on it, the caller receives
}

// answer wakes the caller. It never blocks: each waiter is answered once.
func (w *waiter[T]) answer() { w.reply <- struct{}{} }
