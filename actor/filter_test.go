package actor

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"

	"github.com/actorq/actorq/actor/internal/state"
)

// TestFilterTable drives the filter's table directly: an entry goes to an
// empty slot of its bucket before it evicts anyone, then to the slot of an
// item the queue no longer knows, then to the last; an evicted entry's
// noop flag is cleared, so that a caller still holding it sends its Add
// unless another Add of its item is in the inbox (sent); and an item
// whose entry was evicted has none.
func TestFilterTable(t *testing.T) {
	f := newFilter(state.New(state.Config[int]{}))
	if _, skip := f.skip(1); skip {
		t.Fatal("skip(1) with no table = true")
	}
	// Items whose entries share a bucket.
	var same []int
	b := bucket(f.hash(0))
	for i := 0; len(same) < filterWays+1; i++ {
		if bucket(f.hash(i)) == b {
			same = append(same, i)
		}
	}
	for i, item := range same {
		if i != 2 { // the queue forgets same[2] (see below)
			f.q.Add(item, state.Opts{}, 0)
		}
	}
	var entries []*entry[int]
	for _, i := range same[:filterWays] {
		entries = append(entries, f.insert(i))
	}
	for i, e := range entries {
		if got := f.entry(same[i]); got != e {
			t.Fatalf("entry(%d) = %p; want %p", same[i], got, e)
		}
	}
	entries[1].setNoop(true)
	if e, skip := f.skip(same[1]); !skip || e != entries[1] {
		t.Fatalf("skip(%d) with noop = %p, %v; want its entry, true", same[1], e, skip)
	}
	// The queue does not know same[2]: its slot goes first.
	entries[2].flags.Or(flagSent)
	e := f.insert(same[4])
	if f.entry(same[2]) != nil || f.entry(same[4]) != e {
		t.Fatal("insert into a full bucket did not take the slot of the item the queue forgot")
	}
	if entries[2].flags.Load()&flagNoop != 0 {
		t.Fatal("the evicted entry kept its noop flag")
	}
	if _, skip := f.skip(same[2]); skip {
		t.Fatal("skip of an item whose entry was evicted = true")
	}
	// No item gone: the last slot is evicted.
	f.insert(same[2])
	if f.entry(same[filterWays-1]) != nil && f.entry(same[4]) != nil && f.entry(same[0]) != nil && f.entry(same[1]) != nil {
		t.Fatal("insert into a full bucket with no item gone evicted nobody")
	}
}

// TestFilterComeBack: an item that left the queue and comes back gets an
// entry at its come-back, once the table exists, so that a key consumers
// keep up with is filtered from its next Add on.
func TestFilterComeBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Config[int]{}, allPaths)
		defer q.ShutDown()
		f := q.c.filter
		q.Add(1)
		q.Add(1) // known: 1 gets an entry, and the table exists
		synctest.Wait()
		if f.table.Load() == nil || f.entry(1) == nil {
			t.Fatal("no entry for an item added twice")
		}
		q.Add(2)
		item, _ := q.Get()
		q.Done(item)
		item, _ = q.Get()
		q.Done(item) // 2 left, without an entry: noted
		q.Len()
		if f.entry(2) != nil {
			t.Fatal("an entry for an item that was never re-added")
		}
		q.Add(2) // came back
		q.Len()
		e := f.entry(2)
		if e == nil || e.flags.Load()&flagNoop == 0 {
			t.Fatalf("entry of a come-back = %p; want one, with noop (it is ready)", e)
		}
		if _, skip := f.skip(2); !skip {
			t.Fatal("an Add of a ready come-back is not filtered")
		}
	})
}

