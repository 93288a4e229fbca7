// Package heap holds the sift of the core's min-heaps, and a walk that
// yields a heap's items in order without changing it. A heap is a slice
// of Items, ordered by their Keys: a 4-ary heap, as the Go runtime's
// timers are, half as deep as a binary one, a node's children side by
// side in memory.
//
// The items a sift moves are those on the path between where the item
// sifted started and where it comes to rest, which Up, Down and Fix
// return: a heap whose items must know their index (to fix or remove one
// from the middle) tells them along that path, with Parent.
package heap

import "iter"

// arity is the number of children of a node. Pops ask more comparisons
// of a level than a binary heap, fewer levels, and fewer cache lines.
const arity = 4

// Key orders the items of a heap: the lower At first, then the lower Seq.
type Key struct {
	At  int64
	Seq uint64
}

// Item is an element of a heap: its key, and the value it orders.
type Item[V any] struct {
	Key
	Val V
}

// Parent returns the index of the parent of the item at index i > 0.
func Parent(i int) int { return (i - 1) / arity }

// Up moves h[j] towards the root, to its place, and returns where it
// comes to rest. The items that moved are on the path between the two
// indices, one level down each.
func Up[V any](h []Item[V], j int) int {
	it := h[j]
	for j > 0 {
		i := (j - 1) / arity
		if k, l := &it.Key, &h[i].Key; !(k.At < l.At || k.At == l.At && k.Seq < l.Seq) {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = it
	return j
}

// Down moves h[i] towards the leaves, to its place, and returns where it
// comes to rest. The items that moved are on the path between the two
// indices, one level up each.
func Down[V any](h []Item[V], i int) int {
	it := h[i]
	for {
		first := arity*i + 1
		if first >= len(h) {
			break
		}
		j, end := first, min(first+arity, len(h))
		for c := first + 1; c < end; c++ {
			if k, l := &h[c].Key, &h[j].Key; k.At < l.At || k.At == l.At && k.Seq < l.Seq {
				j = c
			}
		}
		if k, l := &h[j].Key, &it.Key; !(k.At < l.At || k.At == l.At && k.Seq < l.Seq) {
			break
		}
		h[i] = h[j]
		i = j
	}
	h[i] = it
	return i
}

// Fix moves h[i] to its place after its key changed, and returns where
// it comes to rest, as Up and Down do.
func Fix[V any](h []Item[V], i int) int {
	if j := Down(h, i); j != i {
		return j
	}
	return Up(h, i)
}

// Push adds it to the heap h.
func Push[V any](h *[]Item[V], it Item[V]) {
	*h = append(*h, it)
	Up(*h, len(*h)-1)
}

// Pop removes the least item of the heap h, which must not be empty, and
// returns it.
func Pop[V any](h *[]Item[V]) Item[V] {
	s := *h
	it, last := s[0], len(s)-1
	s[0] = s[last]
	s[last] = Item[V]{}
	s = s[:last]
	if last > 0 {
		Down(s, 0)
	}
	*h = s
	return it
}

// Init orders h as a heap, in O(len(h)).
func Init[V any](h []Item[V]) {
	for i := (len(h) - 2) / arity; i >= 0 && len(h) > 1; i-- {
		Down(h, i)
	}
}

// Walk yields the indices of the heap h's items in order, the least
// first, without changing h: best first, with a heap of its own of the
// indices that may come next, from the root down, so that the first k
// cost O(k log k), whatever len(h).
func Walk[V any](h []Item[V]) iter.Seq[int] {
	return func(yield func(int) bool) {
		if len(h) == 0 {
			return
		}
		next := []Item[int]{{Key: h[0].Key, Val: 0}}
		for len(next) > 0 {
			i := Pop(&next).Val
			if !yield(i) {
				return
			}
			for c := arity*i + 1; c < min(arity*i+1+arity, len(h)); c++ {
				Push(&next, Item[int]{Key: h[c].Key, Val: c})
			}
		}
	}
}
