package actor_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/actorq/actorq/actor"
)

func ExampleQueue_Get() {
	q := actor.New(actor.Config[string]{})
	q.Add("a")
	q.Add("b")
	q.Add("a") // already queued: ignored
	q.ShutDown()
	for {
		item, shutdown := q.Get() // queued items stay available after ShutDown
		if shutdown {
			break
		}
		fmt.Println(item)
		q.Done(item)
	}
	// Output:
	// a
	// b
}

// A worker pool: each worker runs the canonical loop until ShutDown.
func ExampleNew() {
	q := actor.New(actor.Config[int]{})
	var (
		mu  sync.Mutex
		sum int
		wg  sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for {
				n, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				sum += n
				mu.Unlock()
				q.Done(n)
			}
		})
	}
	for n := 1; n <= 100; n++ {
		q.Add(n)
	}
	q.ShutDownWithDrain() // waits for items handed out; Get drains the rest
	wg.Wait()
	fmt.Println(sum)
	// Output: 5050
}

// A consumer that selects on the items channel next to its context.
func ExampleQueue_Items() {
	q := actor.New(actor.Config[string]{})
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q.Add("job-1")
	q.Add("job-2")
	for handled := 0; ; {
		select {
		case job := <-q.Items():
			fmt.Println("handled", job)
			q.Done(job)
			if handled++; handled == 2 {
				cancel()
			}
		case <-ctx.Done():
			fmt.Println("stopped:", ctx.Err())
			return
		}
	}
	// Output:
	// handled job-1
	// handled job-2
	// stopped: context canceled
}

func ExampleQueue_GetBatch() {
	q := actor.New(actor.Config[int]{})
	defer q.ShutDown()
	for n := range 5 {
		q.Add(n)
	}
	buf := make([]int, 0, 3)
	items, _ := q.GetBatch(buf) // up to cap(buf) items, all processing
	fmt.Println(items)
	q.DoneBatch(items) // one message for all three
	items, _ = q.GetBatch(items)
	fmt.Println(items)
	q.DoneBatch(items)
	fmt.Println(q.Len())
	// Output:
	// [0 1 2]
	// [3 4]
	// 0
}

func ExampleQueue_GetContext() {
	q := actor.New(actor.Config[string]{})
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := q.GetContext(ctx) // nothing queued: returns when ctx ends
	fmt.Println(err)
	q.Add("a")
	item, err := q.GetContext(context.Background())
	fmt.Println(item, err)
	// Output:
	// context canceled
	// a <nil>
}

// Flow control per tenant: tenant "big" may hold one worker at a time,
// and "paid" gets two turns for each of the others'.
func ExampleKeyLimit() {
	tenant := func(item string) []string { return []string{item[:strings.IndexByte(item, '/')]} }
	q := actor.New(actor.Config[string]{
		Fairness: tenant,
		KeyLimits: []actor.KeyLimit{
			{Keys: []string{"big"}, Cap: 1},
			{Keys: []string{"paid"}, Weight: 2},
		},
	})
	defer q.ShutDown()
	for _, item := range []string{"big/1", "big/2", "paid/1", "paid/2", "paid/3", "free/1", "free/2"} {
		q.Add(item)
	}
	var got []string
	for range 6 { // nothing is Done: big stays at its cap after big/1
		item, _ := q.Get()
		got = append(got, item)
	}
	fmt.Println(got)
	q.Done("big/1") // big is below its cap again: big/2's turn comes
	item, _ := q.Get()
	fmt.Println(item)
	// Output:
	// [big/1 paid/1 paid/2 free/1 paid/3 free/2]
	// big/2
}

