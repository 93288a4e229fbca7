package priorityqueue

import "github.com/actorq/actorq/actor"

// SnapshotOf returns the snapshot of the actor queue under q, a queue of
// this package, with up to n items of each state.
func SnapshotOf[T comparable](q PriorityQueue[T], n int) actor.Snapshot[T] {
	return q.(*queue[T]).q.Snapshot(n)
}
