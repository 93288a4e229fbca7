package bench

import (
	"time"

	"github.com/actorq/actorq/actor"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// queue is the part of a work queue the benchmarks drive. client-go's
// delaying queue, actorq's Queue and controller-runtime's priority queue
// all have it; client-go's plain queue has it but AddAfter (see plain).
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
// client-go comes first, so that ratios are relative to it.
var impls = []impl{
	{
		name:        "clientgo",
		newQueue:    func() queue { return plain{workqueue.NewTyped[int]()} },
		newDelaying: func() queue { return workqueue.NewTypedDelayingQueue[int]() },
	},
	{
		name:        "actorq",
		newQueue:    newActor,
		newDelaying: newActor,
	},
	{
		name:        "crpq",
		newQueue:    newCRPQ,
		newDelaying: newCRPQ,
	},
}

func newActor() queue { return actor.New(actor.Config[int]{}) }

// newCRPQ returns an unnamed controller-runtime priority queue, which
// records no metrics, like the other two.
func newCRPQ() queue { return priorityqueue.New[int]("") }

// plain adapts client-go's non-delaying queue to queue.
type plain struct {
	workqueue.TypedInterface[int]
}

// AddAfter panics: the plain queue has no delays. Benchmarks that need
// them use impl.newDelaying.
func (plain) AddAfter(int, time.Duration) {
	panic("bench: AddAfter on client-go's plain queue")
}
