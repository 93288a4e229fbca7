package state

import (
	"cmp"
	"slices"
	"strings"

	"github.com/actorq/actorq/actor/internal/order"
)

// Snapshot is what a queue holds at one instant: its counts, and up to n
// items of each state (Queue.Snapshot).
type Snapshot[T comparable] struct {
	Phase Phase
	// Ready counts the items in the ready order and those popped (on
	// their way to a consumer); ByPrio breaks it down, highest first.
	Ready      int
	ByPrio     []PrioCount
	Processing int // items processing, AddedAgain among them
	AddedAgain int // items processing and added again (dirty)
	Delayed    int // items waiting on a deadline, processing or not

	ReadyItems      []ItemSnapshot[T] // popped first, then in the ready order
	ProcessingItems []ItemSnapshot[T] // the longest processing first
	DelayedItems    []ItemSnapshot[T] // the earliest deadline first

	// HeldKeys are keys whose ready items are held back: those waiting
	// for a token or the end of a pause (the earliest first), then those
	// at their caps on the paths of ReadyItems; n at most.
	HeldKeys []order.HeldKey

	// Adaptive are keys whose adaptive caps learnt something (a cap not
	// at its start, or a throttle), by path; n at most.
	Adaptive []order.LearntCap
}

// PrioCount is the number of ready items at one priority.
type PrioCount struct{ Prio, N int }

// ItemSnapshot is one item of a Snapshot.
type ItemSnapshot[T comparable] struct {
	Item   T
	Status Status
	Prio   int
	Keys   []string
	// Since is the instant the item became ready, or was handed out if it
	// is processing; Known is false where the queue keeps no instants
	// (a queue without Metrics) or has none for it.
	Since    int64
	Known    bool
	Deadline int64 // a delayed item's deadline
}

// Snapshot returns the counts and up to n items of each state (n < 0
// means 0). Ready items come first those popped, then in the FIFO order,
// or with priorities by priority, highest first, key by key in the order
// of the keys' turns (order.Prio.Items), and in each key oldest first. A
// queue with a caller's Storage lists none. Processing items come longest
// processing first, delayed items earliest deadline first. It costs
// O(n log n + p log p for the p items out of the order + priorities and
// keys on the way, each key with an item listed), never O(items ready or
// delayed) nor O(keys).
func (q *Queue[T]) Snapshot(n int) Snapshot[T] {
	n = max(n, 0)
	s := Snapshot[T]{
		Phase:      q.phase,
		Ready:      q.order.Len() + q.transit,
		Processing: q.nproc,
		AddedAgain: q.ndirty,
		Delayed:    q.delays.Len(),
	}
	var popped []ItemSnapshot[T]
	procs := q.snapBuf[:0]
	for item, e := range q.proc.all {
		switch st := e.status(); {
		case st == Popped:
			popped = append(popped, q.itemSnapshot(item, e))
		case st.processing():
			procs = append(procs, procRef[T]{q.sinceOf(item, e), item, e})
		}
	}
	slices.SortStableFunc(popped, func(a, b ItemSnapshot[T]) int { return cmp.Compare(a.Since, b.Since) })
	for _, p := range oldest(procs, n) {
		s.ProcessingItems = append(s.ProcessingItems, q.itemSnapshot(p.item, p.e))
	}
	clear(procs)
	q.snapBuf = procs[:0]
	s.ByPrio = q.countByPrio(popped)
	s.ReadyItems = popped[:min(n, len(popped))]
	q.readyItems(&s, n)
	q.heldKeys(&s, n)
	if q.fair {
		q.prio.Learnt(n, func(c order.LearntCap) { s.Adaptive = append(s.Adaptive, c) })
	}
	q.delays.Earliest(n, func(item T, at int64) {
		is := q.itemSnapshot(item, q.entryOf(item))
		is.Deadline = at
		s.DelayedItems = append(s.DelayedItems, is)
	})
	return s
}

