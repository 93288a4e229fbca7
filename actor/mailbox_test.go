package actor

import (
	"sync"
	"testing"
	"testing/synctest"
)

// TestMailboxOrder has many senders put numbered requests, adds and Dones
// mixed, and an owner take them as the owner goroutine does (the ring,
// then the gates, sleeping on the bell when there is nothing): every
// request arrives once, and each sender's in the order it put them. Run it
// with -race.
func TestMailboxOrder(t *testing.T) {
	const senders, each = 16, 20_000
	bell := make(chan struct{}, 1)
	m := newMailbox[int](bell)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				op := opDone
				if (s+i)%3 != 0 {
					op = opAdd // limited to inboxSize cells
				}
				if !m.put(request[int]{op: op, item: s*each + i}, done) {
					t.Errorf("sender %d: put returned false", s)
					return
				}
			}
		})
	}
	next := make([]int, senders)
	got := 0
	check := func(r request[int]) {
		s, i := r.item/each, r.item%each
		if i != next[s] {
			t.Fatalf("sender %d: request %d arrived after %d", s, i, next[s]-1)
		}
		next[s]++
		got++
	}
	for got < senders*each {
		for {
			r, ok := m.take()
			if !ok {
				break
			}
			check(r)
		}
		if m.admit(roundSize) > 0 || got == senders*each {
			continue
		}
		if m.sleep() {
			<-bell
			m.wake()
		}
	}
	wg.Wait()
	close(done)
}

// TestMailboxLimits checks the room each kind of request has: adds may fill
// inboxSize cells, the other requests the whole ring; a sender that finds
// no room parks until the owner takes requests, or returns false once done
// is closed.
func TestMailboxLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bell := make(chan struct{}, 1)
		m := newMailbox[int](bell)
		done := make(chan struct{})
		for i := range inboxSize {
			if !m.put(request[int]{op: opAdd, item: i}, done) {
				t.Fatalf("add %d: no room", i)
			}
		}
		parked := make(chan bool)
		go func() { parked <- m.put(request[int]{op: opAdd, item: -1}, done) }()
		synctest.Wait()
		if n := m.adds.waiting.Load(); n != 1 {
			t.Fatalf("%d adds waiting with %d in the ring; want 1", n, inboxSize)
		}
		for i := range mailboxSize - inboxSize { // Dones still have room
			if !m.put(request[int]{op: opDone, item: i}, done) {
				t.Fatalf("done %d: no room", i)
			}
		}
		go func() { parked <- m.put(request[int]{op: opDone, item: -2}, done) }()
		synctest.Wait()
		if n := m.others.waiting.Load(); n != 1 {
			t.Fatalf("%d Dones waiting with a full ring; want 1", n)
		}
		// The owner takes the ring, then the parked requests.
		var order []int
		for {
			r, ok := m.take()
			if !ok {
				break
			}
			order = append(order, r.item)
		}
		if len(order) != mailboxSize {
			t.Fatalf("took %d requests from the ring; want %d", len(order), mailboxSize)
		}
		for len(order) < mailboxSize+2 {
			synctest.Wait()
			m.admit(roundSize)
			for {
				r, ok := m.take()
				if !ok {
					break
				}
				order = append(order, r.item)
			}
		}
		for range 2 {
			if !<-parked {
				t.Fatal("a parked put returned false")
			}
		}
		// Each parked request takes its place after what was in the ring
		// when it parked: the add parked first.
		if tail := order[mailboxSize:]; !(tail[0] == -1 && tail[1] == -2) {
			t.Fatalf("parked requests taken as %v; want the add's, then the Done's", tail)
		}
		// Once done is closed, a sender that finds no room gives up.
		for range inboxSize {
			m.put(request[int]{op: opAdd}, done)
		}
		go func() { parked <- m.put(request[int]{op: opAdd}, done) }()
		synctest.Wait()
		close(done)
		if <-parked {
			t.Fatal("put returned true after done closed with no room")
		}
	})
}
