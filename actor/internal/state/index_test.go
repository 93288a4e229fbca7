package state

import (
	"hash/maphash"
	"maps"
	"testing"
)

// len returns how many items x holds.
func (x *index[T, V]) len() int { return x.n }

// getItem is get for a test, which has no hash at hand.
func (x *index[T, V]) getItem(item T) entry { return x.get(item, x.hash(item)) }

// FuzzIndex drives an index and a Go map with the same operations on a
// few hundred items and compares them after every step: every item's
// entry, the length, and what all yields; and that the invariant holds
// (every item is reached from its home slot without an empty slot on the
// way, and the table is at most three quarters full).
func FuzzIndex(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 2, 2, 0, 3, 1, 2, 1, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		x := newIndex[uint16, struct{}](maphash.MakeSeed())
		m := map[uint16]entry{}
		for i := 0; i+1 < len(ops); i += 2 {
			op, item := ops[i]%4, uint16(ops[i+1])%300
			e := entry(ops[i]) | 1
			switch op {
			case 0:
				x.set(item, x.hash(item), e)
				m[item] = e
			case 1:
				old, added := x.add(item, x.hash(item), e)
				if want, ok := m[item]; added == ok || !ok && old != 0 || ok && old != want {
					t.Fatalf("step %d: add(%d) = %v, %v; the map has %v, %v", i/2, item, old, added, want, ok)
				}
				if _, ok := m[item]; !ok {
					m[item] = e
				}
			case 2, 3:
				if got, _ := x.del(item, x.hash(item)); got != m[item] {
					want := m[item]
					t.Fatalf("step %d: del(%d) = %v; want %v", i/2, item, got, want)
				}
				delete(m, item)
			}
			checkIndex(t, &x, m)
		}
		for item := range m { // empty it: the table is let go
			x.del(item, x.hash(item))
		}
		if x.len() != 0 || x.slots != nil && x.peak >= shrinkFloor {
			t.Fatalf("emptied: len %d, %d slots, peak %d", x.len(), len(x.slots), x.peak)
		}
	})
}

func checkIndex(t *testing.T, x *index[uint16, struct{}], m map[uint16]entry) {
	t.Helper()
	if x.len() != len(m) {
		t.Fatalf("len = %d; want %d", x.len(), len(m))
	}
	for item, e := range m {
		if got := x.getItem(item); got != e {
			t.Fatalf("get(%d) = %v; want %v", item, got, e)
		}
	}
	got := map[uint16]entry{}
	x.all(func(item uint16, e entry) bool { got[item] = e; return true })
	if !maps.Equal(got, m) {
		t.Fatalf("all = %v; want %v", got, m)
	}
	if 4*x.n > 3*len(x.slots) {
		t.Fatalf("%d items in %d slots", x.n, len(x.slots))
	}
	mask := uint32(len(x.slots) - 1)
	for i, s := range x.slots {
		if s.e == 0 {
			continue
		}
		for j := x.hash(s.item) & mask; j != uint32(i); j = (j + 1) & mask {
			if x.slots[j].e == 0 {
				t.Fatalf("item %d at slot %d: an empty slot at %d on its probe", s.item, i, j)
			}
		}
	}
}

// TestIndexChurn: a table through which many distinct items pass, a few
// at a time, keeps its size: nothing it held before costs anything.
func TestIndexChurn(t *testing.T) {
	x := newIndex[int, struct{}](maphash.MakeSeed())
	for i := range 100000 {
		x.set(i, x.hash(i), entry(Ready))
		if i >= 10 {
			if e, _ := x.del(i-10, x.hash(i-10)); e == 0 {
				t.Fatalf("del(%d) found nothing", i-10)
			}
		}
	}
	if x.len() != 10 || len(x.slots) != 16 {
		t.Fatalf("len %d in %d slots; want 10 in 16", x.len(), len(x.slots))
	}
}
