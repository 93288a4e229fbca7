package exporter_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/exporter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"
)

// run drives a queue named "jobs" through known operations on the
// bubble's fake clock and leaves it as the expected texts below say:
//
//	t=0     Add a, Add b, AddAfter(c, 1s), AddAfter(d, 1h), Get a (waited 0)
//	t=0.25  Get b (waited 0.25s)
//	t=1     c ready
//	t=1.25  Done a (worked 1.25s)
//	t=1.75  a scrape: b processing since 0.25, refreshed at t=1.5
func run(t *testing.T, p actor.MetricsProvider) {
	t.Helper()
	q := actor.New(actor.Config[string]{Name: "jobs", MetricsProvider: p})
	t.Cleanup(q.ShutDown)
	q.Add("a")
	q.Add("b")
	q.AddAfter("c", time.Second)
	q.AddAfter("d", time.Hour)
	get(t, q, "a")
	time.Sleep(250 * time.Millisecond)
	get(t, q, "b")
	time.Sleep(time.Second)
	q.Done("a")
	time.Sleep(500 * time.Millisecond)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len() = %d; want 1", got)
	}
}

func get(t *testing.T, q *actor.Queue[string], want string) {
	t.Helper()
	if got, shutdown := q.Get(); shutdown || got != want {
		t.Fatalf("Get() = %q, %v; want %q, false", got, shutdown, want)
	}
}

// wantExposition is what New's metrics show after run: client-go's names,
// help texts, label and buckets.
const wantExposition = `# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="jobs"} 3
# HELP workqueue_delayed_items Current number of items waiting on a delay before they are added to workqueue
# TYPE workqueue_delayed_items gauge
workqueue_delayed_items{name="jobs"} 1
# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="jobs"} 1
# HELP workqueue_longest_running_processor_seconds How many seconds has the longest running processor for workqueue been running.
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{name="jobs"} 1.25
# HELP workqueue_queue_duration_seconds How long in seconds an item stays in workqueue before being requested.
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{name="jobs",le="1e-06"} 1
workqueue_queue_duration_seconds_bucket{name="jobs",le="9.999999999999999e-06"} 1
workqueue_queue_duration_seconds_bucket{name="jobs",le="9.999999999999999e-05"} 1
workqueue_queue_duration_seconds_bucket{name="jobs",le="0.001"} 1
workqueue_queue_duration_seconds_bucket{name="jobs",le="0.01"} 1
workqueue_queue_duration_seconds_bucket{name="jobs",le="0.1"} 1
workqueue_queue_duration_seconds_bucket{name="jobs",le="1"} 2
workqueue_queue_duration_seconds_bucket{name="jobs",le="10"} 2
workqueue_queue_duration_seconds_bucket{name="jobs",le="100"} 2
workqueue_queue_duration_seconds_bucket{name="jobs",le="1000"} 2
workqueue_queue_duration_seconds_bucket{name="jobs",le="+Inf"} 2
workqueue_queue_duration_seconds_sum{name="jobs"} 0.25
workqueue_queue_duration_seconds_count{name="jobs"} 2
# HELP workqueue_retries_total Total number of retries handled by workqueue
# TYPE workqueue_retries_total counter
workqueue_retries_total{name="jobs"} 2
# HELP workqueue_unfinished_work_seconds How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{name="jobs"} 1.25
# HELP workqueue_work_duration_seconds How long in seconds processing an item from workqueue takes.
# TYPE workqueue_work_duration_seconds histogram
workqueue_work_duration_seconds_bucket{name="jobs",le="1e-06"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="9.999999999999999e-06"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="9.999999999999999e-05"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="0.001"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="0.01"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="0.1"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="1"} 0
workqueue_work_duration_seconds_bucket{name="jobs",le="10"} 1
workqueue_work_duration_seconds_bucket{name="jobs",le="100"} 1
workqueue_work_duration_seconds_bucket{name="jobs",le="1000"} 1
workqueue_work_duration_seconds_bucket{name="jobs",le="+Inf"} 1
workqueue_work_duration_seconds_sum{name="jobs"} 1.25
workqueue_work_duration_seconds_count{name="jobs"} 1
`

func TestNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		p, err := exporter.New(reg)
		if err != nil {
			t.Fatalf("New() error = %v", err)
		}
		run(t, p)
		if err := testutil.GatherAndCompare(reg, strings.NewReader(wantExposition)); err != nil {
			t.Error(err)
		}
	})
}

// crWorkqueue holds collectors defined as controller-runtime's metrics
// package defines the workqueue metrics and registers them in its
// metrics.Registry, written out here independently of the exporter.
type crWorkqueue struct {
	depth                      *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, workDuration      *prometheus.HistogramVec
	unfinished, longestRunning *prometheus.GaugeVec
}

