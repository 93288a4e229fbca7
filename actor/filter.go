package actor

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/actorq/actorq/actor/internal/state"
)

// The duplicate filter lets Add return at once, without a request, when
// the Add would change nothing: what a de-duplication storm (many
// producers re-adding a few hot keys) is made of. A hot item has an entry
// with two flags, and an Add that finds either set returns. Its
// invariant:
//
//	noop is true only while an Add of the item at priority 0 would
//	change nothing (it is ready, or processing and marked to run
//	again); sent is true only while an Add that set it is in the inbox;
//	an evicted entry's noop is false for good (the owner sets flags
//	only through the table); an entry in the table is of an item the
//	queue holds, or of one that an Add on its way to the inbox brings
//	back; a popped item's entry is the one its slot carries, or none.
//
// The owner sets noop after an event leaves the item ready or dirty
// (state.Queue.NoopAdd), or as it offers the item in the lane, and clears
// it before it hands the item out; a consumer that claims the item from
// the lane clears it just before its claim. No request takes an item out
// of those states, only a hand-out does. An Add sets sent under the
// inbox's lock as it puts its request, so an Add that finds it set comes
// after that one in the order of requests; the owner clears it once it
// applied that Add, and every hand-out clears it too. A claim counts the
// requests put before it (slot.after) before it clears the flags, so an
// Add that takes sent after that comes after the claim, and no Add made
// after a claim counts on one made before it. The owner may apply such an
// Add before it has seen the claim, as a duplicate of a popped item: if
// the Add's flag was still set, the owner applies it again once it has
// seen the claim, and the Add's place decides (owner.serve), if the
// claim cleared that Add's entry. So a popped item's slot carries the
// item's entry: an entry the owner makes for a popped item goes in its
// slot too, and an item with a stub gets its entry as the lane offers
// it, so that no Add makes one meanwhile. Clearing a flag early only
// sends more Adds.
//
// An item gets an entry once an Add of it reaches the owner while the
// queue knows it, or soon after it left (a table of departures: a key
// that consumers keep up with is re-added without being known at its
// adds). The entries are a fixed, set-associative cache of hot items,
// allocated at the first duplicate; the owner clears an evicted entry's
// flags before it replaces it. A custom Storage has no filter, since it
// must see every Touch.
//
// When an item with an entry leaves the queue (its Done), the owner
// evicts the entry, so that the table does not keep the item, and puts
// in its place a stub that holds only the item's hash. The first Add of
// an item of that hash replaces the stub by a new entry of its item (a
// compare-and-swap: the only slots callers write are stubs), and takes
// its sent flag as it puts its request; the Adds after it find the entry
// set, as they would have found the old one. So that an item never has
// two entries, a bucket holds a stub only of a hash that no other entry
// or stub of the bucket has, and an item's entry goes in the place of the
// stub of its hash if there is one, whoever makes it.
type filter[T comparable] struct {
	q     *state.Queue[T] // owner only: the state whose items' flags it keeps
	seed  maphash.Seed
	table atomic.Pointer[[filterSize]atomic.Pointer[hotEntry[T]]] // nil until the first item re-added
	left  *[filterSize]uint64                                     // owner only: the hash of the last item that left at each index, or 0
}

// filterSize is the number of table slots, filterWays the number in a
// bucket.
const (
	filterSize = 1 << 12
	filterWays = 4
)

// hotEntry is an item's entry in the filter, or a stub.
type hotEntry[T comparable] struct {
	item T      // written before the entry is published, never after; the zero value in a stub
	hash uint64 // filter.hash of item, written before the entry is published
	stub bool   // the trace of an item that left (see leave): never trusted, its flags never set
	noop atomic.Bool
	sent atomic.Bool
}

func newFilter[T comparable](q *state.Queue[T]) *filter[T] {
	return &filter[T]{q: q, seed: maphash.MakeSeed()}
}

