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

// step pops, finishes and pushes back one item, and returns the visits
// of each of the three events.
func (s *scaled) step() (pop, finish, push int) {
	v := s.o.visits
	item, p := s.o.Pop(s.now)
	pop, v = s.o.visits-v, s.o.visits
	s.now++
	s.o.Finish(p.Key, 1+int64(item%7)*100)
	finish, v = s.o.visits-v, s.o.visits
	s.push(item)
	return pop, finish, s.o.visits - v
}

// TestVisits: an event looks at O(log A) nodes and heap slots for A keys
// ready, by turns and by work time, at one level of keys and at two: the
// most visits of a pop, a Finish and a push over many steps stay within
// c·⌈log2 A⌉ + c at 100 keys and at 100,000.
func TestVisits(t *testing.T) {
	const c = 4
	for _, byWork := range []bool{false, true} {
		for _, levels := range []int{1, 2} {
			for _, a := range []int{100, 100_000} {
				t.Run(fmt.Sprintf("work=%v/levels=%d/keys=%d", byWork, levels, a), func(t *testing.T) {
					s := newScaled(a, levels, byWork)
					var most [3]int
					for range 5000 {
						pop, finish, push := s.step()
						most = [3]int{max(most[0], pop), max(most[1], finish), max(most[2], push)}
					}
					bound := c*bits.Len(uint(a-1)) + c // ⌈log2 a⌉ = bits.Len(a-1)
					for i, name := range []string{"pop", "finish", "push"} {
						if most[i] > bound {
							t.Errorf("a %s visits up to %d nodes; want at most %d", name, most[i], bound)
						}
					}
					t.Logf("most visits: pop %d, finish %d, push %d (bound %d)", most[0], most[1], most[2], bound)
				})
			}
		}
	}
}

// TestItemsVisits: listing the first n items of an order with 100,000
// keys ready looks at O(n) nodes, by turns and by work time.
func TestItemsVisits(t *testing.T) {
	for _, byWork := range []bool{false, true} {
		s := newScaled(100_000, 2, byWork)
		for range 1000 {
			s.step()
		}
		for _, n := range []int{1, 10, 100} {
			v, got := s.o.visits, 0
			s.o.Items(func(int, int) bool {
				got++
				return got < n
			})
			if v := s.o.visits - v; got != n || v > 3*n {
				t.Errorf("work=%v: Items of %d yielded %d, visiting %d nodes; want at most %d", byWork, n, got, v, 3*n)
			}
		}
	}
}

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
