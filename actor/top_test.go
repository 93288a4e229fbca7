package actor

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"
)

// TestTopPrio drives the lane's top directly: callers raise it, the owner
// lowers it only while nothing sent is unapplied, and a raise that comes
// while a lowering is under way (top marked) makes the lowering fail.
func TestTopPrio(t *testing.T) {
	quiet := func() bool { return true }
	t.Run("raise and lower", func(t *testing.T) {
		var top topPrio
		if !top.claimable(0) || top.claimable(-1) {
			t.Fatalf("new top: claimable(0), claimable(-1) = %v, %v; want true, false", top.claimable(0), top.claimable(-1))
		}
		if !top.lower(-5, quiet) {
			t.Fatal("lower(-5) with a quiet inbox = false; want true")
		}
		if !top.claimable(-5) || top.claimable(-6) {
			t.Fatalf("after lower(-5): claimable(-5), claimable(-6) = %v, %v; want true, false", top.claimable(-5), top.claimable(-6))
		}
		if top.lower(-3, quiet) {
			t.Fatal("lower(-3) from -5 = true; want false: it would raise")
		}
		top.raise(7)
		if top.claimable(6) || !top.claimable(7) {
			t.Fatalf("after raise(7): claimable(6), claimable(7) = %v, %v; want false, true", top.claimable(6), top.claimable(7))
		}
		top.raise(2) // lower than top: nothing changes
		if top.claimable(6) {
			t.Fatal("raise(2) lowered top from 7")
		}
	})
	t.Run("not quiet", func(t *testing.T) {
		var top topPrio
		if top.lower(-5, func() bool { return false }) {
			t.Fatal("lower(-5) with a request unapplied = true; want false")
		}
		if w := top.w.Load(); w != topWord(0) {
			t.Fatalf("word after a failed lower = %#x; want %#x (0, unmarked)", w, topWord(0))
		}
	})
	t.Run("raise during the lowering", func(t *testing.T) {
		var top topPrio
		// The caller's add went into the inbox after the owner looked; its
		// raise, a no-op by value, sees the mark and must stop the lowering.
		racing := func() bool { top.raise(-10); return true }
		if top.lower(-10, racing) {
			t.Fatal("lower(-10) with a raise while marked = true; want false")
		}
		if top.claimable(-1) {
			t.Fatal("top came down to -10 although an add at -10 was on its way")
		}
		if w := top.w.Load(); w&1 != 0 {
			t.Fatalf("word after the lowering = %#x; want the mark cleared", w)
		}
	})
	t.Run("far priorities", func(t *testing.T) {
		var top topPrio
		top.raise(math.MaxInt)
		if top.claimable(math.MaxInt-1) || !top.claimable(math.MaxInt) {
			t.Fatal("after raise(MaxInt) a slot below MaxInt is claimable, or one at MaxInt is not")
		}
		var low topPrio
		if !low.lower(math.MinInt, quiet) {
			t.Fatal("lower(MinInt) = false; want true")
		}
		// Rounded up: safe, a slot at MinInt comes to the owner.
		if !low.claimable(topMin) || low.claimable(math.MinInt) {
			t.Fatal("after lower(MinInt): want top rounded up to -2^62")
		}
	})
}

// lowLane returns a queue, inside the caller's synctest bubble, whose
// items 1 to 9 at -100 are all offered in the lane: a Get took item 0, and
// with nothing above -100 the owner lowered top and filled the lane.
func lowLane(t *testing.T) *Queue[int] {
	t.Helper()
	q := New(Config[int]{})
	for i := range 10 {
		q.AddWithOpts(AddOpts{Priority: -100}, i)
	}
	if item, prio, _ := q.GetWithPriority(); item != 0 || prio != -100 {
		t.Fatalf("GetWithPriority() = %d, %d; want 0, -100", item, prio)
	}
	synctest.Wait()
	if n := len(q.c.lane); n != 9 {
		t.Fatalf("slots in the lane = %d; want 9 (top lowered to -100)", n)
	}
	return q
}

// TestLaneLowersTop: once nothing above the next ready item is left, the
// owner lowers top to its priority, so that the lane offers every low item
// at once instead of one at a time; an add above it raises top again
// before it returns, so that its caller's Get does not claim a low slot.
func TestLaneLowersTop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := lowLane(t)
		defer q.ShutDown()
		if !q.c.top.claimable(-100) {
			t.Fatal("top not lowered to -100")
		}
		q.Add(100)
		if q.c.top.claimable(-100) {
			t.Fatal("top still -100 after Add at 0 returned")
		}
		if item, prio, _ := q.GetWithPriority(); item != 100 || prio != 0 {
			t.Fatalf("GetWithPriority() after Add(100) = %d, %d; want 100, 0", item, prio)
		}
		for i := 1; i < 10; i++ {
			if item, _, _ := q.GetWithPriority(); item != i {
				t.Fatalf("GetWithPriority() = %d; want %d", item, i)
			}
		}
	})
}