func newCRWorkqueue() crWorkqueue {
	labels := []string{"name", "controller"}
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	return crWorkqueue{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "workqueue_depth",
			Help: "Current depth of workqueue by workqueue and priority",
		}, []string{"name", "controller", "priority"}),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workqueue_adds_total",
			Help: "Total number of adds handled by workqueue",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "workqueue_queue_duration_seconds",
			Help:    "How long in seconds an item stays in workqueue before being requested",
			Buckets: buckets,
		}, labels),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "workqueue_work_duration_seconds",
			Help:    "How long in seconds processing an item from workqueue takes.",
			Buckets: buckets,
		}, labels),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "workqueue_unfinished_work_seconds",
			Help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
				"Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
		}, labels),
		longestRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "workqueue_longest_running_processor_seconds",
			Help: "How many seconds has the longest running processor for workqueue been running.",
		}, labels),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workqueue_retries_total",
			Help: "Total number of retries handled by workqueue",
		}, labels),
	}
}

func (c crWorkqueue) register(t *testing.T, reg prometheus.Registerer) {
	t.Helper()
	for _, col := range []prometheus.Collector{c.depth, c.adds, c.latency, c.workDuration, c.unfinished, c.longestRunning, c.retries} {
		if err := reg.Register(col); err != nil {
			t.Fatalf("registering controller-runtime's collectors: %v", err)
		}
	}
}

// TestNewControllerRuntime: in a registry that already holds
// controller-runtime's collectors, NewControllerRuntime records into them.
func TestNewControllerRuntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		cr := newCRWorkqueue()
		cr.register(t, reg)
		// A controller-runtime controller's own queue, recorded as
		// controller-runtime does.
		cr.adds.WithLabelValues("cr-controller", "cr-controller").Inc()

		p, err := exporter.NewControllerRuntime(reg)
		if err != nil {
			t.Fatalf("NewControllerRuntime() error = %v", err)
		}
		run(t, p)
		checks := []struct {
			name string
			c    prometheus.Collector
			want float64
		}{
			{"depth", cr.depth.WithLabelValues("jobs", "jobs", ""), 1},
			{"adds", cr.adds.WithLabelValues("jobs", "jobs"), 3},
			{"retries", cr.retries.WithLabelValues("jobs", "jobs"), 2},
			{"unfinished", cr.unfinished.WithLabelValues("jobs", "jobs"), 1.25},
			{"longest running", cr.longestRunning.WithLabelValues("jobs", "jobs"), 1.25},
			{"adds of controller-runtime's queue", cr.adds.WithLabelValues("cr-controller", "cr-controller"), 1},
		}
		for _, c := range checks {
			if got := testutil.ToFloat64(c.c); got != c.want {
				t.Errorf("%s in controller-runtime's collector = %v; want %v", c.name, got, c.want)
			}
		}
		want := `# HELP workqueue_delayed_items Current number of items waiting on a delay before they are added to workqueue
# TYPE workqueue_delayed_items gauge
workqueue_delayed_items{controller="jobs",name="jobs"} 1
# HELP workqueue_queue_duration_seconds How long in seconds an item stays in workqueue before being requested
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="1e-08"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="1e-07"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="1e-06"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="9.999999999999999e-06"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="9.999999999999999e-05"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="0.001"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="0.01"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="0.1"} 1
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="1"} 2
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="10"} 2
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="100"} 2
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="1000"} 2
workqueue_queue_duration_seconds_bucket{controller="jobs",name="jobs",le="+Inf"} 2
workqueue_queue_duration_seconds_sum{controller="jobs",name="jobs"} 0.25
workqueue_queue_duration_seconds_count{controller="jobs",name="jobs"} 2
`
		err = testutil.GatherAndCompare(reg, strings.NewReader(want),
			"workqueue_delayed_items", "workqueue_queue_duration_seconds")
		if err != nil {
			t.Error(err)
		}
	})
}

// TestNewReusesIdenticalCollectors: a second Provider on the same registry
// records into the first one's collectors.
func TestNewReusesIdenticalCollectors(t *testing.T) {
	for _, f := range []struct {
		name string
		new  func(prometheus.Registerer) (*exporter.Provider, error)
	}{{"New", exporter.New}, {"NewControllerRuntime", exporter.NewControllerRuntime}} {
		t.Run(f.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			p1, err := f.new(reg)
			if err != nil {
				t.Fatalf("first %s() error = %v", f.name, err)
			}
			p2, err := f.new(reg)
			if err != nil {
				t.Fatalf("second %s() error = %v", f.name, err)
			}
			p1.NewAddsMetric("shared").Inc()
			p2.NewAddsMetric("shared").Inc()
			p2.NewDelayedMetric("other").Set(3)
			n, err := testutil.GatherAndCount(reg, "workqueue_adds_total")
			if err != nil || n != 1 {
				t.Errorf("adds series = %d, %v; want 1, nil", n, err)
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatalf("Gather() error = %v", err)
			}
			for _, mf := range mfs {
				switch mf.GetName() {
				case "workqueue_adds_total":
					if got := mf.GetMetric()[0].GetCounter().GetValue(); got != 2 {
						t.Errorf("shared adds = %v; want 2", got)
					}
				case "workqueue_delayed_items":
					if got := mf.GetMetric()[0].GetGauge().GetValue(); got != 3 {
						t.Errorf("delayed = %v; want 3", got)
					}
				}
			}
		})
	}
}

