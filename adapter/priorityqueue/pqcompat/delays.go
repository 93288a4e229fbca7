package pqcompat

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fixedLimiter delays every item by d and counts the failures of each.
type fixedLimiter struct {
	d  time.Duration
	mu sync.Mutex
	n  map[string]int
}

func newFixedLimiter(d time.Duration) *fixedLimiter {
	return &fixedLimiter{d: d, n: map[string]int{}}
}

func (l *fixedLimiter) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n[item]++
	return l.d
}

func (l *fixedLimiter) Forget(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.n, item)
}

func (l *fixedLimiter) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[item]
}

// settle lets the queue's goroutines catch up with what was done so far,
// and with the bubble's clock, and returns Len.
func settle(q Queue) int {
	synctest.Wait()
	return q.Len()
}

// testEarliestReadyTime: an item keeps the earliest time it is ready at
// ("retains the lowest after duration"); an Add makes a delayed item
// ready now.
func testEarliestReadyTime(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddAfter("a", time.Hour)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", time.Second)
	q.AddAfter("b", time.Hour)
	q.Add("c")
	q.AddAfter("c", time.Hour)
	q.AddWithOpts(AddOpts{After: 2 * time.Second}, "d")
	q.AddWithOpts(AddOpts{}, "d")
	expect(t, "Len() at once", settle(q), 2)
	expectSeq(t, "hand-out at once", takeAll(q, 2), []string{"c@0", "d@0"})
	time.Sleep(time.Second - time.Nanosecond)
	expect(t, "Len() just before 1s", settle(q), 0)
	time.Sleep(time.Nanosecond)
	expect(t, "Len() at 1s", settle(q), 2)
	expectSeq(t, "hand-out at 1s", takeAll(q, 2), []string{"a@0", "b@0"})
	time.Sleep(2 * time.Hour)
	expect(t, "Len() much later", settle(q), 0)
}

// testRateLimitedAndAfter: RateLimited delays by the limiter's delay, or
// by After if that is shorter and not zero.
func testRateLimitedAndAfter(t *testing.T, impl Impl) {
	l := newFixedLimiter(100 * time.Millisecond)
	q, _ := newQueue(t, impl, withLimiter(l))
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{RateLimited: true, After: 50 * time.Millisecond}, "a")
	q.AddWithOpts(AddOpts{RateLimited: true, After: 200 * time.Millisecond}, "b")
	q.AddWithOpts(AddOpts{RateLimited: true}, "c")
	q.AddWithOpts(AddOpts{RateLimited: true, After: -time.Nanosecond}, "d")
	expect(t, "Len() at once", settle(q), 1)
	expect(t, "NumRequeues(d)", q.NumRequeues("d"), 1)
	time.Sleep(50 * time.Millisecond)
	expect(t, "Len() at 50ms", settle(q), 2)
	time.Sleep(50*time.Millisecond - time.Nanosecond)
	expect(t, "Len() just before 100ms", settle(q), 2)
	time.Sleep(time.Nanosecond)
	expect(t, "Len() at 100ms", settle(q), 4)
	expectSeq(t, "hand-out", takeAll(q, 4), []string{"d@0", "a@0", "b@0", "c@0"})
}

// testDefaultLimiter: the default limiter is exponential from 5 ms per
// item.
func testDefaultLimiter(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	for i, d := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		q.AddRateLimited("x")
		time.Sleep(d - time.Nanosecond)
		expect(t, "Len() just before the delay", settle(q), 0)
		time.Sleep(time.Nanosecond)
		expect(t, "Len() at the delay", settle(q), 1)
		expect(t, "NumRequeues", q.NumRequeues("x"), i+1)
		takeAll(q, 1)
	}
	q.Forget("x")
	expect(t, "NumRequeues after Forget", q.NumRequeues("x"), 0)
}

// testLockedDelayed: an item delayed while processing becomes ready at
// its deadline but stays locked until its Done; an Add makes it ready at
// once, at the place its first add gave it.
func testLockedDelayed(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.Add("foo")
	expect(t, "Get", got(q), "foo@0")
	q.AddAfter("foo", time.Second)
	expect(t, "Len() before the deadline", settle(q), 0)
	c := getAsync(q)
	time.Sleep(time.Second)
	expect(t, "Len() at the deadline, foo locked", settle(q), 1)
	expect(t, "Get while foo is locked", ready(c), "")
	q.Done("foo")
	synctest.Wait()
	expect(t, "Get after Done", ready(c), "foo@0")

	q.AddAfter("foo", time.Hour) // processing, delayed
	q.Add("bar")
	q.Add("foo") // ready now, at the place of its AddAfter: before bar
	expect(t, "Len()", settle(q), 2)
	q.Done("foo")
	expectSeq(t, "hand-out", takeAll(q, 2), []string{"foo@0", "bar@0"})
}

