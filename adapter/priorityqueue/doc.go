// Package priorityqueue is controller-runtime's priority queue
// (sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue, v0.25) on
// top of actorq's queue: a drop-in whose state is owned by one goroutine.
//
// [PriorityQueue], [Opts], [Opt] and [AddOpts] are controller-runtime's own
// types (aliases), so controller-runtime's handlers and controllers, which
// find a priority queue with a type assertion, find these queues: its
// handlers add the objects of an informer's initial list at
// handler.LowPriority, and its controller honours reconcile.Result.Priority
// for requeues. Option functions written for controller-runtime's New work
// unchanged with this package's [New].
//
// Switching a controller is one line in its options:
//
//	ctrl.NewControllerManagedBy(mgr).
//		For(&corev1.Pod{}).
//		WithOptions(controller.Options{
//			NewQueue: priorityqueue.NewQueue[reconcile.Request],
//		}).
//		Complete(r)
//
// [NewQueue] makes the queue controller-runtime's default NewQueue makes,
// with the rate limiter the controller passes. For fairness, flow
// control or a starvation bound, use [NewQueueFunc] with a [Config].
//
// The queue keeps controller-runtime's rules:
//
//   - Priorities: higher first (a nil priority is 0), first in, first out
//     within a priority.
//   - Merging: an item is queued once; it keeps the highest priority and
//     the earliest ready time it was given; raising its priority puts it at
//     the back of its new priority.
//   - Locked items: an item added again while it is processing is ready at
//     once, counted by Len, and handed out after its Done, at the place of
//     that Add, at that Add's priority. A delayed item that an Add makes
//     ready keeps the place of its first add; one whose delay passes is
//     placed as of then.
//   - Delays: AddAfter and RateLimited adds wait their delay (RateLimited
//     takes the limiter's delay, or After if shorter and not zero); only a
//     positive delay counts as a retry in the metrics.
//   - Shutdown: adds are ignored once ShutDown was called, and the rate
//     limiter is not asked.
//
// # Flow control
//
// With Fairness, Config's KeyLimits and LevelLimits cap, weigh and rate
// each key's items, and a cap may be adaptive (actor.AdaptiveCap): it
// learns a key's limit from the throttles its workers report. A
// reconciler reaches its queue as it reaches [KeyLimiter] (SetKeyLimit,
// PauseKey): it keeps the queue its controller's NewQueue makes, and
// asserts [Throttler] on it to report a 429 for its request (Throttled)
// or for a key (ThrottledKey), from its own goroutine, although it never
// calls Done:
//
//	NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
//		r.queue = priorityqueue.NewQueueFunc(cfg)(name, rl)
//		return r.queue
//	},
//
//	// In Reconcile, on a 429 with a Retry-After:
//	err := r.queue.(priorityqueue.Throttler[reconcile.Request]).Throttled(req, time.Now().Add(retryAfter))
//
// # Metrics
//
// A named queue reports to Opts.MetricProvider, or else to the provider
// set process-wide with client-go's workqueue.SetProvider (which
// controller-runtime's metrics package sets to its own in an init function,
// so this is the provider controller-runtime's queue uses; the two differ
// only if another package set one before controller-runtime's init). The
// depth has a priority label when the provider has a method
// NewDepthMetricWithPriority(name string) whose result has Inc(int) and
// Dec(int), as controller-runtime's provider has; then the provider's
// NewDepthMetric is not called, as with controller-runtime's queue.
// controller-runtime's cap of 25 distinct priority labels per queue (the
// rest are labelled "exceeded_cardinality_limit") lives in its provider,
// so it applies unchanged. An unnamed queue records nothing.
//
// # Differences from controller-runtime
//
// Everything else is controller-runtime's behaviour. These differences are
// on purpose; compattest-style cases (package pqcompat) assert both sides:
//
//  1. ShutDownWithDrain drains: it returns once every item handed out is
//     Done. controller-runtime's only calls ShutDown ("the draining
//     functionality is not used by controller-runtime"); we found no
//     controller-runtime issue about it.
//  2. Get after ShutDown returns the items still ready, one each
//     (including an item added again while processing, once its Done has
//     come), then shutdown, as client-go's queues do. controller-runtime's
//     returns shutdown at once, since the fixes for
//     kubernetes-sigs/controller-runtime#3239, where a Get after ShutDown
//     could hang (fixed by #3250 and #3337), and #3538, a deadlock between
//     ShutDown and a hand-out (fixed by #3540). A controller's workers thus
//     work off the ready items before they stop.
//  3. No goroutine remains when ShutDown returns: the queue runs one,
//     which has done its last work and is returning, blocked on nothing.
//     controller-runtime's runs five (four for an unnamed queue) and
//     ShutDown does not wait for them. We found no
//     controller-runtime issue; downstream, Kong/kong-operator#3154 exempts
//     its handleWaitingItems goroutine from goleak, and
//     submariner-io/admiral#1061 kept its own queue because controller-
//     runtime's "does not shut down as we expect".
//  4. Opt-in fairness and starvation bound ([Config], [NewWithConfig],
//     [NewQueueFunc]): round-robin across keys within a priority, and a
//     bound on how long a ready item is passed over by higher priorities.
//     kubernetes-sigs/controller-runtime#3496: the initial list, added at
//     handler.LowPriority (-100, still a constant in v0.25), can starve
//     behind a steady stream of priority-0 events.
//
// Also: ShutDown may be called more than once, and ShutDownWithDrain after
// it (controller-runtime's panics, closing a closed channel); Opts.Log is
// not used (controller-runtime logs the queue's items every 10 seconds at
// verbosity 5); the rate limiter is asked in the goroutine that adds, so
// NumRequeues counts an AddRateLimited as soon as it returns
// (controller-runtime asks it later, in its own goroutine).
//
// # Who owns what
//
// Each queue's state lives in one goroutine of package
// github.com/actorq/actorq/actor, started by the constructor and ended by
// ShutDown (or once the queue is unreachable). This package keeps no state
// and starts no goroutine: each method translates to actor's. The queues
// also satisfy github.com/actorq/actorq/adapter.Extras (Items and
// GetContext), reached with a type assertion.
//
// # Stability
//
// The API is controller-runtime v0.25's, and stable as controller-runtime
// keeps it: its types are controller-runtime's own, so they follow the
// version this module requires. A new controller-runtime minor is taken
// up in an actorq minor release, once controller-runtime's own
// priority-queue tests pass against this package; CHANGELOG.md names it.
// [Config]'s Fairness and StarvationBound, [NewWithConfig] and
// [NewQueueFunc] are stable; flow control ([KeyLimiter], [Throttler],
// Config's KeyLimits, LevelLimits, FairByWorkTime and KeyMetricsLimit) is
// experimental until v1, as in package actor. See the README's
// "Stability".
package priorityqueue
