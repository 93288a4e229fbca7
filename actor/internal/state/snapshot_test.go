package state

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSnapshotEveryState: the core's snapshot counts and lists an item in
// each state, a popped one first among the ready, with the instants the
// metrics keep.
func TestSnapshotEveryState(t *testing.T) {
	q := New(Config[string]{Metrics: NewMetrics[string](MetricSet{})})
	for _, item := range []string{"proc", "dirty", "pdelayed", "popped", "r1", "r2"} {
		q.Add(item, Opts{}, 10)
	}
	for _, want := range []string{"proc", "dirty", "pdelayed"} {
		if item, _, _ := q.HandOut(20, 0); item != want {
			t.Fatalf("HandOut() = %q; want %q", item, want)
		}
	}
	if item, _, _ := q.Pop(30); item != "popped" {
		t.Fatalf("Pop() = %q; want popped", item)
	}
	q.Add("dirty", Opts{}, 40)
	q.AddAt("pdelayed", 500, Opts{}, 40)
	q.AddAt("d2", 300, Opts{}, 40)
	q.AddAt("d1", 200, Opts{}, 40)
	q.verify(t)

	s := q.Snapshot(10)
	row := func(items []ItemSnapshot[string]) []string {
		var out []string
		for _, it := range items {
			out = append(out, fmt.Sprintf("%s %v since=%d,%v due=%d", it.Item, it.Status, it.Since, it.Known, it.Deadline))
		}
		return out
	}
	checks := []struct {
		name      string
		got, want []string
	}{
		{"ready", row(s.ReadyItems), []string{"popped popped since=10,true due=0", "r1 ready since=10,true due=0", "r2 ready since=10,true due=0"}},
		{"processing", row(s.ProcessingItems), []string{"proc processing since=20,true due=0", "dirty processing+dirty since=20,true due=0", "pdelayed processing+delayed since=20,true due=0"}},
		{"delayed", row(s.DelayedItems), []string{"d1 delayed since=0,false due=200", "d2 delayed since=0,false due=300", "pdelayed processing+delayed since=20,true due=500"}},
	}
	for _, c := range checks {
		if c.name == "processing" { // handed out at one instant: any order
			slices.Sort(c.got)
			slices.Sort(c.want)
		}
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s items:\n%q\nwant\n%q", c.name, c.got, c.want)
		}
	}
	if s.Ready != 3 || s.Processing != 3 || s.AddedAgain != 1 || s.Delayed != 3 || !slices.Equal(s.ByPrio, []PrioCount{{0, 3}}) {
		t.Errorf("counts: ready %d %v, processing %d, added again %d, delayed %d; want 3 [{0 3}], 3, 1, 3",
			s.Ready, s.ByPrio, s.Processing, s.AddedAgain, s.Delayed)
	}
	if s := q.Snapshot(1); len(s.ReadyItems) != 1 || len(s.ProcessingItems) != 1 || len(s.DelayedItems) != 1 || s.DelayedItems[0].Item != "d1" {
		t.Errorf("Snapshot(1) = %+v; want one item of each state, d1 delayed", s)
	}
}

// TestSnapshotStorage: a queue with a caller's Storage counts its ready
// items and lists none.
func TestSnapshotStorage(t *testing.T) {
	q := New(Config[int]{Storage: &sliceStorage{}})
	q.Add(1, Opts{}, 0)
	q.Add(2, Opts{}, 0)
	if s := q.Snapshot(10); s.Ready != 2 || len(s.ReadyItems) != 0 || !slices.Equal(s.ByPrio, []PrioCount{{0, 2}}) {
		t.Fatalf("Snapshot(10) = %+v; want 2 ready, none listed", s)
	}
}

// sliceStorage is a caller's Storage: a slice in FIFO order.
type sliceStorage struct{ items []int }

func (s *sliceStorage) Push(item int) { s.items = append(s.items, item) }
func (s *sliceStorage) Pop() int {
	item := s.items[0]
	s.items = s.items[1:]
	return item
}
func (s *sliceStorage) Len() int  { return len(s.items) }
func (s *sliceStorage) Touch(int) {}

// TestOldest: oldest picks the n least instants in order, as a sort would.
func TestOldest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 5, 100, 1000} {
		for _, n := range []int{0, 1, 3, 100, 2000} {
			refs := make([]procRef[int], size)
			for i := range refs {
				refs[i] = procRef[int]{since: r.Int64N(50), item: i}
			}
			want := slices.Clone(refs)
			slices.SortFunc(want, func(a, b procRef[int]) int { return cmp.Compare(a.since, b.since) })
			got := oldest(refs, n)
			if len(got) != min(n, size) {
				t.Fatalf("size %d, n %d: %d picked", size, n, len(got))
			}
			for i := range got {
				if got[i].since != want[i].since {
					t.Fatalf("size %d, n %d: [%d] since %d; want %d", size, n, i, got[i].since, want[i].since)
				}
			}
		}
	}
}
