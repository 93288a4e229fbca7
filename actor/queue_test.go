package actor_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// get takes an item that must be ready and checks it.
func get[T comparable](t *testing.T, q *actor.Queue[T], want T) {
	t.Helper()
	got, shutdown := q.Get()
	if shutdown || got != want {
		t.Fatalf("Get() = %v, %v; want %v, false", got, shutdown, want)
	}
}

func wantLen[T comparable](t *testing.T, q *actor.Queue[T], want int) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("Len() = %d; want %d", got, want)
	}
}

func wantShutdown[T comparable](t *testing.T, q *actor.Queue[T]) {
	t.Helper()
	if got, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get() = %v, false; want shutdown", got)
	}
}

// Each rule runs in its own synctest bubble: time is fake, and a goroutine
// left behind fails the test.
func TestRules(t *testing.T) {
	rules := []struct {
		name string
		run  func(t *testing.T, q *actor.Queue[string])
	}{
		{"fifo", func(t *testing.T, q *actor.Queue[string]) {
			for _, s := range []string{"a", "b", "c"} {
				q.Add(s)
			}
			wantLen(t, q, 3)
			get(t, q, "a")
			get(t, q, "b")
			get(t, q, "c")
			wantLen(t, q, 0)
		}},
		{"dedup", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			q.Add("a")
			wantLen(t, q, 2)
			get(t, q, "a")
			get(t, q, "b")
		}},
		{"re-add while processing runs again after Done", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			get(t, q, "a")
			q.Add("a")
			q.Add("a")
			wantLen(t, q, 0)
			q.Done("a")
			wantLen(t, q, 1)
			get(t, q, "a")
			q.Done("a")
			wantLen(t, q, 0)
		}},
		{"never handed to two consumers", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			get(t, q, "a")
			q.Add("a")
			got := make(chan string, 1)
			go func() {
				item, _ := q.Get()
				got <- item
			}()
			synctest.Wait()
			select {
			case item := <-got:
				t.Fatalf("second consumer got %q while the first holds it", item)
			default:
			}
			q.Done("a")
			if item := <-got; item != "a" {
				t.Fatalf("second consumer got %q; want a", item)
			}
			q.Done("a")
		}},
		{"DoneBatch is Done of each", func(t *testing.T, q *actor.Queue[string]) {
			for _, s := range []string{"a", "b", "c", "d"} {
				q.Add(s)
			}
			items, _ := q.GetBatch(make([]string, 0, 3))
			if want := []string{"a", "b", "c"}; !slices.Equal(items, want) {
				t.Fatalf("GetBatch() = %v; want %v", items, want)
			}
			q.Add("b")                           // processing: runs again after Done
			q.DoneBatch(append(items, "d", "x")) // d is ready and x unknown: no-ops
			items[0], items[1] = "y", "y"        // DoneBatch copied the slice
			wantLen(t, q, 2)
			get(t, q, "d")
			get(t, q, "b")
			q.Add("a") // a was Done: ready again at once
			wantLen(t, q, 1)
		}},
		{"Done of an item not processing is a no-op", func(t *testing.T, q *actor.Queue[string]) {
			q.Done("x")
			q.Add("a")
			q.Done("a") // ready, not processing
			wantLen(t, q, 1)
			get(t, q, "a")
			q.Done("a")
			q.Done("a")
			wantLen(t, q, 0)
		}},
		{"Get returns queued items after ShutDown", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			q.Add("c")
			get(t, q, "a")
			q.ShutDown()
			if !q.ShuttingDown() {
				t.Fatal("ShuttingDown() = false after ShutDown")
			}
			wantLen(t, q, 2)
			get(t, q, "b")
			wantLen(t, q, 1)
			get(t, q, "c")
			wantShutdown(t, q)
			wantShutdown(t, q)
			wantLen(t, q, 0)
		}},
		{"calls after ShutDown return at once", func(t *testing.T, q *actor.Queue[string]) {
			q.ShutDown()
			q.ShutDown()
			q.ShutDownWithDrain()
			q.Add("a")
			q.AddAfter("a", time.Second)
			q.AddRateLimited("a")
			q.Done("a")
			q.Forget("a")
			wantLen(t, q, 0)
			wantShutdown(t, q)
			if _, err := q.GetContext(context.Background()); !errors.Is(err, actor.ErrShutDown) {
				t.Fatalf("GetContext() error = %v; want ErrShutDown", err)
			}
			if _, ok := <-q.Items(); ok {
				t.Fatal("Items() is open after ShutDown")
			}
		}},
		{"ShutDownWithDrain waits for Done", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			get(t, q, "a")
			returned := make(chan struct{})
			go func() {
				q.ShutDownWithDrain()
				close(returned)
			}()
			synctest.Wait()
			select {
			case <-returned:
				t.Fatal("ShutDownWithDrain returned while a was processing")
			default:
			}
			q.Add("c") // ignored: shutting down
			get(t, q, "b")
			q.Done("a")
			synctest.Wait()
			select {
			case <-returned:
				t.Fatal("ShutDownWithDrain returned while b was processing")
			default:
			}
			q.Done("b")
			<-returned
			wantShutdown(t, q)
		}},
		{"ShutDown ends a ShutDownWithDrain wait", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			get(t, q, "a")
			returned := make(chan struct{})
			go func() {
				q.ShutDownWithDrain()
				close(returned)
			}()
			synctest.Wait()
			q.ShutDown()
			<-returned
			q.Done("a")
		}},
		{"AddAfter makes the item ready at the deadline", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", time.Second)
			time.Sleep(time.Second - time.Nanosecond)
			wantLen(t, q, 0)
			time.Sleep(time.Nanosecond)
			wantLen(t, q, 1)
			get(t, q, "a")
		}},
		{"AddAfter of zero or less adds at once", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", 0)
			q.AddAfter("b", -time.Second)
			wantLen(t, q, 2)
		}},
		{"delays fire in deadline order", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("c", 3*time.Second)
			q.AddAfter("a", time.Second)
			q.AddAfter("b", 2*time.Second)
			q.AddAfter("b2", 2*time.Second)
			time.Sleep(3 * time.Second)
			wantLen(t, q, 4)
			for _, s := range []string{"a", "b", "b2", "c"} {
				get(t, q, s)
			}
		}},
		{"Add supersedes a pending delay", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", time.Second)
			q.Add("a")
			wantLen(t, q, 1)
			get(t, q, "a")
			q.Done("a")
			time.Sleep(2 * time.Second)
			wantLen(t, q, 0)
		}},
		{"a delay can be shortened", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", 10*time.Second)
			q.AddAfter("a", time.Second)
			time.Sleep(time.Second)
			wantLen(t, q, 1)
			get(t, q, "a")
			q.Done("a")
			time.Sleep(10 * time.Second)
			wantLen(t, q, 0)
		}},
		{"a delay is never lengthened", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", time.Second)
			q.AddAfter("a", 10*time.Second)
			time.Sleep(time.Second)
			wantLen(t, q, 1)
		}},
		{"AddAfter of a ready item does nothing", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.AddAfter("a", time.Second)
			get(t, q, "a")
			q.Done("a")
			time.Sleep(2 * time.Second)
			wantLen(t, q, 0)
		}},
		{"a deadline reached while processing runs again after Done", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			get(t, q, "a")
			q.AddAfter("a", time.Second)
			time.Sleep(time.Second)
			wantLen(t, q, 0)
			q.Done("a")
			wantLen(t, q, 1)
		}},
		{"ShutDown drops pending delays", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("a", time.Second)
			q.ShutDown()
			time.Sleep(2 * time.Second)
			wantShutdown(t, q)
		}},
		{"GetContext leaves the item for the next consumer", func(t *testing.T, q *actor.Queue[string]) {
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := q.GetContext(ctx)
				errc <- err
			}()
			synctest.Wait()
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("GetContext() error = %v; want context.Canceled", err)
			}
			q.Add("a")
			item, err := q.GetContext(context.Background())
			if err != nil || item != "a" {
				t.Fatalf("GetContext() = %q, %v; want a, nil", item, err)
			}
		}},
		{"Items channel marks processing on receive", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			if item := <-q.Items(); item != "a" {
				t.Fatalf("<-Items() = %q; want a", item)
			}
			q.Add("a") // processing: must wait for Done
			wantLen(t, q, 1)
			q.Done("a")
			wantLen(t, q, 2)
			q.ShutDown()
			if _, ok := <-q.Items(); ok {
				t.Fatal("Items() open after ShutDown")
			}
			get(t, q, "b")
			get(t, q, "a")
			wantShutdown(t, q)
		}},
		{"GetBatch hands out up to cap(buf) items, all processing", func(t *testing.T, q *actor.Queue[string]) {
			for _, s := range []string{"a", "b", "c"} {
				q.Add(s)
			}
			buf := make([]string, 0, 2)
			items, shutdown := q.GetBatch(buf)
			if shutdown || fmt.Sprint(items) != "[a b]" {
				t.Fatalf("GetBatch() = %v, %v; want [a b], false", items, shutdown)
			}
			q.Add("a") // processing: waits for Done
			wantLen(t, q, 1)
			items, _ = q.GetBatch(items)
			if fmt.Sprint(items) != "[c]" {
				t.Fatalf("GetBatch() = %v; want [c]", items)
			}
			got := make(chan []string, 1)
			go func() {
				items, _ := q.GetBatch(make([]string, 0, 4))
				got <- items
			}()
			synctest.Wait()
			select {
			case items := <-got:
				t.Fatalf("GetBatch() = %v with nothing ready; want it to block", items)
			default:
			}
			q.Done("a")
			if items := <-got; fmt.Sprint(items) != "[a]" {
				t.Fatalf("GetBatch() = %v; want [a]", items)
			}
			q.Add("d")
			q.Add("e")
			q.ShutDown()
			items, shutdown = q.GetBatch(nil)
			if shutdown || fmt.Sprint(items) != "[d]" {
				t.Fatalf("GetBatch(nil) after ShutDown = %v, %v; want [d], false", items, shutdown)
			}
			items, shutdown = q.GetBatch(make([]string, 0, 8))
			if shutdown || fmt.Sprint(items) != "[e]" {
				t.Fatalf("GetBatch() after ShutDown = %v, %v; want [e], false", items, shutdown)
			}
			if items, shutdown = q.GetBatch(items); !shutdown || len(items) != 0 {
				t.Fatalf("GetBatch() when empty after ShutDown = %v, %v; want [], true", items, shutdown)
			}
		}},
		{"ShutDown releases a blocked GetBatch", func(t *testing.T, q *actor.Queue[string]) {
			res := make(chan bool, 1)
			go func() {
				_, shutdown := q.GetBatch(nil)
				res <- shutdown
			}()
			synctest.Wait()
			q.ShutDown()
			if !<-res {
				t.Fatal("GetBatch() did not report shutdown")
			}
		}},
		{"items offered in the lane keep every rule", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("x")
			get(t, q, "x") // a Get: from now on the owner fills the lane
			q.Done("x")
			q.Add("a")
			q.Add("b")
			synctest.Wait() // the owner has offered a and b in the lane
			q.Add("a")      // still ready: a duplicate
			q.Done("a")     // not processing: nothing
			wantLen(t, q, 2)
			get(t, q, "a")
			q.Add("a") // processing: runs again after Done
			wantLen(t, q, 1)
			q.Done("a")
			wantLen(t, q, 2)
			if item := <-q.Items(); item != "b" { // the lane is taken back, in order
				t.Fatalf("<-Items() = %q; want b", item)
			}
			get(t, q, "a")
			q.Done("a")
			q.Done("b")
			wantLen(t, q, 0)
		}},
		{"Get blocks until an item is added", func(t *testing.T, q *actor.Queue[string]) {
			got := make(chan string, 1)
			go func() {
				item, _ := q.Get()
				got <- item
			}()
			synctest.Wait()
			q.Add("a")
			if item := <-got; item != "a" {
				t.Fatalf("Get() = %q; want a", item)
			}
		}},
		{"ShutDown releases a blocked Get", func(t *testing.T, q *actor.Queue[string]) {
			res := make(chan bool, 1)
			go func() {
				_, shutdown := q.Get()
				res <- shutdown
			}()
			synctest.Wait()
			q.ShutDown()
			if !<-res {
				t.Fatal("Get() did not report shutdown")
			}
		}},
	}
	for _, rule := range rules {
		t.Run(rule.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := actor.New(actor.Config[string]{})
				defer q.ShutDown()
				rule.run(t, q)
			})
		})
	}
}

