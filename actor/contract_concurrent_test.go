package actor_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// A consumer takes items one way, processes each, and finishes them.
type consumer struct {
	name string
	// run takes items until the queue reports shutdown, calls handle with
	// each, in the order taken, and Done after.
	run func(q *actor.Queue[int], handle func(int))
}

// consumers are the ways of taking items, each as a consumer loop.
var consumers = []consumer{
	{"Get", func(q *actor.Queue[int], handle func(int)) {
		for {
			item, shutdown := q.Get()
			if shutdown {
				return
			}
			handle(item)
			q.Done(item)
		}
	}},
	{"GetWithPriority", func(q *actor.Queue[int], handle func(int)) {
		for {
			item, _, shutdown := q.GetWithPriority()
			if shutdown {
				return
			}
			handle(item)
			q.Done(item)
		}
	}},
	{"GetContext", func(q *actor.Queue[int], handle func(int)) {
		for {
			item, err := q.GetContext(context.Background())
			if err != nil {
				return
			}
			handle(item)
			q.Done(item)
		}
	}},
	{"GetBatch", func(q *actor.Queue[int], handle func(int)) {
		buf := make([]int, 0, 3)
		for {
			items, shutdown := q.GetBatch(buf)
			if shutdown {
				return
			}
			for _, item := range items {
				handle(item)
			}
			q.DoneBatch(items)
		}
	}},
	{"Items", func(q *actor.Queue[int], handle func(int)) {
		for item := range q.Items() {
			handle(item)
			q.Done(item)
		}
		for { // what is still ready once the channel is closed
			item, shutdown := q.Get()
			if shutdown {
				return
			}
			handle(item)
			q.Done(item)
		}
	}},
}

// TestContractConcurrent holds concurrent consumers of every kind to the
// bounds the contract documents, under the race detector: with the exact
// order of the model (spec) at hand, no item comes out more than L-1
// places early for the L items the lane offers (plus those that other
// consumers had taken and not yet reported); no item is lost, handed out
// twice, or held by two consumers at once; no cap is ever exceeded; and
// by work time, on synctest's clock, each key gets its weight's share of
// the consumers' time within the items offered ahead.
func TestContractConcurrent(t *testing.T) {
	t.Run("order", testConcurrentOrder)
	t.Run("caps", testConcurrentCaps)
	t.Run("work", testConcurrentWork)
}

// testConcurrentOrder: items at two levels of keys, with weights, all
// added before four consumers start (Get, GetWithPriority, GetContext,
// GetBatch: the lane is on), so that the model's order is fixed; each
// consumer reports an item as it takes it. An item comes early by the
// items the model hands out before it that are reported after it.
func testConcurrentOrder(t *testing.T) {
	const n, workers = 600, 4
	keys := contractKeys(2)
	limits := []actor.KeyLimit{{Keys: []string{"t1"}, Weight: 3}, {Keys: []string{"t2", "n0"}, Weight: 2}}
	q := actor.New(actor.Config[int]{Fairness: keys, KeyLimits: limits})
	m := newSpec(2, false, false, keys, nil)
	for _, l := range limits {
		m.setLimit(l.Keys, specLimit(l))
	}
	for i := range n {
		q.Add(i)
		m.add(i, 0)
	}
	if got := q.Len(); got != n {
		t.Fatalf("Len() = %d; want %d", got, n)
	}
	place := make([]int, n) // each item's place in the model's order
	for i := range n {
		item, _, _ := m.get()
		place[item] = i
	}
	var ticket atomic.Int64
	got := make([]int, n)
	var wg sync.WaitGroup
	for _, c := range consumers[:workers] {
		wg.Go(func() {
			c.run(q, func(item int) {
				if i := ticket.Add(1) - 1; i < n {
					got[i] = item
				}
			})
		})
	}
	waitFor(t, "the consumers did not take every item", func() bool { return ticket.Load() >= n })
	within(t, "ShutDown did not return, or the consumers did not end", func() {
		q.ShutDown()
		wg.Wait()
	})
	if ticket.Load() != n {
		t.Fatalf("%d items taken; want %d", ticket.Load(), n)
	}
	seen := make([]bool, n)
	for _, item := range got {
		if seen[item] {
			t.Fatalf("item %d taken twice", item)
		}
		seen[item] = true
	}
	bound := workers*actor.FairPerGet - 1 + workers - 1
	for a, x := range got {
		early := 0
		for _, y := range got[a+1:] {
			if place[y] < place[x] {
				early++
			}
		}
		if early > bound {
			t.Fatalf("item %d (the model's %d-th) taken %d-th, %d places early; want at most %d", x, place[x], a, early, bound)
		}
	}
}

