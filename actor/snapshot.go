package actor

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorq/actorq/actor/internal/state"
)

// Snapshot is what a queue holds at one instant: how many items are in
// each state, and the first few items of each, as [Queue.Snapshot]
// returns them. It is a plain value: it prints with %v and encodes to
// JSON.
//
// Experimental: the snapshot's shape may change before v1 (README,
// "Stability").
type Snapshot[T comparable] struct {
	Name string `json:"name,omitempty"`
	// ID is the queue's number in the list of [NamedQueues]; 0 for an
	// unnamed queue.
	ID    uint64    `json:"id,omitempty"`
	Taken time.Time `json:"taken"` // the queue's clock when the owner answered
	// ShuttingDown is true once ShutDown or ShutDownWithDrain was called.
	ShuttingDown bool `json:"shuttingDown"`

	// Ready counts the items waiting to be handed out, those on their way
	// to a consumer among them; ReadyByPriority breaks it down, highest
	// priority first. [Queue.Len] is Ready, plus AddedAgain with
	// RequeueAtAdd.
	Ready           int             `json:"ready"`
	ReadyByPriority []PriorityCount `json:"readyByPriority,omitempty"`
	// Processing counts the items handed out and not yet Done, AddedAgain
	// among them: those added again while processing.
	Processing int `json:"processing"`
	AddedAgain int `json:"addedAgain"`
	// Delayed counts the items waiting on a delay (AddAfter,
	// AddRateLimited), processing or not.
	Delayed int `json:"delayed"`

	// The first items of each state, up to the n asked for. ReadyItems
	// come by priority, highest first, and within a priority oldest
	// first: without fairness, the order Get hands them out in. With
	// fairness, a priority's items come key by key in the order of the
	// keys' turns (the key whose turn is next first; by work time, the
	// least virtual time first), then the keys held back at their caps,
	// each key's oldest first: not the round-robin of the hand-out, which
	// takes one turn of each key in a row. A queue with a Storage lists
	// none. ProcessingItems
	// are the longest processing first, DelayedItems the earliest
	// deadline first.
	ReadyItems      []ItemInfo[T] `json:"readyItems"`
	ProcessingItems []ItemInfo[T] `json:"processingItems"`
	DelayedItems    []ItemInfo[T] `json:"delayedItems"`

	// HeldKeys are fairness keys whose ready items are held back, up to
	// the n asked for: those waiting for a token of their rate or the
	// end of a pause, the earliest first, then those at their caps on
	// the paths of ReadyItems.
	HeldKeys []HeldKey `json:"heldKeys,omitempty"`

	// AdaptiveKeys are fairness keys with adaptive caps ([AdaptiveCap])
	// that learnt something, by path, up to the n asked for: a cap not at
	// its start, or throttles reported since the queue began to remember
	// the key.
	AdaptiveKeys []AdaptiveKey `json:"adaptiveKeys,omitempty"`
}

// AdaptiveKey is a fairness key's adaptive cap, as learnt.
//
// Experimental: the snapshot's shape may change before v1.
type AdaptiveKey struct {
	Keys       []string `json:"keys"`
	Cap        int      `json:"cap"`        // the cap now
	Processing int      `json:"processing"` // the key's items processing
	Min        int      `json:"min"`
	Max        int      `json:"max"`
	Start      int      `json:"start"`
	// Throttles is the number reported for the key since the queue began
	// to remember it.
	Throttles uint64 `json:"throttles"`
	// LastDecrease is when the cap last fell; zero if it did not.
	LastDecrease time.Time `json:"lastDecrease,omitzero"`
}

// HeldKey is a fairness key whose ready items are held back, and why.
//
// Experimental: the snapshot's shape may change before v1.
type HeldKey struct {
	Keys []string `json:"keys"`
	// Why is "cap" (at its cap until one of its items is Done), "token"
	// (waiting for a token of its rate) or "pause" ([Queue.PauseKey]).
	Why string `json:"why"`
	// Until is when a key waiting for a token or a pause may go again;
	// zero for a key at its cap.
	Until time.Time `json:"until,omitzero"`
}

