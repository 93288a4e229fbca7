package actor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// verify checks the state's invariants; it runs after every step.
func (s *state[T]) verify(t *testing.T) {
	t.Helper()
	var ready, proc, delayed, lane int
	for item, f := range s.items {
		if f&fLane != 0 {
			idx := int(f >> slotShift)
			if f&(1<<slotShift-1) != fLane || idx >= len(s.slots) || !s.slots[idx].used || s.slots[idx].item != item {
				t.Fatalf("item %v: lane flags %#x do not match its slot", item, f)
			}
			lane++
			continue
		}
		switch {
		case f == 0:
			t.Fatalf("item %v stored with no flag", item)
		case f&fReady != 0 && f != fReady:
			t.Fatalf("item %v: ready combined with flags %04b", item, f)
		case f&fDirty != 0 && f&fProcessing == 0:
			t.Fatalf("item %v dirty but not processing", item)
		case f&fDirty != 0 && f&fDelayed != 0:
			t.Fatalf("item %v dirty and delayed", item)
		}
		if f&fReady != 0 {
			ready++
		}
		if f&fProcessing != 0 {
			proc++
		}
		if f&fDelayed != 0 {
			delayed++
			if _, ok := s.delays[item]; !ok {
				t.Fatalf("item %v delayed with no deadline", item)
			}
		}
	}
	if got := s.len(); got != ready {
		t.Fatalf("len() = %d; %d items flagged ready", got, ready)
	}
	if lane != s.inUse {
		t.Fatalf("inUse = %d; %d items in the lane", s.inUse, lane)
	}
	if s.nproc != proc {
		t.Fatalf("nproc = %d; %d items flagged processing", s.nproc, proc)
	}
	if len(s.delays) != delayed {
		t.Fatalf("%d deadlines; %d items flagged delayed", len(s.delays), delayed)
	}
	live := 0
	for i, e := range s.delay.e {
		if i > 0 && s.delay.less(i, (i-1)/2) {
			t.Fatalf("heap order broken at %d", i)
		}
		if s.isLive(&e) {
			live++
		}
	}
	if live != delayed {
		t.Fatalf("%d live heap entries for %d delayed items", live, delayed)
	}
	s.verifyFilter(t)
}

// verifyFilter checks the filter's rule: a published entry says noop only
// while an Add of its item would change nothing (see filter.go).
func (s *state[T]) verifyFilter(t *testing.T) {
	t.Helper()
	if s.filter == nil {
		return
	}
	for i := range s.filter.slots {
		e := s.filter.slots[i].Load()
		if e == nil || !e.noop.Load() {
			continue
		}
		f, ok := s.items[e.item]
		switch {
		case !ok:
			t.Fatalf("item %v: noop but unknown", e.item)
		case f&fLane != 0:
			sl := s.slots[f>>slotShift]
			if sl.hot != e {
				t.Fatalf("item %v: noop in the lane, but its slot does not carry the entry", e.item)
			}
			if sl.state.Load() == slotClaimed {
				t.Fatalf("item %v: noop but claimed", e.item)
			}
		case f == fReady:
			if s.staged && s.head == e.item {
				t.Fatalf("item %v: noop while staged to be handed out", e.item)
			}
		case f == fProcessing|fDirty:
		default:
			t.Fatalf("item %v: noop with flags %04b", e.item, f)
		}
	}
}

func TestStateTransitions(t *testing.T) {
	s := newState[string](nil, nil)
	step := func(name string, f func()) {
		t.Helper()
		f()
		s.verify(t)
	}
	step("add a", func() { s.add("a") })
	step("add a again", func() { s.add("a") })
	step("add b", func() { s.add("b") })
	if got := s.len(); got != 2 {
		t.Fatalf("len() = %d; want 2", got)
	}
	step("stage", func() { s.stage() })
	if got := s.handOut(); got != "a" {
		t.Fatalf("handOut() = %q; want a", got)
	}
	s.verify(t)
	step("re-add a while processing", func() { s.add("a") })
	if got := s.items["a"]; got != fProcessing|fDirty {
		t.Fatalf("flags(a) = %04b; want processing|dirty", got)
	}
	if got := s.len(); got != 1 {
		t.Fatalf("len() = %d; want 1 (a must wait for Done)", got)
	}
	if s.done("c") {
		t.Fatalf("done(c) = true for an unknown item")
	}
	if s.done("b") {
		t.Fatalf("done(b) = true for a ready item")
	}
	step("done a", func() { s.done("a") })
	if got := s.len(); got != 2 {
		t.Fatalf("len() after done(a) = %d; want 2", got)
	}
	step("delay d at 100", func() { s.addAt("d", 100) })
	step("lengthen d to 200", func() { s.addAt("d", 200) })
	if got := s.delays["d"].at; got != 100 {
		t.Fatalf("deadline(d) = %d; want 100", got)
	}
	step("shorten d to 50", func() { s.addAt("d", 50) })
	step("due at 49", func() { s.due(49) })
	if got := s.len(); got != 2 {
		t.Fatalf("len() at 49 = %d; want 2", got)
	}
	step("due at 50", func() { s.due(50) })
	if got := s.len(); got != 3 {
		t.Fatalf("len() at 50 = %d; want 3", got)
	}
	step("stale entry surfaces", func() { s.due(100) })
	if got := s.delay.len(); got != 0 {
		t.Fatalf("heap holds %d entries; want 0", got)
	}
	got := s.leftovers()
	if want := []string{"b", "a", "d"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("leftovers() = %v; want %v", got, want)
	}
}

