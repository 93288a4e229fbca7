package priorityqueue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/adapter/priorityqueue"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// tenants runs a controller-runtime controller with 8 workers on this
// package's queue made with cfg, whose fairness key is the request's
// namespace (its tenant). The events, fed through source.TypedChannel,
// are sent while the queue's first reconcile waits, so the queue holds
// them all before the workers start; work says how long each reconcile
// takes. After every reconcile, stop looks at what happened so far; the
// controller stops once it returns true. tenants returns what happened.
type tenants struct {
	t      *testing.T
	name   string
	cfg    priorityqueue.Config[reconcile.Request]
	events []object
	work   func(req reconcile.Request) time.Duration
	stop   func(h *history) bool
}

// history is what the reconciles did, per tenant: the hand-outs in the
// order the reconciles began, the most processing at once, and the worker
// time of reconciles finished, and of those still running at the stop.
type history struct {
	order     []string
	running   map[string]int
	most      map[string]int
	finished  map[string]int
	spent     map[string]time.Duration
	started   map[reconcile.Request]time.Time
	first     time.Time // the first reconcile's start
	stoppedAt time.Time
}

// held returns the worker time tenant held up to the stop: its finished
// reconciles', and the part of its running ones before the stop.
func (h *history) held(tenant string) time.Duration {
	d := h.spent[tenant]
	for req, at := range h.started {
		if req.Namespace == tenant {
			d += h.stoppedAt.Sub(at)
		}
	}
	return d
}

const workers = 8

