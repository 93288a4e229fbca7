package actor

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// TestMailboxOrder has many senders put numbered requests, adds, lists
// (which spill) and Dones mixed, and an owner take them as the owner goroutine does (the ring,
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
				switch {
				case (s+i)%5 == 1:
					op = opAddList // spills when there is no room
				case (s+i)%7 == 2:
					op = opAddPrio // spills too
				case (s+i)%3 != 0:
					op = opAdd // limited to inboxSize cells
				}
				if !m.put(request[int]{op: op, item: s*each + i}, nil, done) {
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
// inboxSize cells, the other requests all but inboxSize; a sender that
// finds no room parks until the owner takes requests, or returns false once
// done is closed.
func TestMailboxLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bell := make(chan struct{}, 1)
		m := newMailbox[int](bell)
		done := make(chan struct{})
		for i := range inboxSize {
			if !m.put(request[int]{op: opAdd, item: i}, nil, done) {
				t.Fatalf("add %d: no room", i)
			}
		}
		parked := make(chan bool)
		go func() { parked <- m.put(request[int]{op: opAdd, item: -1}, nil, done) }()
		synctest.Wait()
		if n := m.addGate.waiting.Load(); n != 1 {
			t.Fatalf("%d adds waiting with %d in the ring; want 1", n, inboxSize)
		}
		for i := range mailboxSize - 2*inboxSize { // Dones still have room
			if !m.put(request[int]{op: opDone, item: i}, nil, done) {
				t.Fatalf("done %d: no room", i)
			}
		}
		go func() { parked <- m.put(request[int]{op: opDone, item: -2}, nil, done) }()
		synctest.Wait()
		if n := m.others.waiting.Load(); n != 1 {
			t.Fatalf("%d Dones waiting with all but inboxSize cells full; want 1", n)
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
		const inRing = mailboxSize - inboxSize
		if len(order) != inRing {
			t.Fatalf("took %d requests from the ring; want %d", len(order), inRing)
		}
		for len(order) < inRing+2 {
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
		if tail := order[inRing:]; !(tail[0] == -1 && tail[1] == -2) {
			t.Fatalf("parked requests taken as %v; want the add's, then the Done's", tail)
		}
		// Consumers' requests up to their limit leave the adds their room.
		for i := range mailboxSize - inboxSize {
			if !m.put(request[int]{op: opDone, item: i}, nil, done) {
				t.Fatalf("done %d: no room", i)
			}
		}
		for i := range inboxSize {
			if !m.tryPut(request[int]{op: opAddList}, nil) {
				t.Fatalf("AddWithOpts %d: no room behind %d Dones", i, mailboxSize-inboxSize)
			}
		}
		if m.tryPut(request[int]{op: opAdd}, nil) {
			t.Fatalf("add with %d adds in the ring: room; want none", inboxSize)
		}
		for {
			if _, ok := m.take(); !ok {
				break
			}
		}
		// Once done is closed, a sender that finds no room gives up.
		for range inboxSize {
			m.put(request[int]{op: opAdd}, nil, done)
		}
		go func() { parked <- m.put(request[int]{op: opAdd}, nil, done) }()
		synctest.Wait()
		close(done)
		if <-parked {
			t.Fatal("put returned true after done closed with no room")
		}
	})
}

// TestMailboxSpill checks that an AddWithOpts request, of a list or of
// one item, never waits: with no room in the ring it spills, and takes its
// place in the order all the same, after the requests put before it and
// before those put after it.
func TestMailboxSpill(t *testing.T) {
	t.Run("list", func(t *testing.T) { testMailboxSpill(t, opAddList) })
	t.Run("one", func(t *testing.T) { testMailboxSpill(t, opAddPrio) })
}

