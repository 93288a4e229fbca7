package actor

import "slices"

// A waiter is a call that waits for the owner goroutine's answer: Len, and
// Get or GetBatch when they ask the owner for items (GetBatch always; Get
// when the lane is off, or when it gives back a lane slot it may not claim). The caller sends it in a request and receives on
// ready; the owner (or, after it ended, the caller holding the state)
// answers exactly once. Waiters are reused, so a caller must take the
// answer before it returns its waiter to the pool.
type waiter[T comparable] struct {
	items    []T      // opGet: the items handed out, up to cap(items), all processing
	one      [1]T     // the buffer of a Get
	prio     int      // opGet: the priority of the first item
	slot     *slot[T] // opGet of a Get: a lane slot it gives back (lane.go), until the owner takes it
	n        int      // opLen: the answer
	shutdown bool     // opGet: nothing was ready and the queue is shutting down
	canceled bool     // opGet: withdrawn before any item was ready
	ready    chan struct{}
}

func newWaiter[T comparable]() *waiter[T] { return &waiter[T]{ready: make(chan struct{}, 1)} }

// answer wakes the caller. It never blocks: each waiter is answered once.
func (w *waiter[T]) answer() { w.ready <- struct{}{} }

// serveWaiters hands ready items to the waiting calls, oldest call first,
// each as many as it asked for, and returns how many it handed out, at
// the instant of the event being applied (see metrics.at). Once
// shutdown has begun, a call that finds nothing ready is answered at once
// with shutdown: it never waits for a drain to finish.
func (s *state[T]) serveWaiters() int {
	if len(s.waiting) == 0 {
		return 0
	}
	// A slot a Get holds, about to give it back, holds an item that may go
	// before what is ready here: wait for it (the owner does not block
	// meanwhile). Not once shutdown has begun, when every call must be
	// answered: a Get may then pass over such an item.
	if s.heldWait = s.phase == running && s.held(); s.heldWait {
		return 0
	}
	s.unstage() // the staged item is the oldest ready one
	n, served := 0, 0
	for _, w := range s.waiting {
		for len(w.items) < cap(w.items) {
			item, e, _, ok := s.next()
			if !ok {
				break
			}
			if len(w.items) == 0 {
				w.prio = s.prioOf(item, e)
			}
			s.start(item, e)
			w.items = append(w.items, item)
			n++
		}
		if len(w.items) == 0 {
			if s.phase == running {
				break
			}
			w.shutdown = true
		}
		served++
		w.answer()
	}
	if served > 0 { // keep the array: no allocation per call
		rest := copy(s.waiting, s.waiting[served:])
		clear(s.waiting[rest:])
		s.waiting = s.waiting[:rest]
	}
	return n
}

// cancel withdraws w if it is still waiting, and answers it as canceled.
// A waiter already answered is left alone: its caller takes the items.
func (s *state[T]) cancel(w *waiter[T]) {
	i := slices.Index(s.waiting, w)
	if i < 0 {
		return
	}
	s.waiting = slices.Delete(s.waiting, i, i+1)
	w.canceled = true
	w.answer()
}
