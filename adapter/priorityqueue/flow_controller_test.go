package priorityqueue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/adapter/priorityqueue"
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
// namespace (its tenant), in a testing/synctest bubble: the reconciles'
// work is a sleep on the bubble's fake clock, so the worker time each
// tenant gets is exactly what the queue's choices give it, whatever the
// load of the machine. The events, fed through source.TypedChannel, are
// sent while the queue's first reconciles wait, so the queue holds them
// all before the workers start; work says how long each reconcile takes.
// After every reconcile, stop looks at what happened so far; the
// controller stops once it returns true. If report is set, each
// reconcile calls it with the queue and its request before its work, as
// a reconciler that reports to the queue does. tenants returns what
// happened.
type tenants struct {
	t      *testing.T
	name   string
	cfg    priorityqueue.Config[reconcile.Request]
	events []object
	work   func(req reconcile.Request) time.Duration
	stop   func(h *history) bool
	report func(q workqueue.TypedRateLimitingInterface[reconcile.Request], req reconcile.Request)
}

// history is what the reconciles did, per tenant: the hand-outs in the
// order the reconciles began, the most processing at once, and the worker
// time of reconciles finished, and of those still running at the stop.
// Times are the bubble's.
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

// run runs the controller in a synctest bubble of its own, which fails
// the test if a goroutine is left in it, and returns what happened.
func (c tenants) run() *history {
	var h *history
	synctest.Test(c.t, func(t *testing.T) { h = c.runInBubble(t) })
	return h
}

func (c tenants) runInBubble(t *testing.T) *history {
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
		q := queue
		mu.Unlock()
		if c.report != nil {
			c.report(q, req)
		}
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
	// Once every goroutine of the bubble is blocked, the workers hold
	// the first 8 items, waiting on release, and the queue the rest.
	synctest.Wait()
	mu.Lock()
	q := queue
	mu.Unlock()
	if n := q.Len(); n != len(c.events)-workers {
		t.Fatalf("Len() = %d once the events were sent and the workers wait; want %d", n, len(c.events)-workers)
	}
	close(release)
	// The bubble's clock: a minute of the reconciles' sleeps, far more
	// than any of the tests needs.
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the controller did not reach the test's stop within a minute of its work")
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
// other tenants' items flow meanwhile on the 6 workers left: their 300
// items of 1 ms take 50 ms, during which slow finishes the 4 items that
// 2 workers finish in 50 ms at 20 ms each.
func TestControllerRuntimeKeyCap(t *testing.T) {
	// The first 8 events are what the workers hold at the start (the
	// queue hands out round-robin: 2 of slow's, at its cap, and 6 of the
	// others').
	const (
		slowCap   = 2
		slowWork  = 20 * time.Millisecond
		otherWork = time.Millisecond
		others    = 300
	)
	var events []object
	events = append(events, tenantEvents("slow", 1000)...)
	for _, tenant := range []string{"t1", "t2", "t3"} {
		events = append(events, tenantEvents(tenant, others/3)...)
	}
	h := tenants{
		t:    t,
		name: "pq-key-cap",
		cfg: priorityqueue.Config[reconcile.Request]{
			Fairness:  byTenant,
			KeyLimits: []actor.KeyLimit{{Keys: []string{"slow"}, Cap: slowCap}},
		},
		events: events,
		work: func(req reconcile.Request) time.Duration {
			if req.Namespace == "slow" {
				return slowWork
			}
			return otherWork
		},
		stop: func(h *history) bool { return h.finished["t1"]+h.finished["t2"]+h.finished["t3"] == others },
	}.run()
	if h.most["slow"] != slowCap {
		t.Errorf("slow had at most %d items processing at once; want %d (its cap)", h.most["slow"], slowCap)
	}
	elapsed := h.stoppedAt.Sub(h.first)
	if want := others * otherWork / (workers - slowCap); elapsed != want {
		t.Errorf("the others' %d items took %v; want %v (the %d workers slow's cap leaves them, all the time)", others, elapsed, want, workers-slowCap)
	}
	if want := slowCap * int(elapsed/slowWork); h.finished["slow"] != want {
		t.Errorf("slow finished %d items in %v; want %d (%d workers at %v)", h.finished["slow"], elapsed, want, slowCap, slowWork)
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
// tenants whose reconciles take 100 ms and 10 ms hold equal worker time
// over a run of 2 seconds on 8 workers (16 s of worker time), within one
// heavy item per worker (800 ms), the bound the core's TestWorkTime
// proves: each worker may be in the middle of a heavy item the queue
// chose when the virtual times were even. Fairness by turns would give
// heavy ten times light's time.
func TestControllerRuntimeFairByWorkTime(t *testing.T) {
	const heavyWork, lightWork = 100 * time.Millisecond, 10 * time.Millisecond
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
				return heavyWork
			}
			return lightWork
		},
		stop: func(h *history) bool { return time.Since(h.first) >= 2*time.Second },
	}.run()
	heavy, light := h.held("heavy"), h.held("light")
	t.Logf("worker time held: heavy %v (%d done), light %v (%d done)", heavy, h.finished["heavy"], light, h.finished["light"])
	if total := heavy + light; total != workers*h.stoppedAt.Sub(h.first) {
		t.Errorf("worker time held: %v in all over %v; want %d workers busy all the time", total, h.stoppedAt.Sub(h.first), workers)
	}
	if d, tol := heavy-light, workers*heavyWork; d < -tol || d > tol {
		t.Errorf("worker time held: heavy %v, light %v; want equal within %v", heavy, light, tol)
	}
}

