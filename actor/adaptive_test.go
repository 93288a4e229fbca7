package actor_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// account is a fake cloud account with a hidden concurrency limit: a
// call made while limit calls are in flight is throttled (a 429, which
// takes a round trip too). A limit of 0 is none.
type account struct {
	limit int

	mu               sync.Mutex
	inFlight, most   int
	calls, throttled int
	throttleT        time.Duration
}

// call makes a call that takes d, and reports whether it was throttled.
func (a *account) call(d time.Duration) (throttled bool) {
	a.mu.Lock()
	a.calls++
	if a.limit > 0 && a.inFlight >= a.limit {
		a.throttled++
		a.mu.Unlock()
		time.Sleep(a.throttleT)
		return true
	}
	a.inFlight++
	a.most = max(a.most, a.inFlight)
	a.mu.Unlock()
	time.Sleep(d)
	a.mu.Lock()
	a.inFlight--
	a.mu.Unlock()
	return false
}

// counts returns the calls made so far and how many were throttled.
func (a *account) counts() (calls, throttled int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls, a.throttled
}

// acctOf is the fairness function of these tests: "a/17" has the key "a".
func acctOf(item string) []string { return []string{item[:strings.IndexByte(item, '/')]} }

// callTime is how long a call for item takes: 100ms to 180ms.
func callTime(item string) time.Duration {
	h := fnv.New32a()
	h.Write([]byte(item))
	return 100*time.Millisecond + time.Duration(h.Sum32()%5)*20*time.Millisecond
}

// runWorkers starts n workers on q that call acct for each item, report
// a throttle with Queue.Throttled, add the item again (it runs again
// after its Done: the queue always has work) and call Done. They end when
// q shuts down.
func runWorkers(t *testing.T, wg *sync.WaitGroup, q *actor.Queue[string], n int, acct func(item string) *account) {
	for range n {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				if acct(item).call(callTime(item)) {
					if err := q.Throttled(item, time.Time{}); err != nil {
						t.Errorf("Throttled(%q): %v", item, err)
					}
				}
				q.Add(item)
				q.Done(item)
			}
		})
	}
}

// adaptiveKey returns the adaptive cap of the first-level key k in q's
// snapshot, and whether the snapshot has it.
func adaptiveKey(q *actor.Queue[string], k string) (actor.AdaptiveKey, bool) {
	for _, a := range q.Snapshot(100).AdaptiveKeys {
		if len(a.Keys) == 1 && a.Keys[0] == k {
			return a, true
		}
	}
	return actor.AdaptiveKey{}, false
}

// TestAdaptiveClosedLoop: workers call a fake account with a hidden
// concurrency limit L through a queue whose account key has an adaptive
// cap, starting at 2L+4, and report its throttles. The first window's
// burst of throttles is one decrease. After 20 windows (of 1s; calls take
// 100–180ms) the cap stays within [⌊0.9·(L+1)⌋, L+1], and for L ≥ 10
// fewer than 5% of the calls are throttled.
func TestAdaptiveClosedLoop(t *testing.T) {
	for _, limit := range []int{1, 3, 10, 50} {
		t.Run(fmt.Sprint("L=", limit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const window = time.Second
				most := 2*limit + 4
				q := actor.New(actor.Config[string]{
					Fairness:    acctOf,
					LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: most, Window: window}}},
				})
				acct := &account{limit: limit, throttleT: 20 * time.Millisecond}
				for i := range 2 * most {
					q.Add(fmt.Sprint("a/", i))
				}
				var wg sync.WaitGroup
				runWorkers(t, &wg, q, most+4, func(string) *account { return acct })

				lo, hi := int(0.9*float64(limit+1)), limit+1
				var calls0, throttled0 int
				time.Sleep(window / 2)
				for w := range 40 {
					a, ok := adaptiveKey(q, "a")
					if !ok {
						t.Fatalf("window %d: no adaptive cap for key a in the snapshot", w)
					}
					if a.Min != 1 || a.Max != most || a.Start != most || a.Cap < a.Min || a.Cap > a.Max {
						t.Fatalf("window %d: cap %d, bounds [%d, %d] from %d; want [1, %d] from %d", w, a.Cap, a.Min, a.Max, a.Start, most, most)
					}
					switch {
					case w == 0:
						// A burst of throttles in the first window: one decrease.
						if want := min(most-1, int(0.9*float64(most))); a.Cap != want || a.Throttles < 2 {
							t.Errorf("window 0: cap %d after %d throttles; want %d after more than one", a.Cap, a.Throttles, want)
						}
						if a.LastDecrease.IsZero() || a.LastDecrease.After(time.Now()) {
							t.Errorf("window 0: last decrease at %v; want one by now", a.LastDecrease)
						}
					case w == 20:
						calls0, throttled0 = acct.counts()
					case w > 20 && (a.Cap < lo || a.Cap > hi):
						t.Errorf("window %d: cap %d; want it within [%d, %d]", w, a.Cap, lo, hi)
					}
					time.Sleep(window)
				}
				calls, throttled := acct.counts()
				calls, throttled = calls-calls0, throttled-throttled0
				frac := float64(throttled) / float64(calls)
				t.Logf("L=%d: windows 20-40: %d calls, %d throttled (%.2f%%)", limit, calls, throttled, 100*frac)
				if limit >= 10 && frac >= 0.05 {
					t.Errorf("windows 20-40: %d of %d calls throttled (%.1f%%); want under 5%%", throttled, calls, 100*frac)
				}
				q.ShutDown()
				wg.Wait()
				if acct.most > limit {
					t.Errorf("%d calls in flight at once; the account allows %d", acct.most, limit)
				}
			})
		})
	}
}