// PriorityCount is the number of ready items at one priority.
//
// Experimental: the snapshot's shape may change before v1.
type PriorityCount struct {
	Priority int `json:"priority"`
	Count    int `json:"count"`
}

// ItemInfo is one item of a [Snapshot].
//
// Experimental: the snapshot's shape may change before v1.
type ItemInfo[T comparable] struct {
	Item  T      `json:"item"`
	State string `json:"state"` // ready, processing, processing+dirty (added again), delayed, processing+delayed
	// Priority is the priority the item is ready at; for an item
	// processing, the one it was handed out at, or once it is added
	// again, the one it will be handed out at next.
	Priority int      `json:"priority"`
	Keys     []string `json:"keys,omitempty"` // its fairness keys
	// Age is how long the item has been ready (for a delayed item made
	// ready, since its deadline) or, if it is processing, since its
	// hand-out; 0 while it is delayed (see Deadline). A named queue keeps
	// the instants it needs; an unnamed one keeps none, and Age is 0. In
	// JSON it is in nanoseconds.
	Age time.Duration `json:"age"`
	// Requeues is the item's count in the queue's rate limiter
	// (NumRequeues), read in the caller's goroutine after the owner
	// answered.
	Requeues int `json:"requeues"`
	// Deadline is when a delayed item becomes ready; zero otherwise.
	Deadline time.Time `json:"deadline,omitzero"`
}

func (i ItemInfo[T]) String() string {
	s := fmt.Sprintf("{%v %s prio=%d keys=%v age=%v requeues=%d", i.Item, i.State, i.Priority, i.Keys, i.Age, i.Requeues)
	if !i.Deadline.IsZero() {
		s += " deadline=" + i.Deadline.Format(time.RFC3339Nano)
	}
	return s + "}"
}

// snapshotOf is Snapshot of the queue whose shared part is c, with each
// item as as gives it: itself, or an any for the registry. It turns the
// core's snapshot into the public one, asking the rate limiter for each
// item's requeues.
func snapshotOf[T, U comparable](c *shared[T], n int, as func(T) U) Snapshot[U] {
	w := c.newWaiter()
	w.snapN = max(n, 0)
	c.post(request[T]{op: opSnapshot, w: w, at: c.stamp(callInstant, 0)})
	c.await(w)
	s, at := w.snap, c.since()
	w.snap = state.Snapshot[T]{}
	c.recycle(w)
	out := Snapshot[U]{
		Name:         c.name,
		ID:           c.id,
		Taken:        c.epoch.Add(time.Duration(at)),
		ShuttingDown: c.phase.Load()&shutDownBits != 0,
		Ready:        s.Ready,
		Processing:   s.Processing,
		AddedAgain:   s.AddedAgain,
		Delayed:      s.Delayed,
	}
	for _, p := range s.ByPrio {
		out.ReadyByPriority = append(out.ReadyByPriority, PriorityCount{p.Prio, p.N})
	}
	infos := func(items []state.ItemSnapshot[T]) []ItemInfo[U] {
		infos := make([]ItemInfo[U], len(items))
		for i, it := range items {
			infos[i] = ItemInfo[U]{
				Item:     as(it.Item),
				State:    stateName(it.Status),
				Priority: it.Prio,
				Keys:     it.Keys,
				Requeues: c.limiter.NumRequeues(it.Item),
			}
			if it.Known {
				infos[i].Age = time.Duration(max(at-it.Since, 0))
			}
			if it.Status == state.Delayed || it.Status == state.ProcessingDelayed {
				infos[i].Deadline = c.epoch.Add(time.Duration(it.Deadline))
			}
		}
		return infos
	}
	out.ReadyItems, out.ProcessingItems, out.DelayedItems = infos(s.ReadyItems), infos(s.ProcessingItems), infos(s.DelayedItems)
	for _, h := range s.HeldKeys {
		hk := HeldKey{Keys: h.Path, Why: h.Why}
		if h.Why != "cap" {
			hk.Until = c.epoch.Add(time.Duration(h.At))
		}
		out.HeldKeys = append(out.HeldKeys, hk)
	}
	for _, a := range s.Adaptive {
		ak := AdaptiveKey{
			Keys: a.Path, Cap: a.Cap, Processing: a.Processing,
			Min: a.Min, Max: a.Max, Start: a.Start, Throttles: a.Throttles,
		}
		if a.HasCut {
			ak.LastDecrease = c.epoch.Add(time.Duration(a.LastCut))
		}
		out.AdaptiveKeys = append(out.AdaptiveKeys, ak)
	}
	return out
}

