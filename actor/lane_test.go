package actor

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
)

// lanedQueue returns a queue, inside the caller's synctest bubble, whose
// lane offers items 1 to n-1: a Get took item 0 and made the owner fill
// the lane.
func lanedQueue(t *testing.T, n int) *Queue[int] {
	t.Helper()
	q := newQueue(Config[int]{}, allPaths)
	for i := range n {
		q.Add(i)
	}
	if item, _ := q.Get(); item != 0 {
		t.Fatalf("Get() = %d; want 0", item)
	}
	synctest.Wait()
	if got := q.c.lane.len(); got != n-1 {
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
		if got := q.c.lane.len(); got != 4 {
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
		first := c.lane.receive() // slot of 1: received, not claimed yet
		item, _, got, _ := c.get(nil)
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
		if _, _, ok := c.lane.claim(first, 0, c.inbox.puts.Load()); !ok {
			t.Fatal("the slot of 1 was revoked")
		}
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

// TestLaneClaimSeenByIdleOwner: a Done that reaches an idle owner comes
// after the consumer's claim of its item: the claim is seen first, and the
// Done ends the processing.
func TestLaneClaimSeenByIdleOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Config[int]{}, allPaths)
		defer q.ShutDown()
		for i := range 3 {
			q.Add(i)
		}
		if item, _ := q.Get(); item != 0 {
			t.Fatalf("Get() = %d; want 0", item)
		}
		synctest.Wait() // the lane offers 1 and 2; the owner is idle
		if item, _ := q.Get(); item != 1 {
			t.Fatalf("Get() = %d; want 1", item)
		}
		q.Done(1)
		synctest.Wait()
		q.Add(1) // absent after its Done: ready again, behind 2
		if n := q.Len(); n != 2 {
			t.Fatalf("Len() = %d after Done(1) and Add(1); want 2", n)
		}
		for _, want := range []int{2, 1} {
			if item, _ := q.Get(); item != want {
				t.Fatalf("Get() = %d; want %d", item, want)
			}
		}
	})
}

// failedClaim returns a queue, inside the caller's synctest bubble, whose
// lane holds one slot that the next Get receives and cannot claim: a
// consumer received it, then the owner revoked it (a GetBatch took the
// lane back, and every ready item with it). The slot still holds its item,
// which is not the caller's to take; failedClaim returns it.
func failedClaim(t *testing.T) (q *Queue[int], stale int) {
	t.Helper()
	q = lanedQueue(t, 3)     // the lane offers 1 and 2
	sl := q.c.lane.receive() // received, not claimed
	if items, _ := q.GetBatch(make([]int, 0, 8)); !slices.Equal(items, []int{1, 2}) {
		t.Fatalf("GetBatch() = %v; want [1 2]", items)
	}
	if sl.state.Load() == slotOffered {
		t.Fatal("slot offered after GetBatch; want revoked")
	}
	synctest.Wait()
	if n := q.c.lane.len(); n != 0 {
		t.Fatalf("slots in the lane = %d; want 0", n)
	}
	q.c.lane.put([]*slot[int]{sl}) // the next Get receives it
	return q, sl.item
}

// TestFailedClaim: a Get whose claim of a lane slot fails asks the owner,
// and returns what the owner answers, never the slot's item: the zero
// value with shutdown, the zero value with the context's error, or the
// item the owner handed out. Every other way of taking items then agrees.
func TestFailedClaim(t *testing.T) {
	type result struct {
		item, prio int
		shutdown   bool
		err        error
	}
	takes := []struct {
		name string
		take func(q *Queue[int], ctx context.Context) result
	}{
		{"Get", func(q *Queue[int], _ context.Context) result {
			item, sd := q.Get()
			return result{item: item, shutdown: sd}
		}},
		{"GetWithPriority", func(q *Queue[int], _ context.Context) result {
			item, prio, sd := q.GetWithPriority()
			return result{item: item, prio: prio, shutdown: sd}
		}},
		{"GetContext", func(q *Queue[int], ctx context.Context) result {
			item, err := q.GetContext(ctx)
			return result{item: item, shutdown: errors.Is(err, ErrShutDown), err: err}
		}},
	}
	events := []struct {
		name  string
		event func(q *Queue[int], cancel context.CancelFunc)
		want  result // err is checked apart
	}{
		{"then shutdown", func(q *Queue[int], _ context.CancelFunc) { q.ShutDown() }, result{shutdown: true}},
		{"then an item", func(q *Queue[int], _ context.CancelFunc) { q.AddWithOpts(AddOpts{Priority: 3}, 7) }, result{item: 7, prio: 3}},
		{"then the context ends", func(_ *Queue[int], cancel context.CancelFunc) { cancel() }, result{}},
	}
	for _, tk := range takes {
		for _, ev := range events {
			t.Run(tk.name+"/"+ev.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					q, stale := failedClaim(t)
					defer q.ShutDown()
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					got := make(chan result, 1)
					go func() { got <- tk.take(q, ctx) }()
					synctest.Wait() // the Get gave the slot back and waits for the owner
					ev.event(q, cancel)
					want := ev.want
					switch {
					case tk.name != "GetContext" && ev.name == "then the context ends":
						// Get has no context: it still waits; an item releases it.
						synctest.Wait()
						select {
						case r := <-got:
							t.Fatalf("%s = %+v after the context ended; want it still waiting", tk.name, r)
						default:
						}
						q.Add(9)
						want = result{item: 9}
					case tk.name == "GetContext" && ev.name == "then the context ends":
						want.err = context.Canceled
					case tk.name == "GetContext" && ev.name == "then shutdown":
						want.err = ErrShutDown
					}
					r := <-got
					if tk.name != "GetWithPriority" {
						want.prio = 0
						r.prio = 0
					}
					if r != want {
						t.Fatalf("%s = %+v; want %+v (the slot's stale item is %d)", tk.name, r, want, stale)
					}
					if ev.name != "then shutdown" {
						return
					}
					if items, sd := q.GetBatch(make([]int, 0, 4)); len(items) != 0 || !sd {
						t.Fatalf("GetBatch() = %v, %v after shutdown; want [], true", items, sd)
					}
					if item, ok := <-q.Items(); ok || item != 0 {
						t.Fatalf("<-Items() = %d, %v after shutdown; want 0, false (closed)", item, ok)
					}
				})
			})
		}
	}
}