// TestAdaptiveTwoQueuesShareAccount: two queues whose workers call one
// account with a hidden limit of 20 each learn about half of it: the
// throttles above the limit fall on both, which back off together and
// grow together, so their caps meet near 10.
func TestAdaptiveTwoQueuesShareAccount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			limit  = 20
			most   = 40
			window = time.Second
		)
		acct := &account{limit: limit, throttleT: 20 * time.Millisecond}
		var qs [2]*actor.Queue[string]
		var wg sync.WaitGroup
		for i := range qs {
			qs[i] = actor.New(actor.Config[string]{
				Fairness:    acctOf,
				LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: most, Start: 4, Window: window}}},
			})
			for j := range 2 * most {
				qs[i].Add(fmt.Sprint("a/", j))
			}
			runWorkers(t, &wg, qs[i], most+4, func(string) *account { return acct })
		}
		time.Sleep(window / 2)
		var sum [2]int
		const from, to = 30, 80
		for w := range to {
			if w >= from {
				for i, q := range qs {
					a, _ := adaptiveKey(q, "a")
					sum[i] += a.Cap
				}
			}
			time.Sleep(window)
		}
		for i := range qs {
			mean := float64(sum[i]) / (to - from)
			t.Logf("queue %d: mean cap %.2f over windows %d-%d", i, mean, from, to)
			if math.Abs(mean-limit/2) > 2.5 {
				t.Errorf("queue %d: mean cap %.2f over windows %d-%d; want %d ± 2.5", i, mean, from, to, limit/2)
			}
			qs[i].ShutDown()
		}
		wg.Wait()
	})
}