// The registry of named queues: every queue made with a Config.Name, from
// New until ShutDown or ShutDownWithDrain is called (or the runtime's
// cleanup of a Queue nobody holds). It holds the queues' shared parts,
// never the *Queue, so it keeps no queue from being collected; a dropped
// queue's cleanup takes it out.
var registry struct {
	sync.Mutex
	queues []namedQueue
}

var nextID atomic.Uint64

// namedQueue is what the registry keeps of a queue: its name, its
// registration number, and a snapshot of it with items as any.
type namedQueue struct {
	name     string
	id       uint64
	snapshot func(n int) Snapshot[any]
	bubbled  bool // made inside a testing/synctest bubble
}

// NamedQueue is a named queue of the process, as [NamedQueues] lists it.
// It does not keep the queue alive.
//
// Experimental: the snapshot's shape may change before v1.
type NamedQueue struct {
	Name string
	// ID tells apart queues of one name; it is never reused.
	ID uint64
	q  namedQueue
}

// Snapshot is [Queue.Snapshot] of the queue, with its items as any. It
// answers after the queue shut down too, from what is left.
func (nq NamedQueue) Snapshot(n int) Snapshot[any] { return nq.q.snapshot(n) }

// NamedQueues returns the queues of the process that have a
// [Config.Name] and have not been shut down, in the order they were made.
// A queue joins the list in [New] and leaves it when [Queue.ShutDown] or
// [Queue.ShutDownWithDrain] is called. It is safe for concurrent use; a
// debug page (package debug of the module github.com/actorq/actorq/debug)
// uses it to list the queues. Queues made inside a testing/synctest
// bubble are listed only to callers inside a bubble: a snapshot of one
// from outside its bubble would be a fatal error.
//
// Experimental: the snapshot's shape may change before v1.
func NamedQueues() []NamedQueue {
	bubbled := inBubble()
	registry.Lock()
	defer registry.Unlock()
	out := make([]NamedQueue, 0, len(registry.queues))
	for _, q := range registry.queues {
		if !q.bubbled || bubbled {
			out = append(out, NamedQueue{Name: q.name, ID: q.id, q: q})
		}
	}
	return out
}

// register adds c, the shared part of a queue named name, to the registry.
func (c *shared[T]) register(name string) {
	id := nextID.Add(1)
	c.name, c.id = name, id
	nq := namedQueue{name: name, id: id, bubbled: inBubble(), snapshot: func(n int) Snapshot[any] {
		return snapshotOf(c, n, func(item T) any { return item })
	}}
	registry.Lock()
	registry.queues = append(registry.queues, nq)
	registry.Unlock()
}

// unregister takes c out of the registry, if it is there.
func (c *shared[T]) unregister() {
	if c.id == 0 {
		return
	}
	registry.Lock()
	defer registry.Unlock()
	registry.queues = slices.DeleteFunc(registry.queues, func(q namedQueue) bool { return q.id == c.id })
}

// stateName is the name of an item's state in a snapshot: an item on its
// way to a consumer (popped) is still ready.
func stateName(st state.Status) string {
	if st == state.Popped {
		st = state.Ready
	}
	return st.String()
}
