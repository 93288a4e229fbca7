package bench

import (
	"sync/atomic"

	"github.com/actorq/actorq/actor"
	actorpq "github.com/actorq/actorq/adapter/priorityqueue"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// lowPriority is the priority of the low items: controller-runtime's
// handler.LowPriority, which its event handlers give to the adds of the
// initial list and of resyncs. (The handler package itself is not
// imported: it brings in the whole client.)
const lowPriority = -100

// prioQueue is a queue with priorities: actorq's queue, controller-runtime's
// priority queue and actorq's adapter of it. client-go's queues have none.
type prioQueue interface {
	queue
	// addWithPriority is AddWithOpts with only a priority set.
	addWithPriority(prio int, items ...int)
	// addOneWithPriority is addWithPriority of one item, without the
	// slice a variadic call through an interface allocates.
	addOneWithPriority(prio int, item int)
	GetWithPriority() (item int, priority int, shutdown bool)
}

// actorPrio is actorq's queue as a prioQueue.
type actorPrio struct{ *actor.Queue[int] }

func (q actorPrio) addWithPriority(prio int, items ...int) {
	q.AddWithOpts(actor.AddOpts{Priority: prio}, items...)
}

func (q actorPrio) addOneWithPriority(prio int, item int) {
	q.AddWithOpts(actor.AddOpts{Priority: prio}, item)
}

// pqPrio is a controller-runtime PriorityQueue as a prioQueue:
// controller-runtime's own or actorq's adapter of it. Its priority is a
// *int, allocated per call as its callers do (ptr.To(handler.LowPriority));
// the queue keeps the value, not the pointer.
type pqPrio struct {
	priorityqueue.PriorityQueue[int]
}

func (q pqPrio) addWithPriority(prio int, items ...int) {
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &prio}, items...)
}

func (q pqPrio) addOneWithPriority(prio int, item int) {
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &prio}, item)
}

// prioAdds is a prioQueue whose Add gives item i the priority prio(i): an
// Add for priority 0, an AddWithOpts of the one item for any other. Its
// Get is GetWithPriority, and counts the items handed out with another
// priority than prio gave them, so that the harnesses written for queue
// (runPipeline, runMemory) run a workload with priorities unchanged and a
// test can see that the priorities took effect.
type prioAdds struct {
	prioQueue
	prio  func(item int) int
	wrong atomic.Int64 // items got with a priority other than prio(item)
}

func (q *prioAdds) Add(item int) {
	if p := q.prio(item); p != 0 {
		q.addOneWithPriority(p, item)
	} else {
		q.prioQueue.Add(item)
	}
}

func (q *prioAdds) Get() (item int, shutdown bool) {
	item, p, shutdown := q.GetWithPriority()
	if !shutdown && p != q.prio(item) {
		q.wrong.Add(1)
	}
	return item, shutdown
}

// lowTenth is the priority of item i in PipelinePrio: lowPriority for one
// item in ten (i%10 == 0), 0 for the others.
func lowTenth(i int) int {
	if i%10 == 0 {
		return lowPriority
	}
	return 0
}

// fourPrios is the priority of item i in MemoryPrio: four priorities,
// an item in four each.
func fourPrios(i int) int {
	return [...]int{0, lowPriority, 10, 100}[i%4]
}

// prioImpls are the implementations of a workload whose item i has the
// priority prio(i): client-go's plain queue ignores it (it has no
// priorities) and is the base; the others add through prioAdds: actorq
// (actor.New, client-go's requeue rule), controller-runtime's priority
// queue, and actorqpq, actorq's adapter of it (controller-runtime's
// requeue rule), as controller-runtime users get it.
func prioImpls(prio func(int) int) []impl {
	return []impl{
		{
			name:     "clientgo",
			newQueue: func() queue { return plain{workqueue.NewTyped[int]()} },
		},
		{
			name: "actorq",
			newQueue: func() queue {
				return &prioAdds{prioQueue: actorPrio{actor.New(actor.Config[int]{})}, prio: prio}
			},
		},
		{
			name: "crpq",
			newQueue: func() queue {
				return &prioAdds{prioQueue: pqPrio{priorityqueue.New[int]("")}, prio: prio}
			},
		},
		{
			name: "actorqpq",
			newQueue: func() queue {
				return &prioAdds{prioQueue: pqPrio{actorpq.New[int]("")}, prio: prio}
			},
		},
	}
}