// countLimiter delays the n-th failure of an item by n seconds.
type countLimiter struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *countLimiter) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n[item]++
	return time.Duration(l.n[item]) * time.Second
}

func (l *countLimiter) Forget(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.n, item)
}

func (l *countLimiter) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[item]
}

func TestAddRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{RateLimiter: &countLimiter{n: map[string]int{}}})
		defer q.ShutDown()
		for attempt := 1; attempt <= 3; attempt++ {
			start := time.Now()
			q.AddRateLimited("a")
			if got := q.NumRequeues("a"); got != attempt {
				t.Fatalf("NumRequeues() = %d; want %d", got, attempt)
			}
			get(t, q, "a")
			if waited := time.Since(start); waited != time.Duration(attempt)*time.Second {
				t.Fatalf("attempt %d waited %v; want %ds", attempt, waited, attempt)
			}
			q.Done("a")
		}
		q.Forget("a")
		if got := q.NumRequeues("a"); got != 0 {
			t.Fatalf("NumRequeues() after Forget = %d; want 0", got)
		}
	})
}

func TestUnhashableItemPanicsInCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[any]{})
		defer q.ShutDown()
		for _, call := range []struct {
			name string
			f    func()
		}{
			{"Add", func() { q.Add([]int{1}) }},
			{"AddAfter", func() { q.AddAfter(map[string]int{}, time.Second) }},
			{"Done", func() { q.Done(struct{ v any }{[]int{1}}) }},
		} {
			func() {
				defer func() {
					r := recover()
					msg, _ := r.(string)
					if !strings.HasPrefix(msg, "actor: item of type ") || !strings.Contains(msg, "cannot be used as a map key") {
						t.Fatalf("%s panicked with %v; want an actor: message naming the type", call.name, r)
					}
				}()
				call.f()
			}()
		}
		q.Add(1)
		q.Add("x")
		wantLen(t, q, 2)
		get[any](t, q, 1)
		get[any](t, q, "x")
	})
}

