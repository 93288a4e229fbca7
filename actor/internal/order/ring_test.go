package order

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRing(t *testing.T) {
	var r ring[int]
	next, want := 0, 0
	for round := range 5 {
		for range 100 * (round + 1) {
			r.push(next)
			next++
		}
		for range 70 * (round + 1) {
			if got := r.pop(); got != want {
				t.Fatalf("pop() = %d; want %d", got, want)
			}
			want++
		}
	}
	for r.len() > 0 {
		if got := r.pop(); got != want {
			t.Fatalf("pop() = %d; want %d", got, want)
		}
		want++
	}
	if want != next {
		t.Fatalf("popped %d items; pushed %d", want, next)
	}
	if len(r.buf) != keepRing || r.chunked() {
		t.Fatalf("capacity = %d, chunked %v after %d items came and went; want %d in one buffer", len(r.buf), r.chunked(), next, keepRing)
	}
	// Swings below keepRing reallocate nothing.
	if n := testing.AllocsPerRun(100, func() {
		for i := range 200 {
			r.push(i)
		}
		for range 200 {
			r.pop()
		}
	}); n != 0 {
		t.Fatalf("%v allocations per swing of 200 items; want 0", n)
	}
}

// TestRingRandom drives a ring through random pushes at both ends and
// pops, across the switch between one buffer and chunks, and checks every
// item and every index against a slice.
func TestRingRandom(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var r ring[int]
		var model []int
		next := 0
		// Phases that lean to growing or to shrinking, so that the ring
		// crosses keepRing items both ways many times.
		for phase := range 12 {
			grow := phase%2 == 0
			for range 3 * keepRing {
				switch k := rng.IntN(10); {
				case len(model) > 0 && (k < 3 || !grow && k < 7):
					if got, want := r.pop(), model[0]; got != want {
						t.Fatalf("seed %d: pop() = %d; want %d", seed, got, want)
					}
					model = model[1:]
				case k < 8:
					r.push(next)
					model = append(model, next)
					next++
				default:
					r.pushFront(next)
					model = slices.Insert(model, 0, next)
					next++
				}
				if r.len() != len(model) {
					t.Fatalf("seed %d: len() = %d; want %d", seed, r.len(), len(model))
				}
				if len(model) > 0 {
					if r.front() != model[0] || r.back() != model[len(model)-1] {
						t.Fatalf("seed %d: front, back = %d, %d; want %d, %d", seed, r.front(), r.back(), model[0], model[len(model)-1])
					}
					if i := rng.IntN(len(model)); r.at(i) != model[i] {
						t.Fatalf("seed %d: at(%d) = %d; want %d", seed, i, r.at(i), model[i])
					}
				}
				if c := r.nchunks(); c == 1 || c > 0 && r.n <= (c-2)*keepRing {
					t.Fatalf("seed %d: %d items in %d chunks; want them in one buffer, or in no more chunks than they need", seed, r.n, c)
				}
			}
		}
		for i, want := range model {
			if got := r.at(i); got != want {
				t.Fatalf("seed %d: at(%d) = %d; want %d", seed, i, got, want)
			}
		}
	}
}

// TestRingChunks checks that a ring past keepRing items grows by chunks
// without copying what it holds, zeroes what it pops (so the garbage
// collector can reclaim it), and reuses the chunk it freed last.
func TestRingChunks(t *testing.T) {
	var r ring[*int]
	items := make([]*int, 4*keepRing)
	for i := range items {
		items[i] = new(int)
		*items[i] = i
		r.push(items[i])
	}
	if r.nchunks() != 4 {
		t.Fatalf("%d chunks for %d items; want 4", r.nchunks(), len(items))
	}
	first := r.big.list[r.big.first]
	for range keepRing {
		r.pop()
	}
	if r.big.spare != first {
		t.Fatal("the chunk emptied first is not the spare")
	}
	for i, p := range first {
		if p != nil {
			t.Fatalf("slot %d of a freed chunk holds %d; want nil", i, *p)
		}
	}
	// The spare takes the next keepRing items.
	for range keepRing {
		r.push(nil)
	}
	if r.big.list[len(r.big.list)-1] != first || r.big.spare != nil {
		t.Fatal("the chunk added last is not the spare")
	}
	for i := range 3 * keepRing {
		if got := r.pop(); got != items[keepRing+i] {
			t.Fatalf("pop() #%d = %p; want %p", i, got, items[keepRing+i])
		}
	}
	if r.chunked() || len(r.buf) != keepRing || r.len() != keepRing {
		t.Fatalf("%d chunks, buffer of %d, %d items; want one buffer of %d holding %d", r.nchunks(), len(r.buf), r.len(), keepRing, keepRing)
	}
}

// TestRingDrainsToOneBuffer checks what a ring keeps once a big backlog
// drains: one buffer of keepRing items, one spare chunk, and no list of
// chunks, and that a backlog swinging across keepRing items allocates
// nothing once it has its spare.
func TestRingDrainsToOneBuffer(t *testing.T) {
	var r ring[int]
	for i := range 100 * keepRing {
		r.push(i)
	}
	for r.len() > 0 {
		r.pop()
	}
	if len(r.buf) != keepRing || r.big.list != nil || r.big.spare == nil {
		t.Fatalf("after draining: buffer of %d, list of %d chunks (nil: %t), spare: %t; want a buffer of %d, a nil list and a spare",
			len(r.buf), cap(r.big.list), r.big.list == nil, r.big.spare != nil, keepRing)
	}
	swing := func() {
		for i := range keepRing + keepRing/2 {
			r.push(i)
		}
		for r.len() > 0 {
			r.pop()
		}
	}
	swing() // makes its list of chunks
	if n := testing.AllocsPerRun(100, swing); n != 0 {
		t.Fatalf("%v allocations per swing of %d items; want 0", n, keepRing+keepRing/2)
	}
}

// nchunks is the number of chunks a ring uses: 0 while it is one buffer.
func (r *ring[T]) nchunks() int {
	if !r.chunked() {
		return 0
	}
	return len(r.big.list) - r.big.first
}
