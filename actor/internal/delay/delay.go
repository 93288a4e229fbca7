// Package delay holds the deadlines of a queue's delayed items: a map with
// each item's live deadline and a heap that finds the earliest. It is a
// plain data structure, used by one goroutine at a time; times are
// nanoseconds since the queue's epoch, given by the caller.
package delay

// deadline is the live delay of an item: when it is due, in nanoseconds
// since the queue's epoch, and the sequence number of its heap entry.
type deadline struct {
	at  int64
	seq uint64
}

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
	deadlines map[T]deadline
	peak      int // the most deadlines since the map was made
	stale     int // superseded entries still in the heap
}

// shrinkFloor is the map size below which the map of deadlines is never
// made anew: one that once held more is made anew when it empties, since
// Go maps never give memory back.
const shrinkFloor = 1024

// New returns an empty set of deadlines.
func New[T comparable]() Deadlines[T] {
	return Deadlines[T]{deadlines: make(map[T]deadline)}
}

// Len is the number of delayed items.
func (d *Deadlines[T]) Len() int { return len(d.deadlines) }

// All calls yield for each delayed item and its deadline, in no order.
func (d *Deadlines[T]) All(yield func(T, int64) bool) {
	for item, dl := range d.deadlines {
		if !yield(item, dl.at) {
			return
		}
	}
}

// Set gives an item that has no deadline the deadline at.
func (d *Deadlines[T]) Set(item T, at int64) {
	d.deadlines[item] = deadline{at: at, seq: d.heap.push(item, at)}
	d.peak = max(d.peak, len(d.deadlines))
}

// forget deletes item's deadline from the map, and makes the map anew if
// that empties it after a burst.
func (d *Deadlines[T]) forget(item T) {
	delete(d.deadlines, item)
	if len(d.deadlines) == 0 && d.peak >= shrinkFloor {
		d.deadlines, d.peak = make(map[T]deadline), 0
	}
}

// Shorten moves item's deadline to at if that is earlier: a delay can be
// shortened, never lengthened.
func (d *Deadlines[T]) Shorten(item T, at int64) {
	if at >= d.deadlines[item].at {
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
	return d.heap.top().at, true
}

// PopDue removes and returns an item whose deadline is at or before now,
// earliest first (for equal deadlines, the one delayed first).
func (d *Deadlines[T]) PopDue(now int64) (item T, at int64, ok bool) {
	for d.heap.len() > 0 && d.heap.top().at <= now {
		e := d.heap.pop()
		if !d.isLive(&e) {
			d.stale = max(d.stale-1, 0)
			continue
		}
		d.forget(e.item)
		return e.item, e.at, true
	}
	return item, 0, false
}

// Reset forgets every deadline.
func (d *Deadlines[T]) Reset() {
	d.heap = delayHeap[T]{}
	d.deadlines = make(map[T]deadline)
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
func (d *Deadlines[T]) isLive(e *delayEntry[T]) bool {
	dl, ok := d.deadlines[e.item]
	return ok && dl.seq == e.seq
}

// delayHeap is a min-heap of items waiting on a deadline, ordered by
// deadline and, for equal deadlines, by arrival, so that items due at the
// same instant become ready in the order they were added.
// Superseded entries stay until they surface: see delays.
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

// push adds an entry and returns its sequence number, which delays keeps
// to recognise the item's live entry.
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

// keep keeps the entries for which keep returns true and restores the
// heap order, in O(n).
func (h *delayHeap[T]) keep(keep func(*delayEntry[T]) bool) {
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

// Earliest calls yield for the live delayed items in deadline order, the
// earliest first, up to n of them. It walks the heap best first, with a
// heap of its own of the entries it has reached, so it costs O(k log k)
// for the k entries it reaches (n, and the stale entries among them), not
// O(Len).
func (d *Deadlines[T]) Earliest(n int, yield func(item T, at int64)) {
	h := &d.heap
	if n <= 0 || h.len() == 0 {
		return
	}
	// frontier is a min-heap of indices into h.e, by h.less.
	frontier := []int{0}
	less := func(a, b int) bool { return h.less(frontier[a], frontier[b]) }
	for len(frontier) > 0 && n > 0 {
		i := frontier[0]
		last := len(frontier) - 1
		frontier[0] = frontier[last]
		frontier = frontier[:last]
		siftDown(len(frontier), 0, less, func(a, b int) { frontier[a], frontier[b] = frontier[b], frontier[a] })
		if e := &h.e[i]; d.isLive(e) {
			yield(e.item, e.at)
			n--
		}
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < h.len() {
				frontier = append(frontier, c)
				siftUp(len(frontier)-1, less, func(a, b int) { frontier[a], frontier[b] = frontier[b], frontier[a] })
			}
		}
	}
}

func siftUp(j int, less func(a, b int) bool, swap func(a, b int)) {
	for j > 0 {
		i := (j - 1) / 2
		if !less(j, i) {
			return
		}
		swap(i, j)
		j = i
	}
}

func siftDown(n, i int, less func(a, b int) bool, swap func(a, b int)) {
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && less(r, j) {
			j = r
		}
		if !less(j, i) {
			return
		}
		swap(i, j)
		i = j
	}
}
