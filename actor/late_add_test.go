package actor_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// blockingKeys is a Config.Fairness that, while armed, blocks the call for
// the item "late" until released: an add of it stops between its shutdown
// check and its request, the window in which a ShutDown can begin.
type blockingKeys struct {
	armed   bool
	entered chan struct{} // receives once the call for "late" blocks
	release chan struct{} // closed to let it go on
}

func newBlockingKeys() *blockingKeys {
	return &blockingKeys{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (b *blockingKeys) keys(item string) []string {
	if item == "late" && b.armed {
		b.entered <- struct{}{}
		<-b.release
	}
	return []string{"k"}
}

// zeroDelay is a rate limiter whose delay is always 0, so that
// AddRateLimited adds at once.
type zeroDelay struct{}

func (zeroDelay) When(string) time.Duration { return 0 }
func (zeroDelay) Forget(string)             {}
func (zeroDelay) NumRequeues(string) int    { return 0 }

// TestLateAddIgnored: an add that checked for shutdown before ShutDown or
// ShutDownWithDrain began, but reaches the queue after a Get has reported
// shutdown, does nothing, whichever way it was made, whichever shutdown
// raced it, and whichever way items travel: Len stays 0 and the next Get
// reports shutdown (issue 34). The add stops inside the queue's Fairness
// function, which it calls after its shutdown check, until the test lets
// it go.
func TestLateAddIgnored(t *testing.T) {
	adds := []struct {
		name string
		add  func(q *actor.Queue[string])
	}{
		{"Add", func(q *actor.Queue[string]) { q.Add("late") }},
		{"AddAfter(0)", func(q *actor.Queue[string]) { q.AddAfter("late", 0) }},
		{"AddAfter(-1s)", func(q *actor.Queue[string]) { q.AddAfter("late", -time.Second) }},
		{"AddAfter(1s)", func(q *actor.Queue[string]) { q.AddAfter("late", time.Second) }},
		{"AddWithOpts one", func(q *actor.Queue[string]) { q.AddWithOpts(actor.AddOpts{Priority: 1}, "late") }},
		{"AddWithOpts list", func(q *actor.Queue[string]) { q.AddWithOpts(actor.AddOpts{}, "other", "late") }},
		{"AddWithOpts delayed", func(q *actor.Queue[string]) {
			q.AddWithOpts(actor.AddOpts{After: time.Second}, "late")
		}},
		{"AddRateLimited", func(q *actor.Queue[string]) { q.AddRateLimited("late") }},
	}
	shutdowns := []struct {
		name string
		busy bool // an item is processing, so that a drain waits
		stop func(q *actor.Queue[string]) (wait func())
	}{
		{"ShutDown", false, func(q *actor.Queue[string]) func() { q.ShutDown(); return func() {} }},
		{"ShutDownWithDrain idle", false, func(q *actor.Queue[string]) func() { q.ShutDownWithDrain(); return func() {} }},
		{"ShutDownWithDrain busy", true, func(q *actor.Queue[string]) func() {
			returned := make(chan struct{})
			go func() {
				defer close(returned)
				q.ShutDownWithDrain()
			}()
			return func() { <-returned }
		}},
	}
	// How items travel: Get's lane (the default), the owner's hand-out to
	// every call once Items was called, and the late item with an entry
	// in the duplicate filter.
	ways := []string{"lane", "items", "hot"}
	for _, a := range adds {
		for _, sd := range shutdowns {
			for _, way := range ways {
				t.Run(fmt.Sprintf("%s/%s/%s", a.name, sd.name, way), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						lateAdd(t, a.add, sd.busy, sd.stop, way)
					})
				})
			}
		}
	}
}

func lateAdd(t *testing.T, add func(*actor.Queue[string]), busy bool, stop func(*actor.Queue[string]) func(), way string) {
	b := newBlockingKeys()
	q := actor.New(actor.Config[string]{Fairness: b.keys, RateLimiter: zeroDelay{}})
	defer q.ShutDown()
	switch way {
	case "items":
		q.Items() // turns the lane off
	case "hot":
		// An Add found a duplicate: "late" has a filter entry, kept
		// after it leaves the queue.
		q.Add("late")
		q.Add("late")
		mustGet(t, q, "late")
		q.Done("late")
	}
	if busy {
		q.Add("busy")
		mustGet(t, q, "busy")
	}
	b.armed = true
	added := make(chan struct{})
	go func() {
		defer close(added)
		add(q)
	}()
	<-b.entered // past its shutdown check, held before its request
	wait := stop(q)
	synctest.Wait()
	if item, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get() = %q, false after the shutdown began with nothing ready; want shutdown", item)
	}
	close(b.release)
	<-added
	synctest.Wait()
	if n := q.Len(); n != 0 {
		t.Errorf("Len() = %d after a late add; want 0", n)
	}
	if item, shutdown := q.Get(); !shutdown {
		t.Errorf("Get() = %q, false after a late add; want shutdown", item)
	}
	if busy {
		q.Done("busy")
	}
	wait()
	q.ShutDown()
	if n := q.Len(); n != 0 {
		t.Errorf("Len() = %d after ShutDown; want 0", n)
	}
	if item, shutdown := q.Get(); !shutdown {
		t.Errorf("Get() = %q, false after ShutDown; want shutdown", item)
	}
}
