package pqcompat

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// AddOpts are the options of AddWithOpts.
type AddOpts = priorityqueue.AddOpts

// testPriorityOrder: higher priorities first, first in, first out within
// one; a nil priority is 0.
func testPriorityOrder(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(-100)}, "low1", "low2")
	q.Add("mid1")
	q.AddWithOpts(AddOpts{Priority: prio(10)}, "high1")
	q.AddWithOpts(AddOpts{}, "mid2")
	q.AddWithOpts(AddOpts{Priority: prio(0)}, "mid3")
	q.AddWithOpts(AddOpts{Priority: prio(10)}, "high2")
	expect(t, "Len()", q.Len(), 7)
	expectSeq(t, "hand-out", takeAll(q, 7),
		[]string{"high1@10", "high2@10", "mid1@0", "mid2@0", "mid3@0", "low1@-100", "low2@-100"})
}

// testDedup: an item is queued once however often it is added.
func testDedup(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.Add("a")
	q.Add("a")
	q.AddWithOpts(AddOpts{}, "a", "b", "a")
	q.AddAfter("b", 0)
	expect(t, "Len()", q.Len(), 2)
	expectSeq(t, "hand-out", takeAll(q, 2), []string{"a@0", "b@0"})
	expect(t, "Len() after", q.Len(), 0)
}

// testHighestPriorityWins: an item keeps the highest priority it was
// given (controller-runtime's "retains the highest priority" and "will not
// decrease the priority").
func testHighestPriorityWins(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "a")
	q.AddWithOpts(AddOpts{Priority: prio(2)}, "a")
	q.AddWithOpts(AddOpts{Priority: prio(2)}, "b")
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "b")
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "c")
	q.Add("c")
	q.AddRateLimited("c")
	q.AddAfter("c", 0)
	expect(t, "Len()", q.Len(), 3)
	expectSeq(t, "hand-out", takeAll(q, 3), []string{"c@3", "a@2", "b@2"})
}

// testRaisedToBack: raising an item's priority puts it at the back of
// its new priority ("follows FIFO order in the new priority queue when
// item priority changes"), also from a negative priority to 0 with a
// plain Add.
func testRaisedToBack(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(0)}, "foo")
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "bar")
	q.AddWithOpts(AddOpts{Priority: prio(0)}, "baz")
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "foo")
	q.AddWithOpts(AddOpts{Priority: prio(-5)}, "x")
	q.Add("y")
	q.Add("x") // raised from -5 to 0: after y
	expect(t, "Len()", q.Len(), 5)
	expectSeq(t, "hand-out", takeAll(q, 5), []string{"bar@1", "foo@1", "baz@0", "y@0", "x@0"})
}

// testLockedReAdded: an item added again while it is processing is ready
// (Len counts it) but locked until its Done, and then keeps the place of
// that Add, ahead of items added after it ("returns an item as soon as its
// unlocked", "enqueues a locked item").
func testLockedReAdded(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.Add("foo")
	expect(t, "first Get", got(q), "foo@0")
	q.Add("foo")
	expect(t, "Len() with foo locked", q.Len(), 1)
	q.Add("bar")
	expect(t, "Len() with foo locked and bar", q.Len(), 2)
	expect(t, "Get with foo locked", got(q), "bar@0")
	q.Add("baz")
	q.Done("foo")
	expectSeq(t, "after Done(foo)", takeAll(q, 2), []string{"foo@0", "baz@0"})
	q.Done("bar")

	// A locked item is not handed out, even when it is the only one.
	q.Add("solo")
	expect(t, "Get solo", got(q), "solo@0")
	q.Add("solo")
	c := getAsync(q)
	synctest.Wait()
	expect(t, "Get while solo is locked", ready(c), "")
	q.Done("solo")
	synctest.Wait()
	expect(t, "Get after Done(solo)", ready(c), "solo@0")
}

// testLockedPriorities: an item added again while processing runs next
// at the priority of that add, which later adds can raise; a raise moves
// it to the back of its new priority.
func testLockedPriorities(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(5)}, "foo")
	expect(t, "Get", got(q), "foo@5")
	q.Add("foo") // next run at 0, not 5
	q.Done("foo")
	expect(t, "Get after Done", got(q), "foo@0")
	q.Done("foo")

	q.Add("bar")
	expect(t, "Get bar", got(q), "bar@0")
	q.Add("bar")
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "y")
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "bar") // raised while locked: after y
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "z")
	q.Add("w")
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "bar") // no change
	expect(t, "Len()", q.Len(), 4)
	q.Done("bar")
	expectSeq(t, "hand-out", takeAll(q, 4), []string{"y@3", "bar@3", "z@3", "w@0"})
}

// testWidePriorities: a priority is any int, and is handed back as given.
func testWidePriorities(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(1 << 40)}, "a")
	q.AddWithOpts(AddOpts{Priority: prio(1 << 41)}, "b")
	q.AddWithOpts(AddOpts{Priority: prio(math.MinInt)}, "c")
	q.AddWithOpts(AddOpts{Priority: prio(math.MinInt32)}, "d")
	expectSeq(t, "hand-out", takeAll(q, 4), []string{
		fmt.Sprintf("b@%d", 1<<41), fmt.Sprintf("a@%d", 1<<40), fmt.Sprintf("d@%d", math.MinInt32), fmt.Sprintf("c@%d", math.MinInt),
	})
}