// TestControllerRuntimeKeyRate: every tenant may start 50 reconciles a
// second, 3 at once (LevelLimits), and one of them, noisy, has a rate of
// its own of 10, 1 at once: each gets its rate exactly, on the bubble's
// clock, and the workers take the others' items while noisy waits for its
// tokens. The workers start with 8 items: noisy's 1, t1's 3, and 2 each
// of t2's and t3's, whose third goes as soon as a worker is free.
func TestControllerRuntimeKeyRate(t *testing.T) {
	const others = 300
	var events []object
	events = append(events, tenantEvents("noisy", 1000)...)
	for _, tenant := range []string{"t1", "t2", "t3"} {
		events = append(events, tenantEvents(tenant, others/3)...)
	}
	h := tenants{
		t:    t,
		name: "pq-key-rate",
		cfg: priorityqueue.Config[reconcile.Request]{
			Fairness:    byTenant,
			LevelLimits: []actor.LevelLimit{{Rate: 50, Burst: 3}},
			KeyLimits:   []actor.KeyLimit{{Keys: []string{"noisy"}, Rate: 10, Burst: 1}},
		},
		events: events,
		work:   func(reconcile.Request) time.Duration { return time.Millisecond },
		stop:   func(h *history) bool { return h.finished["t1"]+h.finished["t2"]+h.finished["t3"] == others },
	}.run()
	elapsed := h.stoppedAt.Sub(h.first)
	if want := (others/3-3)*20*time.Millisecond + time.Millisecond; elapsed != want {
		t.Errorf("the others' %d items took %v; want %v (each tenant's burst of 3, the other 97 at 50 a second, and the last one's work)", others, elapsed, want)
	}
	started := map[string]int{}
	for _, tenant := range h.order {
		started[tenant]++
	}
	if want := 1 + int(elapsed/(100*time.Millisecond)); started["noisy"] != want {
		t.Errorf("noisy started %d reconciles in %v; want %d (a burst of 1, then 10 a second)", started["noisy"], elapsed, want)
	}
}

// TestControllerRuntimeThrottled: a reconciler, which never calls Done,
// reports a throttle of every slow item it works on through
// priorityqueue.Throttler. slow's adaptive cap starts at 4, so the
// workers start with 4 of slow's items and 4 of t1's; the first report
// lowers the cap to 3 for the window (longer than the run), so once
// slow's first 4 finish, at 10 ms, slow gets 3 workers and t1 the 5
// left: t1's last 60 items of 1 ms take 12 ms more. With a cap of 4,
// they would take 15 ms.
func TestControllerRuntimeThrottled(t *testing.T) {
	const (
		slowWork  = 10 * time.Millisecond
		otherWork = time.Millisecond
		others    = 100
	)
	var events []object
	events = append(events, tenantEvents("slow", 100)...)
	events = append(events, tenantEvents("t1", others)...)
	var (
		mu   sync.Mutex
		errs []error
		last actor.AdaptiveKey
	)
	h := tenants{
		t:    t,
		name: "pq-throttled",
		cfg: priorityqueue.Config[reconcile.Request]{
			Fairness: byTenant,
			KeyLimits: []actor.KeyLimit{{Keys: []string{"slow"},
				Adaptive: actor.AdaptiveCap{Max: 4, Window: time.Minute}}},
		},
		events: events,
		work: func(req reconcile.Request) time.Duration {
			if req.Namespace == "slow" {
				return slowWork
			}
			return otherWork
		},
		stop: func(h *history) bool { return h.finished["t1"] == others },
		report: func(q workqueue.TypedRateLimitingInterface[reconcile.Request], req reconcile.Request) {
			if req.Namespace != "slow" {
				return
			}
			err := q.(priorityqueue.Throttler[reconcile.Request]).Throttled(req, time.Time{})
			s := priorityqueue.SnapshotOf(q.(priorityqueue.PriorityQueue[reconcile.Request]), 8)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			// Reports made at one instant take their snapshots and the
			// lock in either order: keep the latest snapshot.
			if len(s.AdaptiveKeys) == 1 && s.AdaptiveKeys[0].Throttles >= last.Throttles {
				last = s.AdaptiveKeys[0]
			}
		},
	}.run()
	if len(errs) > 0 {
		t.Fatalf("Throttled() = %v; want nil", errs[0])
	}
	if want := 12*otherWork + slowWork; h.stoppedAt.Sub(h.first) != want {
		t.Errorf("t1's %d items took %v; want %v (5 workers once slow's first 4 finish)", others, h.stoppedAt.Sub(h.first), want)
	}
	// slow's first 4, the 3 started at 10 ms and the 3 at 20 ms.
	if h.finished["slow"] != 7 || len(h.started) != 3 {
		t.Errorf("slow finished %d items, %d running at the stop; want 7, 3", h.finished["slow"], len(h.started))
	}
	if last.Cap != 3 || last.Throttles != 10 {
		t.Errorf("slow's adaptive cap at the last report: %+v; want cap 3 after 10 throttles", last)
	}
}
