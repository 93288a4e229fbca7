package actor

import (
	"slices"

	"github.com/actorq/actorq/actor/internal/state"
)

// serve applies r, numbered by the inbox (or, after the owner ended, by
// its caller), to the state: r is the event in hand (owner.r) until it
// returns; then the owner's own event is (own). The owner goroutine calls
// it, and so do callers for requests still in the inbox after the owner
// ended.
func (o *owner[T]) serve(r *request[T]) {
	o.r = r
	o.c.lane.before(r)
	switch r.op {
	case opAdd:
		o.add(r.item, state.Opts{Prio: int(r.prio), Keys: r.keys})
	case opRetry:
		o.add(r.item, state.Opts{Keys: r.keys, Retry: true})
	case opAddAt:
		o.addAt(r.item, r.due, state.Opts{Keys: r.keys, Retry: true})
	case opAddList:
		o.addList(r.list)
		r.list.recycle()
	case opDone:
		o.done(r.item)
	case opDones:
		for _, item := range r.list.items {
			o.done(item)
		}
		r.list.recycle()
	case opLen:
		o.serveDue()
		r.w.n = o.q.Len()
		r.w.answer()
	case opGet:
		o.get(r.w)
	case opCancel:
		o.cancel(r.w)
	case opLimit:
		o.c.lane.recall() // popped items count against the caps
		if now := o.c.since(); r.w.pause == noDeadline {
			o.q.SetLimit(r.w.limit, now)
		} else {
			o.q.Pause(r.w.limit.Keys, r.w.pause, now)
		}
		o.c.rated.Store(o.q.Rated())
		r.w.answer()
	case opSnapshot:
		o.snapshot(r.w)
	}
	o.own()
}

// own makes the owner's own event the event in hand, once a request is
// applied: it comes after every request taken, and has the instant of the
// last one (the event that made items ready for the calls waiting), until
// a due item dates it again. The request itself is not kept: the inbox
// reuses it.
func (o *owner[T]) own() {
	o.round.at, o.round.seq = o.r.at, o.c.inbox.taken
	o.r = &o.round
}

// get serves a Get or GetBatch: w waits for items, behind the calls
// already waiting.
func (o *owner[T]) get(w *waiter[T]) {
	o.serveDue() // an item due now is ready for this call
	if item, prio, ok := o.c.lane.asked(o.r, len(o.waiting)); ok {
		w.items, w.prio = append(w.items, item), prio // what the lane offers goes first
		w.answer()
		return
	}
	o.waiting = append(o.waiting, w)
	o.serveWaiters()
}

// snapshot answers w with a snapshot of the state. The lane's unclaimed
// items go back to the order first, so that the snapshot lists them in
// their place whichever transport is on; the lane offers them again after.
func (o *owner[T]) snapshot(w *waiter[T]) {
	o.c.lane.recall()
	o.serveDue() // an item due now is ready, as a Len would see it
	w.snap = o.q.Snapshot(w.snapN)
	w.answer()
}

// addList applies an AddWithOpts: each item at the list's priority, now or
// at its deadline. Like controller-runtime's, it counts a retry for each
// item delayed.
func (o *owner[T]) addList(l *itemList[T]) {
	for i, item := range l.items {
		opts := state.Opts{Prio: l.prio}
		if l.keys != nil {
			opts.Keys = l.keys[i]
		}
		if due := l.due[i]; due != noDeadline {
			opts.Retry = true
			o.addAt(item, due, opts)
		} else {
			o.add(item, opts)
		}
	}
}

// add, addAt and done apply an event of item to the state, at the
// instant and the place of the request in hand, and keep the filter in
// step with it. The filter may have an add applied again, once, after a
// claim of its item (filter.added).
func (o *owner[T]) add(item T, opts state.Opts) {
	opts.Seq = o.r.seq
	for again := true; again; {
		was := o.q.Add(item, opts, o.r.at)
		opts, again = o.c.filter.added(item, o.r.entry, opts, was)
	}
}

func (o *owner[T]) addAt(item T, due int64, opts state.Opts) {
	opts.Seq = o.r.seq
	o.q.AddAt(item, due, opts, o.r.at)
	o.c.filter.added(item, nil, opts, state.Absent)
}

func (o *owner[T]) done(item T) {
	o.q.Done(item, o.r.at, o.r.seq)
	o.c.filter.follow(item)
}

// serveWaiters hands ready items to the waiting calls, oldest call first,
// each as many as it asked for, at the instant of the event being
// applied. Once shutdown has begun, a call that finds nothing ready is
// answered at once with shutdown: it never waits for a drain to finish.
func (o *owner[T]) serveWaiters() {
	served := 0
	at, dated := int64(0), false
	for _, w := range o.waiting {
		for len(w.items) < cap(w.items) {
			if !dated { // once per call, and only if it hands out
				at, dated = o.c.stamp(handOutInstant, o.r.at), true
			}
			item, p, ok := o.q.HandOut(at, o.r.seq)
			if !ok {
				break
			}
			o.c.filter.follow(item)
			if len(w.items) == 0 {
				w.prio = p.Prio
			}
			w.items = append(w.items, item)
		}
		if len(w.items) == 0 {
			if o.q.Phase() == state.Running {
				break
			}
			w.shutdown = true
		}
		served++
		w.answer()
	}
	if served > 0 { // keep the array: no allocation per call
		rest := copy(o.waiting, o.waiting[served:])
		clear(o.waiting[rest:])
		o.waiting = o.waiting[:rest]
	}
}

// cancel withdraws w if it is still waiting, and answers it as canceled.
// A waiter already answered is left alone: its caller takes the items.
func (o *owner[T]) cancel(w *waiter[T]) {
	i := slices.Index(o.waiting, w)
	if i < 0 {
		return
	}
	o.waiting = slices.Delete(o.waiting, i, i+1)
	w.canceled = true
	w.answer()
}
