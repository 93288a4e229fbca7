package actor

import (
	"hash/maphash"
	"math"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/state"
)

// The duplicate filter lets Add return at once, without a request, when
// the Add would change nothing: what a de-duplication storm (many
// producers re-adding a few hot keys) is made of. A hot item has an entry
// whose flags word an Add reads; an Add that finds noop or sent set
// returns. This file is the whole protocol, and the only one that reads or
// writes an entry's fields; it is longer than 400 lines because it is one
// protocol. Its invariant:
//
//	noop is set only while an Add of the item at priority 0 would
//	change nothing (it is ready, or processing and marked to run
//	again); sent is set only while an Add that set it is in the inbox;
//	an evicted entry's noop is clear for good (the owner sets flags
//	only through the table); an entry in the table is of an item the
//	queue holds, or of one that an Add on its way to the inbox brings
//	back; a popped item's entry is the one its lane slot carries, or
//	none; a stub's flags are only stub.
//
// Who sets what, and where:
//
//	caller    skip: reads the flags; replaces a stub of its item's hash
//	          by a new entry (a compare-and-swap: the only slots callers
//	          write are stubs)
//	inbox     markSent: an Add takes sent under the inbox's lock as it
//	          puts its request, so an Add that finds it set comes after
//	          that one in the order of requests
//	consumer  clear: a claim from the lane clears the flags of the entry
//	          its slot carries, just before the claim
//	lane      offered: the owner gives an item it offers its entry, with
//	          noop set (at priority 0 or more), for its slot to carry;
//	          carry: an entry made for an item since it was offered goes
//	          in its slot too
//	owner     added, follow, forget: the flags follow the item's state
//	          after each event; a hand-out clears them
//
// No request takes an item out of the states where noop holds, only a
// hand-out does. The owner clears sent once it applied the Add that set
// it, and every hand-out clears it too. A claim counts the requests put
// before it (slot.after) before it clears the flags, so an Add that takes
// sent after that comes after the claim, and no Add made after a claim
// counts on one made before it. The owner may apply such an Add before it
// has seen the claim, as a duplicate of a popped item: if the Add's sent
// flag was still set, the owner applies it again once it has seen the
// claim (added decides, asking the lane, claimOf), at the Add's own
// place if the claim cleared that Add's entry, and otherwise after the
// claim, since Adds made after it may have counted on this one. So a
// popped item's slot carries the item's entry: an entry the owner makes
// for a popped item goes in its slot too (carry), and an item with a
// stub gets its entry as the lane offers it, so that no Add makes one
// meanwhile. Clearing a flag early only sends more Adds.
//
// An item gets an entry once an Add of it reaches the owner while the
// queue knows it, or soon after it left (a table
// of departures: a key that consumers keep up with is re-added without
// being known at its adds). The entries are a fixed, set-associative
// cache of hot items, allocated at the first duplicate; the owner clears
// an evicted entry's noop before it replaces it. A custom Storage has no
// filter, since it must see every Touch.
//
// When an item with an entry leaves the queue (its Done), the owner
// evicts the entry, so that the table does not keep the item, and puts in
// its place a stub that holds only the item's hash. The first Add of an
// item of that hash replaces the stub by a new entry of its item, and
// takes its sent flag as it puts its request; the Adds after it find the
// entry set, as they would have found the old one. So that an item never
// has two entries, a bucket holds a stub only of a hash that no other
// entry or stub of the bucket has, and an item's entry goes in the place
// of the stub of its hash if there is one, whoever makes it.
type filter[T comparable] struct {
	q     *state.Queue[T] // owner only: the state whose items' flags it keeps
	seed  maphash.Seed
	table atomic.Pointer[[filterSize]atomic.Pointer[entry[T]]] // nil until the first item re-added
	left  *[filterSize]uint64                                  // owner only: the hash of the last item that left at each index, or 0

	lane laneSlots[T] // the lane (lane.go), or nil without one
}