// TestFilterAddAroundClaim: a consumer's claim from the lane reads how
// many requests were put, then clears its item's flags, then claims; the
// owner may apply an Add of the item before it sees the claim, and finds
// the item popped. Such an Add is applied again once the owner has seen
// the claim, and its place decides: an Add put before the claim read the
// count is a duplicate (the item does not run again: a consumer's own Add
// before its Get), one put after it makes the item run again after its
// Done (and an Add after the claim that found the first one's sent flag
// set, and counted on it, is not lost).
func TestFilterAddAroundClaim(t *testing.T) {
	for _, addFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("add before the claim=", addFirst), func(t *testing.T) {
			o := newOwner(Config[int]{}, allPaths)
			c := o.c
			q := &Queue[int]{c: c}
			q.Add(1)
			o.serveInbox(roundSize)
			q.Add(1) // a duplicate that reaches the owner: item 1 gets a filter entry
			o.serveInbox(roundSize)
			o.c.lane.wanted = true
			o.serveReady() // offers 1 in the lane
			sl := c.lane.receive()
			if sl.item != 1 || sl.entry.Load() == nil {
				t.Fatalf("slot holds %d with entry %v; want 1 with its entry", sl.item, sl.entry.Load())
			}
			q.Add(2) // another request, so that the next ones share a batch
			if addFirst {
				sl.entry.Load().setNoop(false) // as if an Add that the filter let through (at a priority, say)
				q.Add(1)                       // its request is before the claim
			}
			after := c.inbox.puts.Load() // lane.seize: the count first,
			sl.cleared = sl.entry.Load() // then the flags,
			sl.cleared.clear()
			if !addFirst {
				q.Add(1) // sets sent again: its request is after the claim
			}
			sl.after = after // then the claim
			if !sl.state.CompareAndSwap(slotOffered, slotClaimed) {
				t.Fatal("claim failed")
			}
			o.serve(c.inbox.take()) // the Add of 2, which sees no claim yet
			c.lane.claims[sl.idx/64].Or(1 << (sl.idx % 64))
			if !addFirst {
				q.Add(1) // after the claim: finds sent set, and counts on the Add before
				if n := c.inbox.len(); n != 1 {
					t.Fatalf("requests waiting = %d; want 1 (the Add after the claim is skipped)", n)
				}
			}
			o.serve(c.inbox.take()) // the Add of 1: the item is popped

			q.Done(1)
			o.serveInbox(math.MaxInt)
			want := state.Ready // added after its claim: it runs again
			if addFirst {
				want = state.Absent // a duplicate of the item ready then
			}
			if st := o.q.Status(1); st != want {
				t.Fatalf("after the Done, item 1 is %v; want %v", st, want)
			}
			c.quit()
			o.exit()
		})
	}
}

// TestFilterPoppedKeepsSlotEntry: the slot of an item on its way to a
// consumer carries the item's entry, so that the consumer's claim clears
// the flags of every Add that may count on one made before it. An item
// offered without an entry that gets one from a duplicate Add reaching
// the owner gets it in its slot too; an item whose stub is in the table
// gets its entry as it is offered, in the stub's place, so that no Add
// makes it another meanwhile.
func TestFilterPoppedKeepsSlotEntry(t *testing.T) {
	o := newOwner(Config[int]{}, allPaths)
	c := o.c
	q := &Queue[int]{c: c}
	f := c.filter
	q.Add(1)
	q.Add(2)
	q.Add(2) // a duplicate that reaches the owner: the table exists, 2 has an entry
	o.serveInbox(math.MaxInt)
	if f.entry(1) != nil || f.entry(2) == nil {
		t.Fatalf("entries of 1 and 2 = %p, %p; want none and one", f.entry(1), f.entry(2))
	}
	o.c.lane.wanted = true
	o.serveReady() // offers 1 and 2 in the lane
	sl := c.lane.receive()
	if sl.item != 1 || sl.entry.Load() != nil {
		t.Fatalf("first slot holds %d with entry %p; want 1 with none", sl.item, sl.entry.Load())
	}
	q.Add(1) // a duplicate of a popped item, which gets an entry
	o.serveInbox(math.MaxInt)
	if e := f.entry(1); e == nil || sl.entry.Load() != e {
		t.Fatalf("item 1, popped, has entry %p, and its slot carries %p; want one entry, carried", e, sl.entry.Load())
	}
	if _, _, ok := c.lane.claim(sl, 0, c.inbox.puts.Load()); !ok {
		t.Fatal("claim of 1 failed")
	}
	q.Done(1)
	o.serveInbox(math.MaxInt)
	if st := o.q.Status(1); st != state.Absent {
		t.Fatalf("after its Done, item 1 is %v; want absent (the Add was a duplicate)", st)
	}

	// Item 2 leaves with an entry, and a stub takes its place; it comes
	// back without an entry (its departure is forgotten, as if another
	// item of its index left after it).
	sl = c.lane.receive()
	if _, _, ok := c.lane.claim(sl, 0, c.inbox.puts.Load()); sl.item != 2 || !ok {
		t.Fatalf("second slot holds %d, or its claim failed; want 2", sl.item)
	}
	q.Done(2)
	o.serveInbox(math.MaxInt)
	f.left[f.hash(2)&(filterSize-1)] = 0
	c.send(request[int]{op: opAdd, item: 2}) // an Add that did not look at the table
	o.serveInbox(math.MaxInt)
	if _, s := look(f.table.Load(), f.hash(2), 2); s == nil || !s.isStub() {
		t.Fatalf("item 2 came back with %+v in the table; want its stub", s)
	}
	o.serveReady() // offers 2
	sl = c.lane.receive()
	if sl.item != 2 || sl.entry.Load() == nil || sl.entry.Load() != f.entry(2) {
		t.Fatalf("slot holds %d with entry %p; want 2 with its entry %p, in its stub's place", sl.item, sl.entry.Load(), f.entry(2))
	}
	if _, _, ok := c.lane.claim(sl, 0, c.inbox.puts.Load()); !ok {
		t.Fatal("claim of 2 failed")
	}
	q.Done(2)
	o.serveInbox(math.MaxInt)
	c.quit()
	o.exit()
}

