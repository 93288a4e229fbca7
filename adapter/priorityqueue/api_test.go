package priorityqueue_test

import (
	"testing"

	"github.com/actorq/actorq/adapter"
	"github.com/actorq/actorq/adapter/priorityqueue"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	crpq "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// same compiles only if a and b have identical types: it proves at compile
// time that a name here has controller-runtime's exact signature or type.
func same[F any](a, b F) bool { return true }

// New has controller-runtime's signature; the types are controller-
// runtime's; NewQueue is a controller.Options.NewQueue.
var _ = []bool{
	same(crpq.New[string], priorityqueue.New[string]),
	same(crpq.New[reconcile.Request], priorityqueue.New[reconcile.Request]),
	same(crpq.AddOpts{}, priorityqueue.AddOpts{}),
	same(crpq.Opts[string]{}, priorityqueue.Opts[string]{}),
	same(crpq.Opt[string](nil), priorityqueue.Opt[string](nil)),
	same(crpq.PriorityQueue[string](nil), priorityqueue.PriorityQueue[string](nil)),
	same(controller.Options{}.NewQueue, priorityqueue.NewQueue[reconcile.Request]),
	same(controller.TypedOptions[string]{}.NewQueue, priorityqueue.NewQueue[string]),
	same(controller.Options{}.NewQueue, priorityqueue.NewQueueFunc(priorityqueue.Config[reconcile.Request]{})),
}

// Values cross both ways: one assignment in each direction.
var (
	_ crpq.PriorityQueue[string]                   = priorityqueue.PriorityQueue[string](nil)
	_ priorityqueue.PriorityQueue[string]          = crpq.PriorityQueue[string](nil)
	_ crpq.Opt[string]                             = priorityqueue.Opt[string](func(*priorityqueue.Opts[string]) {})
	_ priorityqueue.Opt[string]                    = crpq.Opt[string](func(*crpq.Opts[string]) {})
	_ workqueue.TypedRateLimitingInterface[string] = priorityqueue.PriorityQueue[string](nil)
	_                                              = controller.Options{NewQueue: priorityqueue.NewQueue[reconcile.Request]}
)

// TestTypeAssertions checks what controller-runtime's handlers and
// controller do with a queue: find a PriorityQueue by type assertion on
// the client-go interface. The queues also have adapter.Extras.
func TestTypeAssertions(t *testing.T) {
	var q workqueue.TypedRateLimitingInterface[reconcile.Request] = priorityqueue.NewQueue[reconcile.Request]("api", nil)
	defer q.ShutDown()
	if _, ok := q.(crpq.PriorityQueue[reconcile.Request]); !ok {
		t.Errorf("NewQueue's queue is not a controller-runtime PriorityQueue")
	}
	if _, ok := q.(adapter.Extras[reconcile.Request]); !ok {
		t.Errorf("NewQueue's queue is not an adapter.Extras")
	}
	// An option written for controller-runtime's New works with ours.
	var crOpt crpq.Opt[string] = func(o *crpq.Opts[string]) { o.RateLimiter = workqueue.NewTypedMaxOfRateLimiter[string]() }
	p := priorityqueue.New("", crOpt)
	defer p.ShutDown()
	p.AddRateLimited("a") // the max of no limiters: no delay
	if got := p.Len(); got != 1 {
		t.Errorf("Len() after AddRateLimited with a zero-delay limiter = %d; want 1", got)
	}
}