func testMailboxSpill(t *testing.T, spiller op) {
	m := newMailbox[int](make(chan struct{}, 1))
	done := make(chan struct{})
	ticket := 0
	for range mailboxSize - inboxSize {
		if !m.tryPut(request[int]{op: opDone, item: ticket}, nil) {
			t.Fatalf("done %d: no room", ticket)
		}
		ticket++
	}
	for range inboxSize {
		if !m.tryPut(request[int]{op: opAdd, item: ticket}, nil) {
			t.Fatalf("add %d: no room", ticket)
		}
		ticket++
	}
	if m.tryPut(request[int]{op: spiller, item: -1}, nil) {
		t.Fatal("tryPut found room in a full ring")
	}
	// The ring is full; put returns at once (the test would hang if it
	// waited, since nobody takes).
	if !m.put(request[int]{op: spiller, item: -1}, nil, done) {
		t.Fatal("put of a spilling request returned false")
	}
	if !m.spilled.Load() {
		t.Fatal("the list did not spill")
	}
	// The owner takes enough for a Done to have room again.
	var order []int
	for range inboxSize + 1 {
		r, ok := m.take()
		if !ok {
			t.Fatal("take() found nothing in a full ring")
		}
		order = append(order, r.item)
	}
	// The same sender's next request goes into the ring, after the
	// spilled one in the order.
	if !m.tryPut(request[int]{op: opDone, item: -2}, nil) {
		t.Fatal("no room for a Done")
	}
	for {
		r, ok := m.take()
		if !ok {
			break
		}
		order = append(order, r.item)
	}
	want := make([]int, 0, ticket+2)
	for i := range ticket {
		want = append(want, i)
	}
	want = append(want, -1, -2)
	if !slices.Equal(order, want) {
		t.Fatalf("order = %v...%v; want 0..%d, -1, -2", order[:3], order[len(order)-3:], ticket-1)
	}
	if m.spilled.Load() || len(m.spill) != 0 || len(m.held) != 0 {
		t.Fatalf("after taking everything: spilled %v, spill %d, held %d; want none", m.spilled.Load(), len(m.spill), len(m.held))
	}
	if n := m.adds.Load(); n != 0 {
		t.Fatalf("adds in the ring = %d after taking them all; want 0", n)
	}
}

// TestMailboxAdmitCountsOut checks that a sender the owner admitted at a
// gate no longer counts as waiting, before it runs again: otherwise sleep
// would take it for a sender about to park, and yield instead of block.
func TestMailboxAdmitCountsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMailbox[int](make(chan struct{}, 1))
		done := make(chan struct{})
		for i := range mailboxSize - inboxSize {
			if !m.put(request[int]{op: opDone, item: i}, nil, done) {
				t.Fatalf("done %d: no room", i)
			}
		}
		returned := make(chan bool)
		go func() { returned <- m.put(request[int]{op: opDone, item: -1}, nil, done) }()
		synctest.Wait()
		if !m.waiting() {
			t.Fatal("a sender that found no room does not wait")
		}
		if n := m.admit(roundSize); n != 1 {
			t.Fatalf("admit() = %d; want 1", n)
		}
		if m.waiting() {
			t.Error("the admitted sender still counts as waiting")
		}
		if !<-returned {
			t.Error("the admitted put returned false")
		}
		if m.waiting() {
			t.Error("the admitted sender counts as waiting after it returned")
		}
	})
}

// TestMailboxHotAdd checks the Adds that carry their item's filter entry
// (filter.go, sent): the first sets the entry's sent flag as it takes its
// place, becoming an opAddHot, and never waits for room, spilling when the
// adds' share is full; a second one while the first is in the inbox is
// dropped if it would spill, and goes in as a plain Add if it gets a
// ticket.
func TestMailboxHotAdd(t *testing.T) {
	f := newFilter[int]()
	f.insert(7, func(int) bool { return true })
	e := f.lookup(7)
	m := newMailbox[int](make(chan struct{}, 1))
	done := make(chan struct{})

	// Room in the ring: the Add goes in with the flag set.
	if !m.put(request[int]{op: opAdd, item: 7}, e, done) {
		t.Fatal("put returned false")
	}
	if got, skip := f.skip(7); got != e || !skip {
		t.Fatalf("after the first Add: skip(7) = %p, %v; want %p, true", got, skip, e)
	}
	// A second Add that found the flag clear (it raced with the first)
	// gets a ticket, so it goes in, without the flag.
	if !m.put(request[int]{op: opAdd, item: 7}, e, done) {
		t.Fatal("put returned false")
	}
	for i, want := range []op{opAddHot, opAdd} {
		r, ok := m.take()
		if !ok || r.item != 7 || r.op != want {
			t.Fatalf("request %d: %v, item %d, op %d; want item 7, op %d", i, ok, r.item, r.op, want)
		}
	}
	e.sent.Store(false) // as the owner does once it applied the Add

	// The adds' share full: the Add spills rather than wait (the test
	// would hang if it waited, since nobody takes meanwhile).
	m.settle() // the two Adds taken above
	fillAdds(t, m)
	if !m.put(request[int]{op: opAdd, item: 7}, e, done) {
		t.Fatal("put returned false")
	}
	if !m.spilled.Load() || !e.sent.Load() {
		t.Fatalf("spilled %v, sent %v; want both", m.spilled.Load(), e.sent.Load())
	}
	// Another, while the first is in the inbox, is dropped.
	if !m.put(request[int]{op: opAdd, item: 7}, e, done) {
		t.Fatal("put returned false")
	}
	// A Done put after them comes after the spilled Add.
	if !m.put(request[int]{op: opDone, item: 7}, nil, done) {
		t.Fatal("put of a Done returned false")
	}
	got := takeBelow100(m)
	want := []string{
		fmt.Sprintf("op %d item 7", opAddHot),
		fmt.Sprintf("op %d item 7", opDone),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("requests of item 7: %q; want %q", got, want)
	}
}

