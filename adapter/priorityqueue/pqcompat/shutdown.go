package pqcompat

import (
	"bytes"
	"regexp"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// testShutDownReleasesGet: ShutDown releases a Get blocked on an empty
// queue with shutdown == true and zero values ("Get from priority queue is
// unblocked on shutdown"); later Gets return at once.
func testShutDownReleasesGet(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	c := getAsync(q)
	synctest.Wait()
	expect(t, "Get on an empty queue", ready(c), "")
	expect(t, "ShuttingDown() before", q.ShuttingDown(), false)
	q.ShutDown()
	synctest.Wait()
	expect(t, "Get at ShutDown", ready(c), `shutdown(""@0)`)
	expect(t, "ShuttingDown() after", q.ShuttingDown(), true)
	expect(t, "Get after ShutDown", got(q), `shutdown(""@0)`)
	item, shutdown := q.Get()
	expect(t, "Get() after ShutDown", item+"/"+map[bool]string{true: "shutdown"}[shutdown], "/shutdown")
}

// testShutDownIgnoresAdds: after ShutDown every add is ignored, the rate
// limiter is not even asked, and Done of anything is harmless.
func testShutDownIgnoresAdds(t *testing.T, impl Impl) {
	l := newFixedLimiter(time.Second)
	q, _ := newQueue(t, impl, withLimiter(l))
	q.Add("a")
	expect(t, "Get", got(q), "a@0")
	q.ShutDown()
	q.Add("b")
	q.AddAfter("c", time.Second)
	q.AddAfter("d", 0)
	q.AddRateLimited("e")
	q.AddWithOpts(AddOpts{Priority: prio(1), RateLimited: true}, "f", "g")
	expect(t, "Len()", settle(q), 0)
	expect(t, "NumRequeues(e)", q.NumRequeues("e"), 0)
	expect(t, "NumRequeues(f)", q.NumRequeues("f"), 0)
	q.Done("a")
	q.Done("never added")
	time.Sleep(time.Hour)
	expect(t, "Len() an hour later", settle(q), 0)
	expect(t, "Get", got(q), `shutdown(""@0)`)
}

// testDiffGetAfterShutDown asserts the difference "Get after ShutDown
// returns the items still ready, then shutdown". controller-runtime's Get
// returns shutdown at once, whatever is ready (since
// kubernetes-sigs/controller-runtime#3239, where a second Get after
// ShutDown hung; "Get from priority queue might get stuck when the priority
// queue is shut down"); the adapter hands out the ready items first,
// including an item that was added again while processing, once its Done
// has come, as client-go's queues do.
func testDiffGetAfterShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	q.Add("x")
	expect(t, "Get", got(q), "x@0")
	q.Add("x")
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "baz")
	q.Add("qux")
	q.ShutDown()
	q.AddWithOpts(AddOpts{After: time.Second}, "foo")
	q.Done("x")
	var want []string
	if impl.Fixed {
		want = []string{"baz@1", "x@0", "qux@0"}
	}
	expectSeq(t, "Gets after ShutDown", takeAll(q, 4), append(want, "shutdown"))
	expect(t, "Get once shut down", got(q), `shutdown(""@0)`)
}

// testDiffDrain asserts the difference "ShutDownWithDrain waits until the
// items handed out are Done": controller-runtime's only calls ShutDown
// ("the draining functionality is not used by controller-runtime").
func testDiffDrain(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	q.Add("a")
	expect(t, "Get", got(q), "a@0")
	returned := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(returned)
	}()
	synctest.Wait()
	expect(t, "ShuttingDown() during the drain", q.ShuttingDown(), true)
	select {
	case <-returned:
		if impl.Fixed {
			t.Errorf("ShutDownWithDrain returned while a is processing")
		}
	default:
		if !impl.Fixed {
			t.Errorf("ShutDownWithDrain did not return while a is processing")
		}
	}
	q.Done("a")
	synctest.Wait()
	select {
	case <-returned:
	default:
		t.Errorf("ShutDownWithDrain did not return after Done(a)")
	}
}

// testDiffGoroutines asserts the difference "no goroutine remains after
// ShutDown": the adapter's queue runs one goroutine, which has done its
// last work when ShutDown returns. controller-runtime's runs five (four
// for an unnamed queue), which ShutDown tells to stop without waiting for
// them; whether they have ended when it returns is a race, so for
// controller-runtime the case only checks that they end soon after.
//
// The adapter's goroutine hands over its state as its last statement, and
// ShutDown returns on taking it; until the goroutine has then returned,
// runtime.Stack still lists it. No API tells when a goroutine has ended,
// so the case requires what can be true when ShutDown returns: every
// goroutine of the queue still listed is running or runnable, blocked on
// nothing, and all are gone soon after, as goleak waits for them.
//
// It counts the goroutines whose stacks are in either queue's package,
// outside any bubble, and must not run in parallel with other queues.
func testDiffGoroutines(t *testing.T, impl Impl) {
	before := queueGoroutines()
	q, _ := newQueue(t, impl)
	q.AddWithOpts(AddOpts{After: time.Hour}, "a")
	q.Add("b")
	q.Len()
	running := without(queueGoroutines(), before)
	want := 5
	if impl.Fixed {
		want = 1
	}
	expect(t, "goroutines of a running queue", len(running), want)

	q.ShutDown()
	left := without(queueGoroutines(), before)
	if impl.Fixed {
		for _, g := range left {
			if g.state != "running" && g.state != "runnable" {
				t.Errorf("when ShutDown returns, goroutine %s is in state %q; want running or runnable", g.id, g.state)
			}
		}
	}
	for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		left = without(queueGoroutines(), before)
	}
	expect(t, "goroutines soon after ShutDown", len(left), 0)
}

// queueStack matches a goroutine stack with a frame in either queue's
// package.
var queueStack = regexp.MustCompile(`(?m)^(sigs\.k8s\.io/controller-runtime/pkg/controller/priorityqueue|github\.com/actorq/actorq/actor)\.`)

// goroutineHeader matches the first line of a goroutine's stack,
// "goroutine 7 [chan receive, 2 minutes]:", capturing its id and state.
var goroutineHeader = regexp.MustCompile(`^goroutine (\d+) \[([^,\]]+)`)

// A goroutine is one entry of runtime.Stack's dump.
type goroutine struct{ id, state string }

// queueGoroutines returns the goroutines whose stacks have a frame in
// either queue's package.
func queueGoroutines() []goroutine {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var gs []goroutine
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if !queueStack.Match(g) {
			continue
		}
		m := goroutineHeader.FindSubmatch(g)
		if m == nil {
			continue // not a goroutine's dump; runtime.Stack writes nothing else
		}
		gs = append(gs, goroutine{id: string(m[1]), state: string(m[2])})
	}
	return gs
}

// without returns the goroutines in gs whose ids are not in old.
func without(gs, old []goroutine) []goroutine {
	return slices.DeleteFunc(gs, func(g goroutine) bool {
		return slices.ContainsFunc(old, func(o goroutine) bool { return o.id == g.id })
	})
}