func TestStateAddSupersedesDelay(t *testing.T) {
	s := newState[int](nil, nil)
	s.addAt(1, 100)
	s.add(1)
	s.verify(t)
	if len(s.delays) != 0 || s.stale != 1 {
		t.Fatalf("delayed, stale = %d, %d; want 0, 1", len(s.delays), s.stale)
	}
	s.stage()
	s.handOut()
	s.done(1)
	s.addAt(1, 300) // a new delay of the same item
	s.due(100)      // the superseded entry surfaces: it must not fire
	s.verify(t)
	if got := s.len(); got != 0 {
		t.Fatalf("len() at 100 = %d; want 0", got)
	}
	s.due(300)
	if got := s.len(); got != 1 {
		t.Fatalf("len() at 300 = %d; want 1", got)
	}
}

func TestStateDelayWhileProcessing(t *testing.T) {
	s := newState[int](nil, nil)
	s.add(1)
	s.stage()
	s.handOut()
	s.addAt(1, 10)
	s.verify(t)
	s.due(10) // deadline reached while processing: runs again after Done
	s.verify(t)
	if got := s.items[1]; got != fProcessing|fDirty {
		t.Fatalf("flags = %04b; want processing|dirty", got)
	}
	s.done(1)
	s.verify(t)
	if got := s.len(); got != 1 {
		t.Fatalf("len() = %d; want 1", got)
	}
}

func TestStaleCompaction(t *testing.T) {
	s := newState[int](nil, nil)
	for i := range 1000 {
		s.addAt(i, int64(1e9+i))
		s.add(i) // supersedes the delay: the entry goes stale
		s.verify(t)
	}
	if n := s.delay.len(); n > 2*64+1 {
		t.Fatalf("heap holds %d entries for 0 delayed items; want compaction", n)
	}
}

func TestMapShrinksAfterBurst(t *testing.T) {
	s := newState[int](nil, nil)
	for i := range 100_000 {
		s.add(i)
	}
	for s.stage() {
		s.done(s.handOut())
	}
	s.verify(t)
	if s.peak > shrinkFloor {
		t.Fatalf("peak = %d after draining; want the map rebuilt", s.peak)
	}
	r := s.store.(*ring[int])
	if len(r.buf) != keepRing {
		t.Fatalf("ring capacity = %d after draining; want %d", len(r.buf), keepRing)
	}
}

func TestRing(t *testing.T) {
	var r ring[int]
	next, want := 0, 0
	for round := range 5 {
		for range 100 * (round + 1) {
			r.Push(next)
			next++
		}
		for range 70 * (round + 1) {
			if got := r.Pop(); got != want {
				t.Fatalf("Pop() = %d; want %d", got, want)
			}
			want++
		}
	}
	for r.Len() > 0 {
		if got := r.Pop(); got != want {
			t.Fatalf("Pop() = %d; want %d", got, want)
		}
		want++
	}
	if want != next {
		t.Fatalf("popped %d items; pushed %d", want, next)
	}
	if len(r.buf) != keepRing {
		t.Fatalf("capacity = %d after %d items came and went; want %d", len(r.buf), next, keepRing)
	}
	// Swings below keepRing reallocate nothing.
	if n := testing.AllocsPerRun(100, func() {
		for i := range 200 {
			r.Push(i)
		}
		for range 200 {
			r.Pop()
		}
	}); n != 0 {
		t.Fatalf("%v allocations per swing of 200 items; want 0", n)
	}
}

