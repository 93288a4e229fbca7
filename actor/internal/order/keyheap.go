package order

import "github.com/actorq/actorq/actor/internal/heap"

// keyHeap is a heap of keys by instant in which each key knows its place,
// so that a key is moved or taken out in O(log n), without a search: the
// heap of wakes (keys whose buckets are not full, or that wait: rate.go)
// and the heap of window ends (adaptive.go). Its invariant:
//
//	*place(items[i].Val) == i+1 for every i, and 0 for a key not in it.
type keyHeap[T comparable] struct {
	items []heap.Item[*flow[T]]
	place func(f *flow[T]) *int32 // where a key keeps its place in this heap
}

// set puts f in the heap at k, or moves it there.
func (h *keyHeap[T]) set(f *flow[T], k heap.Key) {
	p := h.place(f)
	if *p == 0 {
		h.items = append(h.items, heap.Item[*flow[T]]{Key: k, Val: f})
		*p = int32(len(h.items))
		h.placed(len(h.items)-1, heap.Up(h.items, len(h.items)-1))
		return
	}
	if i := int(*p - 1); h.items[i].Key != k {
		h.items[i].Key = k
		h.placed(i, heap.Fix(h.items, i))
	}
}

// remove takes f, which is in the heap, out of it.
func (h *keyHeap[T]) remove(f *flow[T]) {
	p := h.place(f)
	i, last := int(*p-1), len(h.items)-1
	h.items[i] = h.items[last]
	h.items[last] = heap.Item[*flow[T]]{}
	h.items = h.items[:last]
	*p = 0
	if i < last {
		*h.place(h.items[i].Val) = int32(i + 1)
		h.placed(i, heap.Fix(h.items, i))
	}
	if len(h.items) == 0 && cap(h.items) > shrinkFloor {
		h.items = nil
	}
}

// placed tells the keys on the path between indices i and j, which a
// sift moved, where they are.
func (h *keyHeap[T]) placed(i, j int) {
	lo, hi := min(i, j), max(i, j)
	for {
		*h.place(h.items[hi].Val) = int32(hi + 1)
		if hi == lo {
			return
		}
		hi = heap.Parent(hi)
	}
}

// due reports whether the heap's earliest key is due by now, and returns
// it and its instant.
func (h *keyHeap[T]) due(now int64) (f *flow[T], at int64, ok bool) {
	if len(h.items) == 0 || h.items[0].At > now {
		return nil, 0, false
	}
	return h.items[0].Val, h.items[0].At, true
}
