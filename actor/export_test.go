package actor

import "os"

// NewWithoutFastPaths is New with every fast path of the transport off:
// the queue is the reference transport (fastpaths.go).
func NewWithoutFastPaths[T comparable](cfg Config[T]) *Queue[T] { return newQueue(cfg, fastPaths{}) }

// With ACTORQ_FASTPATHS=off in the environment, every queue of the tests
// is made with every fast path off: scripts/test.sh runs the package's
// tests once each way.
func init() {
	if os.Getenv("ACTORQ_FASTPATHS") == "off" {
		defaultPaths = fastPaths{}
	}
}

// allPaths turns every fast path on, whatever ACTORQ_FASTPATHS says: the
// tests of a fast path's own invariant use it.
var allPaths = fastPaths{lane: true, filter: true}

// Slot is a lane slot, for the tests of the lane's bound.
type Slot[T comparable] = slot[T]

// ReceiveOffered receives, without claiming them, the slots that q's
// lane offers now, as consumers' Gets would, in the order they come.
func ReceiveOffered[T comparable](q *Queue[T]) []*slot[T] {
	var out []*slot[T]
	for sl := q.c.lane.receive(); sl != nil; sl = q.c.lane.receive() {
		out = append(out, sl)
	}
	return out
}

// ClaimOffered claims sl, a slot from ReceiveOffered, as a Get would;
// ok is false if it was revoked, or is below the gate.
func ClaimOffered[T comparable](q *Queue[T], sl *slot[T]) (item T, prio int, ok bool) {
	c := q.c
	return c.lane.claim(sl, c.stamp(receiveInstant, 0), c.inbox.puts.Load())
}

// HasLane reports whether q's Gets may take items from a lane.
func HasLane[T comparable](q *Queue[T]) bool { return q.c.lane != nil }

// FairPerGet is how many items a fair queue's lane offers per Get seen
// waiting.
const FairPerGet = fairPerGet

// SameBucket returns n ints whose filter entries share buckets of q's
// filter, filterWays+1 to a bucket, so that giving each an entry evicts
// another's: for the tests of eviction under load. Without the filter,
// the ints below n.
func SameBucket(q *Queue[int], n int) []int {
	f := q.c.filter
	byBucket := map[uint64][]int{}
	var out []int
	for i := 0; len(out) < n; i++ {
		b := uint64(i)
		if f != nil {
			b = bucket(f.hash(i))
		}
		if byBucket[b] = append(byBucket[b], i); len(byBucket[b]) == filterWays+1 || f == nil {
			out = append(out, byBucket[b]...)
		}
	}
	return out[:n]
}
