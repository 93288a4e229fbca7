package actor_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// tenantOf is the fairness function of these tests: "a-1" has the key
// "a".
func tenantOf(item string) []string { return []string{item[:strings.IndexByte(item, '-')]} }

func cappedQueue(limits ...actor.KeyLimit) *actor.Queue[string] {
	return actor.New(actor.Config[string]{Fairness: tenantOf, KeyLimits: limits})
}

func capOf(key string, cap int) actor.KeyLimit { return actor.KeyLimit{Keys: []string{key}, Cap: cap} }

// TestKeyCapEveryWayOfTaking: a key at its cap is passed over by Get,
// GetContext, GetBatch and the items channel alike, until one of its items
// is Done.
func TestKeyCapEveryWayOfTaking(t *testing.T) {
	take := map[string]func(q *actor.Queue[string]) string{
		"Get": func(q *actor.Queue[string]) string { item, _ := q.Get(); return item },
		"GetContext": func(q *actor.Queue[string]) string {
			item, _ := q.GetContext(context.Background())
			return item
		},
		"GetBatch": func(q *actor.Queue[string]) string {
			items, _ := q.GetBatch(make([]string, 0, 1))
			return items[0]
		},
		"Items": func(q *actor.Queue[string]) string { return <-q.Items() },
	}
	for name, get := range take {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := cappedQueue(capOf("a", 1))
				defer q.ShutDown()
				for _, item := range []string{"a-1", "a-2", "b-1", "b-2"} {
					q.Add(item)
				}
				var got []string
				for range 3 {
					got = append(got, get(q))
				}
				if want := []string{"a-1", "b-1", "b-2"}; !slices.Equal(got, want) {
					t.Fatalf("hand-outs %q; want %q", got, want)
				}
				// a-2 waits for a-1's Done.
				var next atomic.Value
				go func() { next.Store(get(q)) }()
				synctest.Wait()
				if next.Load() != nil {
					t.Fatalf("handed out %v while a was at its cap", next.Load())
				}
				q.Done("a-1")
				synctest.Wait()
				if got := next.Load(); got != "a-2" {
					t.Fatalf("after Done(a-1): %v; want a-2", got)
				}
				if n := q.Len(); n != 0 {
					t.Fatalf("Len() = %d; want 0", n)
				}
			})
		})
	}
}

// TestKeyCapChangedWhileRunning: raising a cap releases a Get waiting for
// the key's items at once; lowering it below what is processing holds
// the key back until enough are Done; weights change its turns.
func TestKeyCapChangedWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := cappedQueue(capOf("a", 1))
		defer q.ShutDown()
		for _, item := range []string{"a-1", "a-2", "a-3", "a-4", "a-5"} {
			q.Add(item)
		}
		mustGet(t, q, "a-1")
		done := make(chan string)
		go func() { item, _ := q.Get(); done <- item }()
		synctest.Wait()
		select {
		case item := <-done:
			t.Fatalf("Get() = %q with a at its cap", item)
		default:
		}
		if err := q.SetKeyLimit(capOf("a", 3)); err != nil {
			t.Fatal(err)
		}
		if item := <-done; item != "a-2" {
			t.Fatalf("Get() = %q after the cap was raised; want a-2", item)
		}
		mustGet(t, q, "a-3") // 3 processing: at the new cap
		if err := q.SetKeyLimit(capOf("a", 1)); err != nil {
			t.Fatal(err)
		}
		q.Done("a-1")
		q.Done("a-2") // 1 processing: still at the cap
		go func() { item, _ := q.Get(); done <- item }()
		synctest.Wait()
		select {
		case item := <-done:
			t.Fatalf("Get() = %q with a at its lowered cap", item)
		default:
		}
		q.Done("a-3")
		if item := <-done; item != "a-4" {
			t.Fatalf("Get() = %q; want a-4", item)
		}
	})
}

// TestKeyWeights: a key of weight 3 gets three hand-outs for each of a
// key of weight 1, in a row, while both have items ready; a weight set
// while the queue runs takes effect at the key's next turn.
func TestKeyWeights(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Fairness: tenantOf, KeyLimits: []actor.KeyLimit{{Keys: []string{"p"}, Weight: 3}}})
		defer q.ShutDown()
		for i := range 6 {
			q.Add(fmt.Sprint("p-", i))
			q.Add(fmt.Sprint("f-", i))
		}
		var got []string
		for range 8 {
			item, _ := q.Get()
			got = append(got, item[:1])
			q.Done(item)
		}
		if want := strings.Split("pppfpppf", ""); !slices.Equal(got, want) {
			t.Fatalf("keys handed out %q; want %q", got, want)
		}
		if err := q.SetKeyLimit(actor.KeyLimit{Keys: []string{"f"}, Weight: 2}); err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for range 4 {
			item, _ := q.Get()
			got = append(got, item)
			q.Done(item)
		}
		if want := []string{"f-2", "f-3", "f-4", "f-5"}; !slices.Equal(got, want) {
			t.Fatalf("after f's weight became 2: %q; want %q", got, want)
		}
	})
}

