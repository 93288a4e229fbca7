package adapter_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	workqueue "github.com/actorq/actorq/adapter"
	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// countingLimiter records the delays its inner limiter gives, per key.
type countingLimiter struct {
	workqueue.TypedRateLimiter[string]
	mu     sync.Mutex
	whens  map[string]int
	forget map[string]int
}

func (c *countingLimiter) When(key string) time.Duration {
	c.mu.Lock()
	c.whens[key]++
	c.mu.Unlock()
	return c.TypedRateLimiter.When(key)
}

func (c *countingLimiter) Forget(key string) {
	c.mu.Lock()
	c.forget[key]++
	c.mu.Unlock()
	c.TypedRateLimiter.Forget(key)
}

// TestControllerRuntime drives the adapter from a real controller-runtime
// controller: 200 keys, some failing three times, some asking for
// RequeueAfter, some re-added while they are reconciled.
func TestControllerRuntime(t *testing.T) {
	defer goleak.VerifyNone(t)
	// controller-runtime's registry is process-wide: counters carry over
	// from an earlier run of this test (go test -count=N), so compare
	// their growth.
	before := adapterTestMetrics(t)
	const keys = 200
	limiter := &countingLimiter{
		TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond),
		whens:            map[string]int{},
		forget:           map[string]int{},
	}
	events := make(chan event.TypedGenericEvent[string])

	var (
		mu        sync.Mutex
		inflight  = map[string]bool{}
		runs      = map[string]int{}
		requeues  = map[string][]int{} // NumRequeues seen at each run
		succeeded = map[string]int{}
		remaining = keys
		allDone   = make(chan struct{})
		queue     workqueue.TypedRateLimitingInterface[string]
	)
	const failures = 3
	kind := func(key string) int { var i int; fmt.Sscanf(key, "k%d", &i); return i % 10 }

	reconciler := reconcile.TypedFunc[string](func(ctx context.Context, key string) (reconcile.Result, error) {
		mu.Lock()
		if inflight[key] {
			t.Errorf("key %s reconciled twice at once", key)
		}
		inflight[key] = true
		runs[key]++
		n := runs[key]
		requeues[key] = append(requeues[key], queue.NumRequeues(key))
		mu.Unlock()

		var res reconcile.Result
		var err error
		switch kind(key) {
		case 0: // fails three times, then succeeds
			if n <= failures {
				err = errors.New("transient")
			}
		case 1: // asks to be looked at again shortly, once
			if n == 1 {
				res.RequeueAfter = 5 * time.Millisecond
			}
		case 2: // a new event arrives while it is reconciled
			if n == 1 {
				events <- event.TypedGenericEvent[string]{Object: key}
			}
		}

		mu.Lock()
		inflight[key] = false
		if err == nil && res.RequeueAfter == 0 {
			succeeded[key]++
			want := 1
			if kind(key) == 2 {
				want = 2
			}
			if succeeded[key] == want {
				if remaining--; remaining == 0 {
					close(allDone)
				}
			}
		}
		mu.Unlock()
		return res, err
	})

	ctrl, err := controller.NewTypedUnmanaged("adapter-test", controller.TypedOptions[string]{
		Reconciler:              reconciler,
		MaxConcurrentReconciles: 4,
		SkipNameValidation:      new(true),
		RateLimiter:             limiter,
		NewQueue: func(name string, rl workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
			if rl != workqueue.TypedRateLimiter[string](limiter) {
				t.Errorf("NewQueue got limiter %T; want the one passed in", rl)
			}
			q := workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
			mu.Lock()
			queue = q
			mu.Unlock()
			return q
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	src := source.TypedChannel(events, handler.TypedFuncs[string, string]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[string], q workqueue.TypedRateLimitingInterface[string]) {
			q.Add(e.Object)
		},
	})
	if err := ctrl.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan error, 1)
	go func() { started <- ctrl.Start(ctx) }()

	go func() {
		for i := range keys {
			events <- event.TypedGenericEvent[string]{Object: fmt.Sprintf("k%03d", i)}
		}
	}()

	select {
	case <-allDone:
	case <-time.After(30 * time.Second):
		mu.Lock()
		t.Errorf("not every key reconciled: %d left", remaining)
		mu.Unlock()
	}
	cancel()
	if err := <-started; err != nil {
		t.Fatalf("Start() = %v", err)
	}
	if !queue.ShuttingDown() {
		t.Fatal("queue not shut down after the controller stopped")
	}

	mu.Lock()
	defer mu.Unlock()
	limiter.mu.Lock()
	defer limiter.mu.Unlock()
	for i := range keys {
		key := fmt.Sprintf("k%03d", i)
		var wantRuns, wantWhens int
		var wantRequeues []int
		switch kind(key) {
		case 0:
			wantRuns, wantWhens, wantRequeues = failures+1, failures, []int{0, 1, 2, 3}
		case 1:
			wantRuns, wantWhens, wantRequeues = 2, 0, []int{0, 0}
		case 2:
			wantRuns, wantWhens, wantRequeues = 2, 0, []int{0, 0}
		default:
			wantRuns, wantWhens, wantRequeues = 1, 0, []int{0}
		}
		if runs[key] != wantRuns {
			t.Errorf("%s reconciled %d times; want %d", key, runs[key], wantRuns)
		}
		if limiter.whens[key] != wantWhens {
			t.Errorf("limiter.When(%s) called %d times; want %d", key, limiter.whens[key], wantWhens)
		}
		if fmt.Sprint(requeues[key]) != fmt.Sprint(wantRequeues) {
			t.Errorf("NumRequeues(%s) at each run = %v; want %v", key, requeues[key], wantRequeues)
		}
		if limiter.forget[key] == 0 {
			t.Errorf("%s never forgotten after success", key)
		}
	}

	// The queue reports to controller-runtime's registry, through the
	// provider controller-runtime gave client-go's SetProvider.
	wantMetrics := map[string]float64{
		"workqueue_adds_total":    keys + keys/10*(failures+2), // first adds; failures, RequeueAfter and mid-reconcile re-adds
		"workqueue_retries_total": keys / 10 * (failures + 1),  // AddRateLimited and AddAfter calls
		"workqueue_depth":         0,
	}
	after := adapterTestMetrics(t)
	for name, want := range wantMetrics {
		got, ok := after[name]
		if !ok {
			continue
		}
		if name != "workqueue_depth" {
			got -= before[name]
		}
		if got != want {
			t.Errorf("%s{name=adapter-test} = %v; want %v", name, got, want)
		}
		delete(wantMetrics, name)
	}
	for name := range wantMetrics {
		t.Errorf("%s{name=adapter-test} not in controller-runtime's registry", name)
	}
}

// adapterTestMetrics returns the values of the series labelled
// name="adapter-test" in controller-runtime's registry, by metric name.
func adapterTestMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == "adapter-test" {
					values[f.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
				}
			}
		}
	}
	return values
}
