package compattest

import (
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Shutdown follows client-go's Typed: once shutting down, adds are ignored
// and Get returns the items still ready, then shutdown at once, even while
// others are processing; an item added again while it was processing
// becomes ready at its Done, whenever that comes; ShutDownWithDrain waits
// while anything is processing (re-runs handed out during the drain
// included) and a ShutDown ends that wait.

func testShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown() = false after ShutDown; want true")
	}
	q.Add("c") // ignored
	q.AddAfter("d", 0)
	q.ShutDown() // twice is fine
	wantLen(t, q, 1)
	wantGet(t, q, "b")
	wantShutdown(t, q)
	wantShutdown(t, q)
	q.Done("a")
	q.Done("b")
	wantLen(t, q, 0)
	wantShutdown(t, q)
}

func testShutDownWithDrain(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	wantGet(t, q, "a")
	drained := startDrain(t, q)
	wantBlocked(t, drained, "ShutDownWithDrain with a processing")
	q.Add("c") // ignored while draining
	q.AddAfter("d", 0)
	wantLen(t, q, 0)
	wantBlocked(t, drained, "ShutDownWithDrain with a processing")
	q.Done("a")
	wantReturned(t, drained, "ShutDownWithDrain after the last Done")
	wantShutdown(t, q)
}

// testShutDownEverywhere shuts a queue down with items ready, processing,
// and processing and added again.
func testShutDownEverywhere(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	q.Add("c")
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	q.Add("a") // dirty: ready again at its Done
	q.ShutDown()
	q.Add("d") // ignored
	wantLen(t, q, 1)
	wantGet(t, q, "c")
	wantShutdown(t, q) // a, b and c processing: no wait for them
	q.Done("b")
	wantLen(t, q, 0)
	wantShutdown(t, q)
	q.Done("a")
	wantLen(t, q, 1)
	wantGet(t, q, "a")
	q.Done("a")
	wantShutdown(t, q)
	q.Done("c")
	q.Add("e") // still ignored
	wantLen(t, q, 0)
	wantShutdown(t, q)
}

// testDrainingWorkerGets: a worker that holds an item and calls Get during
// the drain gets the items still ready, then shutdown at once, without
// waiting for the drain, which waits for every Done.
func testDrainingWorkerGets(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	drained := startDrain(t, q)
	wantGet(t, q, "b")
	wantShutdown(t, q)
	wantBlocked(t, drained, "ShutDownWithDrain with a and b processing")
	q.Done("a")
	wantBlocked(t, drained, "ShutDownWithDrain with b processing")
	q.Done("b")
	wantReturned(t, drained, "ShutDownWithDrain after the last Done")
	wantShutdown(t, q)
}

// testDrainWithDirtyItem is client-go's
// TestQueueDrainageUsingShutDownWithDrainWithDirtyItem, made exact: the
// drain returns at the Done of the dirty item, since nothing is
// processing, though the item is ready again; Get then returns it.
func testDrainWithDirtyItem(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	wantGet(t, q, "a")
	q.Add("a")
	drained := startDrain(t, q)
	wantShutdown(t, q) // a is processing, nothing ready
	wantBlocked(t, drained, "ShutDownWithDrain with a processing")
	q.Done("a")
	wantReturned(t, drained, "ShutDownWithDrain with nothing processing")
	wantLen(t, q, 1)
	wantGet(t, q, "a")
	q.Done("a")
	wantShutdown(t, q)
}

// testShutDownEndsDrain: a ShutDown made during a drain ends it, with an
// item still processing.
func testShutDownEndsDrain(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	drained := startDrain(t, q)
	wantBlocked(t, drained, "ShutDownWithDrain with a processing")
	q.ShutDown()
	wantReturned(t, drained, "ShutDownWithDrain after ShutDown")
	wantGet(t, q, "b")
	wantShutdown(t, q)
	q.Done("a")
	q.Done("b")
	wantLen(t, q, 0)
}

