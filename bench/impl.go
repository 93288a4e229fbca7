package bench

import (
	"time"

	"github.com/actorq/actorq/adapter"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// queue is the part of a work queue the benchmarks drive. client-go's
// delaying queue, the adapter's (actorq's) and controller-runtime's
// priority queue all have it; the plain queues of client-go and the
// adapter have it but AddAfter (see plain).
type queue interface {
	Add(item int)
	AddAfter(item int, d time.Duration)
	Get() (item int, shutdown bool)
	Done(item int)
	Len() int
	ShutDown()
}

// impl is one queue implementation under test.
type impl struct {
	name string
	// newQueue returns the implementation's cheapest queue that can do
	// Add, Get and Done (client-go: workqueue.NewTyped, no delaying
	// goroutine). Its AddAfter may panic.
	newQueue func() queue
	// newDelaying returns a queue that supports AddAfter.
	newDelaying func() queue
}

// impls lists the implementations in the order benchstat shows them;
// client-go comes first, so that ratios are relative to it. actorq is
// driven through its client-go adapter, as a client-go user who switched
// the import gets it.
var impls = []impl{
	{
		name:        "clientgo",
		newQueue:    func() queue { return plain{workqueue.NewTyped[int]()} },
		newDelaying: func() queue { return workqueue.NewTypedDelayingQueue[int]() },
	},
	{
		name:        "actorq",
		newQueue:    func() queue { return plain{adapter.NewTyped[int]()} },
		newDelaying: func() queue { return adapter.NewTypedDelayingQueue[int]() },
	},
	{
		name:        "crpq",
		newQueue:    newCRPQ,
		newDelaying: newCRPQ,
	},
}

// newCRPQ returns an unnamed controller-runtime priority queue, which
// records no metrics, like the other two.
func newCRPQ() queue { return priorityqueue.New[int]("") }

// plain adapts a non-delaying queue (client-go's or the adapter's) to
// queue.
type plain struct {
	workqueue.TypedInterface[int]
}

// AddAfter panics: the plain queues have no delays. Benchmarks that need
// them use impl.newDelaying.
func (plain) AddAfter(int, time.Duration) {
	panic("bench: AddAfter on a plain queue")
}
