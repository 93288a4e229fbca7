//go:build actorq_nofilter

package actor

// Built with -tags actorq_nofilter, queues have the filter fast path off: an
// A/B of the whole pipeline with and without it (bench/RESULTS.md).
func init() { defaultPaths.filter = false }