func (c tenants) run() *history {
	t := c.t
	h := &history{running: map[string]int{}, most: map[string]int{}, finished: map[string]int{},
		spent: map[string]time.Duration{}, started: map[reconcile.Request]time.Time{}}
	var (
		mu      sync.Mutex
		queue   workqueue.TypedRateLimitingInterface[reconcile.Request]
		release = make(chan struct{})
		done    = make(chan struct{})
		stopped bool
	)
	reconciler := reconcile.TypedFunc[reconcile.Request](func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		<-release
		tenant := req.Namespace
		mu.Lock()
		if stopped {
			mu.Unlock()
			return reconcile.Result{}, nil
		}
		h.order = append(h.order, tenant)
		h.running[tenant]++
		h.most[tenant] = max(h.most[tenant], h.running[tenant])
		start := time.Now()
		h.started[req] = start
		if h.first.IsZero() {
			h.first = start
		}
		mu.Unlock()
		time.Sleep(c.work(req))
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return reconcile.Result{}, nil
		}
		delete(h.started, req)
		h.running[tenant]--
		h.finished[tenant]++
		h.spent[tenant] += time.Since(start)
		if c.stop(h) {
			stopped = true
			h.stoppedAt = time.Now()
			close(done)
		}
		return reconcile.Result{}, nil
	})
	ctrl, err := controller.NewTypedUnmanaged(c.name, controller.TypedOptions[reconcile.Request]{
		Reconciler:              reconciler,
		MaxConcurrentReconciles: workers,
		SkipNameValidation:      new(true),
		NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			q := priorityqueue.NewQueueFunc(c.cfg)(name, rl)
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
			enqueue.Create(ctx, event.TypedCreateEvent[*metav1.PartialObjectMetadata]{Object: e.Object.obj}, q)
		},
	})
	if err := ctrl.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan error, 1)
	go func() { started <- ctrl.Start(ctx) }()
	for _, e := range c.events {
		events <- event.TypedGenericEvent[object]{Object: e}
	}
	// The workers hold the first 8 items, waiting on release; the queue
	// holds the rest.
	mu.Lock()
	q := queue
	mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for q.Len() != len(c.events)-workers {
		if time.Now().After(deadline) {
			t.Fatalf("the queue holds %d events; want %d", q.Len(), len(c.events)-workers)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the controller did not reach the test's stop")
	}
	cancel()
	if err := <-started; err != nil {
		t.Fatalf("Start() = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return h
}

func tenantEvents(tenant string, n int) []object {
	var events []object
	for i := range n {
		events = append(events, newObject(tenant, fmt.Sprintf("obj-%04d", i), false))
	}
	return events
}

func byTenant(r reconcile.Request) []string { return []string{r.Namespace} }

// TestControllerRuntimeKeyCap: a tenant with a cap of 2 and 1,000 slow
// items never has more than 2 of them processing on 8 workers, and the
// other tenants' items flow meanwhile: all of them are done while the
// slow tenant has most of its items left.
func TestControllerRuntimeKeyCap(t *testing.T) {
	defer goleak.VerifyNone(t)
	// The first 8 events are what the workers hold at the start (the
	// queue hands out round-robin: 2 of slow's, at its cap, and 6 of the
	// others').
	var events []object
	events = append(events, tenantEvents("slow", 1000)...)
	for _, tenant := range []string{"t1", "t2", "t3"} {
		events = append(events, tenantEvents(tenant, 100)...)
	}
	h := tenants{
		t:    t,
		name: "pq-key-cap",
		cfg: priorityqueue.Config[reconcile.Request]{
			Fairness:  byTenant,
			KeyLimits: []actor.KeyLimit{{Keys: []string{"slow"}, Cap: 2}},
		},
		events: events,
		work: func(req reconcile.Request) time.Duration {
			if req.Namespace == "slow" {
				return 20 * time.Millisecond
			}
			return time.Millisecond
		},
		stop: func(h *history) bool { return h.finished["t1"]+h.finished["t2"]+h.finished["t3"] == 300 },
	}.run()
	if h.most["slow"] != 2 {
		t.Errorf("slow had at most %d items processing at once; want 2 (its cap)", h.most["slow"])
	}
	if h.finished["slow"] > 100 {
		t.Errorf("slow finished %d items while the others finished 300; want a few (2 workers at 20 ms)", h.finished["slow"])
	}
	for _, tenant := range []string{"t1", "t2", "t3"} {
		if h.most[tenant] < 2 {
			t.Errorf("%s had at most %d items processing at once; want the free workers", tenant, h.most[tenant])
		}
	}
}

// TestControllerRuntimeKeyWeights: a tenant of weight 3 gets three
// hand-outs for each one of a tenant of weight 1 while both have items
// ready.
func TestControllerRuntimeKeyWeights(t *testing.T) {
	defer goleak.VerifyNone(t)
	var events []object
	for i := range 400 {
		events = append(events, newObject("gold", fmt.Sprintf("obj-%04d", i), false), newObject("free", fmt.Sprintf("obj-%04d", i), false))
	}
	h := tenants{
		t:    t,
		name: "pq-key-weights",
		cfg: priorityqueue.Config[reconcile.Request]{
			Fairness:  byTenant,
			KeyLimits: []actor.KeyLimit{{Keys: []string{"gold"}, Weight: 3}},
		},
		events: events,
		work:   func(reconcile.Request) time.Duration { return 100 * time.Microsecond },
		stop:   func(h *history) bool { return len(h.order) >= 400 },
	}.run()
	// The first 400 hand-outs, while both have items: 300 and 100. The
	// reconciles of 8 workers may begin in an order a little different
	// from the queue's hand-outs: by at most the workers.
	counts := map[string]int{}
	for _, tenant := range h.order[:400] {
		counts[tenant]++
	}
	if d := counts["gold"] - 300; d < -workers || d > workers {
		t.Errorf("first 400 hand-outs: gold %d, free %d; want 300 and 100 (within %d)", counts["gold"], counts["free"], workers)
	}
}

// TestControllerRuntimeFairByWorkTime: with fairness by work time, two
// tenants whose reconciles take 100 ms and 10 ms hold equal worker time,
// within one item's time (100 ms), over a run of about 2 seconds on 8
// workers.
func TestControllerRuntimeFairByWorkTime(t *testing.T) {
	defer goleak.VerifyNone(t)
	var events []object
	for i := range 2000 {
		events = append(events, newObject("heavy", fmt.Sprintf("obj-%04d", i), false), newObject("light", fmt.Sprintf("obj-%04d", i), false))
	}
	h := tenants{
		t:    t,
		name: "pq-fair-by-work-time",
		cfg: priorityqueue.Config[reconcile.Request]{
			Fairness:       byTenant,
			FairByWorkTime: true,
		},
		events: events,
		work: func(req reconcile.Request) time.Duration {
			if req.Namespace == "heavy" {
				return 100 * time.Millisecond
			}
			return 10 * time.Millisecond
		},
		stop: func(h *history) bool { return time.Since(h.first) > 2*time.Second },
	}.run()
	heavy, light := h.held("heavy"), h.held("light")
	t.Logf("worker time held: heavy %v (%d done), light %v (%d done)", heavy, h.finished["heavy"], light, h.finished["light"])
	if d := heavy - light; d < -100*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("worker time held: heavy %v, light %v; want equal within 100ms", heavy, light)
	}
}
