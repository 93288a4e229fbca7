//go:build race

package actor_test

// raceEnabled reports whether the tests run with the race detector, whose
// sync.Pool drops objects on purpose, so that allocation counts mean
// nothing under it.
const raceEnabled = true