// TestShutDownLeavesNoGoroutine checks, the instant ShutDown returns and
// with no retry, that the owner goroutine is gone, whatever the queue holds.
func TestShutDownLeavesNoGoroutine(t *testing.T) {
	for _, tc := range []struct {
		name string
		fill func(q *actor.Queue[int])
		stop func(q *actor.Queue[int])
	}{
		{"empty", func(*actor.Queue[int]) {}, (*actor.Queue[int]).ShutDown},
		{"queued, processing and delayed", func(q *actor.Queue[int]) {
			for i := range 100 {
				q.Add(i)
			}
			q.Get()
			q.AddAfter(1000, time.Hour)
		}, (*actor.Queue[int]).ShutDown},
		{"drained", func(q *actor.Queue[int]) {
			q.Add(1)
			item, _ := q.Get()
			q.Done(item)
		}, (*actor.Queue[int]).ShutDownWithDrain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 {
				// Earlier queues' goroutines may still be returning
				// through the runtime's exit path; let them finish.
				for i := 0; ; i++ {
					if n, _ := ownerGoroutines(); n == 0 {
						break
					} else if i == 1000 {
						t.Fatalf("%d owner goroutines of earlier queues remain", n)
					}
					runtime.Gosched()
				}
				q := actor.New(actor.Config[int]{})
				tc.fill(q)
				if n, _ := ownerGoroutines(); n != 1 {
					t.Fatalf("%d owner goroutines while the queue runs; want 1", n)
				}
				tc.stop(q)
				if n, blocked := ownerGoroutines(); blocked != 0 {
					t.Fatalf("%d owner goroutines remain, %d of them blocked, the instant ShutDown returned", n, blocked)
				}
			}
		})
	}
}

