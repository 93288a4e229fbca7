package actor

import (
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
)

// The callers' side of a queue: how a call reaches the owner goroutine
// (send, post), how it waits for the answer (ask, await), the pools of
// waiters and lists, and the checks made in the caller's goroutine (an
// item's hash, its fairness keys).
//
// When the owner goroutine ends (loop.go, exit), a little state is left:
// items still ready, and items processing that may come back at their
// Done (client-go hands those out after shutdown, and so do we). No goroutine
// keeps it: the owner puts itself into rest, a channel of one slot, and
// from then on each call that needs the state (Get, Done, Len,
// ShutDownWithDrain) takes it out, serves first whatever requests were
// still in the inbox, does its work and puts it back. The channel is the
// lock: one holder at a time, and a call waiting for its turn is blocked
// on a channel, which testing/synctest sees as durably blocked.

// withRest runs f with the state left after the owner goroutine ended,
// once the requests still in the inbox are applied. It must be called only
// after done is closed.
func (c *shared[T]) withRest(f func(o *owner[T])) {
	o := <-c.rest
	defer func() { c.rest <- o }()
	o.serveInbox(math.MaxInt)
	o.c.lane.see() // the claims made before the caller's call
	f(o)
	if o.settled != nil && !o.busy() {
		close(o.settled) // releases the ShutDownWithDrain calls made after the owner ended
		o.settled = nil
	}
}

// post hands r to the owner goroutine or, if it has ended, applies r to
// the state left behind (withRest). Only a full inbox makes it wait.
func (c *shared[T]) post(r request[T]) {
	if !c.send(r) {
		c.withRest(func(o *owner[T]) {
			rest := r                                  // a copy, so that r itself stays on the caller's stack
			rest.seq, rest.first = c.inbox.taken, true // after every request in the inbox, which withRest applied
			o.serve(&rest)
		})
	}
}

// send hands r to the owner goroutine. It reports false, without sending,
// if the owner has ended. Only a full inbox makes it wait.
//
// A request that lands in the inbox as the owner ends may find nobody to
// take it: the owner serves what it finds after closing done, so if done
// is closed after the send, the sender serves the inbox itself.
func (c *shared[T]) send(r request[T]) bool {
	if !c.inbox.put(r, c.done) {
		return false
	}
	select {
	case <-c.done:
		c.withRest(func(*owner[T]) {})
	default:
	}
	return true
}

// ask sends a waiter for up to cap(buf) items (a Get's one, if buf is nil)
// and returns it answered; back is a lane slot the Get gives back
// (slot.back), or 0.
// If cancel is closed first, it withdraws the waiter, which is then
// answered either as canceled or, if items were handed to it first, with
// them.
func (c *shared[T]) ask(buf []T, back int, cancel <-chan struct{}) *waiter[T] {
	w := c.newWaiter()
	w.items, w.back = buf, back
	if buf == nil {
		w.items, w.get = w.one[:0], true
	}
	c.post(request[T]{op: opGet, w: w, at: c.stamp(callInstant, 0)})
	if cancel == nil {
		<-w.reply // post saw to it that the request is served
		return w
	}
	select {
	case <-w.reply:
		return w
	case <-cancel:
		c.send(request[T]{op: opCancel, w: w, at: c.stamp(callInstant, 0)}) // if the owner has ended, it answered w
	case <-c.done:
	}
	c.await(w)
	return w
}

// await waits until the request that carried w has been answered, by the
// owner or, if it ended first, by whichever caller serves what was left in
// the inbox (withRest does, so await does it if nobody has).
func (c *shared[T]) await(w *waiter[T]) {
	select {
	case <-w.reply:
	case <-c.done:
		c.withRest(func(*owner[T]) {})
		<-w.reply
	}
}

// newWaiter returns a waiter from the pool.
func (c *shared[T]) newWaiter() *waiter[T] { return c.waiters.Get().(*waiter[T]) }

// recycle clears what a Get, GetBatch or Len set in an answered waiter
// (setKeyLimit and snapshotOf clear what they set), and returns it to the
// pool.
func (c *shared[T]) recycle(w *waiter[T]) {
	var zero T
	w.items, w.one[0], w.n, w.shutdown, w.canceled, w.get, w.back = nil, zero, 0, false, false, false, 0
	c.waiters.Put(w)
}

// newList returns an itemList from the pool.
func (c *shared[T]) newList() *itemList[T] { return c.lists.Get().(*itemList[T]) }

// keysOf returns item's fairness keys, computed in the caller's goroutine,
// or nil without fairness. Every item must have as many keys as the first
// one added (the keys are a path in a tree of one depth): if not, it
// panics, here in the caller and never in the owner goroutine.
func (c *shared[T]) keysOf(item T) []string {
	if c.fairness == nil {
		return nil
	}
	keys := c.fairness(item)
	n := int32(len(keys)) + 1
	if d := c.depth.Load(); d != n && (d != 0 || !c.depth.CompareAndSwap(0, n)) {
		if d = c.depth.Load(); d != n {
			panic(fmt.Sprintf("actor: Config.Fairness returned %d keys for item %v and %d for an item added before: it must return as many for every item", len(keys), item, d-1))
		}
	}
	return keys
}

// mustHash panics in the caller if an item cannot be a map key, so that
// the owner goroutine never does. It checks only if T can hold such a
// value (checkItems).
func (c *shared[T]) mustHash(items ...T) {
	if c.checkItems {
		c.hashAll(items)
	}
}

// hashAll is mustHash's check, out of line so that mustHash inlines.
func (c *shared[T]) hashAll(items []T) {
	for _, item := range items {
		func() {
			defer func() {
				if r := recover(); r != nil {
					panic(fmt.Sprintf("actor: item of type %T cannot be used as a map key: %v", item, r))
				}
			}()
			maphash.Comparable(c.seed, item)
		}()
	}
}

// mayHoldUnhashable reports whether a comparable type can hold a value that
// panics when hashed: an interface somewhere inside it.
func mayHoldUnhashable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return mayHoldUnhashable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHoldUnhashable(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