// testDrainAfterShutDown: ShutDownWithDrain called after ShutDown waits
// while anything is processing (client-go's ShutDownWithDrain sets drain
// again), items handed out meanwhile included.
func testDrainAfterShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	q.ShutDown()
	drained := startDrain(t, q)
	wantBlocked(t, drained, "ShutDownWithDrain after ShutDown, with a processing")
	wantGet(t, q, "b")
	q.Done("a")
	wantBlocked(t, drained, "ShutDownWithDrain after ShutDown, with b processing")
	q.Done("b")
	wantReturned(t, drained, "ShutDownWithDrain after the last Done")
	wantShutdown(t, q)
}

// testSecondShutDownAndLateDrain: a ShutDown, then a ShutDownWithDrain
// that waits for an item processing, then ShutDown again. client-go's
// plain queue ends the drain at the second ShutDown (it clears drain
// each time), but its delaying queue, which every rate-limiting queue
// wraps, calls the plain queue's ShutDown only once (stopOnce), so there
// the drain keeps waiting for the Done.
func testSecondShutDownAndLateDrain(t *testing.T, impl Impl) {
	plain := impl.NewPlain(workqueue.TypedQueueConfig[string]{})
	t.Cleanup(plain.ShutDown)
	delaying, _ := newQueue(t, impl, nil, "", nil)
	for _, q := range []workqueue.TypedInterface[string]{plain, delaying} {
		isPlain := q == plain
		q.Add("a")
		wantGet(t, q, "a")
		q.ShutDown()
		drained := startDrain(t, q)
		wantBlocked(t, drained, "ShutDownWithDrain after ShutDown, with a processing")
		q.ShutDown()
		if isPlain {
			wantReturned(t, drained, "plain queue: ShutDownWithDrain begun after the first ShutDown, after the second")
		} else {
			wantBlocked(t, drained, "rate-limiting queue: ShutDownWithDrain begun after the first ShutDown, after the second (a delaying queue's ShutDown acts once)")
		}
		q.Done("a")
		wantReturned(t, drained, "ShutDownWithDrain after the last Done")
		wantShutdown(t, q)
	}
}

// testDrainWithNothingProcessing: ShutDownWithDrain with items ready and
// none processing returns at once, and leaves the items to Get.
func testDrainWithNothingProcessing(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	drained := startDrain(t, q)
	wantReturned(t, drained, "ShutDownWithDrain with nothing processing")
	q.Add("c") // ignored
	wantLen(t, q, 2)
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	wantShutdown(t, q)
	q.Done("a")
	q.Done("b")
	wantShutdown(t, q)
}

// testDiffConcurrentDrains: every ShutDownWithDrain call returns once
// nothing is processing, as the shutdown rules of actor's package doc require ("both may
// be called many times, from many goroutines, and all callers return").
// client-go's Done wakes one waiter of its sync.Cond (Signal), and a later
// drain's Broadcast has put the first drain behind it, so the first waits
// until a ShutDown.
func testDiffConcurrentDrains(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	wantGet(t, q, "a")
	first := startDrain(t, q)
	second := startDrain(t, q)
	wantBlocked(t, first, "first ShutDownWithDrain with a processing")
	wantBlocked(t, second, "second ShutDownWithDrain with a processing")
	q.Done("a")
	wantReturned(t, second, "second ShutDownWithDrain after the last Done")
	if impl.Fixed {
		wantReturned(t, first, "first ShutDownWithDrain after the last Done")
	} else {
		wantBlocked(t, first, "first ShutDownWithDrain after the last Done (client-go's Done signals one waiter)")
	}
	q.ShutDown()
	wantReturned(t, first, "first ShutDownWithDrain after ShutDown")
	wantShutdown(t, q)
}

// testDirtyAcrossShutDown: items added again while processing become ready
// at their Done after ShutDown, and Len counts them from then on.
func testDirtyAcrossShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	q.Add("c")
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	wantLen(t, q, 1)
	q.Done("a")
	wantLen(t, q, 2)
	q.Done("b")
	wantLen(t, q, 3)
	wantGet(t, q, "c")
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	wantShutdown(t, q)
	q.Done("a")
	q.Done("b")
	q.Done("c")
	wantLen(t, q, 0)
	wantShutdown(t, q)
}

