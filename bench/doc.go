// Package bench measures actorq's queue against client-go's workqueue and
// controller-runtime's priority queue on the same workloads, as their users
// get them.
//
// Every benchmark runs one workload as sub-benchmarks impl=NAME, so that
// one run measures all implementations under the same conditions and
// benchstat -col /impl prints the ratios against client-go:
//
//   - clientgo: client-go's workqueue (NewTyped, or NewTypedDelayingQueue
//     where delays are needed), the base.
//   - actorq: actorq through its client-go adapter
//     (github.com/actorq/actorq/adapter, NewTyped or NewTypedDelayingQueue),
//     as a client-go user who switched one import gets it. Where a workload
//     uses priorities or fairness, which that API has not, actorq is
//     actor.New itself (client-go's requeue rule).
//   - actorqbatch: actor.Queue's GetBatch and DoneBatch, 64 items per call,
//     an addition clients opt into (Pipeline and Memory).
//   - crpq: controller-runtime's priority queue.
//   - actorqpq: actorq's adapter of it
//     (github.com/actorq/actorq/adapter/priorityqueue, controller-runtime's
//     requeue rule), as controller-runtime users get it (PipelinePrio,
//     MemoryPrio and Controller).
//
// The queues are unnamed, so none records metrics, except in
// BenchmarkController; ints are the items throughout. Where a workload
// uses priorities or fairness, client-go runs the same items without them,
// as the base a user would migrate from.
//
//   - BenchmarkPipeline: p producers Add b.N distinct items, c consumers Get
//     and Done them. One op is one item, so sec/op and allocs/item are per
//     item. run.sh runs it, like the other burst workloads (PipelinePrio,
//     PipelineFair, Controller), with -benchtime 200000x: every
//     implementation moves the same burst of 200,000 items.
//   - BenchmarkPipelinePrio: the pipeline with two priorities, shapes
//     (1,1), (4,4), (16,16) and (16,1): one item in ten at -100
//     (controller-runtime's handler.LowPriority), one per AddWithOpts call,
//     the others at 0 through Add, consumers in GetWithPriority. actorq,
//     crpq and actorqpq; client-go runs the items without priorities.
//   - BenchmarkPipelineFair: the pipeline, same shapes, with actorq's
//     Config.Fairness over 100 tenants, tenant 0 owning half the items;
//     against client-go's plain queue (crpq has no fairness).
//   - BenchmarkPipelineFairPQ: the fair pipeline as controller-runtime
//     users get it, through adapter/priorityqueue (NewQueueFunc with a
//     Config), shapes (4,4) and (16,16), items skewed over keys=100 and
//     keys=10000 tenants as in PipelineFair (tenant 0 owns half): fair by
//     turns (actorqpq), by work time (actorqpqwork), and with tenant 0
//     capped at 4 and tenants 1 to 9 at weight 3 (actorqpqcaps), against
//     client-go's plain pipeline. One op is one item; it also reports
//     ns/item, the same figure. run.sh runs it on bursts of BURST items.
//   - BenchmarkController: the path controllers run, on the pipeline's
//     shapes: named rate-limiting queues (clientgo, actorq, crpq, actorqpq)
//     with a metrics provider whose metrics only count, with atomics, and
//     an exponential limiter from 1µs to 1ms. Producers Add b.N items;
//     workers Get, reconcile and, on success, Forget and Done; the first
//     reconcile of one item in ten fails: AddRateLimited and Done. One op
//     is one item reconciled successfully.
//   - BenchmarkDedupStorm: producers Add b.N times keys drawn from 1,000 while
//     consumers Get and Done. One op is one Add; adds/s is the producers'
//     rate and processings/op the share of adds that led to a Get.
//   - BenchmarkDedupStormWork: the same with consumers that work 20µs on
//     each item (spinning), so that keys wait and most adds are duplicates.
//   - BenchmarkAddAfterStorm: 100,000 AddAfter calls from 8 goroutines with
//     delays uniform in [0, 50ms), 4 consumers. One op is one storm.
//   - BenchmarkAddWithOptsBatch: one goroutine adds 1,000,000 items with
//     AddWithOpts, 100 per call (one call in ten at priority -100), while
//     1,000 consumers wait in GetWithPriority; the slowest call, p99 and
//     p50 of the calls in microseconds, and the time until all are done.
//     client-go makes 100 Adds per batch, timed as one call.
//   - BenchmarkLatency: one producer adds 1,000 and 200,000 items/s, two
//     consumers; Add-to-Get latency percentiles in microseconds. At 1k/s
//     the producer sleeps between items, so everything parks in between.
//   - BenchmarkMemory: heap bytes per item with 1,000,000 items queued, and
//     after all of them were taken and done; the drain is one consumer
//     doing Get and Done over the 1M backlog, timed per item
//     (ns/get-done). It also runs impl=actorqbatch: actorq drained with
//     GetBatch and DoneBatch, 64 items at a time.
//   - BenchmarkMemoryPrio: the same with the items at four priorities
//     (actorq, crpq and actorqpq; client-go holds them without priorities).
//   - BenchmarkMemoryFair: BenchmarkMemory's metrics with 200,000 items,
//     over 100 skewed tenants (keys=100) and with each item a key of its
//     own, a string the Fairness function makes (keys=item): actor.New
//     fair by turns (actorqfair) and by work time (actorqwork, keys=100
//     only), beside actor.New without fairness (actorq) and client-go,
//     which hold the same items without keys. B/queued-item is what a
//     queued item costs, B/item-after-drain what the queue keeps of a
//     drained burst.
//   - BenchmarkMemoryKeysSeen: what a fair queue keeps of the keys it
//     has seen: 1,000,000 distinct items (the -keys-seen flag, KEYS_SEEN
//     in run.sh), each a key of its own, added in bursts of 1,000, each
//     drained with GetBatch and DoneBatch before the next; B/key-seen is
//     the live heap over the empty queue's after the last drain, per key.
//     levels=1: the item's key alone; levels=2: below its tenant, one of
//     100. actorqfair, actorqwork, and actorq and client-go without keys.
//     run.sh runs it at the first GOMAXPROCS of its list only.
//   - BenchmarkFairHandOut: actorq alone (actor.New), the cost of a
//     hand-out against the keys ready: one consumer takes from a queue
//     that keeps 2 items of each of keys=K keys ready (K = 100, 1,000,
//     10,000, 100,000), with GetBatch (get=batch) or Get (get=one), and
//     Done and re-adds each item's key; fair=turns and fair=worktime.
//     ns/hand-out is per item taken; benchstat -col /keys gives the ratio
//     to keys=100.
//   - BenchmarkPipelineRated: per-key rates (issue 49) and caps where they
//     never bind: BenchmarkPipelineFairPQ's fair pipeline (keys=100 and
//     keys=10000, shapes (4,4) and (16,16)) through actor.New fair by
//     turns, without rates (rates=none), with Config.LevelLimits giving
//     every tenant a finite rate so high that it never binds (10^12 a
//     second, a burst of 2^20: rates=unbound), or no rate and a cap of
//     2^20 items out (rates=cap), in the same run; benchstat -col /rates
//     gives the cost of the rate and cap machinery. One op is one item;
//     ns/item and allocs/item as in PipelineFairPQ. run.sh runs it on
//     bursts of BURST items.
//   - BenchmarkRateBinding: rates that bind, on the real clock: 100
//     tenants, half limited to 2,000 items a second (Burst 1, burst=1, or
//     10, burst=10), 2,000 items each, the other half kept with work ready,
//     4 consumers that work 1µs per item. rate-err-% is the worst relative
//     error of a limited tenant's achieved rate (its items beyond its
//     burst over its first-to-last hand-out) against its Rate,
//     rate-over-% the worst excess over it, unlimited-items/s the others'
//     throughput meanwhile. One op is one run of about a second.
//   - BenchmarkRateHeld: actorq alone, the cost of a hand-out against the
//     keys waiting for a token: one consumer takes the items of the one key
//     without a rate while keys=K others (100 and 100,000), limited to one
//     item an hour, have spent their token and hold an item back.
//     ns/hand-out is per item taken, with its Done and its replacement.
//   - BenchmarkRateChurnMemory: what a fair queue keeps of 1,000,000 rated
//     keys (one item a second each, on a fake clock that stands still) that
//     each got one item, added in bursts of 1,000 and drained with GetBatch
//     and DoneBatch: B/key-refilling while their buckets refill,
//     B/key-after-drain once the clock is past the refill, both over the
//     empty queue's live heap, per key; rates=none is the same queue
//     without rates. run.sh runs it at the first GOMAXPROCS of its list
//     only.
//   - BenchmarkActorMetrics: actorq alone, Add+Get+Done in one goroutine,
//     with metrics off and on (a provider whose metrics only count).
//
// The harness functions (runPipeline, runController, runDedupStorm, ...)
// are plain functions over the queue interfaces; the tests in this package
// check that they deliver exactly what they claim, and run with go test
// ./... without -bench. Every run shuts its queue down; TestMain checks
// with goleak that no goroutine is left behind.
//
// run.sh runs them all and prints benchstat tables, against client-go and,
// for PipelinePrio and Controller, against crpq too, and FairHandOut
// against keys=100; RESULTS.md holds the last full run and explains how
// to read it. ab.sh runs BenchmarkPipeline's actorq and clientgo rows of
// two commits' test binaries in alternation, for an A/B of the library
// across commits.
package bench
