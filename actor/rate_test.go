package actor_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/actorq/actorq/actor"
)

// handOut is an item a consumer received, and when (since the test's
// start, on synctest's clock).
type handOut struct {
	at   time.Duration
	item string
}

func (h handOut) String() string { return fmt.Sprintf("%v %s", h.at, h.item) }

// TestKeyRateOneConsumer: a single consumer that asks for the next item
// as soon as it has done one gets every item the instant its keys have a
// token, and no sooner: the exact sequence of the buckets, with a key
// that waits passed over (no head-of-line blocking) and back at the back
// of the turns when its token comes.
func TestKeyRateOneConsumer(t *testing.T) {
	for _, way := range []string{"Get", "GetContext", "GetBatch", "Items"} {
		t.Run(way, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := actor.New(actor.Config[string]{
					Fairness:    tenantOf,
					LevelLimits: []actor.LevelLimit{{Rate: 10, Burst: 1}},                   // every tenant: 10 a second
					KeyLimits:   []actor.KeyLimit{{Keys: []string{"a"}, Rate: 2, Burst: 2}}, // a: 2 a second, 2 at once
				})
				defer q.ShutDown()
				for i := range 6 {
					q.Add(fmt.Sprint("a-", i))
				}
				for i := range 6 {
					q.Add(fmt.Sprint("b-", i))
				}
				start := time.Now()
				got := takeAll(t, q, way, 12, func(string) {}, start)
				ms := time.Millisecond
				want := []handOut{
					{0, "a-0"}, {0, "b-0"}, {0, "a-1"}, // a's burst of 2, b's of 1
					{100 * ms, "b-1"}, {200 * ms, "b-2"}, {300 * ms, "b-3"}, {400 * ms, "b-4"},
					{500 * ms, "a-2"}, {500 * ms, "b-5"}, // both due at 500ms: a began to wait first
					{1000 * ms, "a-3"}, {1500 * ms, "a-4"}, {2000 * ms, "a-5"},
				}
				if !slices.Equal(got, want) {
					t.Fatalf("hand-outs:\n%v\nwant\n%v", got, want)
				}
			})
		})
	}
}

// takeAll takes n items from q the given way, one at a time, and calls
// work then Done for each; it returns what it took and when.
func takeAll(t *testing.T, q *actor.Queue[string], way string, n int, work func(string), start time.Time) []handOut {
	t.Helper()
	var got []handOut
	var items <-chan string
	if way == "Items" {
		items = q.Items()
	}
	for range n {
		var item string
		switch way {
		case "Get":
			item, _ = q.Get()
		case "GetContext":
			var err error
			if item, err = q.GetContext(context.Background()); err != nil {
				t.Fatalf("GetContext: %v", err)
			}
		case "GetBatch":
			batch, _ := q.GetBatch(make([]string, 0, 1))
			item = batch[0]
		case "Items":
			item = <-items
		}
		got = append(got, handOut{time.Since(start), item})
		work(item)
		q.Done(item)
	}
	return got
}

// TestPauseKey: a key paused until an instant (a 429 with Retry-After) is
// passed over until then; the others go on.
func TestPauseKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Fairness: tenantOf})
		defer q.ShutDown()
		start := time.Now()
		q.Add("a-0")
		q.Add("b-0")
		q.Add("a-1")
		q.Add("b-1")
		if err := q.PauseKey([]string{"a"}, start.Add(3*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := q.PauseKey([]string{"b"}, start.Add(-time.Second)); err != nil { // in the past: nothing
			t.Fatal(err)
		}
		got := takeAll(t, q, "Get", 4, func(string) { time.Sleep(time.Second) }, start)
		want := []handOut{{0, "b-0"}, {time.Second, "b-1"}, {3 * time.Second, "a-0"}, {4 * time.Second, "a-1"}}
		if !slices.Equal(got, want) {
			t.Fatalf("hand-outs %v; want %v", got, want)
		}
	})
}

// TestKeyRateShutdown: once shutdown has begun, rates and pauses hold
// nothing back, as caps.
func TestKeyRateShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Fairness: tenantOf, LevelLimits: []actor.LevelLimit{{Rate: 1, Burst: 1}}})
		q.Add("a-0")
		q.Add("a-1")
		q.Add("b-0")
		if err := q.PauseKey([]string{"b"}, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if item, _ := q.Get(); item != "a-0" {
			t.Fatalf("Get() = %q; want a-0", item)
		}
		q.ShutDown()
		var got []string
		for {
			item, shutdown := q.Get()
			if shutdown {
				break
			}
			got = append(got, item)
		}
		if want := []string{"a-1", "b-0"}; !slices.Equal(got, want) {
			t.Fatalf("after ShutDown: got %v; want %v at once", got, want)
		}
	})
}

