//go:build actorq_nobatch

package actor

// Built with -tags actorq_nobatch, queues have the batch fast path off: an
// A/B of the whole pipeline with and without it (bench/RESULTS.md).
func init() { defaultPaths.batch = false }