// procRef is a processing item, as Snapshot picks the longest processing.
type procRef[T comparable] struct {
	since int64
	item  T
	e     entry
}

// oldest returns the n elements of refs with the least since, in order,
// sorting refs. The processing items are about as many as the consumers,
// so a sort of them all is cheap.
func oldest[T comparable](refs []procRef[T], n int) []procRef[T] {
	slices.SortFunc(refs, func(a, b procRef[T]) int { return cmp.Compare(a.since, b.since) })
	return refs[:min(n, len(refs))]
}

// sinceOf returns the instant item became ready or, processing, was
// handed out; 0 if the queue keeps no instants.
func (q *Queue[T]) sinceOf(item T, e entry) int64 {
	if q.m == nil {
		return 0
	}
	if e.status().processing() {
		return q.m.startTimes[item]
	}
	return q.m.addTimes[item]
}

// itemSnapshot returns what a Snapshot shows of item, whose entry is e.
func (q *Queue[T]) itemSnapshot(item T, e entry) ItemSnapshot[T] {
	is := ItemSnapshot[T]{Item: item, Status: e.status(), Prio: q.prioOf(item, e)}
	if id := e.key(); id != 0 {
		is.Keys = q.prio.Path(id)
	}
	if q.m != nil {
		times := q.m.addTimes
		if is.Status.processing() {
			times = q.m.startTimes
		}
		is.Since, is.Known = times[item]
	}
	return is
}

// countByPrio counts the ready items by priority: those in the order, and
// popped.
func (q *Queue[T]) countByPrio(popped []ItemSnapshot[T]) []PrioCount {
	var counts []PrioCount
	if q.prio != nil {
		q.prio.Counts(func(prio, n int) { counts = append(counts, PrioCount{prio, n}) })
	} else if q.order.Len() > 0 {
		counts = append(counts, PrioCount{0, q.order.Len()})
	}
	for _, p := range popped {
		i, found := slices.BinarySearchFunc(counts, p.Prio, func(c PrioCount, prio int) int { return cmp.Compare(prio, c.Prio) })
		if !found {
			counts = slices.Insert(counts, i, PrioCount{Prio: p.Prio})
		}
		counts[i].N++
	}
	return counts
}

// readyItems appends the items of the ready order to s.ReadyItems until
// it holds n.
func (q *Queue[T]) readyItems(s *Snapshot[T], n int) {
	want := func() bool { return len(s.ReadyItems) < n }
	switch {
	case !want():
	case q.fifo != nil:
		q.fifo.Items(n-len(s.ReadyItems), func(item T) {
			s.ReadyItems = append(s.ReadyItems, q.itemSnapshot(item, entry(Ready)))
		})
	case q.prio != nil:
		// The order yields stale entries too: an item is live at the
		// first entry of the priority its entry holds.
		seen := make(map[T]bool, n)
		q.prio.Items(func(item T, prio int) bool {
			e := q.entryOf(item)
			if e.status() == Ready && q.prioOf(item, e) == prio && !seen[item] {
				seen[item] = true
				s.ReadyItems = append(s.ReadyItems, q.itemSnapshot(item, e))
			}
			return want()
		})
	}
}

// heldKeys appends to s.HeldKeys, up to n, the keys that wait for a token
// or a pause's end, then those at their caps on the paths of the ready
// items listed.
func (q *Queue[T]) heldKeys(s *Snapshot[T], n int) {
	if !q.fair {
		return
	}
	q.prio.Waiting(n, func(h order.HeldKey) { s.HeldKeys = append(s.HeldKeys, h) })
	seen := make(map[string]bool)
	for _, it := range s.ReadyItems {
		e := q.entryOf(it.Item)
		q.prio.Capped(e.key(), func(path []string) {
			if k := strings.Join(path, "\x00"); len(s.HeldKeys) < n && !seen[k] {
				seen[k] = true
				s.HeldKeys = append(s.HeldKeys, order.HeldKey{Path: path, Why: "cap"})
			}
		})
	}
}