// TestKeyCapWithDelays: an item whose delay ends while its key is at its
// cap waits for the key's Done; AddRateLimited of a processing item of a
// capped key is handed out after its Done and its delay.
func TestKeyCapWithDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Fairness: tenantOf, KeyLimits: []actor.KeyLimit{capOf("a", 1)},
			RateLimiter: fixedLimiter{time.Second}})
		defer q.ShutDown()
		q.Add("a-1")
		mustGet(t, q, "a-1")
		q.AddAfter("a-2", time.Second)
		q.AddAfter("b-1", 2*time.Second)
		time.Sleep(3 * time.Second)
		if n := q.Len(); n != 2 {
			t.Fatalf("Len() = %d after the deadlines; want 2", n)
		}
		mustGet(t, q, "b-1") // a-2 is ready, held back
		q.AddRateLimited("a-1")
		q.Done("b-1")
		q.Done("a-1") // a is below its cap: a-2's turn; a-1 waits on its delay
		mustGet(t, q, "a-2")
		time.Sleep(2 * time.Second)
		if n := q.Len(); n != 1 {
			t.Fatalf("Len() = %d; want 1 (a-1, held back by a-2)", n)
		}
		q.Done("a-2")
		mustGet(t, q, "a-1")
		q.Done("a-1")
	})
}

// TestKeyCapDrain: a drain ends once nothing is processing, whatever the
// caps; from its start, Get hands out the items of keys at their caps,
// and after ShutDown too.
func TestKeyCapDrain(t *testing.T) {
	for _, drain := range []bool{true, false} {
		t.Run(fmt.Sprint("drain=", drain), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := cappedQueue(capOf("a", 1))
				for _, item := range []string{"a-1", "a-2", "a-3"} {
					q.Add(item)
				}
				mustGet(t, q, "a-1")
				ended := make(chan struct{})
				go func() {
					if drain {
						q.ShutDownWithDrain()
					} else {
						q.ShutDown()
					}
					close(ended)
				}()
				synctest.Wait()
				mustGet(t, q, "a-2") // caps lifted: a has two processing
				mustGet(t, q, "a-3")
				if _, shutdown := q.Get(); !shutdown {
					t.Fatal("Get() did not report shutdown with nothing ready")
				}
				for _, item := range []string{"a-1", "a-2", "a-3"} {
					select {
					case <-ended:
						if drain {
							t.Fatalf("the drain ended with %s processing", item)
						}
					default:
					}
					q.Done(item)
				}
				<-ended
			})
		})
	}
}

// TestKeyLimitBadInput: a limit that is not valid is an error of
// SetKeyLimit, and a panic of New, in the caller's goroutine; the queue
// keeps working.
func TestKeyLimitBadInput(t *testing.T) {
	q := cappedQueue()
	defer q.ShutDown()
	for _, l := range []actor.KeyLimit{
		{Cap: 1},
		{Keys: []string{"a"}, Cap: -1},
		{Keys: []string{"a"}, Weight: -2},
	} {
		if err := q.SetKeyLimit(l); err == nil {
			t.Errorf("SetKeyLimit(%+v) = nil; want an error", l)
		}
	}
	plain := actor.New(actor.Config[string]{})
	defer plain.ShutDown()
	if err := plain.SetKeyLimit(capOf("a", 1)); err == nil || !strings.Contains(err.Error(), "Fairness") {
		t.Errorf("SetKeyLimit on a queue without fairness = %v; want an error naming Fairness", err)
	}
	for _, cfg := range []actor.Config[string]{
		{Fairness: tenantOf, KeyLimits: []actor.KeyLimit{{Keys: []string{"a"}, Cap: -1}}},
		{KeyLimits: []actor.KeyLimit{capOf("a", 1)}},
		{FairByWorkTime: true},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "actor: Config.") {
					t.Errorf("New(%+v) panicked with %v; want a message naming the field", cfg, r)
				}
			}()
			actor.New(cfg).ShutDown()
		}()
	}
	q.Add("a-1")
	mustGet(t, q, "a-1")
}

