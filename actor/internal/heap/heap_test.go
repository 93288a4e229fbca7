package heap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// tracked is a heap whose items know their index, as the heap of turns
// keeps them.
type tracked []Item[*int]

// placed tells the items on the path between i and j where they are.
func (h tracked) placed(i, j int) {
	lo, hi := min(i, j), max(i, j)
	for {
		*h[hi].Val = hi
		if hi == lo {
			return
		}
		hi = Parent(hi)
	}
}

// check fails t if h is not in heap order, or an item does not know its
// index.
func (h tracked) check(t *testing.T) {
	t.Helper()
	for i := 1; i < len(h); i++ {
		if h[i].Before(h[Parent(i)].Key) {
			t.Fatalf("heap order broken at %d", i)
		}
	}
	for i, it := range h {
		if *it.Val != i {
			t.Fatalf("item at %d thinks it is at %d", i, *it.Val)
		}
	}
}

// TestRandom drives a heap whose items know their index through random
// pushes, pops, removals from the middle and key changes, against the
// least key, and checks the order and the indices after every step, and
// Walk's order.
func TestRandom(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var h tracked
		var seq uint64
		for step := range 2000 {
			switch op := rng.IntN(10); {
			case op < 4 || len(h) == 0:
				seq++
				h = append(h, Item[*int]{Key: Key{At: rng.Int64N(50), Seq: seq}, Val: new(int)})
				h.placed(len(h)-1, Up(h, len(h)-1))
			case op < 6:
				least := slices.MinFunc(h, func(a, b Item[*int]) int { return a.cmp(b.Key) })
				s := []Item[*int](h)
				got := Pop(&s)
				h = s
				for i := range h {
					*h[i].Val = i // Pop's items need not know their index
				}
				if got.Key != least.Key {
					t.Fatalf("seed %d step %d: popped %v; least %v", seed, step, got.Key, least.Key)
				}
			case op < 8: // remove from the middle, as a node leaves the turns
				i, last := rng.IntN(len(h)), len(h)-1
				h[i] = h[last]
				h = h[:last]
				if i < last {
					h.placed(i, Fix(h, i))
				}
			default:
				i := rng.IntN(len(h))
				h[i].At = rng.Int64N(50)
				h.placed(i, Fix(h, i))
			}
			h.check(t)
			if step%50 == 0 {
				checkWalk(t, h)
			}
		}
	}
}

// Before reports whether k goes before l: the order Up and Down write
// out (the compiler does not inline a call into a sift instantiated in
// an importing package).
func (k Key) Before(l Key) bool { return k.At < l.At || k.At == l.At && k.Seq < l.Seq }

func (k Key) cmp(l Key) int {
	switch {
	case k.Before(l):
		return -1
	case l.Before(k):
		return 1
	}
	return 0
}

// checkWalk fails t if Walk does not yield every index of h once, in key
// order, or does not stop when told.
func checkWalk(t *testing.T, h []Item[*int]) {
	t.Helper()
	var keys []Key
	seen := map[int]bool{}
	for i := range Walk(h) {
		if seen[i] {
			t.Fatalf("Walk yields %d twice", i)
		}
		seen[i] = true
		keys = append(keys, h[i].Key)
	}
	if len(keys) != len(h) || !slices.IsSortedFunc(keys, Key.cmp) {
		t.Fatalf("Walk yields %d keys of %d, sorted %v", len(keys), len(h), slices.IsSortedFunc(keys, Key.cmp))
	}
	n := 0
	for range Walk(h) {
		n++
		if n == len(h)/2 {
			break
		}
	}
}

// TestInit: Init orders any slice as a heap, and Pop then yields it
// sorted.
func TestInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 5, 17, 1000} {
		var h []Item[int]
		for i := range n {
			h = append(h, Item[int]{Key: Key{At: rng.Int64N(10), Seq: uint64(i)}})
		}
		Init(h)
		var got []Key
		for len(h) > 0 {
			got = append(got, Pop(&h).Key)
		}
		if len(got) != n || !slices.IsSortedFunc(got, Key.cmp) {
			t.Fatalf("n=%d: popped %d keys, sorted %v", n, len(got), slices.IsSortedFunc(got, Key.cmp))
		}
	}
}
