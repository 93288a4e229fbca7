package delay

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/actorq/actorq/actor/internal/heap"
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
		if k, p := d.heap.e[i].Key, d.heap.e[heap.Parent(i)].Key; i > 0 && (k.At < p.At || k.At == p.At && k.Seq < p.Seq) {
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

// TestEarliest: Earliest yields the live deadlines in order, skipping the
// superseded entries, and stops at n.
func TestEarliest(t *testing.T) {
	d := New[int]()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		d.Set(i, r.Int64N(500))
	}
	for i := 0; i < 1000; i += 3 {
		d.Shorten(i, r.Int64N(100)) // leaves stale entries behind
	}
	for i := 1; i < 1000; i += 7 {
		d.Cancel(i)
	}
	type dl struct {
		item int
		at   int64
	}
	var all []dl
	for item, at := range d.All {
		all = append(all, dl{item, at})
	}
	slices.SortFunc(all, func(a, b dl) int { return cmp.Compare(a.at, b.at) })
	for _, n := range []int{0, 1, 10, 100, len(all), len(all) + 5} {
		var got []dl
		d.Earliest(n, func(item int, at int64) { got = append(got, dl{item, at}) })
		if len(got) != min(n, len(all)) {
			t.Fatalf("Earliest(%d) yielded %d; want %d", n, len(got), min(n, len(all)))
		}
		for i, g := range got {
			if g.at != all[i].at {
				t.Fatalf("Earliest(%d)[%d] = %v; want deadline %d", n, i, g, all[i].at)
			}
			if at, ok := d.At(g.item); !ok || at != g.at {
				t.Fatalf("Earliest(%d)[%d] = %v, a stale entry (live: %d, %v)", n, i, g, at, ok)
			}
		}
	}
}

// TestMapShrinks: the map of deadlines is made anew once a burst of
// delays is due, or cancelled, so that it leaves no memory behind.
func TestMapShrinks(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		d := New[int]()
		for i := range 5000 {
			d.Set(i, int64(i))
		}
		for i := range 5000 {
			if cancel {
				d.Cancel(i)
			} else if _, _, ok := d.PopDue(int64(i)); !ok {
				t.Fatalf("PopDue(%d) found nothing due", i)
			}
		}
		if d.Len() != 0 || d.peak != 0 || cap(d.heap.e) > 64 {
			t.Errorf("cancel=%v: %d deadlines, peak %d, heap capacity %d after the burst; want 0, 0 and a small heap", cancel, d.Len(), d.peak, cap(d.heap.e))
		}
	}
}

// BenchmarkDeadlines is the heap's work per delayed item with about 1,000
// items delayed: each step sets one deadline, shortens another, and pops
// one due item.
func BenchmarkDeadlines(b *testing.B) {
	d := New[int]()
	r := rand.New(rand.NewPCG(1, 2))
	const live = 1000
	for i := range live {
		d.Set(i, r.Int64N(live))
	}
	b.ReportAllocs()
	now, next := int64(0), live
	for b.Loop() {
		d.Set(next, now+r.Int64N(live))
		d.Shorten(next-live/2, now+r.Int64N(live/2))
		next++
		now++
		d.PopDue(now)
	}
}

// BenchmarkEarliest lists the 100 earliest of 100,000 deadlines.
func BenchmarkEarliest(b *testing.B) {
	d := New[int]()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100_000 {
		d.Set(i, r.Int64N(1_000_000))
	}
	b.ReportAllocs()
	for b.Loop() {
		d.Earliest(100, func(int, int64) {})
	}
}