// laneSlots is what the filter asks of the lane about a popped item,
// whose entry its slot carries.
type laneSlots[T comparable] interface {
	// carry makes the slot of item, popped, carry e from now on: an
	// entry made for item since it was offered.
	carry(item T, e *entry[T])
	// claimOf reports whether item, popped, has been claimed since, and
	// whether that claim cleared the flags of e; if it has, the state has
	// heard of the claim.
	claimOf(item T, e *entry[T]) (claimed, cleared bool)
}

// filterSize is the number of table slots, filterWays the number in a
// bucket.
const (
	filterSize = 1 << 12
	filterWays = 4
)

// entry is an item's entry in the filter, or a stub.
type entry[T comparable] struct {
	item  T             // written before the entry is published, never after; the zero value in a stub
	hash  uint64        // filter.hash of item, written before the entry is published
	flags atomic.Uint32 // flagNoop, flagSent; flagStub alone in a stub
}

// The bits of an entry's flags.
const (
	flagNoop uint32 = 1 << iota // an Add of the item at priority 0 changes nothing now
	flagSent                    // an Add that set it is in the inbox
	flagStub                    // the trace of an item that left (see leave): never trusted, never changes
)

func newFilter[T comparable](q *state.Queue[T]) *filter[T] {
	return &filter[T]{q: q, seed: maphash.MakeSeed()}
}

// skip reports whether an Add of item would change nothing now, or after
// an Add of it already in the inbox. If not, it returns item's entry, if
// it has one, for the Add to set its sent flag: if item left the queue
// with an entry, a new one in the place of its stub. Any goroutine may
// call it; f may be nil.
func (f *filter[T]) skip(item T) (*entry[T], bool) {
	if f == nil || f.table.Load() == nil {
		return nil, false
	}
	t, h := f.table.Load(), f.hash(item)
	i, e := look(t, h, item)
	if e == nil {
		return nil, false
	}
	flags := e.flags.Load()
	if flags&flagStub != 0 {
		ne := &entry[T]{item: item, hash: h}
		if t[i].CompareAndSwap(e, ne) {
			return ne, false
		}
		return nil, false // another Add, or the owner, took the stub's place
	}
	return e, flags&(flagNoop|flagSent) != 0
}

// markSent sets e's sent flag for an Add that the inbox is putting, under
// its lock, and reports whether the flag was clear: if it was not, an Add
// that set it is in the inbox already.
func (e *entry[T]) markSent() bool { return e.flags.Or(flagSent)&flagSent == 0 }

// clear clears e's flags, as a consumer's claim from the lane hands its
// item out: an Add made after the claim must reach the owner. e may be
// nil.
func (e *entry[T]) clear() {
	if e != nil {
		e.flags.Store(0) // an Add on its way may be applied before this claim: its sent goes too
	}
}

// setNoop sets e's noop flag to noop, leaving sent alone. Owner only.
func (e *entry[T]) setNoop(noop bool) {
	if noop {
		e.flags.Or(flagNoop)
	} else {
		e.flags.And(^flagNoop)
	}
}

// isStub reports whether e is a stub.
func (e *entry[T]) isStub() bool { return e.flags.Load()&flagStub != 0 }

// hash returns item's hash, never 0: its bits 2 to 11 pick its bucket,
// and its low 12 bits its index of the departures.
func (f *filter[T]) hash(item T) uint64 { return maphash.Comparable(f.seed, item) | 1 }

// bucket returns the index of the first slot of the bucket of the hash h.
func bucket(h uint64) uint64 { return h & (filterSize - filterWays) }

// look returns item's entry in t, h being item's hash, and its slot; if
// item has none, the stub of h and its slot; or nil.
func look[T comparable](t *[filterSize]atomic.Pointer[entry[T]], h uint64, item T) (slot uint64, e *entry[T]) {
	var stub *entry[T]
	for i := bucket(h); i < bucket(h)+filterWays; i++ {
		if x := t[i].Load(); x != nil && x.hash == h {
			if x.isStub() {
				slot, stub = i, x
			} else if x.item == item {
				return i, x
			}
		}
	}
	return slot, stub
}