// testDirtyAcrossDrain: the same during a drain, which waits for a re-run
// handed out during it and returns at the last Done, leaving a dirty item
// ready.
func testDirtyAcrossDrain(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	wantGet(t, q, "b")
	q.Add("a")
	q.Add("b")
	drained := startDrain(t, q)
	wantLen(t, q, 0)
	wantShutdown(t, q)
	q.Done("a")
	wantLen(t, q, 1)
	wantBlocked(t, drained, "ShutDownWithDrain with b processing")
	wantGet(t, q, "a") // handed out during the drain: waited for too
	q.Done("b")
	wantLen(t, q, 1)
	wantBlocked(t, drained, "ShutDownWithDrain with a processing again")
	q.Done("a")
	wantReturned(t, drained, "ShutDownWithDrain with nothing processing")
	wantLen(t, q, 1)
	wantGet(t, q, "b")
	wantShutdown(t, q)
	q.Done("b")
	wantLen(t, q, 0)
	wantShutdown(t, q)
}

func testReAddedAtShutDown(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	q.Add("a")
	wantGet(t, q, "a")
	q.Add("a") // to run again after Done
	q.ShutDown()
	wantShutdown(t, q) // nothing ready: a is processing
	q.Done("a")
	wantLen(t, q, 1)
	wantGet(t, q, "a") // handed out again after its Done
	q.Done("a")
	wantShutdown(t, q)
}

// testAddRateLimitedAfterShutDown: client-go's AddRateLimited asks the
// limiter before its AddAfter finds the queue shutting down, so the
// failure is counted, and nothing is added.
func testAddRateLimitedAfterShutDown(t *testing.T, impl Impl) {
	for _, drain := range []bool{false, true} {
		q, c := newQueue(t, impl, impl.Exponential(time.Millisecond, time.Second), "", nil)
		if drain {
			q.Add("busy")
			wantGet(t, q, "busy")
			startDrain(t, q)
		} else {
			q.ShutDown()
		}
		q.AddRateLimited("a")
		q.AddRateLimited("a")
		if got := q.NumRequeues("a"); got != 2 {
			t.Fatalf("drain %v: NumRequeues(a) = %d after two AddRateLimited; want 2", drain, got)
		}
		step(c, time.Second)
		wantLen(t, q, 0)
		wantShutdown(t, q)
		q.Forget("a")
		if got := q.NumRequeues("a"); got != 0 {
			t.Fatalf("drain %v: NumRequeues(a) after Forget = %d; want 0", drain, got)
		}
		if drain {
			q.Done("busy")
		}
	}
}

// testBlockedGetsAtShutDown: consumers blocked in Get on an empty queue
// are woken one per Add, and all released by ShutDownWithDrain (which then
// waits for the item handed out) or ShutDown.
func testBlockedGetsAtShutDown(t *testing.T, impl Impl) {
	for _, drain := range []bool{false, true} {
		q, _ := newQueue(t, impl, nil, "", nil)
		type result struct {
			item     string
			shutdown bool
		}
		results := make(chan result, 3)
		for range 3 {
			go func() {
				item, shutdown := q.Get()
				results <- result{item, shutdown}
			}()
		}
		synctest.Wait()
		if n := len(results); n != 0 {
			t.Fatalf("drain %v: %d Gets returned from an empty queue; want 0", drain, n)
		}
		q.Add("a")
		synctest.Wait()
		if n := len(results); n != 1 {
			t.Fatalf("drain %v: %d Gets returned after one Add; want 1", drain, n)
		}
		if r := <-results; r != (result{"a", false}) {
			t.Fatalf("drain %v: Get() = %q, %v; want a, false", drain, r.item, r.shutdown)
		}
		var drained <-chan struct{}
		if drain {
			drained = startDrain(t, q)
			wantBlocked(t, drained, "ShutDownWithDrain with a processing")
		} else {
			q.ShutDown()
		}
		synctest.Wait()
		if n := len(results); n != 2 {
			t.Fatalf("drain %v: %d Gets returned after the shutdown began; want 2", drain, n)
		}
		for range 2 {
			if r := <-results; !r.shutdown {
				t.Fatalf("drain %v: Get() = %q, false; want shutdown", drain, r.item)
			}
		}
		q.Done("a")
		if drain {
			wantReturned(t, drained, "ShutDownWithDrain after the last Done")
		}
	}
}