// TestKeyCapStress: producers and consumers on a queue with caps on two
// levels and weights, under the race detector: the consumers' own count
// of each key's items in their hands never exceeds its cap, and every
// item added is processed.
func TestKeyCapStress(t *testing.T) {
	const producers, consumers, perProducer = 4, 8, 500
	caps := map[string]int{"t0": 1, "t1": 2, "t2/n0": 1}
	q := actor.New(actor.Config[string]{
		Fairness: func(item string) []string { parts := strings.Split(item, "/"); return parts[:2] },
		KeyLimits: []actor.KeyLimit{
			{Keys: []string{"t0"}, Cap: 1},
			{Keys: []string{"t1"}, Cap: 2, Weight: 3},
			{Keys: []string{"t2", "n0"}, Cap: 1},
		},
	})
	var mu sync.Mutex
	holding := map[string]int{}
	var processed atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Bool
	for c := range consumers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				parts := strings.Split(item, "/")
				keys := []string{parts[0], parts[0] + "/" + parts[1]}
				mu.Lock()
				for _, k := range keys {
					holding[k]++
					if cap, ok := caps[k]; ok && holding[k] > cap {
						failed.Store(true)
						t.Errorf("consumer %d: %d items of %s held; cap %d", c, holding[k], k, cap)
					}
				}
				mu.Unlock()
				time.Sleep(time.Duration(len(item)%3) * time.Microsecond)
				mu.Lock()
				for _, k := range keys {
					holding[k]--
				}
				mu.Unlock()
				processed.Add(1)
				q.Done(item)
			}
		})
	}
	var pw sync.WaitGroup
	for p := range producers {
		pw.Go(func() {
			for i := range perProducer {
				q.Add(fmt.Sprintf("t%d/n%d/%d-%d", i%3, i%2, p, i))
			}
		})
	}
	within(t, "the producers did not return from their Adds", pw.Wait)
	waitFor(t, "the consumers did not take every item", func() bool { return q.Len() == 0 || failed.Load() })
	within(t, "ShutDownWithDrain did not return, or the consumers did not end", func() {
		q.ShutDownWithDrain()
		wg.Wait()
	})
	if got := processed.Load(); got != producers*perProducer {
		t.Fatalf("processed %d items; want %d", got, producers*perProducer)
	}
}

// keyRecorder records per-key gauges: the current value of each series,
// by kind ("depth" or "processing") and key.
type keyRecorder struct {
	delayedRecorder
	mu     *sync.Mutex
	series map[string]float64 // "kind key" -> value
}

type keyGauge struct {
	r    keyRecorder
	kind string
}

func (g keyGauge) Set(key string, v float64) {
	g.r.mu.Lock()
	defer g.r.mu.Unlock()
	g.r.series[g.kind+" "+key] = v
}

func (g keyGauge) Delete(key string) {
	g.r.mu.Lock()
	defer g.r.mu.Unlock()
	delete(g.r.series, g.kind+" "+key)
}

func (r keyRecorder) NewKeyDepthMetric(string) actor.KeyGaugeMetric { return keyGauge{r, "depth"} }
func (r keyRecorder) NewKeyProcessingMetric(string) actor.KeyGaugeMetric {
	return keyGauge{r, "processing"}
}

func (r keyRecorder) snapshot() map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.series)
}

// TestKeyMetrics: the per-key gauges show each busy key's items ready and
// processing at client-go's refresh instants, the keys beyond the limit
// summed under "other", and delete a key's series once it has nothing.
func TestKeyMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := keyRecorder{delayedRecorder{newRecorder()}, new(sync.Mutex), map[string]float64{}}
		q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: r, Fairness: tenantOf, KeyMetricsLimit: 2})
		defer q.ShutDown()
		for _, item := range []string{"a-1", "a-2", "a-3", "b-1", "b-2", "c-1", "d-1"} {
			q.Add(item)
		}
		mustGet(t, q, "a-1")
		mustGet(t, q, "b-1")
		mustGet(t, q, "c-1") // the lane offers d-1 and the rest, which are ready
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		want := map[string]float64{
			"depth a": 2, "processing a": 1,
			"depth b": 1, "processing b": 1,
			"depth other": 1, "processing other": 1, // c-1 processing, d-1 ready
		}
		if got := r.snapshot(); !maps.Equal(got, want) {
			t.Fatalf("after the first refresh: %v; want %v", got, want)
		}
		for _, item := range []string{"a-1", "b-1", "c-1"} {
			q.Done(item)
		}
		for _, want := range []string{"d-1", "a-2", "b-2", "a-3"} {
			mustGet(t, q, want)
			q.Done(want)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if got := r.snapshot(); len(got) != 0 {
			t.Fatalf("with nothing ready or processing: %v; want no series", got)
		}
		time.Sleep(time.Hour) // idle: no refresh, and no wakeup
		synctest.Wait()
		if got := r.snapshot(); len(got) != 0 {
			t.Fatalf("idle: %v; want no series", got)
		}
	})
}
