package order

// Items calls yield for the entries of ready items, by priority, highest
// first; within a priority key by key, in the order of the keys' turns
// (the key whose turn is next first: by turns, the order of the round;
// by work time, the least virtual time first), then the keys held back
// at their caps; and within a key in sequence order; until yield returns
// false. Stale entries are among them: the caller tells them from the
// live ones (an item yielded twice, or at a priority it no longer has, is
// stale there). It costs O(e log e) for the e entries yielded and nodes
// on the way (each with a live entry), whatever the number of keys.
func (o *Prio[T]) Items(yield func(item T, prio int) bool) {
	for _, prio := range o.prios {
		if !o.items(&o.bands[prio].root, prio, yield) {
			return
		}
	}
}

func (o *Prio[T]) items(x *node[T], prio int, yield func(T, int) bool) bool {
	o.visits++
	if x.n == 0 {
		return true
	}
	if !x.inner {
		return x.leafItems(prio, yield)
	}
	k := x.kids
	if o.byWork {
		w := heapWalk{n: len(k.heap), arity: arity, less: func(i, j int) bool { return k.heap[i].before(&k.heap[j]) }}
		for i, ok := w.next(); ok; i, ok = w.next() {
			if !o.items(k.heap[i].x, prio, yield) {
				return false
			}
		}
	}
	for _, l := range []*list[T]{&k.turns, &k.held} {
		for c := l.first; c != nil; c = c.next {
			if !o.items(c, prio, yield) {
				return false
			}
		}
	}
	return true
}

// leafItems yields a leaf's entries in sequence order: its ring, merged
// with its late heap.
func (x *node[T]) leafItems(prio int, yield func(T, int) bool) bool {
	var heap []entry[T]
	if x.late != nil {
		heap = *x.late
	}
	late := heapWalk{n: len(heap), arity: 2, less: func(i, j int) bool { return heap[i].seq < heap[j].seq }}
	j, more := late.next()
	for i := 0; i < x.fifo.len() || more; {
		var e entry[T]
		if !more || i < x.fifo.len() && x.fifo.at(i).seq < heap[j].seq {
			e = x.fifo.at(i)
			i++
		} else {
			e = heap[j]
			j, more = late.next()
		}
		if !yield(e.item, prio) {
			return false
		}
	}
	return true
}

// heapWalk yields the indices of a heap of n elements (ordered by less,
// with arity children a node) in order, without changing it: a heap of
// the indices that may come next, from the root down, so that k indices
// cost O(k log k).
type heapWalk struct {
	n, arity int
	less     func(i, j int) bool
	open     []int // a min-heap of the indices that may come next, by less
	done     bool  // the root went in
}

func (w *heapWalk) next() (int, bool) {
	if !w.done {
		w.done = true
		if w.n > 0 {
			w.open = append(w.open, 0)
		}
	}
	if len(w.open) == 0 {
		return 0, false
	}
	h := w.open
	i := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	w.siftDown(h)
	for c := w.arity*i + 1; c <= w.arity*i+w.arity && c < w.n; c++ {
		h = append(h, c)
		w.siftUp(h)
	}
	w.open = h
	return i, true
}

func (w *heapWalk) siftUp(h []int) {
	for j := len(h) - 1; j > 0; {
		i := (j - 1) / 2
		if !w.less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (w *heapWalk) siftDown(h []int) {
	for i := 0; ; {
		j := 2*i + 1
		if j >= len(h) {
			return
		}
		if r := j + 1; r < len(h) && w.less(h[r], h[j]) {
			j = r
		}
		if !w.less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
