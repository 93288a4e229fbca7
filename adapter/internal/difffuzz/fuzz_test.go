package difffuzz_test

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	workqueue "github.com/actorq/actorq/adapter"
	"github.com/actorq/actorq/adapter/compattest"
	clientgo "k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

// FuzzDifferential applies one random sequence of operations to client-go's
// rate-limiting queue and to the adapter's in lockstep, inside a
// testing/synctest bubble with one FakeClock, and compares everything
// observable after each operation, once every goroutine of the bubble is
// blocked (client-go moves due items and refreshes its gauges in its own
// goroutines): each Get's item and shutdown flag, Len, ShuttingDown,
// NumRequeues, which ShutDownWithDrain calls have returned, and every
// metric (after a Len, difference 7 on the list in actor's package doc). At the end it
// finishes every item, shuts both queues down, checks that every drain has
// returned, and compares the Gets that empty the queues.
//
// A Get is made only when client-go answers it at once (an item is ready,
// or the queue is shutting down). The operations steer clear of the
// intended differences, which compattest asserts: Done only of an item
// being processed (difference 1); no Add of an item waiting on a delay, and
// no AddAfter or AddRateLimited of an item that is ready or added again
// while processing (difference 2). They also avoid two delays due at the
// same instant, whose order in client-go is that of its heap's internals,
// and two client-go shutdown quirks that compattest's
// SecondShutDownAndLateDrain and ConcurrentDrains cases show: no
// ShutDownWithDrain while another is still waiting, and no ShutDown while
// a drain begun after an earlier ShutDown is waiting.
//
// Each byte is one operation. Below 0x80, as in the first version of this
// test: the low two bits choose Add, Get, Done (of the n-th processing
// item) or AddAfter with a zero delay, and the rest chooses the item.
// From 0x80, bits 4-6 choose the operation and the low four bits its
// argument: AddAfter with 1ms or 7ms, a step of 1-16ms, ShutDown,
// ShutDownWithDrain, AddRateLimited, Forget, a step of 100ms-1.6s, and
// AddAfter with 50ms or 600ms.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{0, 4, 8, 1, 0, 2, 1, 1})
	f.Add([]byte{0, 0, 1, 0, 3, 2, 1, 6, 5})
	f.Add([]byte{4, 8, 12, 16, 1, 1, 1, 0, 4, 2, 6, 10, 1, 1})
	// Ready, processing and dirty items at ShutDown, then Gets and Dones.
	f.Add([]byte{0, 4, 8, 1, 1, 0, opShutDown, 0, 1, 1, 1, 6, 1, 2, 1, 2, 2, 1})
	// A drain with a worker that gets the rest, and a dirty item.
	f.Add([]byte{0, 4, 1, 0, opDrain, 1, 1, 2, 1, 2, 1, 2, 1})
	// A drain ended by ShutDown, and a drain after ShutDown.
	f.Add([]byte{0, 4, 1, opDrain, 0, opShutDown, 1, 1, opDrain, 2, 2, 1})
	// Delays, steps, rate-limited retries, Forget, a drain among delays.
	f.Add([]byte{0x82, 0x8b, 0x93, 1, 0x9f, 1, 1, 0xc4, 0xe0, 1, 2, 0xc4, 0xd4, 0xc4, 0xe1, 1, 0xf5, opDrain, 0xe9, 2, 1, 2})
	// Delayed items coming due while processing, across the metrics ticks.
	f.Add([]byte{0, 1, 0x80, 0xe4, 0xf9, 0x81, 1, 0xe5, 2, 2, 0xe6, 1, opShutDown, 2, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		synctest.Test(t, func(t *testing.T) { runOps(t, ops) })
	})
}

// Two of the operation bytes, for the seeds.
const (
	opShutDown = 0x80 | 2<<4
	opDrain    = 0x80 | 3<<4
)

// side is one implementation under test.
type side struct {
	name   string
	q      clientgo.TypedRateLimitingInterface[string]
	rec    *compattest.Recorder
	drains []chan struct{} // one per ShutDownWithDrain call, closed when it returns
}

// drain calls ShutDownWithDrain in a goroutine.
func (s *side) drain() {
	ch := make(chan struct{})
	s.drains = append(s.drains, ch)
	go func() {
		defer close(ch)
		s.q.ShutDownWithDrain()
	}()
}

// returned reports which drain calls have returned.
func (s *side) returned() []bool {
	r := make([]bool, len(s.drains))
	for i, ch := range s.drains {
		select {
		case <-ch:
			r[i] = true
		default:
		}
	}
	return r
}

// get calls Get in a goroutine and reports its answer, or blocked if it
// has none once every goroutine of the bubble is blocked. A blocked Get
// is released by the ShutDown at the end of the test.
func (s *side) get() (item string, shutdown, blocked bool) {
	type result struct {
		item     string
		shutdown bool
	}
	ch := make(chan result, 1)
	go func() {
		item, shutdown := s.q.Get()
		ch <- result{item, shutdown}
	}()
	synctest.Wait()
	select {
	case r := <-ch:
		return r.item, r.shutdown, false
	default:
		return "", false, true
	}
}

