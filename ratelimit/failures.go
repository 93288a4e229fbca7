package ratelimit

import (
	"math"
	"sync"
	"time"
)

// shrinkMin is the smallest peak size at which failures considers
// rebuilding its map after items have been forgotten.
const shrinkMin = 1024

// expireBatch is the most cooled-down items one call of a limiter forgets.
// It bounds the time a call holds the lock when a large burst of failures
// cools down at once; each call records at most one failure, so the
// backlog of expired items still shrinks with every call.
const expireBatch = 64

// failures counts failures per item for the per-item limiters. It is safe
// for concurrent use; the zero value is ready to use and keeps every count
// until forget, as client-go does.
//
// Go maps never release memory on delete, so forget rebuilds the map once it
// holds at most an eighth of the items it held at its peak. Each rebuild
// copies at most peak/8 entries after at least 7*peak/8 deletions, so the
// cost is amortized O(1) per Forget.
//
// With a cool-down (see [failures.coolAfter]), an item whose last failure is
// at least coolDown old counts as forgotten: get returns 0 and next starts
// again from 0 for it, exactly, whenever it is asked. Its memory is released
// lazily: every failure appends (item, time) to a log in time order, and
// each call pops up to expireBatch cooled entries from the log's head,
// forgetting the item unless it failed again since. No goroutine or timer
// is involved, and the work is O(1) amortized per failure.
type failures[T comparable] struct {
	mu   sync.Mutex
	m    map[T]int
	peak int // largest len(m) since the map was last built

	// Cool-down; all zero without one.
	coolDown time.Duration
	clock    Clock
	epoch    time.Time           // times below are durations since epoch
	last     map[T]time.Duration // each counted item's last failure
	log      []failureAt[T]      // failures in time order, from head
	head     int                 // log[:head] has been popped
}

// failureAt is one entry of the cool-down log.
type failureAt[T comparable] struct {
	item T
	at   time.Duration
}

// coolAfter makes f forget an item's failures once coolDown has passed since
// its last failure, reading the time from clock (nil: the real clock). A
// coolDown <= 0 leaves f keeping counts until forget. It must be called
// before f is used.
func (f *failures[T]) coolAfter(coolDown time.Duration, clock Clock) {
	if coolDown <= 0 {
		return
	}
	f.coolDown = coolDown
	f.clock = clock
	f.epoch = now(clock)
	f.last = make(map[T]time.Duration)
}

// next records one more failure of item and returns the number of failures
// recorded before this one. The count saturates at math.MaxInt.
func (f *failures[T]) next(item T) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = make(map[T]int)
	}
	if f.coolDown > 0 {
		t := f.now()
		f.expire(t)
		if f.cooled(item, t) {
			f.m[item] = 0
		}
		f.last[item] = t
		f.log = append(f.log, failureAt[T]{item, t})
	}
	n := f.m[item]
	if n < math.MaxInt {
		f.m[item] = n + 1
	}
	f.peak = max(f.peak, len(f.m))
	return n
}

// get returns the number of failures recorded for item.
func (f *failures[T]) get(item T) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.coolDown > 0 {
		t := f.now()
		f.expire(t)
		if f.cooled(item, t) {
			return 0
		}
	}
	return f.m[item]
}

// forget deletes item's failures, and shrinks the map when it has become
// mostly empty.
func (f *failures[T]) forget(item T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.coolDown > 0 {
		f.expire(f.now())
	}
	f.delete(item)
}

// len returns the number of items whose failures are held in memory: with a
// cool-down, that includes cooled items not yet expired from the log.
func (f *failures[T]) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.m)
}

// delete deletes item's count (and last failure), rebuilding the map when
// it has become mostly empty. f.mu must be held.
func (f *failures[T]) delete(item T) {
	if _, ok := f.m[item]; !ok {
		return
	}
	delete(f.m, item)
	if f.last != nil {
		delete(f.last, item)
	}
	if f.peak >= shrinkMin && len(f.m) <= f.peak/8 {
		f.m = clone(f.m)
		if f.last != nil {
			f.last = clone(f.last)
		}
		f.peak = len(f.m)
	}
}

// now returns the time since f.epoch. f.mu must be held.
func (f *failures[T]) now() time.Duration {
	return now(f.clock).Sub(f.epoch) // saturates, never wraps
}

// cooled reports whether item's last failure lies at least coolDown before
// t. An item with no failures is not cooled (its count is 0 anyway).
func (f *failures[T]) cooled(item T, t time.Duration) bool {
	at, ok := f.last[item]
	return ok && isCooled(at, t, f.coolDown)
}

// isCooled reports whether t - at >= coolDown, without overflow: a clock
// that went backwards (t < at) cools nothing.
func isCooled(at, t, coolDown time.Duration) bool {
	if t < at {
		return false
	}
	d := t - at
	return d < 0 || d >= coolDown // d < 0: the difference overflowed
}

// expire pops up to expireBatch cooled entries from the log's head and
// forgets each item that has not failed since its entry. f.mu must be held.
func (f *failures[T]) expire(t time.Duration) {
	for range expireBatch {
		if f.head == len(f.log) {
			break
		}
		e := f.log[f.head]
		if !isCooled(e.at, t, f.coolDown) {
			break
		}
		f.log[f.head] = failureAt[T]{} // release the item for the collector
		f.head++
		if at, ok := f.last[e.item]; ok && at == e.at {
			f.delete(e.item)
		}
	}
	f.compactLog()
}

// compactLog moves the log's live entries to the front once at least half
// of it has been popped, and gives a mostly empty large log a smaller array,
// so the log holds O(live entries) memory. Each entry is moved O(1) times
// amortized. f.mu must be held.
func (f *failures[T]) compactLog() {
	if f.head == 0 || f.head < len(f.log)/2 {
		return
	}
	live := f.log[f.head:]
	if cap(f.log) >= shrinkMin && len(live) <= cap(f.log)/8 {
		f.log = append(make([]failureAt[T], 0, 2*len(live)), live...)
	} else {
		n := copy(f.log, live)
		clear(f.log[n:])
		f.log = f.log[:n]
	}
	f.head = 0
}

// clone returns a copy of m in a map sized for it.
func clone[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
