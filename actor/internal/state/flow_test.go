package state

import (
	"slices"
	"testing"

	"github.com/actorq/actorq/actor/internal/order"
)

// TestCapsAndWeights: exact hand-out orders of caps and weights, and of
// their changes.
func TestCapsAndWeights(t *testing.T) {
	keyOf := func(k int) []string { return []string{string(rune('a' + k/10))} } // 0-9: a, 10-19: b, 20-29: c
	type step struct {
		done  []int      // Done of these first
		limit []KeyLimit // then these limits
		want  []int      // then hand-outs, -1 for none
	}
	lim := func(key string, cap, weight int) KeyLimit {
		return KeyLimit{Keys: []string{key}, Limit: order.Limit{Cap: cap, Weight: weight}}
	}
	tests := []struct {
		name   string
		limits []KeyLimit
		items  []int
		steps  []step
	}{
		{"turns", nil, []int{0, 1, 2, 10, 11, 20}, []step{{want: []int{0, 10, 20, 1, 11, 2, -1}}}},
		{"weight 3", []KeyLimit{lim("a", 0, 3)}, []int{0, 1, 2, 3, 4, 10, 11, 12},
			[]step{{want: []int{0, 1, 2, 10, 3, 4, 11, 12, -1}}}},
		{"weights 2 and 3", []KeyLimit{lim("a", 0, 2), lim("b", 0, 3)}, []int{0, 1, 2, 3, 10, 11, 12, 13, 14, 20},
			[]step{{want: []int{0, 1, 10, 11, 12, 20, 2, 3, 13, 14, -1}}}},
		{"cap 1 passes over", []KeyLimit{lim("a", 1, 0)}, []int{0, 1, 2, 10, 11},
			[]step{
				{want: []int{0, 10, 11, -1}},
				{done: []int{0}, want: []int{1, -1}}, // back below its cap: its turn
				{done: []int{10, 1}, want: []int{2, -1}},
			}},
		{"cap 2 with weight 3", []KeyLimit{lim("a", 2, 3)}, []int{0, 1, 2, 3, 10, 11},
			[]step{
				{want: []int{0, 1, 10, 11, -1}},
				{done: []int{1}, want: []int{2, -1}},
			}},
		{"cap raised at run time", []KeyLimit{lim("a", 1, 0)}, []int{0, 1, 2, 10},
			[]step{
				{want: []int{0, 10, -1}},
				{limit: []KeyLimit{lim("a", 3, 0)}, want: []int{1, 2, -1}},
			}},
		{"cap lowered at run time", nil, []int{0, 1, 2, 3, 10, 11, 12},
			[]step{
				{want: []int{0, 10, 1}},
				{limit: []KeyLimit{lim("a", 1, 0)}, want: []int{11, 12, -1}}, // a holds 2: passed over
				{done: []int{0}, want: []int{-1}},                            // still 1 out: at its cap
				{done: []int{1}, want: []int{2, -1}},
			}},
		{"a cap on the whole tree's first level key spans its items", []KeyLimit{lim("b", 2, 0)}, []int{10, 11, 12, 13},
			[]step{{want: []int{10, 11, -1}}, {done: []int{10, 11}, want: []int{12, 13, -1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(Config[int]{Fair: true, Limits: tt.limits})
			for _, k := range tt.items {
				q.Add(k, Opts{Keys: keyOf(k)}, 0)
			}
			for i, s := range tt.steps {
				for _, k := range s.done {
					q.Done(k, 0, 0)
				}
				for _, l := range s.limit {
					q.SetLimit(l, 0)
				}
				var got []int
				for range s.want {
					item, _, ok := q.HandOut(0, 0)
					if !ok {
						item = -1
					}
					got = append(got, item)
					if !ok {
						break
					}
				}
				if !slices.Equal(got, s.want) {
					t.Fatalf("step %d: hand-outs %v; want %v", i, got, s.want)
				}
				q.verify(t)
			}
		})
	}
}

// TestCapsAtShutdown: once a drain begins, the items of keys at their
// caps are handed out too, in the order of the keys' paths.
func TestCapsAtShutdown(t *testing.T) {
	q := New(Config[int]{Fair: true, Limits: []KeyLimit{
		{Keys: []string{"a"}, Limit: order.Limit{Cap: 1}},
		{Keys: []string{"b"}, Limit: order.Limit{Cap: 1}},
	}})
	for _, k := range []int{1, 2, 3, 4, 5} {
		key := "b"
		if k%2 == 1 {
			key = "a"
		}
		q.Add(k, Opts{Keys: []string{key}}, 0)
	}
	for _, want := range []int{1, 2} {
		if item, _, _ := q.HandOut(0, 0); item != want {
			t.Fatalf("HandOut() = %d; want %d", item, want)
		}
	}
	if _, _, ok := q.HandOut(0, 0); ok {
		t.Fatal("HandOut() handed out an item of a key at its cap")
	}
	q.Drain()
	var got []int
	for {
		item, _, ok := q.HandOut(0, 0)
		if !ok {
			break
		}
		got = append(got, item)
	}
	if want := []int{3, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("hand-outs after Drain = %v; want %v", got, want)
	}
	q.verify(t)
}

// TestCapTransitions: every event on a key at its cap. a has a cap of 1
// and a1 processing, a2 ready (held back); b1 of b is ready. Each row is
// an event, then the hand-outs that follow until none (-1), and Len
// before them.
func TestCapTransitions(t *testing.T) {
	opts := func(item string) Opts { return Opts{Keys: []string{item[:1]}} }
	rows := []struct {
		event string
		do    func(q *Queue[string])
		len   int
		want  []string
	}{
		{"nothing", func(q *Queue[string]) {}, 2, []string{"b1"}},
		{"add a3", func(q *Queue[string]) { q.Add("a3", opts("a3"), 0) }, 3, []string{"b1"}},
		{"add a1 (dirty)", func(q *Queue[string]) { q.Add("a1", opts("a1"), 0) }, 2, []string{"b1"}},
		{"done a1", func(q *Queue[string]) { q.Done("a1", 0, 0) }, 2, []string{"b1", "a2"}},
		{"add a1, done a1", func(q *Queue[string]) { q.Add("a1", opts("a1"), 0); q.Done("a1", 0, 0) }, 3, []string{"b1", "a2"}},
		{"delayed a3 due", func(q *Queue[string]) { q.AddAt("a3", 5, opts("a3"), 0); q.Due(5) }, 3, []string{"b1"}},
		{"done b1 (not processing)", func(q *Queue[string]) { q.Done("b1", 0, 0) }, 2, []string{"b1"}},
		{"pop, return", func(q *Queue[string]) {
			item, p, _ := q.Pop(0)
			q.Return(item, p, 0)
		}, 2, []string{"b1"}},
		{"cap 2", func(q *Queue[string]) { q.SetLimit(capOf("a", 2), 0) }, 2, []string{"b1", "a2"}},
		{"cap 0 (none)", func(q *Queue[string]) { q.SetLimit(capOf("a", 0), 0) }, 2, []string{"b1", "a2"}},
		{"cap 1 on b", func(q *Queue[string]) { q.SetLimit(capOf("b", 1), 0) }, 2, []string{"b1"}},
		{"drain", func(q *Queue[string]) { q.Drain() }, 2, []string{"b1", "a2"}},
	}
	for _, row := range rows {
		t.Run(row.event, func(t *testing.T) {
			q := New(Config[string]{Fair: true, Limits: []KeyLimit{capOf("a", 1)}})
			for _, item := range []string{"a1", "a2", "b1"} {
				q.Add(item, opts(item), 0)
			}
			if item, _, _ := q.HandOut(0, 0); item != "a1" {
				t.Fatalf("setup: HandOut() = %q; want a1", item)
			}
			row.do(q)
			q.verify(t)
			if got := q.Len(); got != row.len {
				t.Errorf("Len() = %d; want %d", got, row.len)
			}
			var got []string
			for {
				item, _, ok := q.HandOut(0, 0)
				if !ok {
					break
				}
				got = append(got, item)
			}
			if !slices.Equal(got, row.want) {
				t.Errorf("hand-outs %q; want %q", got, row.want)
			}
			q.verify(t)
		})
	}
}

func capOf(key string, cap int) KeyLimit {
	return KeyLimit{Keys: []string{key}, Limit: order.Limit{Cap: cap}}
}

// TestWorkTime: with fairness by work time, keys whose items take 100 and
// 10 units of time get equal worker time, within one item's time, from
// one worker and from four; with weights 1 and 2, the second gets twice
// the time.
func TestWorkTime(t *testing.T) {
	cost := map[string]int64{"a": 100, "b": 10}
	for _, tc := range []struct {
		workers int
		weightB int
		ratio   float64 // b's time over a's
	}{{1, 0, 1}, {4, 0, 1}, {1, 2, 2}, {4, 2, 2}} {
		q := New(Config[int]{Fair: true, ByWork: true, Limits: []KeyLimit{
			{Keys: []string{"b"}, Limit: order.Limit{Weight: tc.weightB}},
		}})
		keyOf := func(k int) string { return []string{"a", "b"}[k%2] }
		for k := range 20_000 { // more than either key can take
			q.Add(k, Opts{Keys: []string{keyOf(k)}}, 0)
		}
		spent := map[string]int64{}
		type job struct {
			item int
			end  int64
		}
		var running []job
		var now int64
		for now < 20_000 {
			for len(running) < tc.workers {
				item, _, ok := q.HandOut(now, 0)
				if !ok {
					t.Fatalf("%+v: nothing to hand out at %d", tc, now)
				}
				running = append(running, job{item, now + cost[keyOf(item)]})
			}
			// The job that ends first is done.
			i := 0
			for j := range running {
				if running[j].end < running[i].end {
					i = j
				}
			}
			jb := running[i]
			running = slices.Delete(running, i, i+1)
			now = jb.end
			q.Done(jb.item, now, 0)
			spent[keyOf(jb.item)] += cost[keyOf(jb.item)]
		}
		q.verify(t)
		got := float64(spent["b"]) / float64(spent["a"])
		// Within one item of a's (100) per worker, over 20,000 units per worker.
		slack := float64(100*tc.workers) / float64(spent["a"])
		if got < tc.ratio-slack*tc.ratio-0.01 || got > tc.ratio+slack*tc.ratio+0.01 {
			t.Errorf("%+v: worker time b/a = %d/%d = %.3f; want %.1f within %.3f", tc, spent["b"], spent["a"], got, tc.ratio, slack*tc.ratio)
		}
	}
}

// TestWorkTimeNeverNegative: a Done dated before its item's hand-out
// charges no work time: the key does not gain credit from it. a's item
// is handed out at 100 and Done at 50; b's is handed out and Done at 100
// too. Then a's and b's virtual times are equal and the turns go on in
// order (a, then b); a negative charge would put a ahead twice.
func TestWorkTimeNeverNegative(t *testing.T) {
	q := New(Config[string]{Fair: true, ByWork: true})
	for _, item := range []string{"a1", "b1", "a2", "b2", "a3", "b3"} {
		q.Add(item, Opts{Keys: []string{item[:1]}}, 0)
	}
	var got []string
	for _, done := range []int64{50, 100} {
		item, _, ok := q.HandOut(100, 0)
		if !ok {
			t.Fatal("nothing to hand out")
		}
		got = append(got, item)
		q.Done(item, done, 0)
	}
	for range 2 {
		item, _, _ := q.HandOut(100, 0)
		got = append(got, item)
	}
	if want := []string{"a1", "b1", "a2", "b2"}; !slices.Equal(got, want) {
		t.Errorf("hand-outs %q; want %q", got, want)
	}
	q.verify(t)
}