// otherDepth is a collector of another type that describes workqueue_depth
// exactly as New does.
type otherDepth struct{ d *prometheus.Desc }

func (o otherDepth) Describe(ch chan<- *prometheus.Desc) { ch <- o.d }
func (o otherDepth) Collect(chan<- prometheus.Metric)    {}

// TestNewConflict: a conflicting collector makes New fail with a clear
// error, and New leaves the registry as it found it.
func TestNewConflict(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, reg *prometheus.Registry)
		wantErr string
		freed   []prometheus.Collector // New's collectors it must have taken back
	}{
		{
			name:    "controller-runtime's collectors",
			setup:   func(t *testing.T, reg *prometheus.Registry) { newCRWorkqueue().register(t, reg) },
			wantErr: "has different label names or a different help string",
		},
		{
			name: "retries with other help, after six registered",
			setup: func(t *testing.T, reg *prometheus.Registry) {
				reg.MustRegister(prometheus.NewCounterVec(prometheus.CounterOpts{
					Name: "workqueue_retries_total", Help: "Retries.",
				}, []string{"name"}))
			},
			wantErr: "has different label names or a different help string",
			freed: []prometheus.Collector{
				prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth", Help: "Current depth of workqueue"}, []string{"name"}),
				prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total", Help: "Total number of adds handled by workqueue"}, []string{"name"}),
			},
		},
		{
			name: "identical description, other type",
			setup: func(t *testing.T, reg *prometheus.Registry) {
				reg.MustRegister(otherDepth{prometheus.NewDesc("workqueue_depth", "Current depth of workqueue", []string{"name"}, nil)})
			},
			wantErr: "want a *prometheus.GaugeVec",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			tt.setup(t, reg)
			before := families(t, reg)
			p, err := exporter.New(reg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "exporter: ") {
				t.Fatalf("New() = %v, %v; want error containing %q", p, err, tt.wantErr)
			}
			if got := families(t, reg); !slices.Equal(got, before) {
				t.Errorf("after failed New, families = %v; want %v", got, before)
			}
			// Whatever New registered before failing is gone: the same
			// collectors register anew, not as already registered.
			for _, c := range tt.freed {
				if err := reg.Register(c); err != nil {
					t.Errorf("registering %v after failed New: %v; want nil", c, err)
				}
			}
		})
	}
}

// families returns the names of the metric families reg gathers.
func families(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather() error = %v", err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	return names
}

// TestScrapeOverHTTP serves the registry with promhttp on loopback, in real
// time, and checks the exact lines a scrape returns.
func TestScrapeOverHTTP(t *testing.T) {
	defer goleak.VerifyNone(t)
	reg := prometheus.NewRegistry()
	p, err := exporter.New(reg)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	q := actor.New(actor.Config[string]{Name: "http", MetricsProvider: p})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("a") // a duplicate: no add
	q.AddAfter("c", time.Hour)
	q.Len() // the owner has applied the adds: Get must not overtake them
	get(t, q, "a")
	q.Done("a")
	q.Len() // and the hand-out and Done

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %s, %v", resp.Status, err)
	}
	lines := strings.Split(string(body), "\n")
	for _, want := range []string{
		`workqueue_adds_total{name="http"} 2`,
		`workqueue_depth{name="http"} 1`,
		`workqueue_retries_total{name="http"} 1`,
		`workqueue_delayed_items{name="http"} 1`,
		`workqueue_queue_duration_seconds_count{name="http"} 1`,
		`workqueue_work_duration_seconds_count{name="http"} 1`,
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("scrape lacks line %q; got:\n%s", want, body)
		}
	}
}

// TestNilRegistererMeansDefault: New(nil) registers in the default registry.
func TestNilRegistererMeansDefault(t *testing.T) {
	p, err := exporter.New(nil)
	if err != nil {
		t.Fatalf("New(nil) error = %v", err)
	}
	p.NewRetriesMetric("default-registry").Inc()
	n, err := testutil.GatherAndCount(prometheus.DefaultGatherer, "workqueue_retries_total")
	if err != nil || n != 1 {
		t.Errorf("default registry has %d workqueue_retries_total series, %v; want 1, nil", n, err)
	}
	var are prometheus.AlreadyRegisteredError
	if err := prometheus.DefaultRegisterer.Register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: "workqueue", Name: "retries_total", Help: "Total number of retries handled by workqueue",
	}, []string{"name"})); !errors.As(err, &are) {
		t.Errorf("registering the same counter again: %v; want AlreadyRegisteredError", err)
	}
}