// TestFilterStub drives the table through an item's departure: its entry
// is evicted and a stub of its hash, which holds no item, takes its
// place; the first Add of the item coming back puts a new entry in the
// stub's place and takes its sent flag, so that the Adds after it are
// filtered; and the owner, making an entry of an item whose stub is
// there, makes it in the stub's place too, so that no item has two.
func TestFilterStub(t *testing.T) {
	f := newFilter(state.New(state.Config[int]{}))
	var same []int // items of one bucket
	b := bucket(f.hash(0))
	for i := 0; len(same) < filterWays+1; i++ {
		if bucket(f.hash(i)) == b {
			same = append(same, i)
		}
	}
	for i, item := range same {
		if i != 3 { // the queue does not know same[3] (see below)
			f.q.Add(item, state.Opts{}, 0)
		}
	}
	x := same[1]
	f.insert(same[0])
	e := f.insert(x)
	tb := f.table.Load()
	f.leave(same[0], false) // its slot is empty now, before x's
	if tb[b].Load() != nil {
		t.Fatal("leave without a stub left something in the entry's place")
	}
	e.setNoop(true)
	f.leave(x, true)
	if e.flags.Load()&flagNoop != 0 {
		t.Fatal("the entry of an item that left is not evicted")
	}
	if f.entry(x) != nil {
		t.Fatal("an item that left still has an entry")
	}
	holding := func(item int) (n int) {
		for i := range tb {
			if h := tb[i].Load(); h != nil && !h.isStub() && h.item == item {
				n++
			}
		}
		return n
	}
	if n := holding(x); n != 0 {
		t.Fatalf("%d slots hold item %d after it left", n, x)
	}
	i, s := look(tb, f.hash(x), x)
	if s == nil || !s.isStub() || s.hash != f.hash(x) || i != b+1 {
		t.Fatalf("look after the departure = slot %d, %+v; want the stub of its hash in slot %d", i, s, b+1)
	}
	if _, skip := f.skip(x); skip {
		t.Fatal("skip of an item that left = true")
	}
	// That skip was an Add coming back: its entry took the stub's place.
	ne := tb[b+1].Load()
	if ne == nil || ne.isStub() || ne.item != x || ne == e {
		t.Fatalf("after an Add came back, the stub's slot holds %+v; want a new entry of %d", ne, x)
	}
	if got, skip := f.skip(x); skip || got != ne {
		t.Fatalf("skip of a come-back before its Add is sent = %p, %v; want its entry, false", got, skip)
	}
	if !ne.markSent() {
		t.Fatal("the come-back's Add could not take the sent flag")
	}
	if _, skip := f.skip(x); !skip {
		t.Fatal("an Add after the come-back's Add is not filtered")
	}
	if f.insert(x) != ne || f.entry(x) != ne {
		t.Fatal("the owner does not find the entry an Add made")
	}
	ne.flags.And(^flagSent)

	// The owner makes the entry of an item whose stub is there: in the
	// stub's place, not in the empty slot before it.
	f.leave(x, true)
	if got := f.insert(x); tb[b+1].Load() != got || holding(x) != 1 {
		t.Fatal("the owner's entry of a come-back is not in its stub's place alone")
	}

	// A stub goes before an entry of an item gone, and after an empty
	// slot.
	f.leave(x, true) // stub in b+1
	f.insert(same[2])
	f.insert(same[3])
	f.insert(same[0])
	if tb[b].Load() == nil || tb[b].Load().item != same[2] || !tb[b+1].Load().isStub() {
		t.Fatal("an empty slot did not go before a stub")
	}
	f.insert(same[4]) // same[3]'s item is gone
	if got := tb[b+1].Load(); got == nil || got.isStub() || got.item != same[4] {
		t.Fatal("a stub's slot did not go before an entry of an item gone")
	}
	if _, skip := f.skip(x); skip || f.entry(x) != nil {
		t.Fatal("an Add of an item whose stub was replaced found an entry")
	}

	// No stub of a hash that another entry of the bucket has: a stand-in
	// for an item of the same hash as same[3].
	f.leave(same[2], false)
	tb[b].Store(&entry[int]{item: -1, hash: f.hash(same[3])})
	f.leave(same[3], true)
	if _, s := look(tb, f.hash(same[3]), same[3]); s != nil {
		t.Fatal("a stub of a hash that another entry has")
	}
}