func TestStateLane(t *testing.T) {
	s := newState[string](nil, nil)
	for _, item := range []string{"a", "b", "c"} {
		s.add(item)
	}
	var offered []*slot[string]
	for {
		sl, ok := s.toLane()
		if !ok {
			break
		}
		offered = append(offered, sl)
		s.verify(t)
	}
	if len(offered) != 3 || s.len() != 0 || s.laneReady() != 3 {
		t.Fatalf("%d offered, len() = %d, laneReady() = %d; want 3, 0, 3", len(offered), s.len(), s.laneReady())
	}
	s.add("a") // offered: a duplicate
	if s.done("a") {
		t.Fatal("done(a) = true while a is only offered")
	}
	s.verify(t)
	if got := offered[0].claim(); got != "a" {
		t.Fatalf("claim() = %q; want a", got)
	}
	s.add("a") // claimed: processing, so it runs again after Done
	s.verify(t)
	if got := s.items["a"]; got != fProcessing|fDirty {
		t.Fatalf("flags(a) = %04b; want processing|dirty", got)
	}
	offered[1].claim()
	if got := s.laneReady(); got != 1 { // settles b on the way
		t.Fatalf("laneReady() = %d; want 1", got)
	}
	s.verify(t)
	if !s.done("b") || !s.done("a") {
		t.Fatal("done of claimed items = false")
	}
	s.verify(t)
	// c is taken back (say for an Items consumer) and must come first.
	s.takeBack([]string{s.reclaim(offered[2])})
	s.verify(t)
	if got := s.leftovers(); fmt.Sprint(got) != "[c a]" {
		t.Fatalf("leftovers() = %v; want [c a]", got)
	}
}

// TestStateFilter walks one item through every state the filter knows and
// checks, step by step, whether an Add of it would be skipped.
func TestStateFilter(t *testing.T) {
	s := newState[string](nil, nil)
	skip := func(step string, want bool) {
		t.Helper()
		s.verify(t)
		got := s.filter != nil && s.filter.skip("a")
		if got != want {
			t.Fatalf("%s: skip(a) = %v; want %v", step, got, want)
		}
	}
	s.add("b")
	s.add("a")
	skip("ready", false) // no duplicate seen yet: no filter
	s.add("a")
	skip("ready, added again", true)
	s.stage()
	s.done(s.handOut()) // b
	s.stage()
	skip("staged", false)
	sl, _ := s.toLane()
	skip("in the lane", true)
	if sl.hot == nil {
		t.Fatal("slot does not carry the entry")
	}
	sl.claim()
	skip("claimed", false)
	s.add("a") // settles the claim: processing, so dirty
	skip("dirty", true)
	s.done("a")
	skip("ready again after Done", true)
	s.stage()
	s.handOut()
	skip("handed out", false)
	s.addAt("a", 10)
	skip("processing and delayed", false)
	s.due(10)
	skip("due while processing: dirty", true)
	s.done("a")
	s.stage()
	s.done(s.handOut())
	skip("done", false)
	s.add("a")
	skip("added after it was done: ready", true)

	// Another item that takes a's slot evicts a's entry.
	var other string
	for i := 0; ; i++ {
		other = fmt.Sprint("x", i)
		if s.filter.slot(other) == s.filter.slot("a") {
			break
		}
	}
	s.add(other)
	s.add(other)
	skip("evicted", false)
	if !s.filter.skip(other) {
		t.Fatalf("skip(%s) = false; want true", other)
	}
}

// TestStateFilterCustomStorage checks that a custom Storage gets no filter:
// its Touch must see every duplicate.
func TestStateFilterCustomStorage(t *testing.T) {
	s := newState[int](new(ring[int]), nil)
	s.add(1)
	s.add(1)
	if s.filter != nil || s.publish != nil {
		t.Fatal("filter made for a custom Storage")
	}
}

// TestStateFilterRandom drives the state through random steps, as the owner
// goroutine and lane consumers would, with few items so that duplicates
// abound, and checks every invariant (the filter's included) after each.
func TestStateFilterRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := newState[int](nil, nil)
	var offered []*slot[int] // in the lane, not yet claimed
	var processing []int
	now := int64(0)
	for step := range 20_000 {
		k := r.IntN(6)
		switch op := r.IntN(10); {
		case op < 4:
			s.add(k)
		case op == 4:
			s.addAt(k, now+int64(r.IntN(5)))
		case op == 5:
			now++
			s.due(now)
		case op == 6 && s.stage():
			processing = append(processing, s.handOut())
		case op == 7:
			if sl, ok := s.toLane(); ok {
				offered = append(offered, sl)
			}
		case op == 8 && len(offered) > 0:
			sl := offered[0]
			offered = offered[1:]
			processing = append(processing, sl.claim())
		case op == 9 && len(processing) > 0:
			i := r.IntN(len(processing))
			s.done(processing[i])
			processing = slices.Delete(processing, i, i+1)
		}
		s.verify(t)
		if t.Failed() {
			t.Fatalf("step %d", step)
		}
	}
	if s.filter == nil {
		t.Fatal("no filter was made")
	}
}
