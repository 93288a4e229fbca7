package order

import (
	"fmt"
	"math/bits"
	"testing"
)

// keyPaths returns the paths of a keys, at one level or two (about √a
// first-level keys of about √a keys each).
func keyPaths(a, levels int) [][]string {
	paths := make([][]string, a)
	width := 1
	for width*width < a {
		width++
	}
	for i := range paths {
		if levels == 1 {
			paths[i] = []string{fmt.Sprint("k", i)}
		} else {
			paths[i] = []string{fmt.Sprint("t", i%width), fmt.Sprint("k", i)}
		}
	}
	return paths
}

// scaled is an order with a keys ready, two items each, every fifth key
// with a cap of one item out, driven as a consumer drives it: each step
// pops an item, finishes it after a work time that depends on its key,
// and pushes it back.
type scaled struct {
	o     *Prio[int]
	paths [][]string
	keys  []uint32 // by item: the key id it holds
	seq   uint64
	now   int64
}

func newScaled(a, levels int, byWork bool) *scaled {
	s := &scaled{o: NewPrio[int](0), paths: keyPaths(a, levels)}
	s.o.UseFlows(byWork)
	for i, path := range s.paths {
		if i%5 == 0 {
			s.o.SetLimit(path, Limit{Cap: 1})
		}
	}
	for item := range 2 * a {
		s.keys = append(s.keys, s.o.Hold(s.paths[item%a]))
		s.push(item)
	}
	return s
}

func (s *scaled) push(item int) {
	s.seq++
	s.o.Push(item, Place{Seq: s.seq, Key: s.keys[item]})
}

// step pops, finishes and pushes back one item.
func (s *scaled) step() {
	item, p := s.o.Pop(s.now)
	s.now++
	s.o.Finish(p.Key, work(item))
	s.push(item)
}

// events are the three events of a step, one by one.
func (s *scaled) events() []struct {
	name string
	do   func()
} {
	var item int
	var p Place
	return []struct {
		name string
		do   func()
	}{
		{"pop", func() { item, p = s.o.Pop(s.now); s.now++ }},
		{"finish", func() { s.o.Finish(p.Key, work(item)) }},
		{"push", func() { s.push(item) }},
	}
}

// work is the work time of item.
func work(item int) int64 { return 1 + int64(item%7)*100 }

// placement is what an event may change of a node: its count, its place
// among its parent's children, and its turns.
type placement struct {
	n          int
	in         where
	idx        int32
	seq        int64
	used       int32
	prev, next *node[int]
	parent     *node[int]
	flow       *flow[int]
}

// placements returns the placement of every node of o's bands.
func placements(o *Prio[int]) map[*node[int]]placement {
	m := map[*node[int]]placement{}
	for _, b := range o.bands {
		walkNodes(&b.root, func(x *node[int]) {
			m[x] = placement{x.n, x.in, x.idx, x.seq, x.used, x.prev, x.next, x.parent, x.flow}
		})
	}
	return m
}

// changed returns the number of nodes whose placement differs between
// before and after, or that are in one only.
func changed(before, after map[*node[int]]placement) int {
	n := 0
	for x, p := range after {
		if q, ok := before[x]; !ok || p != q {
			n++
		}
	}
	for x := range before {
		if _, ok := after[x]; !ok {
			n++
		}
	}
	return n
}

// depth returns the most levels of nodes below x.
func depth[T comparable](x *node[T]) int {
	d := 0
	if x.kids == nil {
		return 0
	}
	for _, t := range x.kids.heap {
		d = max(d, 1+depth(t.Val))
	}
	for _, l := range []*list[T]{&x.kids.turns, &x.kids.held} {
		for c := l.first; c != nil; c = c.next {
			d = max(d, 1+depth(c))
		}
	}
	return d
}

