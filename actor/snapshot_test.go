package actor_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// epoch is the instant a synctest bubble starts at.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func info(item, state string, prio int, age time.Duration) actor.ItemInfo[string] {
	return actor.ItemInfo[string]{Item: item, State: state, Priority: prio, Age: age}
}

// TestSnapshotStates: a snapshot counts every state and lists its items
// with their ages, requeues and deadlines, oldest first.
func TestSnapshotStates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Name: "snap-states"})
		defer q.ShutDown()
		q.Add("a")
		q.Add("b")
		q.Add("c")
		time.Sleep(time.Second)
		q.Add("d")
		if item, _ := q.Get(); item != "a" {
			t.Fatalf("Get() = %q; want a", item)
		}
		time.Sleep(2 * time.Second)
		q.Add("a")                     // processing and added again
		q.AddAfter("e", 5*time.Second) // due at 8s
		q.AddRateLimited("f")          // the default limiter's first delay: 5ms
		synctest.Wait()

		got := utc(q.Snapshot(10))
		f := actor.ItemInfo[string]{Item: "f", State: "delayed", Requeues: 1, Deadline: epoch.Add(3*time.Second + 5*time.Millisecond)}
		e := actor.ItemInfo[string]{Item: "e", State: "delayed", Deadline: epoch.Add(8 * time.Second)}
		want := actor.Snapshot[string]{
			Name:            "snap-states",
			Taken:           epoch.Add(3 * time.Second),
			Ready:           3,
			ReadyByPriority: []actor.PriorityCount{{Priority: 0, Count: 3}},
			Processing:      1,
			AddedAgain:      1,
			Delayed:         2,
			ReadyItems: []actor.ItemInfo[string]{
				info("b", "ready", 0, 3*time.Second),
				info("c", "ready", 0, 3*time.Second),
				info("d", "ready", 0, 2*time.Second),
			},
			ProcessingItems: []actor.ItemInfo[string]{info("a", "processing+dirty", 0, 2*time.Second)},
			DelayedItems:    []actor.ItemInfo[string]{f, e},
		}
		if got.ID == 0 {
			t.Fatal("a named queue's snapshot has ID 0")
		}
		want.ID = got.ID
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Snapshot(10) =\n%+v\nwant\n%+v", got, want)
		}

		// n bounds each list; 0 gives the counts only.
		one := q.Snapshot(1)
		if len(one.ReadyItems) != 1 || one.ReadyItems[0].Item != "b" || len(one.ProcessingItems) != 1 ||
			len(one.DelayedItems) != 1 || one.DelayedItems[0].Item != "f" {
			t.Fatalf("Snapshot(1) = %+v; want b, a, f", one)
		}
		for _, n := range []int{0, -1} {
			none := q.Snapshot(n)
			if len(none.ReadyItems)+len(none.ProcessingItems)+len(none.DelayedItems) != 0 || none.Ready != 3 || none.Delayed != 2 {
				t.Fatalf("Snapshot(%d) = %+v; want the counts and no items", n, none)
			}
		}

		// The deadline passes: f is ready, its age counted from the
		// deadline.
		time.Sleep(time.Second)
		got = q.Snapshot(10)
		if got.Ready != 4 || got.Delayed != 1 {
			t.Fatalf("after f's deadline: ready %d, delayed %d; want 4, 1", got.Ready, got.Delayed)
		}
		last := got.ReadyItems[3]
		if wantF := (actor.ItemInfo[string]{Item: "f", State: "ready", Requeues: 1, Age: time.Second - 5*time.Millisecond}); !reflect.DeepEqual(last, wantF) {
			t.Fatalf("f = %+v; want %+v", last, wantF)
		}
	})
}

// utc returns s with its times in UTC, to compare with DeepEqual (the
// bubble's clock gives times in the Local location).
func utc[T comparable](s actor.Snapshot[T]) actor.Snapshot[T] {
	s.Taken = s.Taken.UTC()
	for i := range s.DelayedItems {
		s.DelayedItems[i].Deadline = s.DelayedItems[i].Deadline.UTC()
	}
	return s
}

