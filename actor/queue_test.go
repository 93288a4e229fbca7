package actor_test

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// drain calls ShutDownWithDrain in a goroutine and returns a channel closed
// when it returns, once the drain has begun.
func drain[T comparable](q *actor.Queue[T]) <-chan struct{} {
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		q.ShutDownWithDrain()
	}()
	synctest.Wait()
	return returned
}

// wantBlocked checks, once every goroutine of the bubble is blocked, that
// returned is not closed.
func wantBlocked(t *testing.T, returned <-chan struct{}, what string) {
	t.Helper()
	synctest.Wait()
	select {
	case <-returned:
		t.Fatalf("%s returned", what)
	default:
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
		{"Get during a drain returns the ready items, then shutdown at once", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			get(t, q, "a")
			drained := drain(q)
			get(t, q, "b")     // still ready
			wantShutdown(t, q) // a and b are processing: no wait for the drain
			if _, err := q.GetContext(context.Background()); !errors.Is(err, actor.ErrShutDown) {
				t.Fatalf("GetContext() during the drain: error %v; want ErrShutDown", err)
			}
			if items, shutdown := q.GetBatch(make([]string, 0, 4)); !shutdown || len(items) != 0 {
				t.Fatalf("GetBatch() during the drain = %v, %v; want [], true", items, shutdown)
			}
			wantBlocked(t, drained, "ShutDownWithDrain with a and b processing")
			q.Done("a")
			wantBlocked(t, drained, "ShutDownWithDrain with b processing")
			q.Done("b")
			<-drained
		}},
		{"a blocked Get is released when a drain begins", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			get(t, q, "a")
			res := make(chan bool, 1)
			go func() {
				_, shutdown := q.Get()
				res <- shutdown
			}()
			synctest.Wait()
			drained := drain(q)
			if !<-res {
				t.Fatal("Get() blocked before the drain did not report shutdown")
			}
			q.Done("a")
			<-drained
		}},
		{"an item added again while processing comes back at its Done after ShutDown", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			q.Add("c")
			get(t, q, "a")
			get(t, q, "b")
			q.Add("a") // dirty
			q.ShutDown()
			q.Add("d") // ignored
			wantLen(t, q, 1)
			get(t, q, "c")
			wantShutdown(t, q) // a and b processing, nothing ready
			q.Done("b")
			wantShutdown(t, q)
			q.Done("a")
			wantLen(t, q, 1)
			get(t, q, "a")
			q.Add("a") // ignored: shut down
			q.Done("a")
			wantShutdown(t, q)
			wantLen(t, q, 0)
		}},
		{"an item added again while processing comes back at its Done during a drain", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			get(t, q, "a")
			q.Add("a")
			drained := drain(q)
			wantShutdown(t, q) // nothing ready
			q.Done("a")        // a ready again; nothing processing: the drain ends
			<-drained
			get(t, q, "a")
			q.Done("a")
			wantShutdown(t, q)
		}},
		{"ShutDownWithDrain after ShutDown waits for the items processing", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			get(t, q, "a")
			q.ShutDown()
			drained := drain(q)
			wantBlocked(t, drained, "ShutDownWithDrain after ShutDown with a processing")
			get(t, q, "b")
			q.Done("a")
			wantBlocked(t, drained, "ShutDownWithDrain with b processing")
			q.ShutDown() // ends it
			<-drained
			q.Done("b")
			if got := q.Len(); got != 0 {
				t.Fatalf("Len() = %d; want 0", got)
			}
		}},
		{"ShutDownWithDrain with items ready and none processing returns at once", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			q.ShutDownWithDrain()
			wantLen(t, q, 2)
			get(t, q, "a")
			drained := drain(q) // a second drain waits for a
			wantBlocked(t, drained, "ShutDownWithDrain with a processing")
			q.Done("a")
			<-drained
			get(t, q, "b")
			q.Done("b")
			wantShutdown(t, q)
		}},
		{"every caller of ShutDownWithDrain returns, and ShutDown ends them all", func(t *testing.T, q *actor.Queue[string]) {
			q.Add("a")
			q.Add("b")
			get(t, q, "a")
			get(t, q, "b")
			var drains []<-chan struct{}
			for range 3 {
				drains = append(drains, drain(q))
			}
			q.Done("a")
			for _, d := range drains {
				wantBlocked(t, d, "ShutDownWithDrain with b processing")
			}
			q.Done("b")
			for _, d := range drains {
				<-d
			}
			// After the owner ended: a drain waiting in the callers'
			// goroutines, released by ShutDown.
			q.ShutDown()
			q.Add("c") // ignored
			wantShutdown(t, q)
		}},
		{"AddAfter of a practically infinite delay waits", func(t *testing.T, q *actor.Queue[string]) {
			q.AddAfter("never", math.MaxInt64)
			q.AddAfter("later", 200*365*24*time.Hour)
			time.Sleep(100 * 365 * 24 * time.Hour)
			wantLen(t, q, 0)
			q.Add("now")
			get(t, q, "now")
		}},
		{"Items offers the ready items during a drain and is closed when it ends", func(t *testing.T, q *actor.Queue[string]) {
			items := q.Items()
			q.Add("a")
			q.Add("b")
			q.Add("c")
			if item := <-items; item != "a" {
				t.Fatalf("<-Items() = %q; want a", item)
			}
			q.Add("a") // dirty
			drained := drain(q)
			if item := <-items; item != "b" {
				t.Fatalf("<-Items() during the drain = %q; want b", item)
			}
			q.Done("b")
			q.Done("a") // a ready again: nothing processing, the drain ends
			<-drained
			if _, ok := <-items; ok {
				t.Fatal("Items() open after the drain ended")
			}
			// What the channel no longer offers, Get hands out.
			get(t, q, "c")
			get(t, q, "a")
			wantShutdown(t, q)
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
		// As in client-go, the limiter is asked even once shutdown has
		// begun, and the add is ignored.
		q.ShutDown()
		q.AddRateLimited("a")
		if got := q.NumRequeues("a"); got != 1 {
			t.Fatalf("NumRequeues() after AddRateLimited after ShutDown = %d; want 1", got)
		}
		wantShutdown(t, q)
	})
}