// TestDelayedAddRaisesTop: an AddWithOpts whose items are all delayed
// still raises top, since an item that is already ready keeps the earlier
// time and is raised where it is; the caller's Get must not claim a slot
// below it while the add is on its way.
func TestDelayedAddRaisesTop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := lowLane(t)
		defer q.ShutDown()
		q.AddWithOpts(AddOpts{Priority: 10, After: time.Hour}, 5)
		if q.c.top.claimable(-100) {
			t.Fatal("top still -100 after a delayed AddWithOpts at 10 returned")
		}
		if item, prio, _ := q.GetWithPriority(); item != 5 || prio != 10 {
			t.Fatalf("GetWithPriority() = %d, %d; want 5, 10 (ready, raised by the delayed add)", item, prio)
		}
		for _, want := range []int{1, 2, 3, 4, 6, 7, 8, 9} {
			if item, _, _ := q.GetWithPriority(); item != want {
				t.Fatalf("GetWithPriority() = %d; want %d", item, want)
			}
		}
	})
}

// laneTestOwner returns an owner around a state whose lane is on, with
// top at top and an empty inbox, for calling lowerTop directly.
func laneTestOwner(top int) *owner[string] {
	s, _ := laneTestState(top)
	c := &shared[string]{inbox: newMailbox[string](make(chan struct{}, 1))}
	c.top.w.Store(topWord(top))
	s.lane.top = &c.top
	return &owner[string]{c: c, s: s}
}

// TestLowerTopOrder: the owner lowers top only when every slot a consumer
// could then claim goes before what the order holds.
func TestLowerTopOrder(t *testing.T) {
	t.Run("given back before what the lane offers", func(t *testing.T) {
		o := laneTestOwner(-1)
		s := o.s
		for _, item := range []string{"a", "b", "c", "d"} {
			s.add(item, want{prio: -1})
		}
		if n := s.fill(); n != 4 {
			t.Fatalf("offered %d; want 4", n)
		}
		a := <-s.lane.ch
		o.c.top.raise(0) // an add at 0 on its way: a may not be claimed
		s.giveBack(a)    // back in the order, ahead of b, c and d in the lane
		if !o.lowerTop() {
			t.Fatal("lowerTop() = false; want true")
		}
		// Lowered with b, c and d still offered, a Get could claim b
		// before a: they must have been taken back first.
		if n := len(s.lane.ch); n != 0 {
			t.Fatalf("slots in the lane after lowerTop = %d; want 0 (taken back)", n)
		}
		if !o.c.top.claimable(-1) {
			t.Fatal("top not lowered to -1")
		}
		s.fill()
		var got []string
		for len(s.lane.ch) > 0 {
			got = append(got, claimed(<-s.lane.ch))
		}
		if fmt.Sprint(got) != "[a b c d]" {
			t.Fatalf("lane = %v; want [a b c d]", got)
		}
	})
	t.Run("a slot held from before the lane was taken back", func(t *testing.T) {
		o := laneTestOwner(-1)
		s := o.s
		s.add("a", want{prio: -1})
		s.add("b", want{prio: -1})
		s.fill()
		a := <-s.lane.ch // a Get holds a, not claimed yet
		s.add("h", want{})
		s.fill() // h goes before b: the lane is taken back, then [h]
		if got := claimed(<-s.lane.ch); got != "h" {
			t.Fatalf("claimed %q; want h", got)
		}
		s.lookup("h")
		if o.lowerTop() {
			t.Fatal("lowerTop() = true while a Get holds a; want false")
		}
		// Lowered, the Get would claim a; it must give it back instead,
		// since b (next in the order) does not go after it in the lane.
		if o.c.top.claimable(-1) {
			t.Fatal("top lowered to -1 while a slot offered before the lane was taken back is held")
		}
		s.giveBack(a)
		if !o.lowerTop() {
			t.Fatal("lowerTop() = false once a came back; want true")
		}
		if got := s.leftovers(); fmt.Sprint(got) != "[a b]" {
			t.Fatalf("leftovers() = %v; want [a b]", got)
		}
	})
	t.Run("a slot above the next item not claimed yet", func(t *testing.T) {
		o := laneTestOwner(0)
		s := o.s
		s.add("h", want{})
		s.add("l", want{prio: -1})
		s.fill()
		h := <-s.lane.ch // a Get holds h: an add at 1 may make it give h back
		if o.lowerTop() {
			t.Fatal("lowerTop() = true while h at 0 may come back; want false")
		}
		if o.c.top.claimable(-1) {
			// Another Get could claim l, then h come back: a Get that
			// added h would have passed over it.
			t.Fatal("top lowered to -1 while a slot at 0 is neither claimed nor given back")
		}
		if item, _, ok := h.claim(nil); !ok || item != "h" {
			t.Fatalf("claim() = %q, %v; want h, true", item, ok)
		}
		if !o.lowerTop() {
			t.Fatal("lowerTop() = false once h was claimed; want true")
		}
		if !o.c.top.claimable(-1) {
			t.Fatal("top not lowered to -1")
		}
	})
	t.Run("not while an add is unapplied", func(t *testing.T) {
		o := laneTestOwner(0)
		s := o.s
		s.add("a", want{prio: -1})
		if !o.c.inbox.tryPut(request[string]{op: opAdd, item: "z"}, nil) {
			t.Fatal("tryPut() = false")
		}
		if o.lowerTop() {
			t.Fatal("lowerTop() = true with an add in the inbox; want false")
		}
		o.c.inbox.take()
		if !o.lowerTop() {
			t.Fatal("lowerTop() = false once the inbox is empty; want true")
		}
	})
}