// TestKeyGauges: a queue with fairness shows its items ready and
// processing per first-level key, the busiest KeyMetricsLimit keys each in
// a series and the rest under key="other" — the query a dashboard uses to
// see which tenant holds the workers is
// topk(5, workqueue_key_processing{name="jobs"}).
func TestKeyGauges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		p, err := exporter.New(reg)
		if err != nil {
			t.Fatalf("New() error = %v", err)
		}
		tenant := func(item string) []string { return []string{item[:1]} }
		q := actor.New(actor.Config[string]{Name: "jobs", MetricsProvider: p, Fairness: tenant, KeyMetricsLimit: 2})
		defer q.ShutDown()
		for _, item := range []string{"a1", "a2", "a3", "b1", "b2", "c1"} {
			q.Add(item)
		}
		get(t, q, "a1")
		get(t, q, "b1")
		time.Sleep(500 * time.Millisecond)
		synctest.Wait() // the owner's refresh at that instant
		want := `# HELP workqueue_key_depth Current number of items ready in workqueue, per first-level fairness key (the busiest keys; the rest under key="other")
# TYPE workqueue_key_depth gauge
workqueue_key_depth{key="a",name="jobs"} 2
workqueue_key_depth{key="b",name="jobs"} 1
workqueue_key_depth{key="other",name="jobs"} 1
# HELP workqueue_key_processing Current number of items being processed from workqueue, per first-level fairness key (the busiest keys; the rest under key="other")
# TYPE workqueue_key_processing gauge
workqueue_key_processing{key="a",name="jobs"} 1
workqueue_key_processing{key="b",name="jobs"} 1
workqueue_key_processing{key="other",name="jobs"} 0
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "workqueue_key_depth", "workqueue_key_processing"); err != nil {
			t.Error(err)
		}
		q.Done("a1")
		q.Done("b1")
		for _, item := range []string{"c1", "a2", "b2", "a3"} {
			get(t, q, item)
			q.Done(item)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait() // the owner's refresh at that instant
		if n, err := testutil.GatherAndCount(reg, "workqueue_key_depth", "workqueue_key_processing"); err != nil || n != 0 {
			t.Errorf("series after every item was done: %d, %v; want none", n, err)
		}
	})
}

// TestKeyAdaptiveGauges: a key with an adaptive cap shows the cap it has
// learnt and the throttles reported for it. One throttle brings a cap
// of 4 to min(4−1, ⌊4·0.9⌋) = 3; the gauges show it at the refresh after
// the hand-out, 500ms on, within the 1s window (no growth: 1 processing
// is under half the cap).
func TestKeyAdaptiveGauges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		p, err := exporter.New(reg)
		if err != nil {
			t.Fatalf("New() error = %v", err)
		}
		q := actor.New(actor.Config[string]{
			Name:            "jobs",
			MetricsProvider: p,
			Fairness:        func(item string) []string { return []string{item[:1]} },
			KeyLimits:       []actor.KeyLimit{{Keys: []string{"a"}, Adaptive: actor.AdaptiveCap{Max: 4, Window: time.Second}}},
		})
		defer q.ShutDown()
		q.Add("a1")
		get(t, q, "a1")
		if err := q.Throttled("a1", time.Time{}); err != nil {
			t.Fatalf("Throttled() error = %v", err)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait() // the owner's refresh at that instant
		want := `# HELP workqueue_key_cap Current cap learnt by the adaptive cap of each first-level fairness key that has one (the busiest keys)
# TYPE workqueue_key_cap gauge
workqueue_key_cap{key="a",name="jobs"} 3
# HELP workqueue_key_throttles Number of throttles reported for each first-level fairness key with an adaptive cap (the busiest keys) while workqueue remembers the key
# TYPE workqueue_key_throttles gauge
workqueue_key_throttles{key="a",name="jobs"} 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "workqueue_key_cap", "workqueue_key_throttles"); err != nil {
			t.Error(err)
		}
		q.Done("a1")
		time.Sleep(500 * time.Millisecond)
		synctest.Wait() // the owner's refresh at that instant
		if n, err := testutil.GatherAndCount(reg, "workqueue_key_cap", "workqueue_key_throttles"); err != nil || n != 0 {
			t.Errorf("series after the key's items were done: %d, %v; want none", n, err)
		}
	})
}