// TestAdaptiveConcurrent: producers, consumers taking items every way
// (Get, GetBatch, the items channel) and reporters (Throttled by item,
// ThrottledKey by key, with and without a Retry-After) at once, under
// the race detector, on windows of a millisecond. The consumers' own
// count of each account's items in their hands never exceeds the cap's
// Max; every snapshot's cap stays within its bounds; the account no one
// reports for is never cut (its cap only grows from its start); and
// every item added is processed.
func TestAdaptiveConcurrent(t *testing.T) {
	const producers, perProducer, most = 3, 400, 6
	q := actor.New(actor.Config[string]{
		Fairness:    acctOf,
		LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Min: 2, Max: most, Start: 4, Window: time.Millisecond}}},
	})
	accts := []string{"a", "b", "quiet"}
	var mu sync.Mutex
	holding := map[string]int{}
	var processed, reported atomic.Int64
	var failed atomic.Bool
	take := func(item string) {
		k := acctOf(item)[0]
		mu.Lock()
		holding[k]++
		if holding[k] > most {
			failed.Store(true)
			t.Errorf("%d items of %s processing at once; its cap is at most %d", holding[k], k, most)
		}
		mu.Unlock()
	}
	give := func(item string, i int) {
		k := acctOf(item)[0]
		if k != "quiet" && i%3 == 0 {
			var retry time.Time
			if i%9 == 0 {
				retry = time.Now().Add(time.Millisecond)
			}
			if err := q.Throttled(item, retry); err != nil {
				t.Errorf("Throttled(%q): %v", item, err)
			}
			reported.Add(1)
		}
		mu.Lock()
		holding[k]--
		mu.Unlock()
		processed.Add(1)
		q.Done(item)
	}
	var wg sync.WaitGroup
	consumers := []func(){
		func() { // Get
			for i := 0; ; i++ {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				take(item)
				give(item, i)
			}
		},
		func() { // GetBatch
			buf := make([]string, 0, 3)
			for i := 0; ; i++ {
				items, shutdown := q.GetBatch(buf)
				if shutdown {
					return
				}
				for _, item := range items {
					take(item)
				}
				for j, item := range items {
					give(item, i+j)
				}
			}
		},
		func() { // the items channel
			i := 0
			for item := range q.Items() {
				take(item)
				give(item, i)
				i++
			}
		},
	}
	for _, c := range consumers {
		wg.Go(c)
		wg.Go(c)
	}
	var added sync.WaitGroup
	for p := range producers {
		added.Go(func() {
			for i := range perProducer {
				q.Add(fmt.Sprintf("%s/%d-%d", accts[i%len(accts)], p, i))
				if i%50 == 0 { // and a throttle for a key, from anywhere
					if err := q.ThrottledKey([]string{"b"}, time.Time{}); err != nil {
						t.Errorf("ThrottledKey: %v", err)
					}
				}
			}
		})
	}
	stop := make(chan struct{})
	var watched sync.WaitGroup
	watched.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, a := range q.Snapshot(10).AdaptiveKeys {
				if a.Cap < 2 || a.Cap > most || a.Min != 2 || a.Max != most || a.Start != 4 {
					t.Errorf("key %q: cap %d, bounds [%d, %d] from %d; want a cap in [2, %d]", a.Keys, a.Cap, a.Min, a.Max, a.Start, most)
				}
				if a.Keys[0] == "quiet" && (a.Throttles != 0 || !a.LastDecrease.IsZero() || a.Cap < a.Start) {
					t.Errorf("key quiet, never reported, was cut: %+v", a)
				}
			}
			time.Sleep(100 * time.Microsecond)
		}
	})
	added.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for processed.Load() < producers*perProducer && !failed.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d items processed after 30s", processed.Load(), producers*perProducer)
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	watched.Wait()
	q.ShutDown()
	wg.Wait()
	if n := processed.Load(); n != producers*perProducer {
		t.Errorf("%d items processed; want %d", n, producers*perProducer)
	}
	if reported.Load() == 0 {
		t.Error("no throttle reported")
	}
}