// TestGiveBackTakesHead: a Get that gives back a slot from before the
// lane was last taken back waits for what goes first. If everything the
// lane offers goes before the order, the owner takes back only the lane's
// head, the one item the Get then gets, and the rest stays offered in
// order; if not, or while another consumer holds a slot it may give back,
// it does not hand out past the order.
func TestGiveBackTakesHead(t *testing.T) {
	// setup offers l at -1 alone, lets a Get receive it, then offers
	// a, b and c at 0 (which takes the lane back first: l is out of
	// the owner's sight) and returns l's slot.
	setup := func(t *testing.T) (*state[string], *slot[string]) {
		t.Helper()
		s, top := laneTestState(0)
		s.add("l", want{prio: -1})
		if n := s.fill(); n != 1 {
			t.Fatalf("offered %d; want 1 (l alone, below top)", n)
		}
		l := <-s.lane.ch
		for _, item := range []string{"a", "b", "c"} {
			s.add(item, want{})
		}
		top.raise(0)
		if n := s.fill(); n != 3 {
			t.Fatalf("offered %d; want 3", n)
		}
		return s, l
	}
	t.Run("only the head", func(t *testing.T) {
		s, l := setup(t)
		s.giveBack(l)
		if n := len(s.lane.ch); n != 2 {
			t.Fatalf("slots in the lane after the give-back = %d; want 2 (only the head taken back)", n)
		}
		if got := s.leftovers(); fmt.Sprint(got) != "[a l]" {
			t.Fatalf("order after the give-back = %v; want [a l]", got)
		}
		var got []string
		for len(s.lane.ch) > 0 {
			got = append(got, claimed(<-s.lane.ch))
		}
		if fmt.Sprint(got) != "[b c]" {
			t.Fatalf("lane = %v; want [b c]", got)
		}
	})
	t.Run("the order goes first", func(t *testing.T) {
		s, l := setup(t)
		s.add("h", want{prio: 1}) // ready, not offered: it goes before a
		s.giveBack(l)
		if n := len(s.lane.ch); n != 0 {
			t.Fatalf("slots in the lane after the give-back = %d; want 0 (all taken back)", n)
		}
		if got := s.leftovers(); fmt.Sprint(got) != "[h a b c l]" {
			t.Fatalf("order after the give-back = %v; want [h a b c l]", got)
		}
	})
	t.Run("another slot held", func(t *testing.T) {
		s, l := setup(t)
		a := <-s.lane.ch // a Get holds a, neither claimed nor given back
		s.giveBack(l)
		if n := len(s.lane.ch); n != 2 {
			t.Fatalf("slots in the lane after the give-back = %d; want 2 (nothing taken back)", n)
		}
		if !s.held() {
			t.Fatal("held() = false while a Get holds a")
		}
		if item := claimed(a); item != "a" {
			t.Fatalf("claimed %q; want a", item)
		}
		s.lookup("a")
		if got := s.leftovers(); fmt.Sprint(got) != "[l]" {
			t.Fatalf("order after the give-back = %v; want [l]", got)
		}
	})
}