func TestKeyRateBadInput(t *testing.T) {
	for _, l := range []actor.KeyLimit{
		{Keys: []string{"a"}, Rate: -1, Burst: 1},
		{Keys: []string{"a"}, Rate: rate.Limit(math.NaN()), Burst: 1},
		{Keys: []string{"a"}, Rate: 5, Burst: -1},
		{Keys: []string{"a"}, Rate: 5},
		{Keys: []string{"a"}, Rate: 1e-12, Burst: 1000},
	} {
		if l.Check() == nil {
			t.Errorf("KeyLimit%+v.Check() = nil; want an error", l)
		}
	}
	for _, l := range []actor.KeyLimit{
		{Keys: []string{"a"}, Rate: rate.Inf},
		{Keys: []string{"a"}},
		{Keys: []string{"a"}, Rate: 0.001, Burst: 1},
	} {
		if err := l.Check(); err != nil {
			t.Errorf("KeyLimit%+v.Check() = %v; want nil", l, err)
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "LevelLimits") {
				t.Errorf("New with a level limit of burst 0: recovered %v; want a panic naming LevelLimits", r)
			}
		}()
		actor.New(actor.Config[string]{Fairness: tenantOf, LevelLimits: []actor.LevelLimit{{Rate: 5}}}).ShutDown()
	}()
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("New with LevelLimits and no Fairness did not panic")
			}
		}()
		actor.New(actor.Config[string]{LevelLimits: []actor.LevelLimit{{Rate: 5, Burst: 1}}}).ShutDown()
	}()
	q := actor.New(actor.Config[string]{})
	defer q.ShutDown()
	if err := q.PauseKey([]string{"a"}, time.Now().Add(time.Hour)); err == nil {
		t.Error("PauseKey on a queue without fairness: nil; want an error")
	}
	if err := q.SetKeyLimit(actor.KeyLimit{Keys: []string{"a"}, Rate: 1, Burst: 1}); err == nil {
		t.Error("SetKeyLimit on a queue without fairness: nil; want an error")
	}
	fq := actor.New(actor.Config[string]{Fairness: tenantOf})
	defer fq.ShutDown()
	if err := fq.PauseKey(nil, time.Now().Add(time.Hour)); err == nil {
		t.Error("PauseKey with no key: nil; want an error")
	}
	fq.Add("a-1")
	if item, _ := fq.Get(); item != "a-1" {
		t.Errorf("after the errors: Get() = %q; want a-1", item)
	}
}

// TestKeyRateWindows: consumers of every kind take items of two levels of
// keys with rates, caps and weights on both, on synctest's clock, and
// each item's work takes a random time. For every key at every level,
// and every window of length W, the items received are at most
// Burst + Rate·W, plus the items the lane may have offered ahead before
// the window (they spent their tokens when offered). No item is lost or
// processing twice, and no cap is exceeded.
func TestKeyRateWindows(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { keyRateWindows(t, seed) })
		})
	}
}

func keyRateWindows(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	keysOf := func(item string) []string { // "t1/n0-7"
		i := strings.IndexByte(item, '-')
		return strings.Split(item[:i], "/")
	}
	levels := []actor.LevelLimit{{Rate: 20, Burst: 2, Cap: 3}, {Rate: 8, Burst: 1}}
	own := map[string]actor.KeyLimit{
		"t0":    {Keys: []string{"t0"}, Rate: 5, Burst: 3, Weight: 2},
		"t1/n1": {Keys: []string{"t1", "n1"}, Cap: 1},
	}
	limitOf := func(path string) (r rate.Limit, burst, cap int) {
		if l, ok := own[path]; ok {
			return l.Rate, l.Burst, l.Cap
		}
		l := levels[strings.Count(path, "/")]
		return l.Rate, l.Burst, l.Cap
	}
	cfg := actor.Config[string]{Fairness: keysOf, LevelLimits: levels, FairByWorkTime: seed%2 == 1}
	for _, l := range own {
		cfg.KeyLimits = append(cfg.KeyLimits, l)
	}
	q := actor.New(cfg)
	start := time.Now()
	const n = 300
	work := make(map[string]time.Duration, n) // each item's work time: read only once the consumers run
	for i := range n {
		item := fmt.Sprintf("t%d/n%d-%d", rng.IntN(3), rng.IntN(2), i)
		work[item] = time.Duration(rng.IntN(50)) * time.Millisecond
		q.Add(item)
	}
	var mu sync.Mutex
	received := map[string][]time.Duration{} // key path -> receive instants
	out := map[string]int{}                  // key path -> items processing
	seen := map[string]bool{}
	took := func(item string) {
		mu.Lock()
		defer mu.Unlock()
		if seen[item] {
			t.Errorf("%s handed out twice", item)
		}
		seen[item] = true
		keys := keysOf(item)
		for i := range keys {
			path := strings.Join(keys[:i+1], "/")
			received[path] = append(received[path], time.Since(start))
			out[path]++
			if _, _, cap := limitOf(path); cap > 0 && out[path] > cap {
				t.Errorf("key %s: %d items processing; its cap is %d", path, out[path], cap)
			}
		}
	}
	done := func(item string) {
		time.Sleep(work[item])
		mu.Lock()
		keys := keysOf(item)
		for i := range keys {
			out[strings.Join(keys[:i+1], "/")]--
		}
		mu.Unlock()
		q.Done(item)
	}
	var wg sync.WaitGroup
	for _, way := range []string{"Get", "GetContext", "GetBatch", "Items"} {
		wg.Go(func() {
			var items <-chan string
			if way == "Items" {
				items = q.Items()
			}
			for {
				var batch []string
				switch way {
				case "Get":
					item, shutdown := q.Get()
					if shutdown {
						return
					}
					batch = []string{item}
				case "GetContext":
					item, err := q.GetContext(context.Background())
					if err != nil {
						return
					}
					batch = []string{item}
				case "GetBatch":
					var shutdown bool
					if batch, shutdown = q.GetBatch(make([]string, 0, 2)); shutdown {
						return
					}
				case "Items":
					item, ok := <-items
					if !ok {
						return
					}
					batch = []string{item}
				}
				for _, item := range batch {
					took(item)
				}
				for _, item := range batch {
					done(item)
				}
			}
		})
	}
	for {
		synctest.Wait()
		mu.Lock()
		all := len(seen)
		mu.Unlock()
		if all == n {
			break
		}
		time.Sleep(time.Millisecond)
	}
	q.ShutDownWithDrain()
	wg.Wait()
	slack := 4 * actor.FairPerGet // items offered ahead: a few per consumer
	for path, ts := range received {
		r, burst, _ := limitOf(path)
		if r == 0 {
			continue
		}
		tau := time.Duration(math.Ceil(1e9 / float64(r)))
		for i := range ts {
			for j := i; j < len(ts); j++ {
				if max := burst + int((ts[j]-ts[i])/tau) + slack; j-i+1 > max {
					t.Fatalf("key %s (rate %v, burst %d): %d received in [%v, %v]; want at most %d", path, r, burst, j-i+1, ts[i], ts[j], max)
				}
			}
		}
		// t0 binds below its namespaces' rates, and has items all along:
		// nothing idles while one of its items waits for a token only.
		if got, want := len(ts), burst+int((ts[len(ts)-1]-ts[0])/tau); path == "t0" && got != want {
			t.Errorf("key t0: %d received over %v; want %d", got, ts[len(ts)-1]-ts[0], want)
		}
	}
}

