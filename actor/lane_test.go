package actor

import (
	"testing"
	"testing/synctest"
)

// lanedQueue returns a queue, inside the caller's synctest bubble, whose
// lane offers items 1 to n-1: a Get took item 0 and made the owner fill
// the lane.
func lanedQueue(t *testing.T, n int) *Queue[int] {
	t.Helper()
	q := New(Config[int]{paths: &allPaths})
	for i := range n {
		q.Add(i)
	}
	if item, _ := q.Get(); item != 0 {
		t.Fatalf("Get() = %d; want 0", item)
	}
	synctest.Wait()
	if got := len(q.c.lane.ch); got != n-1 {
		t.Fatalf("slots in the lane = %d; want %d", got, n-1)
	}
	return q
}

// TestLaneRules: an item offered in the lane is ready by the rules: an Add
// is a duplicate and a Done does nothing, with the slot left offered; a
// raise takes the lane back (state.Retake) and the raised item goes first;
// what was taken back is offered again in its order.
func TestLaneRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := lanedQueue(t, 5)
		defer q.ShutDown()
		q.Add(2)
		q.Done(3)
		if n := q.Len(); n != 4 {
			t.Fatalf("Len() = %d; want 4", n)
		}
		if got := len(q.c.lane.ch); got != 4 {
			t.Fatalf("slots in the lane = %d after a duplicate Add and a stray Done; want 4, untouched", got)
		}
		q.AddWithOpts(AddOpts{Priority: 1}, 3)
		want := []struct{ item, prio int }{{3, 1}, {1, 0}, {2, 0}, {4, 0}}
		for _, w := range want {
			if item, prio, _ := q.GetWithPriority(); item != w.item || prio != w.prio {
				t.Fatalf("GetWithPriority() = %d, %d; want %d, %d", item, prio, w.item, w.prio)
			}
		}
	})
}

// TestLaneClaimsSeen: the owner learns of claims from the claim bits, in
// any order: a Done of an item claimed from the lane ends its processing,
// and an Add of it marks it to run again, even when an earlier slot is
// still unclaimed.
func TestLaneClaimsSeen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := lanedQueue(t, 4)
		defer q.ShutDown()
		c := q.c
		first := <-c.lane.ch // slot of 1: received, not claimed yet
		_, item, _, got, _ := c.lane.get(c, nil)
		if !got || item != 2 {
			t.Fatalf("claimed %d, %v; want 2, true", item, got)
		}
		q.Add(2) // processing: dirty
		if n := q.Len(); n != 2 {
			t.Fatalf("Len() = %d; want 2 (1 received, not claimed; 3 offered)", n)
		}
		q.Done(2) // ready again
		if n := q.Len(); n != 3 {
			t.Fatalf("Len() = %d after Done; want 3", n)
		}
		if !first.state.CompareAndSwap(slotOffered, slotClaimed) {
			t.Fatal("the slot of 1 was revoked")
		}
		c.lane.claims[first.idx/64].Or(1 << (first.idx % 64))
		q.Done(1)
		for _, want := range []int{3, 2} {
			if item, _ := q.Get(); item != want {
				t.Fatalf("Get() = %d; want %d", item, want)
			}
		}
		if n := q.Len(); n != 0 {
			t.Fatalf("Len() = %d; want 0", n)
		}
	})
}

// TestLaneClaimSeenByIdleOwner: a Done that reaches an idle owner, which
// receives it in its select rather than taking it from the inbox, comes
// after the consumer's claim of its item: the claim is seen first, and
// the Done ends the processing (with either inbox).
func TestLaneClaimSeenByIdleOwner(t *testing.T) {
	for _, batch := range []bool{false, true} {
		paths := fastPaths{lane: true, batch: batch, filter: true}
		synctest.Test(t, func(t *testing.T) {
			q := New(Config[int]{paths: &paths})
			defer q.ShutDown()
			for i := range 3 {
				q.Add(i)
			}
			if item, _ := q.Get(); item != 0 {
				t.Fatalf("batch=%v: Get() = %d; want 0", batch, item)
			}
			synctest.Wait() // the lane offers 1 and 2; the owner is idle
			if item, _ := q.Get(); item != 1 {
				t.Fatalf("batch=%v: Get() = %d; want 1", batch, item)
			}
			q.Done(1)
			synctest.Wait()
			q.Add(1) // absent after its Done: ready again, behind 2
			if n := q.Len(); n != 2 {
				t.Fatalf("batch=%v: Len() = %d after Done(1) and Add(1); want 2", batch, n)
			}
			for _, want := range []int{2, 1} {
				if item, _ := q.Get(); item != want {
					t.Fatalf("batch=%v: Get() = %d; want %d", batch, item, want)
				}
			}
		})
	}
}