// TestMailboxHotAddEvicted checks an Add that holds a filter entry evicted
// since its caller looked it up: the owner clears sent through the table,
// so the flag of an evicted entry whose Add is applied afterwards stays
// set. skip must not trust such an entry, and an Add holding it that finds
// the flag set must go in, not be dropped, or it would be lost.
func TestMailboxHotAddEvicted(t *testing.T) {
	f := newFilter[int]()
	gone := func(int) bool { return true } // 7 too: its Add is not applied yet
	f.insert(7, gone)
	e := f.lookup(7)
	m := newMailbox[int](make(chan struct{}, 1))
	done := make(chan struct{})
	if !m.put(request[int]{op: opAdd, item: 7}, e, done) || !e.sent.Load() {
		t.Fatal("the first Add did not set sent")
	}
	// Items of 7's bucket fill it, and one more evicts 7's entry.
	for k := 8; f.lookup(7) != nil; k++ {
		if f.bucket(k) == f.bucket(7) {
			f.insert(k, gone)
		}
	}
	if !e.dead.Load() {
		t.Fatal("the evicted entry is not dead")
	}
	// The owner applies the Add; its unsend no longer reaches e.
	if r, ok := m.take(); !ok || r.op != opAddHot || r.item != 7 {
		t.Fatalf("took %v, op %d, item %d; want the hot Add of 7", ok, r.op, r.item)
	}
	f.unsend(7)
	if !e.sent.Load() {
		t.Fatal("sent was cleared: the test needs it stale")
	}
	// A caller that loaded e from the table before the eviction: skip
	// reads the flags, then dead.
	b := f.bucket(7)
	t0 := f.table.Load()
	saved := t0[b].Load()
	t0[b].Store(e)
	if got, skip := f.skip(7); got != nil || skip {
		t.Fatalf("skip(7) with a dead entry = %p, %v; want nil, false", got, skip)
	}
	t0[b].Store(saved)
	// An Add holding e that finds the adds' share full spills as a plain
	// Add: an Add of 7 now must reach the owner.
	m.settle()
	fillAdds(t, m)
	if !m.put(request[int]{op: opAdd, item: 7}, e, done) {
		t.Fatal("put returned false")
	}
	got := takeBelow100(m)
	if want := []string{fmt.Sprintf("op %d item 7", opAdd)}; !slices.Equal(got, want) {
		t.Fatalf("requests of item 7: %q; want %q", got, want)
	}
}

// fillAdds fills the adds' share of m's ring with Adds of items 100 and up.
func fillAdds(t *testing.T, m *mailbox[int]) {
	t.Helper()
	for i := range inboxSize {
		if !m.tryPut(request[int]{op: opAdd, item: 100 + i}, nil) {
			t.Fatalf("add %d: no room", i)
		}
	}
}

// takeBelow100 takes every request from m and describes, in order, those
// of items below 100 (the others filled the ring: see fillAdds).
func takeBelow100(m *mailbox[int]) []string {
	var got []string
	for {
		r, ok := m.take()
		if !ok {
			return got
		}
		if r.item < 100 {
			got = append(got, fmt.Sprintf("op %d item %d", r.op, r.item))
		}
	}
}

// TestQueueHotAddClearsSent checks, on a running queue, that the owner
// clears an entry's sent flag once it has applied the Add that set it: a
// caller's Len after its Add sees both the Add applied (the item dirty,
// which the noop flag says) and the flag clear, and the item runs again.
func TestQueueHotAddClearsSent(t *testing.T) {
	q := New(Config[string]{})
	defer q.ShutDown()
	q.Add("a")
	q.Add("a") // a duplicate: "a" gets a filter entry
	if item, _ := q.Get(); item != "a" {
		t.Fatalf("Get() = %q; want a", item)
	}
	q.Len() // the claim seen
	e := q.c.filter.lookup("a")
	if e == nil || e.noop.Load() || e.sent.Load() {
		t.Fatalf("processing: entry %p; want one with noop and sent false", e)
	}
	q.Add("a")
	q.Add("a") // skipped: on sent, or on noop once the first was applied
	if n := q.Len(); n != 0 {
		t.Fatalf("Len() = %d while a is processing; want 0", n)
	}
	if !e.noop.Load() || e.sent.Load() {
		t.Fatalf("dirty: noop %v, sent %v; want true, false", e.noop.Load(), e.sent.Load())
	}
	q.Done("a")
	if item, _ := q.Get(); item != "a" {
		t.Fatalf("Get() after Done = %q; want a", item)
	}
	q.Done("a")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len() = %d; want 0: the skipped Add must not run a third time", n)
	}
}
