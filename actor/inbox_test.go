package actor

import (
	"sync"
	"testing"
	"testing/synctest"
)

// TestInboxRoom: adds and the other requests each wait once the inbox
// holds addsSize (othersSize) of their kind, until the owner takes them; an add that
// takes its filter entry's sent flag never waits; a put that waits gives
// up, sending nothing, when the queue is done.
func TestInboxRoom(t *testing.T) {
	for _, tc := range []struct {
		name  string
		op    op
		limit int
	}{{"add", opAdd, addsSize}, {"done", opDone, othersSize}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in := &inbox[int]{bell: make(chan struct{}, 1)}
				never := make(chan struct{})
				for i := range tc.limit {
					if !in.put(request[int]{op: tc.op, item: i}, never) {
						t.Fatalf("put %d reported done", i)
					}
				}
				// The other kind, and a hot add, still go in at once.
				other := opDone
				if tc.op == opDone {
					other = opAdd
				}
				in.put(request[int]{op: other, item: -1}, never)
				in.put(request[int]{op: opAdd, item: -2, entry: &entry[int]{item: -2}}, never)

				var wg sync.WaitGroup
				var sent bool
				wg.Go(func() { sent = in.put(request[int]{op: tc.op, item: tc.limit}, never) })
				synctest.Wait()
				if got := in.len(); got != tc.limit+2 {
					t.Fatalf("len() = %d while a put waits; want %d", got, tc.limit+2)
				}
				if r := in.take(); r == nil || r.item != 0 {
					t.Fatalf("take() = %v; want item 0", r)
				}
				wg.Wait()
				if !sent {
					t.Fatal("the waiting put reported done")
				}
				if got := in.len(); got != tc.limit+2 {
					t.Fatalf("len() = %d after the owner took a batch and one more was put; want %d", got, tc.limit+2)
				}

				// Fill the inbox again; a waiting put gives up when the
				// queue is done.
				for i := range tc.limit - 1 {
					in.put(request[int]{op: tc.op, item: i}, never)
				}
				done := make(chan struct{})
				wg.Go(func() { sent = in.put(request[int]{op: tc.op}, done) })
				synctest.Wait()
				close(done)
				wg.Wait()
				if sent {
					t.Fatal("a put that waited past done reported it sent")
				}
			})
		})
	}
}

// TestDrainKeepsInboxSmall: one consumer that gets every item from the
// lane and is done with it, faster than the owner applies its Dones, is
// held back by them: the inbox never holds more than its bound, so a burst
// leaves no large buffers behind.
func TestDrainKeepsInboxSmall(t *testing.T) {
	const n = 100_000
	q := newQueue(Config[int]{}, allPaths)
	defer q.ShutDown()
	for i := range n {
		q.Add(i)
	}
	for i := range n {
		item, _ := q.Get()
		if item != i {
			t.Fatalf("Get() = %d; want %d", item, i)
		}
		q.Done(item)
	}
	if l := q.Len(); l != 0 {
		t.Fatalf("Len() = %d after the drain; want 0", l)
	}
	in := &q.c.inbox
	in.mu.Lock()
	reqs, batch := cap(in.reqs), cap(in.batch)
	in.mu.Unlock()
	// The inbox holds at most addsSize adds, othersSize others and one
	// add per filter entry (none here); append rounds a buffer up.
	const bound = 2 * (addsSize + othersSize)
	if reqs > bound || batch > bound {
		t.Fatalf("inbox buffers of %d and %d requests after the drain; want at most %d", reqs, batch, bound)
	}
}
