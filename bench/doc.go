// Package bench measures actorq's queue against client-go's workqueue and
// controller-runtime's priority queue on the same workloads.
//
// Every benchmark runs one workload as three sub-benchmarks, impl=clientgo,
// impl=actorq and impl=crpq, so that one run measures all of them under the
// same conditions and benchstat -col /impl prints the ratios against
// client-go. All queues are unnamed, so none records metrics; ints are the
// items throughout.
//
//   - BenchmarkPipeline: p producers Add b.N distinct items, c consumers Get
//     and Done them. One op is one item, so sec/op and allocs/op are per item.
//     It also runs impl=actorqbatch: actorq with consumers that take up to
//     64 items per GetBatch and finish them with one DoneBatch.
//   - BenchmarkDedupStorm: producers Add b.N times keys drawn from 1,000 while
//     consumers Get and Done. One op is one Add; adds/s is the producers'
//     rate and processings/op the share of adds that led to a Get.
//   - BenchmarkAddAfterStorm: 100,000 AddAfter calls from 8 goroutines with
//     delays uniform in [0, 50ms), 4 consumers. One op is one storm.
//   - BenchmarkLatency: one producer adds about 135,000 items/s, two
//     consumers; Add-to-Get latency percentiles in microseconds.
//   - BenchmarkMemory: heap bytes per item with 1,000,000 items queued, and
//     after all of them were taken and done.
//   - BenchmarkActorMetrics: actorq alone, Add+Get+Done in one goroutine,
//     with metrics off and on (a provider whose metrics only count).
//
// The harness functions (runPipeline, runDedupStorm, ...) are plain
// functions over the [queue] interface; the tests in this package check that
// they deliver exactly what they claim, and run with go test ./... without
// -bench. Every run shuts its queue down; TestMain checks with goleak that
// no goroutine is left behind.
//
// run.sh runs them all and prints benchstat tables; RESULTS.md holds the
// last full run and explains how to read it.
package bench