// TestDroppedQueueEnds checks that a queue nobody holds ends its goroutine
// without a ShutDown.
func TestDroppedQueueEnds(t *testing.T) {
	func() {
		q := actor.New(actor.Config[int]{})
		q.Add(1)
		q.AddAfter(2, time.Hour)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if n, _ := ownerGoroutines(); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("owner goroutine of a dropped queue still runs after 10s of GC cycles")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func TestLenCountsOwnEarlierCalls(t *testing.T) {
	q := actor.New(actor.Config[int]{})
	defer q.ShutDown()
	for i := range 10_000 {
		q.Add(i)
		if got := q.Len(); got != i+1 {
			t.Fatalf("Len() after %d adds = %d", i+1, got)
		}
	}
}

// TestShutDownAppliesEarlierCalls checks that requests a caller sent before
// ShutDown or ShutDownWithDrain are applied: every item it added is handed
// out, during the drain or after.
func TestShutDownAppliesEarlierCalls(t *testing.T) {
	for _, stop := range []struct {
		name string
		f    func(*actor.Queue[int])
	}{{"ShutDown", (*actor.Queue[int]).ShutDown}, {"ShutDownWithDrain", (*actor.Queue[int]).ShutDownWithDrain}} {
		t.Run(stop.name, func(t *testing.T) {
			for round := range 200 {
				q := actor.New(actor.Config[int]{})
				const n = 2000
				for i := range n {
					q.Add(i)
				}
				stop.f(q)
				got := 0
				for {
					_, shutdown := q.Get()
					if shutdown {
						break
					}
					got++
				}
				if got != n {
					t.Fatalf("round %d: %d items handed out after %s; want %d", round, got, stop.name, n)
				}
			}
		})
	}
}

// TestItemsNotStarvedByFlood checks that a consumer selecting on Items is
// served while producers keep the owner goroutine's inbox full.
func TestItemsNotStarvedByFlood(t *testing.T) {
	q := actor.New(actor.Config[int]{})
	defer q.ShutDown()
	items := q.Items()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() {
			for i := p; ; i += 4 {
				select {
				case <-stop:
					return
				default:
				}
				q.Add(i)
			}
		})
	}
	defer wg.Wait()
	defer close(stop)
	timeout := time.After(10 * time.Second)
	for got := 0; got < 1000; got++ {
		select {
		case item := <-items:
			q.Done(item)
		case <-timeout:
			t.Fatalf("the Items consumer got %d items in 10s while producers flooded the queue", got)
		}
	}
}