// The owner's side: it keeps the flags of the items with an entry in step
// with their states, at three points (added, follow, forget). Every
// method below is for the owner alone (and, after it ended, the caller
// holding the state), and does nothing on a nil filter.

// added follows an add of item that the state applied with opts, which
// found the item in state was (Absent for a delayed add); e is the entry
// whose sent flag the Add took (inbox.put), or nil. An item the queue
// knew gets an entry (which its slot carries, if it is popped), and its
// noop flag follows its state. Once shutdown has begun, an add the state ignored leaves no
// entry (an Add may have put one in a stub's place).
//
// The add clears the sent flag it took. If it found its item popped with
// the flag still set (a hand-out clears it), a consumer may have claimed
// the item since: added asks the lane, and if so reports true, with
// *opts the options to apply the add with again (then added follows that
// add), now that the state has heard of the claim. A claim that cleared
// e made the Adds after it send requests of their own, so this add's
// place alone decides (*opts, as applied). A claim that cleared another
// entry (the item's entry was replaced while it was popped) did not, and
// Adds after it may have counted on this one: the item is added after the
// claim, so that it runs again after its Done.
func (f *filter[T]) added(item T, e *entry[T], opts *state.Opts, was state.Status) (again bool) {
	if f == nil {
		return false
	}
	if e != nil { // the Add took e's sent flag
		if f.again(item, e, opts, was) {
			return true
		}
	}
	known := was != state.Absent
	if !known && f.table.Load() == nil {
		return false
	}
	if !known && f.q.Phase() != state.Running {
		f.leave(item, false)
		return false
	}
	if e = f.entry(item); e == nil {
		if !known && !f.cameBack(item) {
			return false
		}
		e = f.insert(item)
		if was == state.Popped && f.lane != nil {
			f.lane.carry(item, e)
		}
	}
	e.setNoop(f.q.NoopAdd(item))
	return false
}

// again clears the sent flag of e, which an Add of item took, once the
// state applied that Add with *opts and found the item in state was; it
// reports whether the Add must be applied again, and sets *opts for it
// (see added).
func (f *filter[T]) again(item T, e *entry[T], opts *state.Opts, was state.Status) bool {
	if e.flags.And(^flagSent)&flagSent == 0 || was != state.Popped || f.lane == nil {
		return false
	}
	claimed, cleared := f.lane.claimOf(item, e)
	if claimed && !cleared {
		*opts = state.Opts{Seq: math.MaxUint64}
	}
	return claimed
}

// follow sets the flags of item's entry, if it has one, from its state,
// after the owner applied an event of it other than an add: a hand-out
// (processing, or popped for the items channel: the flags clear, since an
// Add made after it must reach the owner), a Done, or a return to the
// ready order. An item that left the
// queue leaves the table (leave).
func (f *filter[T]) follow(item T) {
	if f == nil || f.table.Load() == nil {
		return
	}
	st := f.q.Status(item)
	if st == state.Absent {
		f.leave(item, true)
		return
	}
	switch e := f.entry(item); {
	case e == nil:
	case st == state.Processing, st == state.Popped: // popped for the items channel
		e.clear()
	default:
		e.setNoop(f.q.NoopAdd(item))
	}
}

// forget evicts the entries of the items the queue no longer knows, once
// a shutdown has dropped the delayed items (state.Queue.Drain, End),
// which is no event of each item.
func (f *filter[T]) forget() {
	if f == nil || f.table.Load() == nil {
		return
	}
	for i, t := 0, f.table.Load(); i < len(t); i++ {
		if e := t[i].Load(); e != nil && !e.isStub() && f.gone(e.item) {
			f.leave(e.item, false)
		}
	}
}

// offered returns the entry of item, which the lane offers at priority
// prio, for the consumer that claims it to clear its flags; meanwhile the
// item is ready, and an Add at 0 changes nothing unless prio is below 0.
// An item with a stub gets its entry now, in the stub's place, so that no
// Add makes it another while it is popped; an item with neither gets none
// (nil).
func (f *filter[T]) offered(item T, prio int) *entry[T] {
	if f == nil || f.table.Load() == nil {
		return nil
	}
	_, e := look(f.table.Load(), f.hash(item), item)
	if e == nil {
		return nil
	}
	if e.isStub() {
		e = f.insert(item)
	}
	e.setNoop(prio >= 0)
	return e
}

