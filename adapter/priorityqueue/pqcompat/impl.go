// Package pqcompat holds behaviour cases for controller-runtime's priority
// queue API (sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue),
// run against any implementation of it: controller-runtime's own and
// actorq's adapter/priorityqueue. Cases are exported because _test.go files
// cannot be imported, as in testing/fstest.
//
// Each case states controller-runtime's behaviour and asserts it on every
// implementation. Where the adapter differs on purpose, and only for the
// differences listed in ARCHITECTURE.md ("Intended differences"), a case
// named Diff... asserts both sides, switched on [Impl.Fixed].
//
// Every case but the goroutine count runs inside a testing/synctest
// bubble. controller-runtime's queue reads the real clock (time.Now,
// time.Tick), which a bubble fakes, and its goroutines block on channels
// made in the bubble (and briefly on mutexes), so delays are exact and
// synctest.Wait tells when its goroutines have caught up. Metrics are read
// from controller-runtime's own Prometheus registry, through its own
// provider (the only one controller-runtime's queue gives a priority
// label: see [Run]), under a queue name unique to the case.
//
// Experimental: the cases grow with each behaviour pinned, and their
// signatures may change in any minor release until v1.
package pqcompat

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// Queue is the queue type every case uses.
type Queue = priorityqueue.PriorityQueue[string]

// Opt is the option type every case uses.
type Opt = priorityqueue.Opt[string]

// An Impl builds the queues of one implementation.
type Impl struct {
	// Name names the implementation in t.Run and in queue names.
	Name string

	// Fixed reports whether the implementation has actorq's intended
	// differences (the adapter) or controller-runtime's behaviour.
	Fixed bool

	// New returns a priority queue, as controller-runtime's New does.
	New func(name string, o ...Opt) Queue
}

// A testCase is one behaviour, run against one Impl.
type testCase struct {
	name string
	run  func(t *testing.T, impl Impl)
	// outside runs the case outside a synctest bubble, and not in
	// parallel with other cases.
	outside bool
}

// cases are the cases Run runs, in order. Each Diff... case names the
// difference it asserts.
var cases = []testCase{
	{name: "PriorityOrder", run: testPriorityOrder},
	{name: "Dedup", run: testDedup},
	{name: "HighestPriorityWins", run: testHighestPriorityWins},
	{name: "RaisedPriorityGoesToBack", run: testRaisedToBack},
	{name: "WidePriorities", run: testWidePriorities},
	{name: "EarliestReadyTimeWins", run: testEarliestReadyTime},
	{name: "RateLimitedAndAfter", run: testRateLimitedAndAfter},
	{name: "DefaultRateLimiter", run: testDefaultLimiter},
	{name: "LockedItemReAdded", run: testLockedReAdded},
	{name: "LockedItemPriorities", run: testLockedPriorities},
	{name: "LockedItemDelayed", run: testLockedDelayed},
	{name: "DelayedHighPriorityOvertakes", run: testDelayedOvertakes},
	{name: "DelayCutShortKeepsFirstPlace", run: testDelayCutShort},
	{name: "DueItemsGoInOrderOfReadiness", run: testDueOrder},
	{name: "RateLimitedWithPriority", run: testRateLimitedPriority},
	{name: "LenCountsReadyOnly", run: testLen},
	{name: "ForgetAndNumRequeues", run: testForget},
	{name: "MetricsAddsAndDepthByPriority", run: testMetricsDepth},
	{name: "MetricsRetriesOnlyForDelays", run: testMetricsRetries},
	{name: "MetricsLatencyAndWork", run: testMetricsTimes},
	{name: "MetricsPriorityCardinality", run: testMetricsCardinality},
	{name: "UnnamedQueueRecordsNothing", run: testUnnamed},
	{name: "ShutDownReleasesGet", run: testShutDownReleasesGet},
	{name: "ShutDownIgnoresAdds", run: testShutDownIgnoresAdds},
	{name: "DiffGetAfterShutDown", run: testDiffGetAfterShutDown},
	{name: "DiffShutDownWithDrain", run: testDiffDrain},
	{name: "DiffGoroutinesAfterShutDown", run: testDiffGoroutines, outside: true},
}

// Run runs every case against impl, each as a subtest, inside a
// testing/synctest bubble unless the case says otherwise.
func Run(t *testing.T, impl Impl) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.outside {
				c.run(t, impl)
				return
			}
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { c.run(t, impl) })
		})
	}
}

// names makes every queue name unique across implementations, cases and
// runs (go test -count=N), since controller-runtime's registry is
// process-wide.
var names atomic.Int64

// newQueue returns a named queue of impl, and its name.
func newQueue(t *testing.T, impl Impl, o ...Opt) (Queue, string) {
	name := fmt.Sprintf("pqcompat-%s-%s-%d", impl.Name, strings.ReplaceAll(t.Name(), "/", "-"), names.Add(1))
	return impl.New(name, o...), name
}

// withLimiter is the option that sets the rate limiter.
func withLimiter(l workqueue.TypedRateLimiter[string]) Opt {
	return func(o *priorityqueue.Opts[string]) { o.RateLimiter = l }
}

// withProvider is the option that sets the metrics provider.
func withProvider(p workqueue.MetricsProvider) Opt {
	return func(o *priorityqueue.Opts[string]) { o.MetricProvider = p }
}

// got is an item with the priority it was handed out at, as "item@prio".
func got(q Queue) string {
	item, prio, shutdown := q.GetWithPriority()
	if shutdown {
		return fmt.Sprintf("shutdown(%q@%d)", item, prio)
	}
	return fmt.Sprintf("%s@%d", item, prio)
}

// takeAll takes n items, calling Done for each at once, and returns them.
func takeAll(q Queue, n int) []string {
	var out []string
	for range n {
		item, prio, shutdown := q.GetWithPriority()
		if shutdown {
			out = append(out, "shutdown")
			break
		}
		out = append(out, fmt.Sprintf("%s@%d", item, prio))
		q.Done(item)
	}
	return out
}

// expect fails t if got != want, naming what was compared.
func expect[V comparable](t *testing.T, what string, got, want V) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v; want %v", what, got, want)
	}
}

// expectSeq fails t if got and want differ.
func expectSeq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s = %v; want %v", what, got, want)
	}
}

// prio returns a pointer to p, for AddOpts.Priority.
func prio(p int) *int { return &p }

// getAsync starts a GetWithPriority in a goroutine of the bubble and
// returns a channel that receives its result.
func getAsync(q Queue) <-chan string {
	c := make(chan string, 1)
	go func() { c <- got(q) }()
	return c
}

// ready reports what c received, or "" if nothing yet. Call it after
// synctest.Wait.
func ready(c <-chan string) string {
	select {
	case s := <-c:
		return s
	default:
		return ""
	}
}