// testConcurrentCaps: producers add items at two levels of keys with caps
// and weights on both levels, while consumers of every kind take them,
// with both requeue rules: every item is processed once, by one consumer
// at a time, and no key ever has more items in its consumers' hands than
// its cap.
func testConcurrentCaps(t *testing.T) {
	for _, requeue := range []actor.Requeue{actor.RequeueAtDone, actor.RequeueAtAdd} {
		t.Run(fmt.Sprint("requeue=", requeue), func(t *testing.T) {
			const producers, perProducer = 3, 400
			keys := contractKeys(2)
			caps := map[string]int{"t0": 1, "t1": 3, "t2/n1": 1}
			q := actor.New(actor.Config[int]{
				Fairness: keys, Requeue: requeue,
				KeyLimits: []actor.KeyLimit{
					{Keys: []string{"t0"}, Cap: 1},
					{Keys: []string{"t1"}, Cap: 3, Weight: 2},
					{Keys: []string{"t2", "n1"}, Cap: 1, Weight: 3},
				},
			})
			var mu sync.Mutex
			holding := map[string]int{}
			inHand := map[int]bool{}
			processed := map[int]int{}
			var wg sync.WaitGroup
			for _, c := range consumers {
				wg.Go(func() {
					c.run(q, func(item int) {
						path := strings.Join(keys(item), "/")
						mu.Lock()
						if inHand[item] {
							t.Errorf("%s: item %d taken while another consumer holds it", c.name, item)
						}
						inHand[item] = true
						for _, k := range []string{path[:2], path} {
							if holding[k]++; caps[k] > 0 && holding[k] > caps[k] {
								t.Errorf("%s: %d items of %s in hand; cap %d", c.name, holding[k], k, caps[k])
							}
						}
						mu.Unlock()
						time.Sleep(time.Duration(item%3) * time.Microsecond)
						mu.Lock()
						delete(inHand, item)
						for _, k := range []string{path[:2], path} {
							holding[k]--
						}
						processed[item]++
						mu.Unlock()
					})
				})
			}
			var pw sync.WaitGroup
			for p := range producers {
				pw.Go(func() {
					for i := range perProducer {
						q.Add(p*perProducer + i)
					}
				})
			}
			within(t, "the producers did not return from their Adds", pw.Wait)
			waitFor(t, "the consumers did not process every item", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(processed) == producers*perProducer
			})
			within(t, "ShutDownWithDrain did not return, or the consumers did not end", func() {
				q.ShutDownWithDrain()
				wg.Wait()
			})
			for item, n := range processed {
				if n != 1 {
					t.Errorf("item %d processed %d times; want once", item, n)
				}
			}
		})
	}
}

// testConcurrentWork: fairness by work time with four consumers on
// synctest's clock (Get, GetWithPriority, GetContext, and Get again: a
// GetBatch's items are all handed out at once, so the later ones' work
// time counts the wait for the earlier), items of tenant t0 taking 8 ms,
// of t1 1 ms and of t2 2 ms, t2 of weight 2: each tenant's share of the
// consumers' time is its weight's, within the items offered ahead (four
// per consumer) and in hand, at 8 ms each, against the time of the run.
func testConcurrentWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const workers = 4
		keys := contractKeys(1)
		q := actor.New(actor.Config[int]{
			Fairness: keys, FairByWorkTime: true,
			KeyLimits: []actor.KeyLimit{{Keys: []string{"t2"}, Weight: 2}},
		})
		cost := map[string]time.Duration{"t0": 8 * time.Millisecond, "t1": time.Millisecond, "t2": 2 * time.Millisecond}
		want := map[string]float64{"t0": 0.25, "t1": 0.25, "t2": 0.5}
		for i := range 9000 { // more than any tenant can take in the run
			q.Add(i)
		}
		var mu sync.Mutex
		spent := map[string]time.Duration{}
		var wg sync.WaitGroup
		start := time.Now()
		for _, c := range []consumer{consumers[0], consumers[1], consumers[2], consumers[0]} {
			wg.Go(func() {
				c.run(q, func(item int) {
					if time.Since(start) >= 2*time.Second {
						return // the run is over: hand it back unprocessed, as a shutdown would
					}
					tenant := keys(item)[0]
					time.Sleep(cost[tenant])
					mu.Lock()
					spent[tenant] += cost[tenant]
					mu.Unlock()
				})
			})
		}
		time.Sleep(2 * time.Second)
		q.ShutDown()
		wg.Wait()
		var total time.Duration
		for _, d := range spent {
			total += d
		}
		slack := float64(workers*(actor.FairPerGet+1)*8*time.Millisecond) / float64(total)
		for tenant, w := range want {
			if got := float64(spent[tenant]) / float64(total); math.Abs(got-w) > slack {
				t.Errorf("tenant %s got %.3f of the consumers' time; want %.2f±%.3f (spent %v)", tenant, got, w, slack, spent)
			}
		}
	})
}