// entry returns item's entry, or nil.
func (f *filter[T]) entry(item T) *entry[T] {
	if f == nil || f.table.Load() == nil {
		return nil
	}
	if _, e := look(f.table.Load(), f.hash(item), item); e != nil && !e.isStub() {
		return e
	}
	return nil
}

// insert gives item an entry, unless it has one, and returns it: in the
// place of the stub of its hash, if its bucket has one; otherwise in an
// empty slot, then in another stub's, then in the slot of an item that
// the queue no longer knows (gone), then in the last.
func (f *filter[T]) insert(item T) *entry[T] {
	t := f.table.Load()
	if t == nil {
		t = new([filterSize]atomic.Pointer[entry[T]])
		f.left = new([filterSize]uint64)
		f.table.Store(t)
	}
	h := f.hash(item)
	for {
		slot, old := look(t, h, item)
		if old != nil && !old.isStub() {
			return old
		}
		if old == nil {
			slot = f.victim(t, bucket(h))
			old = t[slot].Load()
		}
		e := &entry[T]{item: item, hash: h}
		if old == nil || !old.isStub() {
			if old != nil {
				evict(old)
			}
			t[slot].Store(e) // no caller writes an empty slot or an entry's
			return e
		}
		if t[slot].CompareAndSwap(old, e) {
			return e
		}
		// An Add took the stub's place first, with an entry of its item:
		// look again.
	}
}

// victim returns the slot of the bucket at b that a new entry takes when
// its hash has no stub there: an empty one, a stub's, an entry's whose
// item the queue no longer knows, or the last.
func (f *filter[T]) victim(t *[filterSize]atomic.Pointer[entry[T]], b uint64) uint64 {
	stub, goneAt := -1, -1
	for i := range filterWays {
		switch e := t[b+uint64(i)].Load(); {
		case e == nil:
			return b + uint64(i)
		case e.isStub():
			if stub < 0 {
				stub = i
			}
		case goneAt < 0 && f.gone(e.item):
			goneAt = i
		}
	}
	switch {
	case stub >= 0:
		return b + uint64(stub)
	case goneAt >= 0:
		return b + uint64(goneAt)
	}
	return b + filterWays - 1
}

// evict clears the noop flag of e, an entry about to leave the table,
// for good: a caller that looked it up before may still hold it. Its
// sent flag stays set only while the Add that set it is in the inbox, as
// for any entry: that Add clears it through its request.
func evict[T comparable](e *entry[T]) { e.setNoop(false) }

// gone reports whether the queue no longer knows item.
func (f *filter[T]) gone(item T) bool { return f.q.Status(item) == state.Absent }

// cameBack reports whether item is the last item that left the queue at
// its index of the departures, once the table exists.
func (f *filter[T]) cameBack(item T) bool {
	h := f.hash(item)
	i := h & (filterSize - 1)
	if f.left[i] != h {
		return false
	}
	f.left[i] = 0
	return true
}

// leave follows item's departure from the queue: item is noted in the
// departures (see cameBack), and its entry, if it has one, is evicted, so
// that the table keeps no item the queue no longer holds. With stub, a
// stub of item's hash takes the entry's place, unless the bucket has
// another entry or stub of that hash (see the invariant). The table must
// exist.
func (f *filter[T]) leave(item T, stub bool) {
	t := f.table.Load()
	h := f.hash(item)
	f.left[h&(filterSize-1)] = h
	i, e := look(t, h, item)
	if e == nil || e.isStub() {
		return
	}
	var s *entry[T]
	if stub {
		s = &entry[T]{hash: h}
		s.flags.Store(flagStub)
		for j := bucket(h); j < bucket(h)+filterWays; j++ {
			if o := t[j].Load(); j != i && o != nil && o.hash == h {
				s = nil
			}
		}
	}
	evict(e)
	t[i].Store(s) // no caller writes an entry's slot
}
