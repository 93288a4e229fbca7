// Package delay holds the deadlines of a queue's delayed items: a map with
// each item's live deadline and a heap that finds the earliest. It is a
// plain data structure, used by one goroutine at a time; times are
// nanoseconds since the queue's epoch, given by the caller.
package delay

import "github.com/actorq/actorq/actor/internal/heap"

// Deadlines are the deadlines of the delayed items: a map with each item's
// live deadline, and a heap that finds the earliest. Entries are never
// removed from the middle of the heap: when an item's delay is superseded
// (an immediate Add, a shorter AddAfter, shutdown), its entry stays, and
// is recognised as stale when it surfaces, because the item's live
// deadline no longer has the entry's sequence number. This keeps the heap
// free of an index that every swap would have to update. Stale entries are
// counted and compacted away once they outnumber the live ones, so memory
// stays bounded by the live delayed items.
type Deadlines[T comparable] struct {
	heap      delayHeap[T]
	deadlines map[T]heap.Key // the key of each item's live heap entry
	peak      int            // the most deadlines since the map was made
	stale     int            // superseded entries still in the heap
}

// shrinkFloor is the map size below which the map of deadlines is never
// made anew: one that once held more is made anew when it empties, since
// Go maps never give memory back.
const shrinkFloor = 1024

// New returns an empty set of deadlines.
func New[T comparable]() Deadlines[T] {
	return Deadlines[T]{deadlines: make(map[T]heap.Key)}
}

// Len is the number of delayed items.
func (d *Deadlines[T]) Len() int { return len(d.deadlines) }

// All calls yield for each delayed item and its deadline, in no order.
func (d *Deadlines[T]) All(yield func(T, int64) bool) {
	for item, dl := range d.deadlines {
		if !yield(item, dl.At) {
			return
		}
	}
}

// Set gives an item that has no deadline the deadline at.
func (d *Deadlines[T]) Set(item T, at int64) {
	d.deadlines[item] = d.heap.push(item, at)
	d.peak = max(d.peak, len(d.deadlines))
}

// forget deletes item's deadline from the map, and makes the map anew if
// that empties it after a burst.
func (d *Deadlines[T]) forget(item T) {
	delete(d.deadlines, item)
	if len(d.deadlines) == 0 && d.peak >= shrinkFloor {
		d.deadlines, d.peak = make(map[T]heap.Key), 0
	}
}

// Shorten moves item's deadline to at if that is earlier: a delay can be
// shortened, never lengthened.
func (d *Deadlines[T]) Shorten(item T, at int64) {
	if at >= d.deadlines[item].At {
		return
	}
	d.stale++ // the later entry stays in the heap until it surfaces
	d.Set(item, at)
	d.compact()
}

// Cancel drops item's deadline.
func (d *Deadlines[T]) Cancel(item T) {
	d.forget(item)
	d.stale++
	d.compact()
}

// Next returns the earliest deadline in the heap. The entry may be stale;
// waking for it early is harmless.
func (d *Deadlines[T]) Next() (at int64, ok bool) {
	if d.heap.len() == 0 {
		return 0, false
	}
	return d.heap.top().At, true
}

// PopDue removes and returns an item whose deadline is at or before now,
// earliest first (for equal deadlines, the one delayed first).
func (d *Deadlines[T]) PopDue(now int64) (item T, at int64, ok bool) {
	for d.heap.len() > 0 && d.heap.top().At <= now {
		e := d.heap.pop()
		if !d.isLive(&e) {
			d.stale = max(d.stale-1, 0)
			continue
		}
		d.forget(e.Val)
		return e.Val, e.At, true
	}
	return item, 0, false
}

// Reset forgets every deadline.
func (d *Deadlines[T]) Reset() {
	d.heap = delayHeap[T]{}
	d.deadlines = make(map[T]heap.Key)
	d.peak, d.stale = 0, 0
}

// compact drops stale heap entries once they outnumber live ones.
func (d *Deadlines[T]) compact() {
	if d.stale <= 64 || d.stale <= len(d.deadlines) {
		return
	}
	d.heap.keep(d.isLive)
	d.stale = 0
}

// isLive reports whether heap entry e is its item's live deadline, rather
// than a superseded one.
func (d *Deadlines[T]) isLive(e *heap.Item[T]) bool {
	dl, ok := d.deadlines[e.Val]
	return ok && dl == e.Key
}

// delayHeap is a min-heap of items waiting on a deadline, keyed by
// deadline and, for equal deadlines, by a sequence number that grows with
// each push, so that items due at the same instant become ready in the
// order they were added. Superseded entries stay until they surface: see
// Deadlines.
type delayHeap[T comparable] struct {
	e   []heap.Item[T]
	seq uint64
}

func (h *delayHeap[T]) len() int { return len(h.e) }

// top returns the earliest entry. The heap must not be empty.
func (h *delayHeap[T]) top() *heap.Item[T] { return &h.e[0] }

// push adds an entry and returns its key, which Deadlines keeps to
// recognise the item's live entry.
func (h *delayHeap[T]) push(item T, at int64) heap.Key {
	h.seq++
	k := heap.Key{At: at, Seq: h.seq}
	heap.Push(&h.e, heap.Item[T]{Key: k, Val: item})
	return k
}

// pop removes the earliest entry. The heap must not be empty.
func (h *delayHeap[T]) pop() heap.Item[T] {
	e := heap.Pop(&h.e)
	if cap(h.e) > 64 && len(h.e) <= cap(h.e)/4 {
		h.e = append(make([]heap.Item[T], 0, cap(h.e)/2), h.e...)
	}
	return e
}

// keep keeps the entries for which keep returns true and restores the
// heap order, in O(n).
func (h *delayHeap[T]) keep(keep func(*heap.Item[T]) bool) {
	kept := make([]heap.Item[T], 0, max(len(h.e)/2, 8))
	for i := range h.e {
		if keep(&h.e[i]) {
			kept = append(kept, h.e[i])
		}
	}
	h.e = kept
	heap.Init(h.e)
}

// Earliest calls yield for the live delayed items in deadline order, the
// earliest first, up to n of them. It walks the heap best first, so it
// costs O(k log k) for the k entries it reaches (n, and the stale entries
// among them), not O(Len).
func (d *Deadlines[T]) Earliest(n int, yield func(item T, at int64)) {
	if n <= 0 {
		return
	}
	for i := range heap.Walk(d.heap.e) {
		if e := &d.heap.e[i]; d.isLive(e) {
			yield(e.Val, e.At)
			if n--; n == 0 {
				return
			}
		}
	}
}
