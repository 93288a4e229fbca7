package priorityqueue_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/adapter/priorityqueue"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// object is what the test's events carry: an object's metadata, and
// whether the event comes from the informer's initial list.
type object struct {
	obj     *metav1.PartialObjectMetadata
	initial bool
}

func newObject(namespace, name string, initial bool) object {
	return object{&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}, initial}
}

func key(namespace, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}
}

// crController runs a controller-runtime controller with one worker on
// this package's queue (made by newQueue), fed by events through
// source.TypedChannel and controller-runtime's built-in
// handler.TypedEnqueueRequestForObject: each event is handed to the
// handler as the create event an informer would send, in its initial list
// or not, so that the handler adds it at handler.LowPriority or at 0.
//
// It runs in a testing/synctest bubble, so a reconcile's sleep and a
// RequeueAfter are on the bubble's fake clock. The first event is sent
// alone, and its reconcile waits until the test has sent every other
// event and the queue holds them all, so that the order of the others is
// the queue's. reconcile returns the result for one key; the controller
// stops once stop returns true after a reconcile. run returns the keys in
// the order they were reconciled.
type crController struct {
	t        *testing.T
	name     string
	newQueue func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]
	events   []object
	result   func(req reconcile.Request, run int) reconcile.Result
	stop     func(order []reconcile.Request) bool
}

func (c crController) run() []reconcile.Request {
	var order []reconcile.Request
	synctest.Test(c.t, func(t *testing.T) { order = c.runInBubble(t) })
	return order
}