// Every tenant may start 2 items at once and 1 a second after that: once a
// tenant has spent its burst, its items wait for its next token while the
// other tenants' go on, and Len counts them as queued.
func ExampleLevelLimit() {
	tenant := func(item string) []string { return []string{item[:strings.IndexByte(item, '/')]} }
	q := actor.New(actor.Config[string]{
		Fairness:    tenant,
		LevelLimits: []actor.LevelLimit{{Rate: 1, Burst: 2}},
		KeyLimits:   []actor.KeyLimit{{Keys: []string{"vip"}}}, // vip's own limit: none
	})
	defer q.ShutDown()
	for _, item := range []string{"a/1", "a/2", "a/3", "vip/1", "vip/2", "vip/3"} {
		q.Add(item)
	}
	var got []string
	for range 5 {
		item, _ := q.Get()
		got = append(got, item)
	}
	fmt.Println(got, q.Len())
	// Output:
	// [a/1 vip/1 a/2 vip/2 vip/3] 1
}

// A worker whose call for a tenant is refused with a Retry-After pauses
// the tenant until then: the other tenants' items go on.
func ExampleQueue_PauseKey() {
	tenant := func(item string) []string { return []string{item[:strings.IndexByte(item, '/')]} }
	q := actor.New(actor.Config[string]{Fairness: tenant})
	defer q.ShutDown()
	for _, item := range []string{"a/1", "a/2", "b/1", "b/2"} {
		q.Add(item)
	}
	item, _ := q.Get() // a/1, refused: 429, Retry-After: 30s
	if err := q.PauseKey([]string{"a"}, time.Now().Add(30*time.Second)); err != nil {
		panic(err)
	}
	q.Add(item) // retried after the pause
	q.Done(item)
	var got []string
	for range 2 {
		item, _ := q.Get()
		got = append(got, item)
		q.Done(item)
	}
	fmt.Println(got, q.Len())
	// Output:
	// [b/1 b/2] 2
}

// Each cloud account gets an adaptive cap of up to 4 calls at once; a
// worker that gets a 429 reports it, and the account's cap falls to 3
// (once in its window, however many 429s come): with three of its objects
// processing, the one retried waits, and another account's go on.
func ExampleQueue_Throttled() {
	account := func(item string) []string { return []string{item[:strings.IndexByte(item, '/')]} }
	q := actor.New(actor.Config[string]{
		Fairness:    account,
		LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: 4, Window: time.Minute}}},
	})
	defer q.ShutDown()
	for _, item := range []string{"a/1", "a/2", "a/3", "a/4", "b/1"} {
		q.Add(item)
	}
	item, _ := q.Get() // a/1: the API answers 429
	for range 3 {
		if err := q.Throttled(item, time.Time{}); err != nil {
			panic(err)
		}
	}
	q.Add(item) // retried later
	q.Done(item)
	var got []string
	for range 4 {
		item, _ := q.Get()
		got = append(got, item)
	}
	a := q.Snapshot(10).AdaptiveKeys[0]
	fmt.Println(got, q.Len(), a.Keys, a.Cap, a.Throttles, a.Processing)
	// Output:
	// [b/1 a/2 a/3 a/4] 1 [a] 3 3 3
}

// A snapshot tells what is in the queue: how many items are in each state,
// and the first few of each. (This queue is unnamed, so it keeps no
// instants and shows no ages; a queue with a Name does.)
func ExampleQueue_Snapshot() {
	q := actor.New(actor.Config[string]{})
	defer q.ShutDown()
	q.AddWithOpts(actor.AddOpts{Priority: 1}, "urgent")
	q.Add("a")
	q.Add("b")
	q.AddAfter("later", time.Hour)
	item, _ := q.Get() // "urgent" is processing
	s := q.Snapshot(10)
	fmt.Println("ready:", s.Ready, "processing:", s.Processing, "delayed:", s.Delayed)
	fmt.Println("next:", s.ReadyItems[0].Item, "held:", s.ProcessingItems[0].Item, item)
	fmt.Println("due in:", s.DelayedItems[0].Deadline.Sub(s.Taken).Round(time.Minute))
	// Output:
	// ready: 2 processing: 1 delayed: 1
	// next: a held: urgent urgent
	// due in: 1h0m0s
}