// recordingStorage is a Storage that logs its calls.
type recordingStorage struct {
	mu    sync.Mutex
	log   []string
	items []string
}

func (r *recordingStorage) record(call, item string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, call+" "+item)
}

func (r *recordingStorage) calls() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := strings.Join(r.log, ", ")
	r.log = nil
	return out
}

func (r *recordingStorage) Touch(item string) { r.record("Touch", item) }
func (r *recordingStorage) Push(item string) {
	r.record("Push", item)
	r.items = append(r.items, item)
}
func (r *recordingStorage) Len() int { return len(r.items) }
func (r *recordingStorage) Pop() string {
	item := r.items[0]
	r.items = r.items[1:]
	r.record("Pop", item)
	return item
}

// TestCustomStorageCalls checks that a custom Storage sees client-go's
// calls, no more and no fewer: Push when an item becomes ready, Touch
// when an item that is ready and not processing is added again, Pop when a
// consumer takes the next item, before and after shutdown; and that a
// caller's Done is never applied before its own earlier Add.
func TestCustomStorageCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &recordingStorage{}
		q := actor.New(actor.Config[string]{Storage: st})
		defer q.ShutDown()
		step := func(want string, f func()) {
			t.Helper()
			f()
			q.Len()
			if got := st.calls(); got != want {
				t.Fatalf("Storage calls = %q; want %q", got, want)
			}
		}
		step("Push a, Push b, Touch a", func() { q.Add("a"); q.Add("b"); q.Add("a") })
		step("Pop a", func() { get(t, q, "a") })
		step("", func() { q.Add("a"); q.Add("a") })                    // processing: no Touch
		step("Push a", func() { q.Add("a"); q.Add("a"); q.Done("a") }) // never Done before Add
		step("Touch b, Pop b, Pop a", func() { q.Add("b"); get(t, q, "b"); get(t, q, "a") })
		step("Push c", func() { q.Add("a"); q.Add("c") }) // a processing: dirty
		step("Pop c", func() { q.ShutDown(); get(t, q, "c") })
		step("", func() { wantShutdown(t, q) })
		step("Push a", func() { q.Done("a") }) // dirty: ready again
		step("Pop a", func() { get(t, q, "a") })
		step("", func() { q.Done("a"); q.Done("b"); q.Done("c"); wantShutdown(t, q) })
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
				waitFor(t, "the owner goroutines of earlier queues did not end", func() bool {
					n, _ := ownerGoroutines()
					return n == 0
				})
				q := actor.New(actor.Config[int]{})
				tc.fill(q)
				q.Len() // the owner goroutine has started: it answered
				if n, _ := ownerGoroutines(); n != 1 {
					t.Fatalf("%d owner goroutines while the queue runs; want 1", n)
				}
				// The check below can fail: an owner waiting for work is
				// seen blocked.
				waitFor(t, "the owner goroutine of an idle queue was not seen blocked in its select", func() bool {
					_, blocked := ownerGoroutines()
					return blocked == 1
				})
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
	waitFor(t, "the owner goroutines of earlier queues did not end", func() bool {
		n, _ := ownerGoroutines()
		return n == 0
	})
	func() {
		q := actor.New(actor.Config[int]{})
		q.Add(1)
		q.AddAfter(2, time.Hour)
		q.Len() // the owner goroutine has started: it answered
		if n, _ := ownerGoroutines(); n != 1 {
			t.Fatalf("%d owner goroutines while the queue is held; want 1", n)
		}
		runtime.KeepAlive(q)
	}()
	waitCollected(t, "the owner goroutine of a dropped queue did not end", func() bool {
		n, _ := ownerGoroutines()
		return n == 0
	})
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
	timeout := time.After(waitLimit)
	for got := 0; got < 1000; got++ {
		select {
		case item := <-items:
			q.Done(item)
		case <-timeout:
			t.Fatalf("the Items consumer got %d items of 1000 in %v while producers flooded the queue", got, waitLimit)
		}
	}
}