// TestAdaptiveBadInput: an adaptive cap that is not valid is an error of
// Check and SetKeyLimit, and a panic of New, in the caller's goroutine;
// a report without fairness is an error; a report for an item that is
// not processing, for a key the queue does not hold, or after shutdown
// changes nothing and does not panic; the queue keeps working.
func TestAdaptiveBadInput(t *testing.T) {
	bad := map[string]actor.AdaptiveCap{
		"Min above Max":    {Min: 5, Max: 4, Window: time.Second},
		"Min below 0":      {Min: -1, Max: 4, Window: time.Second},
		"no Max":           {Window: time.Second},
		"Start below Min":  {Min: 2, Max: 4, Start: 1, Window: time.Second},
		"Start above Max":  {Max: 4, Start: 5, Window: time.Second},
		"Backoff 1":        {Max: 4, Backoff: 1, Window: time.Second},
		"Backoff above 1":  {Max: 4, Backoff: 1.5, Window: time.Second},
		"Backoff below 0":  {Max: 4, Backoff: -0.5, Window: time.Second},
		"Backoff NaN":      {Max: 4, Backoff: math.NaN(), Window: time.Second},
		"no Window":        {Max: 4},
		"Window below 0":   {Max: 4, Window: -time.Second},
		"Backoff infinite": {Max: 4, Backoff: math.Inf(1), Window: time.Second},
	}
	q := actor.New(actor.Config[string]{Fairness: acctOf})
	defer q.ShutDown()
	for name, a := range bad {
		if err := a.Check(); err == nil || !strings.Contains(err.Error(), "adaptive cap") {
			t.Errorf("%s: Check() = %v; want an error naming the adaptive cap", name, err)
		}
		l := actor.KeyLimit{Keys: []string{"a"}, Adaptive: a}
		if err := q.SetKeyLimit(l); err == nil {
			t.Errorf("%s: SetKeyLimit = nil; want an error", name)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "LevelLimits") {
					t.Errorf("%s: New with it as a level's: recovered %v; want a panic naming LevelLimits", name, r)
				}
			}()
			actor.New(actor.Config[string]{Fairness: acctOf, LevelLimits: []actor.LevelLimit{{Adaptive: a}}}).ShutDown()
		}()
	}
	good := actor.AdaptiveCap{Max: 4, Window: time.Second}
	if err := (actor.KeyLimit{Keys: []string{"a"}, Cap: 2, Adaptive: good}).Check(); err == nil {
		t.Error("a KeyLimit with both a Cap and an Adaptive cap: Check() = nil; want an error")
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("New with an adaptive level limit and no Fairness did not panic")
			}
		}()
		actor.New(actor.Config[string]{LevelLimits: []actor.LevelLimit{{Adaptive: good}}}).ShutDown()
	}()
	plain := actor.New(actor.Config[string]{})
	defer plain.ShutDown()
	if err := plain.SetKeyLimit(actor.KeyLimit{Keys: []string{"a"}, Adaptive: good}); err == nil {
		t.Error("SetKeyLimit with an adaptive cap on a queue without fairness: nil; want an error")
	}
	if err := plain.Throttled("a/1", time.Time{}); err == nil || !strings.Contains(err.Error(), "Fairness") {
		t.Errorf("Throttled on a queue without fairness = %v; want an error naming Fairness", err)
	}
	if err := plain.ThrottledKey([]string{"a"}, time.Time{}); err == nil {
		t.Error("ThrottledKey on a queue without fairness: nil; want an error")
	}
	if err := q.ThrottledKey(nil, time.Time{}); err == nil {
		t.Error("ThrottledKey with no key: nil; want an error")
	}

	// Reports that change nothing.
	if err := q.SetKeyLimit(actor.KeyLimit{Keys: []string{"a"}, Adaptive: good}); err != nil {
		t.Fatal(err)
	}
	q.Add("a/1")
	q.Add("a/2")
	for _, report := range []func() error{
		func() error { return q.Throttled("a/1", time.Time{}) },                      // queued, not processing
		func() error { return q.Throttled("z/1", time.Time{}) },                      // unknown
		func() error { return q.ThrottledKey([]string{"z"}, time.Time{}) },           // a key the queue does not hold
		func() error { return q.ThrottledKey([]string{"a", "b", "c"}, time.Time{}) }, // deeper than the keys
	} {
		if err := report(); err != nil {
			t.Errorf("report: %v; want nil", err)
		}
	}
	if a, ok := adaptiveKey(q, "a"); ok {
		t.Errorf("key a learnt %+v from reports for items not processing and other keys", a)
	}
	mustGet(t, q, "a/1")
	if err := q.Throttled("a/1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if a, ok := adaptiveKey(q, "a"); !ok || a.Cap != 3 || a.Throttles != 1 {
		t.Errorf("key a after a throttle of its item processing: %+v, %v; want cap 3 after 1 throttle", a, ok)
	}
	mustGet(t, q, "a/2")
	q.ShutDown()
	if err := q.Throttled("a/2", time.Now().Add(time.Hour)); err != nil {
		t.Errorf("Throttled after shutdown: %v; want nil", err)
	}
	if err := q.ThrottledKey([]string{"a"}, time.Time{}); err != nil {
		t.Errorf("ThrottledKey after shutdown: %v; want nil", err)
	}
}

// TestThrottledAllocs: a throttle report, for an item or for its key,
// with and without a Retry-After on a key already paused, allocates
// nothing. (Without the race detector: see TestSteadyStateAllocs.)
func TestThrottledAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing with -race (sync.Pool drops objects); scripts/test.sh runs this without it")
	}
	q := actor.New(actor.Config[string]{
		Fairness:    acctOf,
		LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: 64, Window: time.Millisecond}}},
	})
	defer q.ShutDown()
	q.Add("a/1")
	mustGet(t, q, "a/1")
	keys := []string{"a"}
	later := time.Now().Add(time.Hour)
	if err := q.Throttled("a/1", later); err != nil { // the key's bucket, made once
		t.Fatal(err)
	}
	for name, report := range map[string]func() error{
		"Throttled":                 func() error { return q.Throttled("a/1", time.Time{}) },
		"ThrottledKey":              func() error { return q.ThrottledKey(keys, time.Time{}) },
		"Throttled, Retry-After":    func() error { return q.Throttled("a/1", later) },
		"ThrottledKey, Retry-After": func() error { return q.ThrottledKey(keys, later) },
	} {
		if n := testing.AllocsPerRun(1000, func() {
			if err := report(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations a report; want 0", name, n)
		}
	}
	q.Done("a/1")
}
