//go:build actorq_nolane

package actor

// Built with -tags actorq_nolane, queues have the lane fast path off: an
// A/B of the whole pipeline with and without it (bench/RESULTS.md).
func init() { defaultPaths.lane = false }