func (c crController) runInBubble(t *testing.T) []reconcile.Request {
	var (
		mu      sync.Mutex
		order   []reconcile.Request
		runs    = map[reconcile.Request]int{}
		queue   workqueue.TypedRateLimitingInterface[reconcile.Request]
		entered = make(chan struct{})
		release = make(chan struct{})
		done    = make(chan struct{})
		once    sync.Once
	)
	reconciler := reconcile.TypedFunc[reconcile.Request](func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		select {
		case <-release:
		default:
			close(entered) // the first reconcile: one worker, so only one
			<-release
		}
		mu.Lock()
		order = append(order, req)
		runs[req]++
		n := runs[req]
		finished := c.stop(order)
		mu.Unlock()
		if finished {
			once.Do(func() { close(done) })
		}
		if c.result == nil {
			return reconcile.Result{}, nil
		}
		return c.result(req, n), nil
	})
	ctrl, err := controller.NewTypedUnmanaged(c.name, controller.TypedOptions[reconcile.Request]{
		Reconciler:              reconciler,
		MaxConcurrentReconciles: 1,
		SkipNameValidation:      new(true),
		NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			q := c.newQueue(name, rl)
			mu.Lock()
			queue = q
			mu.Unlock()
			return q
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan event.TypedGenericEvent[object])
	enqueue := &handler.TypedEnqueueRequestForObject[*metav1.PartialObjectMetadata]{}
	src := source.TypedChannel(events, handler.TypedFuncs[object, reconcile.Request]{
		GenericFunc: func(ctx context.Context, e event.TypedGenericEvent[object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue.Create(ctx, event.TypedCreateEvent[*metav1.PartialObjectMetadata]{Object: e.Object.obj, IsInInitialList: e.Object.initial}, q)
		},
	})
	if err := ctrl.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan error, 1)
	go func() { started <- ctrl.Start(ctx) }()
	events <- event.TypedGenericEvent[object]{Object: c.events[0]}
	synctest.Wait()
	select {
	case <-entered:
	default:
		t.Fatal("the controller did not reconcile the first event")
	}
	for _, e := range c.events[1:] {
		events <- event.TypedGenericEvent[object]{Object: e}
	}
	// Once every goroutine of the bubble is blocked, every event but the
	// first is in the queue.
	synctest.Wait()
	mu.Lock()
	q := queue
	mu.Unlock()
	if n := q.Len(); n != len(c.events)-1 {
		t.Fatalf("Len() = %d once the events were sent and the worker waits; want %d", n, len(c.events)-1)
	}
	close(release)
	// The bubble's clock: a minute passes only if the controller waits
	// for nothing but timers, far beyond any RequeueAfter of the tests.
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Error("the controller did not reconcile what the test waits for")
	}
	cancel()
	if err := <-started; err != nil {
		t.Fatalf("Start() = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(order)
}

// TestControllerRuntimePriorities runs a real controller-runtime controller
// on the priority queue: the objects of an informer's initial list, which
// controller-runtime's handler adds at handler.LowPriority, are reconciled
// after the fresh events that arrive meanwhile, and a reconcile.Result's
// Priority puts the requeued key ahead of the keys waiting at 0.
func TestControllerRuntimePriorities(t *testing.T) {
	const initial, fresh = 50, 5
	var events []object
	for i := range initial {
		events = append(events, newObject("ns", fmt.Sprintf("initial-%02d", i), true))
	}
	for i := range fresh {
		events = append(events, newObject("ns", fmt.Sprintf("fresh-%d", i), false))
	}
	boosted := key("ns", "fresh-0")
	order := crController{
		t:        t,
		name:     "pq-priorities",
		newQueue: priorityqueue.NewQueue[reconcile.Request],
		events:   events,
		result: func(req reconcile.Request, run int) reconcile.Result {
			switch {
			case req == boosted && run == 1:
				// Back in a millisecond, ahead of the keys waiting at 0.
				return reconcile.Result{RequeueAfter: time.Millisecond, Priority: new(10)}
			case req == key("ns", "fresh-1"):
				time.Sleep(100 * time.Millisecond) // fresh-0's delay passes meanwhile
			}
			return reconcile.Result{}
		},
		stop: func(order []reconcile.Request) bool { return len(order) == initial+fresh+1 },
	}.run()

	// initial-00 was reconciled alone, before the rest arrived; then come
	// the fresh events, fresh-0 again (at priority 10) as soon as its delay
	// passed, and the initial list last, in the order it was listed.
	want := []reconcile.Request{key("ns", "initial-00"), key("ns", "fresh-0"), key("ns", "fresh-1"), boosted}
	for i := 2; i < fresh; i++ {
		want = append(want, key("ns", fmt.Sprintf("fresh-%d", i)))
	}
	for i := 1; i < initial; i++ {
		want = append(want, key("ns", fmt.Sprintf("initial-%02d", i)))
	}
	if !slices.Equal(order, want) {
		t.Errorf("reconciled in the order\n%v\nwant\n%v", order, want)
	}
}

// TestControllerRuntimeFairness runs a real controller-runtime controller
// on a queue with fairness across namespaces: a tenant with 10,000 queued
// keys delays another tenant's 10 keys, added after them, by one hand-out
// each, not by 10,000.
func TestControllerRuntimeFairness(t *testing.T) {
	const big, small = 10_000, 10
	var events []object
	for i := range big {
		events = append(events, newObject("big", fmt.Sprintf("k%05d", i), false))
	}
	for i := range small {
		events = append(events, newObject("small", fmt.Sprintf("k%02d", i), false))
	}
	smallDone := func(order []reconcile.Request) int {
		n := 0
		for _, r := range order {
			if r.Namespace == "small" {
				n++
			}
		}
		return n
	}
	order := crController{
		t:    t,
		name: "pq-fairness",
		newQueue: priorityqueue.NewQueueFunc(priorityqueue.Config[reconcile.Request]{
			Fairness: func(r reconcile.Request) []string { return []string{r.Namespace} },
		}),
		events: events,
		stop:   func(order []reconcile.Request) bool { return smallDone(order) == small },
	}.run()

	// big's first key was reconciled alone, before the rest arrived; then
	// big's turn comes first (its keys came first), and from then on the
	// two namespaces take turns: big, small, big, small, ...
	var want []reconcile.Request
	want = append(want, key("big", "k00000"))
	for i := range small {
		want = append(want, key("big", fmt.Sprintf("k%05d", i+1)), key("small", fmt.Sprintf("k%02d", i)))
	}
	if len(order) > len(want) {
		order = order[:len(want)] // the worker may have taken one more before the controller stopped
	}
	if !slices.Equal(order, want) {
		t.Errorf("reconciled in the order\n%v\nwant\n%v", order, want)
	}
}