// TestSnapshotOrder: with priorities and fairness, ready items come by
// priority, highest first, then key by key in the order of the keys'
// turns, each key's oldest first; with the keys of each item.
func TestSnapshotOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Name: "snap-order", Fairness: tenantOf})
		defer q.ShutDown()
		q.AddWithOpts(actor.AddOpts{}, "b-1", "a-1", "b-2")
		time.Sleep(time.Second)
		q.AddWithOpts(actor.AddOpts{Priority: 10}, "c-1", "a-2")
		q.AddWithOpts(actor.AddOpts{Priority: -5}, "a-3")
		got := q.Snapshot(10)
		var items []string
		for _, it := range got.ReadyItems {
			items = append(items, fmt.Sprintf("%s/%d/%v/%v", it.Item, it.Priority, it.Keys, it.Age))
		}
		want := []string{"c-1/10/[c]/0s", "a-2/10/[a]/0s", "b-1/0/[b]/1s", "b-2/0/[b]/1s", "a-1/0/[a]/1s", "a-3/-5/[a]/0s"}
		if !slices.Equal(items, want) {
			t.Fatalf("ready items %q; want %q", items, want)
		}
		wantCounts := []actor.PriorityCount{{10, 2}, {0, 3}, {-5, 1}}
		if got.Ready != 6 || !slices.Equal(got.ReadyByPriority, wantCounts) {
			t.Fatalf("ready %d by priority %v; want 6 %v", got.Ready, got.ReadyByPriority, wantCounts)
		}
		// A raised item is listed once, at its new priority.
		q.AddWithOpts(actor.AddOpts{Priority: 20}, "b-2")
		got = q.Snapshot(2)
		if got.ReadyItems[0].Item != "b-2" || got.ReadyItems[0].Priority != 20 || got.ReadyItems[1].Item != "c-1" {
			t.Fatalf("after raising b-2: %v; want b-2 at 20, then c-1", got.ReadyItems)
		}
		n := 0
		for _, it := range q.Snapshot(10).ReadyItems {
			if it.Item == "b-2" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("b-2 listed %d times; want once", n)
		}
	})
}

// TestSnapshotLongestProcessingFirst: processing items come longest
// processing first; an unnamed queue keeps no instants, so shows no ages.
func TestSnapshotLongestProcessingFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, name := range []string{"snap-proc", ""} {
			q := actor.New(actor.Config[int]{Name: name})
			for i := range 5 {
				q.Add(i)
			}
			for range 5 {
				q.Get()
				time.Sleep(time.Second)
			}
			var got []string
			for _, it := range q.Snapshot(3).ProcessingItems {
				got = append(got, fmt.Sprint(it.Item, " ", it.Age))
			}
			want := []string{"0 5s", "1 4s", "2 3s"}
			if name == "" {
				// No instants: the order of the map, and no ages.
				for i := range got {
					got[i] = got[i][strings.IndexByte(got[i], ' '):]
				}
				want = []string{" 0s", " 0s", " 0s"}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("queue %q: processing %q; want %q", name, got, want)
			}
			q.ShutDown()
		}
	})
}

// TestSnapshotAfterShutDown: a snapshot answers after shutdown, from what
// is left, and a named queue leaves the list at ShutDown.
func TestSnapshotAfterShutDown(t *testing.T) {
	for _, drain := range []bool{false, true} {
		t.Run(fmt.Sprint("drain=", drain), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := actor.New(actor.Config[string]{Name: "snap-shutdown"})
				q.Add("a")
				q.Add("b")
				q.AddAfter("c", time.Hour)
				if !listed(q, "snap-shutdown") {
					t.Fatal("NamedQueues() does not list the queue")
				}
				if drain {
					q.ShutDownWithDrain()
				} else {
					q.ShutDown()
				}
				if listed(q, "snap-shutdown") {
					t.Fatal("NamedQueues() lists the queue after its shutdown")
				}
				s := q.Snapshot(5)
				if !s.ShuttingDown || s.Ready != 2 || s.Delayed != 0 || len(s.ReadyItems) != 2 || s.ReadyItems[0].Item != "a" {
					t.Fatalf("Snapshot(5) after shutdown = %+v; want a and b ready, nothing delayed", s)
				}
				q.Get()
				if s := q.Snapshot(5); s.Ready != 1 || s.Processing != 1 {
					t.Fatalf("after a Get: %+v; want 1 ready, 1 processing", s)
				}
			})
		})
	}
}

// listed reports whether NamedQueues lists a queue named name.
func listed[T comparable](_ *actor.Queue[T], name string) bool {
	for _, nq := range actor.NamedQueues() {
		if nq.Name == name {
			return true
		}
	}
	return false
}