// testDelayedOvertakes: a delayed item of a higher priority goes first
// once ready ("high priority item that became ready is returned before low
// priority item").
func testDelayedOvertakes(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: prio(-100)}, "foo")
	q.AddWithOpts(AddOpts{After: time.Second}, "prio")
	time.Sleep(time.Second)
	expect(t, "Len()", settle(q), 2)
	expectSeq(t, "hand-out", takeAll(q, 2), []string{"prio@0", "foo@-100"})
}

// testDelayCutShort: a delayed item that an Add makes ready keeps the
// place its first add gave it, unless the Add raises its priority; one
// whose deadline passes gets a new place, as of then.
func testDelayCutShort(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddAfter("a", time.Hour)
	q.Add("b")
	q.Add("a")
	q.AddAfter("c", time.Hour)
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "d")
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "c")
	q.AddAfter("e", time.Second)
	q.Add("f")
	time.Sleep(time.Second)
	expect(t, "Len()", settle(q), 6)
	expectSeq(t, "hand-out", takeAll(q, 6), []string{"d@1", "c@1", "a@0", "b@0", "f@0", "e@0"})
}

// testDueOrder: items that become ready at the same instant go in the
// order of their priority, then of their places: the place of an item's
// first add, or of the add that last raised its priority (controller-
// runtime orders its waiting items by ready time, priority and that
// counter, and gives them new places in that order).
func testDueOrder(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddAfter("a", 2*time.Second)
	q.AddAfter("b", time.Second)
	q.AddAfter("a", time.Second) // shortened: due with b, placed before b
	q.AddWithOpts(AddOpts{After: time.Second, Priority: prio(-1)}, "c")
	q.AddWithOpts(AddOpts{After: time.Second, Priority: prio(-1)}, "d")
	q.AddWithOpts(AddOpts{After: time.Second, Priority: prio(-1)}, "c")
	q.Add("e")
	time.Sleep(time.Second)
	expect(t, "Len()", settle(q), 5)
	expectSeq(t, "hand-out", takeAll(q, 5), []string{"e@0", "a@0", "b@0", "c@-1", "d@-1"})
}

// testRateLimitedPriority: a rate-limited item keeps its priority.
func testRateLimitedPriority(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, withLimiter(newFixedLimiter(10*time.Millisecond)))
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{RateLimited: true, Priority: prio(5)}, "x", "y")
	q.Add("z")
	expect(t, "Len() at once", settle(q), 1)
	time.Sleep(10 * time.Millisecond)
	expect(t, "Len() at 10ms", settle(q), 3)
	expectSeq(t, "hand-out", takeAll(q, 3), []string{"x@5", "y@5", "z@0"})
}

// testLen: Len counts ready items only ("doesn't include non-ready items
// in Len()").
func testLen(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl)
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{After: time.Minute}, "foo")
	q.AddWithOpts(AddOpts{}, "baz")
	q.AddWithOpts(AddOpts{After: time.Minute}, "bar")
	q.AddWithOpts(AddOpts{}, "bal")
	expect(t, "Len()", q.Len(), 2)
	time.Sleep(time.Minute)
	expect(t, "Len() a minute later", settle(q), 4)
}

// testForget: the limiter counts every AddRateLimited, duplicates
// included; Forget and NumRequeues go to it.
func testForget(t *testing.T, impl Impl) {
	l := newFixedLimiter(time.Second)
	q, _ := newQueue(t, impl, withLimiter(l))
	defer q.ShutDown()
	q.AddRateLimited("x")
	q.AddRateLimited("x")
	q.AddWithOpts(AddOpts{RateLimited: true}, "x", "y")
	settle(q)
	expect(t, "NumRequeues(x)", q.NumRequeues("x"), 3)
	expect(t, "NumRequeues(y)", q.NumRequeues("y"), 1)
	q.Forget("x")
	expect(t, "NumRequeues(x) after Forget", q.NumRequeues("x"), 0)
	expect(t, "limiter's count of x", l.NumRequeues("x"), 0)
}