// heldRecorder is a keyRecorder that also records the held gauges.
type heldRecorder struct{ keyRecorder }

func (r heldRecorder) NewKeyHeldMetric(_, reason string) actor.KeyGaugeMetric {
	return keyGauge{r.keyRecorder, "held-" + reason}
}

// TestKeyHeldMetrics: the per-key gauges count the ready items held back
// by a rate (or a pause) apart from those held at a cap.
func TestKeyHeldMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := heldRecorder{keyRecorder{delayedRecorder{newRecorder()}, new(sync.Mutex), map[string]float64{}}}
		q := actor.New(actor.Config[string]{Name: "q", MetricsProvider: r, Fairness: tenantOf, KeyLimits: []actor.KeyLimit{
			{Keys: []string{"a"}, Rate: 1, Burst: 1},
			{Keys: []string{"b"}, Cap: 1},
		}})
		defer q.ShutDown()
		for _, item := range []string{"a-1", "a-2", "a-3", "b-1", "b-2", "c-1"} {
			q.Add(item)
		}
		mustGet(t, q, "a-1")
		mustGet(t, q, "b-1")
		time.Sleep(500 * time.Millisecond) // a refresh, before a's next token
		synctest.Wait()
		want := map[string]float64{
			"depth a": 2, "processing a": 1, "held-cap a": 0, "held-rate a": 2,
			"depth b": 1, "processing b": 1, "held-cap b": 1, "held-rate b": 0,
			"depth c": 1, "processing c": 0, "held-cap c": 0, "held-rate c": 0,
		}
		if got := r.snapshot(); !maps.Equal(got, want) {
			t.Fatalf("gauges %v; want %v", got, want)
		}
	})
}

// TestKeyRateStarvationBound: an item past the starvation bound goes
// before higher priorities, but not while its key waits for a token: the
// bound waits for a key held by its rate as for one at its cap.
func TestKeyRateStarvationBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{
			Fairness:        tenantOf,
			StarvationBound: 100 * time.Millisecond,
			KeyLimits:       []actor.KeyLimit{{Keys: []string{"a"}, Rate: 1, Burst: 1}},
		})
		defer q.ShutDown()
		q.AddWithOpts(actor.AddOpts{}, "a-1", "a-2")
		q.AddWithOpts(actor.AddOpts{Priority: 10}, "b-1", "b-2", "b-3", "b-4")
		start := time.Now()
		take := func(want string) {
			t.Helper()
			item, _ := q.Get()
			if item != want {
				t.Fatalf("at %v: Get() = %q; want %q", time.Since(start), item, want)
			}
			q.Done(item)
		}
		take("b-1")                        // nothing has waited 100ms: priority first
		time.Sleep(200 * time.Millisecond) // a-1 and a-2 are past the bound
		take("a-1")                        // starving, and a has its token
		take("b-2")                        // a-2 is starving, but a waits for its token until 1.2s
		take("b-3")
		time.Sleep(time.Second) // 1.2s: a's token
		take("a-2")
		take("b-4")
	})
}