// model is what the test knows of client-go's queue state, to choose
// operations that stay clear of the intended differences.
type model struct {
	now        time.Duration            // the clock, since the start
	ready      map[string]bool          // waiting to be handed out
	processing []string                 // handed out, in hand-out order
	dirty      map[string]bool          // processing, and added again
	delayed    map[string]time.Duration // deadlines of pending delays
	requeues   map[string]int           // the limiters' failure counts
	shutting   bool
	shutDown   bool // ShutDown was called: a drain waiting now began after it
}

func (m *model) isProcessing(item string) bool { return slices.Contains(m.processing, item) }

// add is client-go's Add.
func (m *model) add(item string) {
	switch {
	case m.shutting:
	case m.isProcessing(item):
		m.dirty[item] = true
	default:
		m.ready[item] = true
	}
}

// delay reports whether a delay of item until at (AddAfter or
// AddRateLimited) is clear of the intended differences and of ties, and
// records it if so. Once shutting down, delays are ignored: any is fine.
func (m *model) delay(item string, at time.Duration) bool {
	if m.shutting {
		return true
	}
	if m.ready[item] || m.dirty[item] {
		return false // difference 2
	}
	if old, ok := m.delayed[item]; ok && old <= at {
		return true // a delay is never lengthened
	}
	for other, d := range m.delayed {
		if other != item && d == at {
			return false // a tie: client-go's heap decides
		}
	}
	m.delayed[item] = at
	return true
}

// step advances the clock and makes due items ready, in deadline order.
func (m *model) step(d time.Duration) {
	m.now += d
	due := slices.Collect(maps.Keys(m.delayed))
	due = slices.DeleteFunc(due, func(item string) bool { return m.delayed[item] > m.now })
	slices.SortFunc(due, func(a, b string) int { return int(m.delayed[a] - m.delayed[b]) })
	for _, item := range due {
		delete(m.delayed, item)
		m.add(item)
	}
}

// limiterDelay is the delay the exponential limiter of runOps gives item
// next: 1ms doubled per failure, at most 1s.
func (m *model) limiterDelay(item string) time.Duration {
	d := time.Millisecond
	for range m.requeues[item] {
		if d >= time.Second {
			break
		}
		d *= 2
	}
	return min(d, time.Second)
}

// sameMetrics reports whether two snapshots are equal, but for rounding in
// the unfinished work seconds: a sum over a map, whose order varies from
// one refresh to the next in client-go itself.
func sameMetrics(a, b compattest.Snapshot) bool {
	if math.Abs(a.Unfinished-b.Unfinished) > 1e-9*max(1, math.Abs(b.Unfinished)) {
		return false
	}
	a.Unfinished = b.Unfinished
	return reflect.DeepEqual(a, b)
}

