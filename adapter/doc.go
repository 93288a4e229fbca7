// Package adapter is client-go's util/workqueue API on top of actorq's
// queue: replacing the import
//
//	"k8s.io/client-go/util/workqueue"
//
// with
//
//	workqueue "github.com/actorq/actorq/adapter"
//
// compiles and behaves the same, only faster and without client-go's known
// defects. Every exported name of client-go v0.37's workqueue is here, with
// the same signature. The interface, config and metric types are aliases of
// client-go's, so values cross both ways: an adapter queue is a client-go
// queue to any code that takes one (controller-runtime's
// TypedOptions.NewQueue included), and client-go limiters, custom storage
// and metrics providers plug into the adapter unchanged.
//
// The queues keep client-go's guarantees:
//
//   - Fair: items are handed out in the order in which they were added.
//   - Stingy: an item added several times before it is handed out is
//     processed once, and an item is never processed by two workers at once.
//   - Re-adding while processing: an item added while it is processed is
//     handed out again after Done.
//   - Shutdown: once shutting down (after ShutDown, or during
//     ShutDownWithDrain), Get returns the items still ready and then
//     reports shutdown at once, even while others are processing; an item
//     added again while processing is handed out after its Done, whenever
//     that comes. ShutDownWithDrain returns once nothing is processing.
//
// # Intended differences
//
// These are the only intended differences from client-go, numbered as in
// the project's design contract; the compatibility tests assert each one
// against both implementations, and client-go's own workqueue tests pass
// against this package (see upstream_test.go for the few that need
// client-go's internals):
//
//  1. Done of an item that is not being processed does nothing. client-go
//     queues the item a second time if it is waiting, so it is handed out
//     twice (kubernetes/kubernetes#79934, closed as misuse).
//  2. An Add supersedes a pending delay of the same item: one
//     de-duplication domain spans ready, delayed and processing items, so
//     an AddAfter of an item that is already ready (or added again while
//     processing) does nothing too. client-go keeps both copies and
//     processes the item twice (kubernetes/kubernetes#126027,
//     kubernetes/kubernetes#110642). controller-runtime's priority queue
//     behaves like the adapter.
//  3. AddAfter never waits behind pending delays. client-go hands each
//     delayed item to its waiting loop over a channel of 1000 slots, so a
//     burst of AddAfter calls blocks the producers until the loop has
//     pushed the items ahead of them onto its heap; here a request waits at
//     most for the queue's goroutine to take it.
//  4. No goroutine is left after ShutDown. ShutDown and ShutDownWithDrain
//     return once the queue's only goroutine has done its last work; it
//     is then returning, blocked on nothing. client-go's
//     delaying queue returns while its waitingLoop may still run
//     (kubernetes/kubernetes#134323; the plain queue was fixed in
//     kubernetes/kubernetes#135072).
//  5. Rate limiter delays are never negative. client-go's exponential
//     limiter computes baseDelay*2^n in float64 and converts it to a
//     Duration; at exactly 2^63 nanoseconds the overflow guard added in
//     kubernetes/kubernetes#31396 lets it through and the delay becomes
//     math.MinInt64 (from the 64th failure with a 1ns base and no real
//     maximum), so the item is retried at once, forever. Negative
//     constructor arguments are taken as 0, and nil limiters in a max-of
//     limiter are skipped instead of panicking.
//  6. A nil rate limiter means [DefaultTypedControllerRateLimiter]
//     (client-go panics on the first AddRateLimited).
//  7. Metrics are recorded by the queue's goroutine: they reflect a call
//     once that goroutine has applied it, which Len returning guarantees
//     (read metrics after a Len in tests). Values, including the time
//     stamps of each call, and update instants are client-go's.
//  8. None (the number is kept, so that the others keep theirs): a
//     worker's own Add of a ready item, made just before its Get takes
//     that item, is a duplicate, as in client-go.
//  9. Additions: [Extras].
//
// One more follows from the design contract's rule that every caller of
// ShutDownWithDrain returns once nothing is processing: client-go's Done
// wakes one waiter of its condition variable, so of several concurrent
// ShutDownWithDrain calls only one returns before a ShutDown.
//
// An untyped queue given an item that cannot be a map key panics in the
// caller's goroutine, naming the type, on every method, and keeps working;
// client-go's AddAfter panics instead in its waiting loop's goroutine,
// which kills the process.
//
// # Extras
//
// Every queue this package makes (except a delaying queue over a custom
// Queue interface) also satisfies [Extras]: Items, a channel to select on
// next to ctx.Done(), and GetContext. Reach them with a type assertion on
// the client-go interface, q.(workqueue.Extras[T]).
//
// # Fairness, caps and throttle reports
//
// Package actor's fairness across keys, its per-key caps, weights and
// rates, and its adaptive caps, which learn a key's limit from the
// throttles workers report (actor.Queue.Throttled for an item,
// actor.Queue.ThrottledKey for a key, from any goroutine), all need each
// item's fairness keys. client-go's configs have no place for them, so
// this package's queues have no fairness, and neither they nor [Extras]
// take throttle reports. A client-go user who wants them builds the queue
// with package actor, whose *actor.Queue[T] is a
// TypedRateLimitingInterface[T] and takes client-go's rate limiters
// unchanged (metrics through [ActorMetricsProvider]):
//
//	q := actor.New(actor.Config[string]{
//		Name:        "tenants",
//		RateLimiter: workqueue.DefaultTypedControllerRateLimiter[string](),
//		Fairness:    func(item string) []string { return []string{tenantOf(item)} },
//		LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: 8, Window: time.Second}}},
//	})
//	var _ workqueue.TypedRateLimitingInterface[string] = q
//	// A worker, on a 429 with a Retry-After:
//	err := q.Throttled(item, time.Now().Add(retryAfter))
//
// or, for controller-runtime's rules, a queue of package
// github.com/actorq/actorq/adapter/priorityqueue, whose Config has the
// same fields and whose queues take the reports through its Throttler.
//
// # Clocks and metrics
//
// A config's Clock (k8s.io/utils/clock) drives delays and metrics, so
// tests that step a FakeClock keep passing: as with client-go, a delayed
// item shows up a moment after Step returns, so poll Len. Metrics have
// client-go's names and meanings, reported through the config's
// MetricsProvider or the global one. The global provider is client-go's:
// [SetProvider] sets it, and a provider set with client-go's own
// workqueue.SetProvider (as controller-runtime's metrics package does when
// imported) is used by adapter queues too.
//
// # Who owns what
//
// Each queue's state lives in one goroutine of package
// github.com/actorq/actorq/actor, started by the constructor and ended by
// ShutDown (or once the queue is unreachable). The adapter itself keeps no
// state and starts no goroutine: each method is a one-line translation.
// Rate limiters, metrics and custom storage are called as in client-go:
// limiters in the goroutine that calls AddRateLimited, Forget or
// NumRequeues; storage and metrics only from the queue's goroutine.
//
// # Stability
//
// The API is client-go v0.37's, and stable as client-go keeps it: its
// types are client-go's own, so they follow the client-go version this
// module requires. A new client-go minor is taken up in an actorq minor
// release, once client-go's own workqueue tests pass against this
// package; CHANGELOG.md names it. [Extras] is experimental: it grows with
// what package actor adds. See the README's "Stability".
package adapter
