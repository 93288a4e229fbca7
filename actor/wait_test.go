package actor_test

import (
	"runtime"
	"testing"
	"time"
)

// waitLimit bounds each real-time wait of the tests: far more than any of
// them needs under -race with every core busy, so that a wait that runs
// out is a hang, reported with what did not happen, rather than the test
// binary's timeout minutes later. Tests that can run on the fake clock of
// a testing/synctest bubble do, and need none of this.
const waitLimit = 30 * time.Second

// waitFor polls cond every millisecond until it holds, and fails the test
// with what (what did not happen) if it does not within waitLimit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s within %v", what, waitLimit)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitCollected is waitFor with a garbage collection before each look,
// for what follows the collection of a dropped queue: the runtime runs
// the queue's cleanup after a collection finds it unreachable, in a
// goroutine of its own, so it takes at least one cycle and some real time.
func waitCollected(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for cycles := 1; ; cycles++ {
		runtime.GC()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s after %d collections in %v", what, cycles, waitLimit)
		}
		time.Sleep(time.Millisecond)
	}
}

// within runs f, and fails the test with what (what did not happen) and
// the stacks of every goroutine if f has not returned within waitLimit.
// f runs in a goroutine of its own, which is left blocked if it times out.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		f()
	}()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	select {
	case <-returned:
	case <-timer.C:
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s within %v; the goroutines:\n%s", what, waitLimit, buf)
	}
}