// skip reports whether an Add of item would change nothing now, or after
// an Add of it already in the inbox. If not, it returns item's entry, if
// it has one, for the Add to set its sent flag: if item left the queue
// with an entry, a new one in the place of its stub. Any goroutine may
// call it; f may be nil.
func (f *filter[T]) skip(item T) (*hotEntry[T], bool) {
	if f == nil || f.table.Load() == nil {
		return nil, false
	}
	t, h := f.table.Load(), f.hash(item)
	i, e := look(t, h, item)
	if e == nil {
		return nil, false
	}
	if e.stub {
		ne := &hotEntry[T]{item: item, hash: h}
		if t[i].CompareAndSwap(e, ne) {
			return ne, false
		}
		return nil, false // another Add, or the owner, took the stub's place
	}
	return e, e.noop.Load() || e.sent.Load()
}

// hash returns item's hash, never 0: its bits 2 to 11 pick its bucket,
// and its low 12 bits its index of the departures.
func (f *filter[T]) hash(item T) uint64 { return maphash.Comparable(f.seed, item) | 1 }

// bucket returns the index of the first slot of the bucket of the hash h.
func bucket(h uint64) uint64 { return h & (filterSize - filterWays) }

// look returns item's entry in t, h being item's hash, and its slot; if
// item has none, the stub of h and its slot; or nil.
func look[T comparable](t *[filterSize]atomic.Pointer[hotEntry[T]], h uint64, item T) (slot uint64, e *hotEntry[T]) {
	var stub *hotEntry[T]
	for i := bucket(h); i < bucket(h)+filterWays; i++ {
		if x := t[i].Load(); x != nil && x.hash == h {
			if x.stub {
				slot, stub = i, x
			} else if x.item == item {
				return i, x
			}
		}
	}
	return slot, stub
}

// entry returns item's entry, or nil. Owner only; f may be nil.
func (f *filter[T]) entry(item T) *hotEntry[T] {
	if f == nil || f.table.Load() == nil {
		return nil
	}
	if _, e := look(f.table.Load(), f.hash(item), item); e != nil && !e.stub {
		return e
	}
	return nil
}

