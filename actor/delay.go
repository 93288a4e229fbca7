package actor

// delayHeap is a min-heap of items waiting on a deadline, ordered by
// deadline and, for equal deadlines, by arrival, so that items due at the
// same instant become ready in the order they were added.
//
// Entries are never removed from the middle. When an item's delay is
// superseded (an immediate Add, or a shorter AddAfter), the old entry stays
// and is recognised as stale when it surfaces: the item's live delay no
// longer has this entry's sequence number. This keeps the heap free of an index map
// that every swap would have to update. The state counts stale entries and
// compacts the heap when they outnumber the live ones, so memory stays
// bounded by the live delayed items.
type delayHeap[T comparable] struct {
	e   []delayEntry[T]
	seq uint64
}

type delayEntry[T comparable] struct {
	at   int64 // deadline, in nanoseconds since the queue's epoch
	seq  uint64
	item T
}

func (h *delayHeap[T]) len() int { return len(h.e) }

// top returns the earliest entry. The heap must not be empty.
func (h *delayHeap[T]) top() *delayEntry[T] { return &h.e[0] }

func (h *delayHeap[T]) less(i, j int) bool {
	a, b := &h.e[i], &h.e[j]
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// push adds an entry and returns its sequence number, which the state
// keeps to recognise the item's live entry.
func (h *delayHeap[T]) push(item T, at int64) uint64 {
	h.seq++
	h.e = append(h.e, delayEntry[T]{at: at, seq: h.seq, item: item})
	h.up(len(h.e) - 1)
	return h.seq
}

// pop removes the earliest entry. The heap must not be empty.
func (h *delayHeap[T]) pop() delayEntry[T] {
	e := h.e[0]
	last := len(h.e) - 1
	h.e[0] = h.e[last]
	h.e[last] = delayEntry[T]{}
	h.e = h.e[:last]
	if last > 0 {
		h.down(0)
	}
	if cap(h.e) > 64 && len(h.e) <= cap(h.e)/4 {
		h.e = append(make([]delayEntry[T], 0, cap(h.e)/2), h.e...)
	}
	return e
}

// filter keeps the entries for which keep returns true and restores the
// heap order, in O(n).
func (h *delayHeap[T]) filter(keep func(*delayEntry[T]) bool) {
	kept := make([]delayEntry[T], 0, max(len(h.e)/2, 8))
	for i := range h.e {
		if keep(&h.e[i]) {
			kept = append(kept, h.e[i])
		}
	}
	h.e = kept
	for i := len(h.e)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *delayHeap[T]) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h.e[i], h.e[j] = h.e[j], h.e[i]
		j = i
	}
}

func (h *delayHeap[T]) down(i int) {
	n := len(h.e)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && h.less(r, j) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h.e[i], h.e[j] = h.e[j], h.e[i]
		i = j
	}
}