// runOps is the body of FuzzDifferential, inside a bubble.
func runOps(t *testing.T, ops []byte) {
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	want := &side{name: "client-go", rec: &compattest.Recorder{}}
	want.q = clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		clientgo.TypedRateLimitingQueueConfig[string]{Name: "fuzz", MetricsProvider: want.rec, Clock: c})
	got := &side{name: "adapter", rec: &compattest.Recorder{}}
	got.q = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "fuzz", MetricsProvider: got.rec, Clock: c})
	defer want.q.ShutDown()
	defer got.q.ShutDown()
	synctest.Wait() // client-go's metrics ticker exists: it ticks every 500ms from now

	m := &model{
		ready:    map[string]bool{},
		dirty:    map[string]bool{},
		delayed:  map[string]time.Duration{},
		requeues: map[string]int{},
	}
	var history []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %q: %s", history, fmt.Sprintf(format, args...))
	}
	both := func(f func(q clientgo.TypedRateLimitingInterface[string])) {
		f(want.q)
		f(got.q)
	}
	// getBoth makes one Get on each side and compares the answers.
	getBoth := func() (string, bool) {
		w, wdown, wblocked := want.get()
		g, gdown, gblocked := got.get()
		if wblocked {
			fail("client-go's Get blocks: the test's model is wrong")
		}
		if gblocked || g != w || gdown != wdown {
			fail("Get() = %q, %v (blocked %v); client-go %q, %v", g, gdown, gblocked, w, wdown)
		}
		return w, wdown
	}
	// check compares everything observable once both queues have settled.
	check := func() {
		t.Helper()
		synctest.Wait()
		if w, g := want.q.Len(), got.q.Len(); g != w {
			fail("Len() = %d; client-go %d", g, w)
		} else if w != len(m.ready) {
			fail("client-go's Len() = %d; the test's model has %d ready", w, len(m.ready))
		}
		if w, g := want.q.ShuttingDown(), got.q.ShuttingDown(); g != w {
			fail("ShuttingDown() = %v; client-go %v", g, w)
		}
		synctest.Wait()
		if w, g := want.returned(), got.returned(); !slices.Equal(g, w) {
			fail("drains returned = %v; client-go %v", g, w)
		}
		if w, g := want.rec.Snapshot(), got.rec.Snapshot(); !sameMetrics(g, w) {
			fail("metrics = %+v; client-go %+v", g, w)
		}
	}
	drainWaiting := func() bool { return slices.Contains(want.returned(), false) }

	for _, b := range ops {
		var what string
		if b < 0x80 {
			item := fmt.Sprint("item", b>>2%8)
			switch b & 3 {
			case 0, 3:
				if _, ok := m.delayed[item]; ok {
					continue // difference 2
				}
				if b&3 == 0 {
					what = "Add(" + item + ")"
					both(func(q clientgo.TypedRateLimitingInterface[string]) { q.Add(item) })
				} else {
					what = "AddAfter(" + item + ", 0)"
					both(func(q clientgo.TypedRateLimitingInterface[string]) { q.AddAfter(item, 0) })
				}
				m.add(item)
			case 1:
				if len(m.ready) == 0 && !m.shutting {
					continue
				}
				item, shutdown := getBoth()
				what = fmt.Sprintf("Get() = %q, %v", item, shutdown)
				if !shutdown {
					delete(m.ready, item)
					m.processing = append(m.processing, item)
				}
			case 2:
				if len(m.processing) == 0 {
					continue
				}
				k := int(b>>2) % len(m.processing)
				item = m.processing[k]
				m.processing = slices.Delete(m.processing, k, k+1)
				if m.dirty[item] {
					delete(m.dirty, item)
					m.ready[item] = true
				}
				what = "Done(" + item + ")"
				both(func(q clientgo.TypedRateLimitingInterface[string]) { q.Done(item) })
			}
		} else {
			arg := b & 15
			item := fmt.Sprint("item", arg&7)
			switch b >> 4 & 7 {
			case 0, 7:
				d := []time.Duration{time.Millisecond, 7 * time.Millisecond}[arg>>3]
				if b>>4&7 == 7 {
					d = []time.Duration{50 * time.Millisecond, 600 * time.Millisecond}[arg>>3]
				}
				if !m.delay(item, m.now+d) {
					continue
				}
				what = fmt.Sprintf("AddAfter(%s, %v)", item, d)
				both(func(q clientgo.TypedRateLimitingInterface[string]) { q.AddAfter(item, d) })
			case 1, 6:
				d := time.Duration(arg+1) * time.Millisecond
				if b>>4&7 == 6 {
					d *= 100
				}
				what = fmt.Sprintf("Step(%v)", d)
				synctest.Wait()
				c.Step(d)
				m.step(d)
			case 2:
				if m.shutDown && drainWaiting() {
					continue // SecondShutDownAndLateDrain
				}
				what = "ShutDown()"
				both(func(q clientgo.TypedRateLimitingInterface[string]) { q.ShutDown() })
				m.shutting, m.shutDown = true, true
				clear(m.delayed)
			case 3:
				if drainWaiting() {
					continue // ConcurrentDrains
				}
				what = "go ShutDownWithDrain()"
				want.drain()
				got.drain()
				m.shutting = true
				clear(m.delayed)
			case 4:
				if !m.delay(item, m.now+m.limiterDelay(item)) {
					continue
				}
				what = "AddRateLimited(" + item + ")"
				both(func(q clientgo.TypedRateLimitingInterface[string]) { q.AddRateLimited(item) })
				m.requeues[item]++
			case 5:
				what = "Forget(" + item + ")"
				both(func(q clientgo.TypedRateLimitingInterface[string]) { q.Forget(item) })
				delete(m.requeues, item)
			}
			if w, g := want.q.NumRequeues(item), got.q.NumRequeues(item); g != w || w != m.requeues[item] {
				fail("NumRequeues(%s) = %d; client-go %d, model %d", item, g, w, m.requeues[item])
			}
		}
		history = append(history, what)
		check()
	}

	// Finish every item, which ends every drain, then shut both down.
	for len(m.processing) > 0 {
		item := m.processing[0]
		m.processing = m.processing[1:]
		if m.dirty[item] {
			delete(m.dirty, item)
			m.ready[item] = true
		}
		history = append(history, "Done("+item+")")
		both(func(q clientgo.TypedRateLimitingInterface[string]) { q.Done(item) })
		check()
	}
	history = append(history, "ShutDown()")
	both(func(q clientgo.TypedRateLimitingInterface[string]) { q.ShutDown() })
	m.shutting = true
	check()
	if drainWaiting() {
		fail("a client-go drain still waits after ShutDown with nothing processing")
	}
	for {
		item, shutdown := getBoth()
		history = append(history, fmt.Sprintf("Get() = %q, %v", item, shutdown))
		if shutdown {
			break
		}
		delete(m.ready, item)
		both(func(q clientgo.TypedRateLimitingInterface[string]) { q.Done(item) })
		check()
	}
	check()
}
