package delay

import (
	"math/rand/v2"
	"testing"
)

// TestDeadlinesRandom drives deadlines through random sets, shortenings,
// cancels and pops against a map, and checks after every step the heap
// order, that every live deadline has exactly one live heap entry, that
// stale entries never outnumber live ones by much (compaction), and that
// PopDue returns the due items earliest first, ties in the order set.
func TestDeadlinesRandom(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 3))
		d := New[int]()
		type dl struct {
			at  int64
			ord int
		}
		model := map[int]dl{}
		ord := 0
		var now int64
		for step := range 3000 {
			item := rng.IntN(200)
			switch op := rng.IntN(10); {
			case op < 4:
				at := now + int64(rng.IntN(100))
				if cur, ok := model[item]; !ok {
					d.Set(item, at)
					ord++
					model[item] = dl{at, ord}
				} else if at < cur.at {
					d.Shorten(item, at)
					ord++
					model[item] = dl{at, ord}
				} else {
					d.Shorten(item, at) // never lengthened
				}
			case op < 6:
				if _, ok := model[item]; ok {
					d.Cancel(item)
					delete(model, item)
				}
			default:
				now += int64(rng.IntN(20))
				var last dl
				for {
					got, at, ok := d.PopDue(now)
					if !ok {
						break
					}
					want, ok := model[got]
					if !ok || want.at != at || at > now {
						t.Fatalf("seed %d step %d: PopDue(%d) = %d at %d; model %v %v", seed, step, now, got, at, want, ok)
					}
					if want.at < last.at || want.at == last.at && want.ord < last.ord {
						t.Fatalf("seed %d step %d: PopDue out of order: %v after %v", seed, step, want, last)
					}
					last = want
					delete(model, got)
				}
				for item, w := range model {
					if w.at <= now {
						t.Fatalf("seed %d step %d: item %d due at %d left after PopDue(%d)", seed, step, item, w.at, now)
					}
				}
			}
			d.verify(t, len(model))
			for item, w := range model {
				if at, ok := d.At(item); !ok || at != w.at {
					t.Fatalf("seed %d step %d: At(%d) = %d, %v; want %d", seed, step, item, at, ok, w.at)
				}
			}
		}
	}
}

func (d *Deadlines[T]) verify(t *testing.T, want int) {
	t.Helper()
	if d.Len() != want {
		t.Fatalf("Len() = %d; want %d", d.Len(), want)
	}
	live := 0
	for i := range d.heap.e {
		if i > 0 && d.heap.less(i, (i-1)/2) {
			t.Fatalf("heap order broken at %d", i)
		}
		if d.isLive(&d.heap.e[i]) {
			live++
		}
	}
	if live != want {
		t.Fatalf("%d live heap entries for %d deadlines", live, want)
	}
	if stale := len(d.heap.e) - live; stale > max(64, live)+1 {
		t.Fatalf("%d stale heap entries for %d live ones: not compacted", stale, live)
	}
}
