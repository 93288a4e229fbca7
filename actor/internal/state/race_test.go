//go:build race

package state

// raceEnabled reports whether the tests run with the race detector, which
// makes them several times slower: the tests over a million keys take a
// tenth of them under it (scripts/test.sh runs them in full without it).
const raceEnabled = true