// TestFilterNothingLeft: an item re-added while ready gets an entry;
// once it is handed out and Done, no slot of the table holds it, the
// next Add of it goes to the owner with a new entry in the place of its
// stub, and the Adds after that one are filtered. After shutdown, an add
// the state ignored leaves no entry.
func TestFilterNothingLeft(t *testing.T) {
	o := newOwner(Config[int]{}, allPaths)
	c := o.c
	q := &Queue[int]{c: c}
	f := c.filter
	q.Add(1)
	o.serveInbox(roundSize)
	q.Add(1) // a duplicate that reaches the owner: 1 gets an entry
	o.serveInbox(roundSize)
	old := f.entry(1)
	if old == nil {
		t.Fatal("no entry for an item re-added while ready")
	}
	o.c.lane.wanted = true
	o.serveReady() // offers 1 in the lane
	sl := c.lane.receive()
	if item, _, ok := ClaimOffered(q, sl); !ok || item != 1 {
		t.Fatalf("claim = %d, %v; want 1, true", item, ok)
	}
	q.Done(1)
	o.serveInbox(roundSize) // sees the claim, then applies the Done: 1 left
	if st := o.q.Status(1); st != state.Absent {
		t.Fatalf("after its Done, item 1 is %v; want absent", st)
	}
	tb := f.table.Load()
	for i := range tb {
		if e := tb[i].Load(); e != nil && !e.isStub() && e.item == 1 {
			t.Fatalf("slot %d holds item 1 after it left the queue", i)
		}
	}
	q.Add(1) // comes back: a new entry, and a request
	q.Add(1) // filtered: an Add is in the inbox
	q.Add(1)
	if n := c.inbox.len(); n != 1 {
		t.Fatalf("requests waiting = %d; want 1 (the come-back's Add)", n)
	}
	o.serveInbox(roundSize)
	e := f.entry(1)
	if e == nil || e == old || e.flags.Load() != flagNoop {
		t.Fatalf("entry of the come-back = %+v; want a new one, noop and not sent", e)
	}
	if st := o.q.Status(1); st != state.Ready {
		t.Fatalf("after it came back, item 1 is %v; want ready", st)
	}

	c.quit()
	o.exit()
	f.insert(2)
	f.added(2, nil, &state.Opts{}, o.q.Add(2, state.Opts{}, 0)) // ignored: the queue has ended
	if f.entry(2) != nil {
		t.Fatal("an add ignored after shutdown left an entry")
	}
}
