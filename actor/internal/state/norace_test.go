//go:build !race

package state

// raceEnabled reports whether the tests run with the race detector (see
// race_test.go).
const raceEnabled = false
