package ratelimit

import (
	"math"
	"sync"
)

// shrinkMin is the smallest peak size at which failures considers
// rebuilding its map after items have been forgotten.
const shrinkMin = 1024

// failures counts failures per item for the per-item limiters. It is safe
// for concurrent use; the zero value is ready to use.
//
// Go maps never release memory on delete, so forget rebuilds the map once it
// holds at most an eighth of the items it held at its peak. Each rebuild
// copies at most peak/8 entries after at least 7*peak/8 deletions, so the
// cost is amortized O(1) per Forget.
type failures[T comparable] struct {
	mu   sync.Mutex
	m    map[T]int
	peak int // largest len(m) since the map was last built
}

// next records one more failure of item and returns the number of failures
// recorded before this one. The count saturates at math.MaxInt.
func (f *failures[T]) next(item T) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = make(map[T]int)
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
	return f.m[item]
}

// forget deletes item's failures, and shrinks the map when it has become
// mostly empty.
func (f *failures[T]) forget(item T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.m[item]; !ok {
		return
	}
	delete(f.m, item)
	if f.peak >= shrinkMin && len(f.m) <= f.peak/8 {
		m := make(map[T]int, len(f.m))
		for k, v := range f.m {
			m[k] = v
		}
		f.m = m
		f.peak = len(m)
	}
}

// len returns the number of items with recorded failures.
func (f *failures[T]) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.m)
}
