//lint:file-ignore SA1019 the untyped queues under test are the deprecated ones.

package adapter_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	workqueue "github.com/actorq/actorq/adapter"
	"github.com/actorq/actorq/adapter/compattest"
	clientgo "k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestUnhashableItem checks that an untyped queue given an item that
// cannot be a map key panics in the caller, naming the type, and keeps
// working, as client-go's does. client-go's AddAfter is left out: it
// panics in its waiting loop's goroutine, which kills the process.
func TestUnhashableItem(t *testing.T) {
	queues := map[string]workqueue.RateLimitingInterface{
		"client-go": clientgo.NewRateLimitingQueue(clientgo.DefaultControllerRateLimiter()),
		"adapter":   workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter()),
	}
	for name, q := range queues {
		t.Run(name, func(t *testing.T) {
			defer q.ShutDown()
			for _, op := range []struct {
				name string
				call func()
			}{
				{"Add", func() { q.Add([]int{1}) }},
				{"AddAfter", func() { q.AddAfter([]int{1}, time.Second) }},
				{"AddRateLimited", func() { q.AddRateLimited([]int{1}) }},
				{"Done", func() { q.Done([]int{1}) }},
			} {
				if name == "client-go" && (op.name == "AddAfter" || op.name == "Done") {
					continue // AddAfter kills the process; Done does not panic
				}
				func() {
					defer func() {
						r := recover()
						if r == nil || !strings.Contains(fmt.Sprint(r), "[]int") {
							t.Errorf("%s([]int{1}) panicked with %v; want a panic naming []int", op.name, r)
						}
					}()
					op.call()
				}()
			}
			q.Add("ok")
			if got, _ := q.Get(); got != "ok" {
				t.Fatalf("Get() after the panics = %v; want ok", got)
			}
			q.Done("ok")
		})
	}
}

// TestAddAfterNeverBlocks adds far more delayed items than client-go's
// 1000-slot channel holds, with nobody consuming and the clock stopped.
func TestAddAfterNeverBlocks(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(0, 0))
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[int]{Clock: c})
	defer q.ShutDown()
	const n = 100_000
	for i := range n {
		q.AddAfter(i, time.Duration(n-i)*time.Millisecond)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() = %d before the delays; want 0", got)
	}
	c.Step(n * time.Millisecond)
	if got := q.Len(); got != n {
		t.Fatalf("Len() = %d after the delays; want %d", got, n)
	}
	for want := n - 1; want >= n-3; want-- { // shortest delay first
		if got, _ := q.Get(); got != want {
			t.Fatalf("Get() = %d; want %d", got, want)
		}
	}
}

// TestNoGoroutineAfterShutDown checks, with no retry, that no queue
// goroutine is left waiting when ShutDown returns, whatever is still
// pending. client-go's delaying queue returns from ShutDown while its
// waiting loop may still be blocked in a select.
func TestNoGoroutineAfterShutDown(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(0, 0))
	queues := map[string]func() workqueue.TypedInterface[string]{
		"Typed": func() workqueue.TypedInterface[string] {
			return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "leak-typed", Clock: c, MetricsProvider: &compattest.Recorder{}})
		},
		"Delaying": func() workqueue.TypedInterface[string] {
			return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "leak-delaying", Clock: c})
		},
		"RateLimiting": func() workqueue.TypedInterface[string] { return workqueue.NewTypedRateLimitingQueue[string](nil) },
	}
	for name, newQueue := range queues {
		t.Run(name, func(t *testing.T) {
			q := newQueue()
			q.Add("processing")
			q.Get()
			q.Add("queued")
			if d, ok := q.(workqueue.TypedDelayingInterface[string]); ok {
				d.AddAfter("delayed", time.Hour)
			}
			q.Len() // the owner goroutine has started: it answered
			if n, _ := ownerGoroutines(); n == 0 {
				t.Fatal("no owner goroutine seen while the queue runs; want its own")
			}
			q.ShutDown()
			if n, blocked := ownerGoroutines(); blocked != 0 {
				t.Fatalf("%d owner goroutines remain, %d of them blocked, right after ShutDown; want none blocked", n, blocked)
			}
		})
	}
}

// ownerGoroutines returns how many owner goroutines of actor queues exist,
// and how many of them are blocked, from one look at every goroutine, with
// no retry (goleak's retries would hide a late exit). An owner that has
// closed its done channel may still be returning through the runtime when
// ShutDown returns, running or runnable; it can never block or touch the
// queue again, and goleak's VerifyTestMain proves it ends (as actor's own
// leak test does, whose ownerGoroutines this is).
//
// It reads runtime.GoroutineProfile and names the frames with
// runtime.CallersFrames: no text is parsed. An owner goroutine runs
// actor's (*owner[T]).loop, which is on its stack from the moment it
// starts until the loop returns; a goroutine parked by the scheduler
// (blocked, or woken and not yet running) has runtime.gopark as its
// innermost frame. Call it after the queue has answered a call, so that
// its owner has started.
func ownerGoroutines() (total, blocked int) {
	var records []runtime.StackRecord
	for n := runtime.NumGoroutine() + 8; ; {
		records = make([]runtime.StackRecord, n)
		got, ok := runtime.GoroutineProfile(records)
		if ok {
			records = records[:got]
			break
		}
		n = got + 8 // goroutines were started meanwhile
	}
	for _, r := range records {
		owner, parked := false, false
		frames := runtime.CallersFrames(r.Stack())
		for i := 0; ; i++ {
			f, more := frames.Next()
			if i == 0 {
				parked = f.Function == "runtime.gopark"
			}
			if strings.HasPrefix(f.Function, "github.com/actorq/actorq/actor.(*owner[") && strings.HasSuffix(f.Function, "]).loop") {
				owner = true
			}
			if !more {
				break
			}
		}
		if owner {
			total++
			if parked {
				blocked++
			}
		}
	}
	return total, blocked
}

// lifo is a user-written client-go Queue storage, here a LIFO to show it
// is used.
type lifo struct{ items []string }

func (l *lifo) Touch(string)     {}
func (l *lifo) Push(item string) { l.items = append(l.items, item) }
func (l *lifo) Len() int         { return len(l.items) }
func (l *lifo) Pop() (item string) {
	item, l.items = l.items[len(l.items)-1], l.items[:len(l.items)-1]
	return item
}

func TestCustomStorage(t *testing.T) {
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Queue: &lifo{}})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("c")
	q.Len()
	for _, want := range []string{"c", "b", "a"} {
		if got, _ := q.Get(); got != want {
			t.Fatalf("Get() = %q; want %q", got, want)
		}
	}
}

// TestCustomQueueInterface checks that a delaying queue over a queue
// interface the adapter does not own works, through client-go.
func TestCustomQueueInterface(t *testing.T) {
	inner := workqueue.NewTyped[string]()
	c := clocktesting.NewFakeClock(time.Unix(0, 0))
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Queue: inner, Clock: c})
	defer q.ShutDown()
	q.AddAfter("a", time.Second)
	c.Step(time.Second)
	if got, _ := q.Get(); got != "a" {
		t.Fatalf("Get() = %q; want a", got)
	}
	if got := inner.Len(); got != 0 {
		t.Fatalf("inner Len() = %d; want 0", got)
	}
}

func TestParallelizeUntil(t *testing.T) {
	var done [100]bool
	workqueue.ParallelizeUntil(t.Context(), 4, len(done), func(p int) { done[p] = true }, workqueue.WithChunkSize(7))
	for i, d := range done {
		if !d {
			t.Fatalf("piece %d not done", i)
		}
	}
}