// insert gives item an entry, unless it has one, and returns it: in the
// place of the stub of its hash, if its bucket has one; otherwise in an
// empty slot, then in another stub's, then in the slot of an item that
// the queue no longer knows (gone), then in the last. Owner only.
func (f *filter[T]) insert(item T) *hotEntry[T] {
	t := f.table.Load()
	if t == nil {
		t = new([filterSize]atomic.Pointer[hotEntry[T]])
		f.left = new([filterSize]uint64)
		f.table.Store(t)
	}
	h := f.hash(item)
	for {
		slot, old := look(t, h, item)
		if old != nil && !old.stub {
			return old
		}
		if old == nil {
			slot = f.victim(t, bucket(h))
			old = t[slot].Load()
		}
		e := &hotEntry[T]{item: item, hash: h}
		if old == nil || !old.stub {
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
func (f *filter[T]) victim(t *[filterSize]atomic.Pointer[hotEntry[T]], b uint64) uint64 {
	stub, goneAt := -1, -1
	for i := range filterWays {
		switch e := t[b+uint64(i)].Load(); {
		case e == nil:
			return b + uint64(i)
		case e.stub:
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
// sent flag stays true only while the Add that set it is in the inbox,
// as for any entry: that Add clears it through its request.
func evict[T comparable](e *hotEntry[T]) { e.noop.Store(false) }

// The owner's side: it keeps the flags of the items with an entry in step
// with their states. Every method is for the owner alone, and does
// nothing on a nil filter.

// added follows an add of item that the state applied: an item the queue
// knew gets an entry, and the entry's flag follows the item's state. It
// returns the entry if it made one (a popped item's slot must carry it:
// offers.entered). Once shutdown has begun, an add the state ignored
// leaves no entry (an Add may have put one in a stub's place).
func (f *filter[T]) added(item T, known bool) (made *hotEntry[T]) {
	if f == nil || !known && f.table.Load() == nil {
		return nil
	}
	if !known && f.q.Phase() != state.Running {
		f.leave(item, false)
		return nil
	}
	e := f.entry(item)
	if e == nil {
		if !known && !f.cameBack(item) {
			return nil
		}
		e = f.insert(item)
		made = e
	}
	e.noop.Store(f.q.NoopAdd(item))
	return made
}

// gone reports whether the queue no longer knows item.
func (f *filter[T]) gone(item T) bool { return f.q.Status(item) == state.Absent }

// cameBack reports whether item is the last item that left the queue at
// its index of the departures. Owner only, once the table exists.
func (f *filter[T]) cameBack(item T) bool {
	h := f.hash(item)
	i := h & (filterSize - 1)
	if f.left[i] != h {
		return false
	}
	f.left[i] = 0
	return true
}

// sync sets the flag of item's entry, if it has one, from its state:
// after a Done, and after an item came back to the ready order. An item
// that left the queue leaves the table (leave).
func (f *filter[T]) sync(item T) {
	if f == nil || f.table.Load() == nil {
		return
	}
	if f.gone(item) {
		f.leave(item, true)
	} else if e := f.entry(item); e != nil {
		e.noop.Store(f.q.NoopAdd(item))
	}
}

// leave follows item's departure from the queue: item is noted in the
// departures (see cameBack), and its entry, if it has one, is evicted, so
// that the table keeps no item the queue no longer holds. With stub, a
// stub of item's hash takes the entry's place, unless the bucket has
// another entry or stub of that hash (see the invariant). Owner only, once
// the table exists.
func (f *filter[T]) leave(item T, stub bool) {
	t := f.table.Load()
	h := f.hash(item)
	f.left[h&(filterSize-1)] = h
	i, e := look(t, h, item)
	if e == nil || e.stub {
		return
	}
	var s *hotEntry[T]
	if stub {
		s = &hotEntry[T]{hash: h, stub: true}
		for j := bucket(h); j < bucket(h)+filterWays; j++ {
			if o := t[j].Load(); j != i && o != nil && o.hash == h {
				s = nil
			}
		}
	}
	evict(e)
	t[i].Store(s) // no caller writes an entry's slot
}

// forget evicts the entries of the items the queue no longer knows, once
// a shutdown has dropped the delayed items (state.Queue.Drain, End),
// which is no event of each item. Owner only.
func (f *filter[T]) forget() {
	if f == nil || f.table.Load() == nil {
		return
	}
	for i, t := 0, f.table.Load(); i < len(t); i++ {
		if e := t[i].Load(); e != nil && !e.stub && f.gone(e.item) {
			f.leave(e.item, false)
		}
	}
}

// off clears the flags of item's entry, if it has one, before the owner
// hands item out.
func (f *filter[T]) off(item T) { f.entry(item).off() }

// offered returns the entry of item, which the lane offers at priority
// prio, for the consumer that claims it to clear its flags; meanwhile the
// item is ready, and an Add at 0 changes nothing unless prio is below 0.
// An item with a stub gets its entry now, in the stub's place, so that no
// Add makes it another while it is popped (see added); an item with
// neither gets none (nil).
func (f *filter[T]) offered(item T, prio int) *hotEntry[T] {
	if f == nil || f.table.Load() == nil {
		return nil
	}
	_, e := look(f.table.Load(), f.hash(item), item)
	if e == nil {
		return nil
	}
	if e.stub {
		e = f.insert(item)
	}
	e.noop.Store(prio >= 0)
	return e
}

// off clears the entry's flags as its item is handed out: by the owner,
// or by a consumer just before its claim from the lane. An Add made after
// the hand-out must reach the owner. e may be nil.
func (e *hotEntry[T]) off() {
	if e != nil {
		e.noop.Store(false)
		e.sent.Store(false) // an Add on its way may be applied before this claim
	}
}