// TestNamedQueues: the registry lists named queues in the order they were
// made, answers their snapshots with items as any, and keeps no queue
// alive: a queue dropped without ShutDown leaves once collected.
func TestNamedQueues(t *testing.T) {
	a := actor.New(actor.Config[int]{Name: "reg-a"})
	defer a.ShutDown()
	unnamed := actor.New(actor.Config[int]{})
	defer unnamed.ShutDown()
	b := actor.New(actor.Config[string]{Name: "reg-b"})
	defer b.ShutDown()
	a.Add(7)
	b.Add("x")

	var names []string
	var ids []uint64
	var items []any
	for _, nq := range actor.NamedQueues() {
		if strings.HasPrefix(nq.Name, "reg-") {
			names = append(names, nq.Name)
			ids = append(ids, nq.ID)
			items = append(items, nq.Snapshot(1).ReadyItems[0].Item)
		}
	}
	if !slices.Equal(names, []string{"reg-a", "reg-b"}) || ids[0] >= ids[1] || !slices.Equal(items, []any{7, "x"}) {
		t.Fatalf("named queues %v %v with items %v; want reg-a, reg-b, in order, with 7 and x", names, ids, items)
	}

	func() {
		dropped := actor.New(actor.Config[int]{Name: "reg-dropped"})
		dropped.Add(1)
		if !listed(dropped, "reg-dropped") {
			t.Fatal("a held queue named reg-dropped is not listed")
		}
		runtime.KeepAlive(dropped)
	}()
	waitCollected(t, "a dropped queue did not leave the registry", func() bool { return !listed[int](nil, "reg-dropped") })
}

// TestSnapshotJSON: a snapshot encodes to JSON with its fields' names.
func TestSnapshotJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Name: "snap-json"})
		defer q.ShutDown()
		q.Add("a")
		q.AddAfter("b", time.Second)
		s := utc(q.Snapshot(5))
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"name":"snap-json","id":` + fmt.Sprint(s.ID) + `,"taken":"2000-01-01T00:00:00Z","shuttingDown":false,"ready":1,"readyByPriority":[{"priority":0,"count":1}],"processing":0,"addedAgain":0,"delayed":1,` +
			`"readyItems":[{"item":"a","state":"ready","priority":0,"age":0,"requeues":0}],"processingItems":[],` +
			`"delayedItems":[{"item":"b","state":"delayed","priority":0,"age":0,"requeues":0,"deadline":"2000-01-01T00:00:01Z"}]}`
		if string(data) != want {
			t.Fatalf("JSON:\n%s\nwant\n%s", data, want)
		}
	})
}

// TestSnapshotRace: snapshots taken while producers and consumers run
// see counts that add up, and lists no longer than asked; after the
// shutdown, nothing is left.
func TestSnapshotRace(t *testing.T) {
	q := actor.New(actor.Config[int]{Name: "snap-race", Fairness: func(i int) []string { return []string{fmt.Sprint(i % 3)} }})
	const n, producers, consumers = 20000, 4, 4
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := p; i < n; i += producers {
				if i%10 == 0 {
					q.AddAfter(i, time.Millisecond)
				} else {
					q.Add(i)
				}
			}
		})
	}
	var cwg sync.WaitGroup
	for range consumers {
		cwg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(item)
			}
		})
	}
	done := make(chan struct{})
	var snaps int
	go func() {
		defer close(done)
		for !q.ShuttingDown() {
			s := q.Snapshot(8)
			snaps++
			sum := 0
			for _, c := range s.ReadyByPriority {
				sum += c.Count
			}
			if sum != s.Ready || len(s.ReadyItems) > min(8, s.Ready) || len(s.ProcessingItems) > min(8, s.Processing) ||
				len(s.DelayedItems) > min(8, s.Delayed) || s.AddedAgain > s.Processing {
				t.Errorf("inconsistent snapshot %+v", s)
				return
			}
		}
	}()
	within(t, "the producers did not return from their Adds", wg.Wait)
	waitFor(t, "the queue did not empty (nothing ready, nothing delayed)", func() bool { return q.Len() == 0 && q.Snapshot(0).Delayed == 0 })
	within(t, "ShutDownWithDrain did not return, or the consumers or the snapshots did not end", func() {
		q.ShutDownWithDrain()
		cwg.Wait()
		<-done
	})
	s := q.Snapshot(8)
	if s.Ready+s.Processing+s.Delayed != 0 || snaps == 0 {
		t.Fatalf("after the drain: %+v (%d snapshots taken); want an empty queue", s, snaps)
	}
}