// TestEventFootprint: an event changes O(log A) nodes for A keys ready,
// by turns and by work time, at one level of keys and at two: over many
// steps, the most nodes whose count or place among their parent's
// children a pop, a Finish or a push changes (the nodes on its path, and
// the children a sift of a heap of turns moves) stay within
// c·⌈log2 A⌉ + c at 100 keys and at 5,000. What an event reads is bounded
// by the same structure: the path from a leaf to its band's root, one
// node per band for each key, and at each level the front of a list or a
// sift of a binary heap (package heap); the test checks that the trees are
// no deeper than the levels of keys and that each flow has at most one
// node per band.
func TestEventFootprint(t *testing.T) {
	const c = 2
	for _, byWork := range []bool{false, true} {
		for _, levels := range []int{1, 2} {
			for _, a := range []int{100, 5000} {
				t.Run(fmt.Sprintf("work=%v/levels=%d/keys=%d", byWork, levels, a), func(t *testing.T) {
					s := newScaled(a, levels, byWork)
					bound := c*bits.Len(uint(a-1)) + c // ⌈log2 a⌉ = bits.Len(a-1)
					most := map[string]int{}
					before := placements(s.o)
					events := s.events()
					for range 50 {
						for _, e := range events {
							e.do()
							after := placements(s.o)
							most[e.name] = max(most[e.name], changed(before, after))
							before = after
						}
						for _, b := range s.o.bands {
							if d := depth(&b.root); d > levels {
								t.Fatalf("a tree %d deep for %d levels of keys", d, levels)
							}
						}
					}
					for _, event := range []string{"pop", "finish", "push"} {
						if most[event] > bound {
							t.Errorf("a %s changes up to %d nodes; want at most %d", event, most[event], bound)
						}
					}
					for _, f := range s.o.ids.ids {
						if f != nil && f.nodes != nil && f.nodes.sib != nil {
							t.Errorf("flow %q has a node in two bands of one priority", f.key)
						}
					}
					t.Logf("most nodes changed: %v (bound %d)", most, bound)
				})
			}
		}
	}
}

// TestItemsBounded: listing the first n items of an order with 100,000
// keys ready yields n, by turns and by work time; the walk enters only
// nodes with a live entry (checkFlows), each of which yields at least one
// entry, so the first n items cost O(n · levels · log n), whatever the
// number of keys.
func TestItemsBounded(t *testing.T) {
	for _, byWork := range []bool{false, true} {
		s := newScaled(100_000, 2, byWork)
		for range 1000 {
			s.step()
		}
		if err := s.o.checkFlows(s.held(), s.out()); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 10, 100} {
			got := 0
			s.o.Items(func(int, int) bool {
				got++
				return got < n
			})
			if got != n {
				t.Errorf("work=%v: Items of %d yielded %d", byWork, n, got)
			}
		}
	}
}

// held returns the key id of every item, and out those of the items out:
// none, since a step finishes the item it pops.
func (s *scaled) held() []uint32 { return s.keys }
func (s *scaled) out() []uint32  { return nil }

// BenchmarkPop is the order's part of a hand-out with 100 and 100,000
// keys ready, by turns and by work time: a pop, a Finish and a push.
func BenchmarkPop(b *testing.B) {
	for _, byWork := range []bool{false, true} {
		for _, a := range []int{100, 100_000} {
			b.Run(fmt.Sprintf("work=%v/keys=%d", byWork, a), func(b *testing.B) {
				s := newScaled(a, 1, byWork)
				b.ReportAllocs()
				for b.Loop() {
					s.step()
				}
			})
		}
	}
}

// BenchmarkItems lists the first 100 items of an order with 100,000 keys
// ready, by turns and by work time.
func BenchmarkItems(b *testing.B) {
	for _, byWork := range []bool{false, true} {
		b.Run(fmt.Sprintf("work=%v", byWork), func(b *testing.B) {
			s := newScaled(100_000, 2, byWork)
			for range 1000 {
				s.step()
			}
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				s.o.Items(func(int, int) bool {
					n++
					return n < 100
				})
			}
		})
	}
}
