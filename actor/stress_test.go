package actor_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
)

// TestStress runs many producers and consumers in real time (run it with
// -race), half of the consumers taking batches (half of those finishing
// them with DoneBatch), and checks three things: no item is ever held by two consumers at
// once; every Add is followed by a processing that starts after it; and
// nothing is lost or left behind. With 8 keys nearly every Add is a
// duplicate, most of them skipped by the filter in the caller.
func TestStress(t *testing.T) {
	for _, keys := range []int{512, 8} {
		t.Run(fmt.Sprint("keys=", keys), func(t *testing.T) { stress(t, keys) })
	}
}

func stress(t *testing.T, keys int) {
	const (
		producers = 16
		consumers = 16
		addsEach  = 2000
	)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	q := actor.New(actor.Config[int]{})
	var (
		h         = newHistory(keys)
		processed atomic.Int64
	)
	var consumersWG sync.WaitGroup
	work := func(k int) {
		h.started(k)
		processed.Add(1)
		if k%7 == 0 {
			time.Sleep(time.Microsecond)
		}
		h.finished(k)
	}
	for c := range consumers {
		consumersWG.Go(func() {
			if c%2 == 1 { // half the consumers take batches
				buf := make([]int, 0, c%5+1)
				for {
					items, shutdown := q.GetBatch(buf)
					if shutdown {
						return
					}
					for _, k := range items {
						work(k)
					}
					if c%4 == 1 {
						q.DoneBatch(items)
						continue
					}
					for _, k := range items {
						q.Done(k)
					}
				}
			}
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				work(k)
				q.Done(k)
			}
		})
	}
	var producersWG sync.WaitGroup
	for p := range producers {
		producersWG.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(p)))
			for range addsEach {
				k := r.IntN(keys)
				h.adding(k)
				if r.IntN(8) == 0 {
					q.AddAfter(k, time.Duration(r.IntN(100))*time.Microsecond)
				} else {
					q.Add(k)
				}
			}
		})
	}
	h.finish(t, q, &producersWG, &consumersWG)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() = %d after draining; want 0", got)
	}
	if processed.Load() == 0 {
		t.Fatal("nothing was processed")
	}
	t.Logf("%d adds, %d processings", producers*addsEach, processed.Load())
}

// TestStressDuplicates is a de-duplication storm in real time (run it with
// -race): producers re-add a few keys with Add only, so that nearly every
// Add is skipped by the filter in the caller, while Get consumers take them
// from the lane and hold them a little, so that many Adds land while a key
// is processing. An Add the filter skipped wrongly shows as a key whose
// last Add is never followed by a processing start. With more keys than
// the filter has entries (4,096), the entries evict each other meanwhile.
//
// With items=same-bucket, the items' filter entries share buckets, five
// to a bucket of four: every entry made evicts another's, while callers
// still hold the evicted one (without the filter, 40 plain keys).
func TestStressDuplicates(t *testing.T) {
	for _, keys := range []int{4, 6_000} {
		t.Run(fmt.Sprint("keys=", keys), func(t *testing.T) {
			stressDuplicates(t, actor.New(actor.Config[int]{}), nil, keys)
		})
	}
	t.Run("items=same-bucket", func(t *testing.T) {
		q := actor.New(actor.Config[int]{})
		stressDuplicates(t, q, actor.SameBucket(q, 40), 40)
	})
}

// stressDuplicates races producers that add keys (items[0..keys), or the
// ints below keys if items is nil) against consumers that hold what they
// take while the Adds arrive.
func stressDuplicates(t *testing.T, q *actor.Queue[int], items []int, keys int) {
	const (
		producers = 8
		consumers = 4
		addsEach  = 20_000
	)
	if items == nil {
		items = make([]int, keys)
		for i := range items {
			items[i] = i
		}
	}
	index := make(map[int]int, keys)
	for i, item := range items {
		index[item] = i
	}
	h := newHistory(keys)
	var consumersWG sync.WaitGroup
	for range consumers {
		consumersWG.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				k := index[item]
				h.started(k)
				for range 20 { // hold it while Adds arrive
					runtime.Gosched()
				}
				h.finished(k)
				q.Done(item)
			}
		})
	}
	var producersWG sync.WaitGroup
	for p := range producers {
		producersWG.Go(func() {
			for i := range addsEach {
				k := (i + p) % keys
				h.adding(k)
				q.Add(items[k])
			}
		})
	}
	h.finish(t, q, &producersWG, &consumersWG)
}

// history orders Adds and processing starts on one logical clock, to check
// that every Add is followed by a processing that starts after it (a lost
// Add leaves a key whose last Add comes after its last start for good), and
// counts the times a key was held by two consumers at once.
type history struct {
	clock     atomic.Int64
	lastAdd   []atomic.Int64
	lastStart []atomic.Int64
	held      []atomic.Bool
	doubles   atomic.Int64
}

func newHistory(keys int) *history {
	return &history{
		lastAdd:   make([]atomic.Int64, keys),
		lastStart: make([]atomic.Int64, keys),
		held:      make([]atomic.Bool, keys),
	}
}

// adding records an Add of k that is about to be made.
func (h *history) adding(k int) {
	now := h.clock.Add(1)
	for {
		old := h.lastAdd[k].Load()
		if old >= now || h.lastAdd[k].CompareAndSwap(old, now) {
			return
		}
	}
}

// started records that a consumer started processing k.
func (h *history) started(k int) {
	h.lastStart[k].Store(h.clock.Add(1))
	if !h.held[k].CompareAndSwap(false, true) {
		h.doubles.Add(1)
	}
}

// finished records that the consumer is done with k (before its Done).
func (h *history) finished(k int) { h.held[k].Store(false) }

// finish waits for the producers, then until every Add was followed by a
// processing, drains q, waits for the consumers, and fails the test if a
// key was ever held twice at once.
func (h *history) finish(t *testing.T, q *actor.Queue[int], producers, consumers *sync.WaitGroup) {
	t.Helper()
	within(t, "the producers did not return from their Adds", producers.Wait)
	h.waitProcessed(t)
	within(t, "ShutDownWithDrain did not return, or the consumers did not end", func() {
		q.ShutDownWithDrain()
		consumers.Wait()
	})
	if n := h.doubles.Load(); n != 0 {
		t.Fatalf("%d times an item was held by two consumers at once", n)
	}
}

// waitProcessed waits until every key's last Add is followed by a
// processing start, and fails the test if that takes waitLimit (a hang is
// a failure, not a slow pass). Call it after the last Add.
func (h *history) waitProcessed(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for k := 0; k < len(h.lastAdd); {
		add, start := h.lastAdd[k].Load(), h.lastStart[k].Load()
		if add == 0 || add < start {
			k++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("key %d: last add at %d not followed by a processing (last start %d) within %v", k, add, start, waitLimit)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStressShutdown races producers, consumers that re-add what they hold,
// and both kinds of shutdown (run it with -race), and checks client-go's
// promise at shutdown: every Add that returned before the shutdown began is
// followed by a processing that starts after it (an item added again while
// processing comes back at its Done, whenever that comes), and no item is
// ever held by two consumers at once. Consumers run until their own Get
// reports shutdown, as client-go's workers do; once they all have, nothing
// is ready (issue 34: an Add racing the shutdown never lands after it).
func TestStressShutdown(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for round := range 20 {
		r := rand.New(rand.NewPCG(seed, uint64(round)))
		stressShutdown(t, r, round%3)
	}
}

func stressShutdown(t *testing.T, r *rand.Rand, kind int) {
	const (
		producers = 8
		consumers = 8
		keys      = 16
		addsEach  = 500
	)
	q := actor.New(actor.Config[int]{})
	var (
		clock     atomic.Int64
		mu        sync.Mutex
		adds      = make([][][2]int64, keys) // per key: clock before each Add, and after it returned
		lastStart = make([]atomic.Int64, keys)
		held      = make([]atomic.Bool, keys)
		doubles   atomic.Int64
	)
	add := func(k int) {
		before := clock.Add(1)
		q.Add(k)
		after := clock.Add(1)
		mu.Lock()
		adds[k] = append(adds[k], [2]int64{before, after})
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for c := range consumers {
		cr := rand.New(rand.NewPCG(r.Uint64(), uint64(c)))
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					if k != 0 {
						t.Errorf("shutdown kind %d: Get() = %d, true; want the zero value with shutdown", kind, k)
					}
					return
				}
				lastStart[k].Store(clock.Add(1))
				if !held[k].CompareAndSwap(false, true) {
					doubles.Add(1)
				}
				if cr.IntN(3) == 0 {
					add(k) // re-added while held: runs again after Done
				}
				if cr.IntN(4) == 0 {
					runtime.Gosched()
				}
				held[k].Store(false)
				q.Done(k)
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pr := rand.New(rand.NewPCG(r.Uint64(), uint64(p)))
		pwg.Go(func() {
			for range addsEach {
				add(pr.IntN(keys))
			}
		})
	}
	// Shut down in the middle of the storm: a drain, a ShutDown, or both
	// racing from two goroutines.
	for range r.IntN(addsEach) {
		runtime.Gosched()
	}
	begun := clock.Add(1)
	var sg sync.WaitGroup
	switch kind {
	case 0:
		sg.Go(q.ShutDown)
	case 1:
		sg.Go(q.ShutDownWithDrain)
	case 2:
		sg.Go(q.ShutDownWithDrain)
		sg.Go(q.ShutDown)
	}
	within(t, fmt.Sprintf("shutdown kind %d: the producers, the consumers or the shutdown calls did not return", kind), func() {
		pwg.Wait()
		wg.Wait()
		sg.Wait()
	})
	q.ShutDown()
	// Every consumer was told "shutdown": whatever raced the shutdown,
	// nothing is ready now (an add that arrived late was ignored).
	if n := q.Len(); n != 0 {
		t.Fatalf("shutdown kind %d: Len() = %d once every consumer got shutdown; want 0", kind, n)
	}
	if k, shutdown := q.Get(); !shutdown {
		t.Fatalf("shutdown kind %d: Get() = %d, false once every consumer got shutdown; want shutdown", kind, k)
	}
	if n := doubles.Load(); n != 0 {
		t.Fatalf("%d times an item was held by two consumers at once", n)
	}
	// An Add that returned before the shutdown began took effect before it;
	// a processing that started after the Add was called saw it.
	for k := range keys {
		last := int64(0)
		for _, a := range adds[k] {
			if a[1] < begun {
				last = max(last, a[0])
			}
		}
		if last != 0 && lastStart[k].Load() < last {
			t.Fatalf("shutdown kind %d: key %d added at %d (returned before the shutdown began at %d), last processing started at %d",
				kind, k, last, begun, lastStart[k].Load())
		}
	}
}

// TestStressPriorities is TestStress with priorities (run it with -race),
// without options, with fairness keys, and with fairness keys and a
// starvation bound:
// producers add with AddWithOpts at random priorities, some delayed;
// consumers take with GetWithPriority and GetBatch and add some of what
// they hold again at another priority. No item is held twice, and every
// Add is followed by a processing.
func TestStressPriorities(t *testing.T) {
	configs := []struct {
		name string
		cfg  actor.Config[int]
	}{
		{"plain", actor.Config[int]{}}, // the lane is on until the first priority other than 0
		{"fair", actor.Config[int]{ // the lane is on, with fairness
			Fairness: func(k int) []string { return []string{fmt.Sprint(k % 5), fmt.Sprint(k % 3)} },
		}},
		{"fair-bound", actor.Config[int]{ // the lane is off
			Fairness:        func(k int) []string { return []string{fmt.Sprint(k % 5), fmt.Sprint(k % 3)} },
			StarvationBound: time.Millisecond,
		}},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) { stressPriorities(t, c.cfg) })
	}
}

func stressPriorities(t *testing.T, cfg actor.Config[int]) {
	const (
		producers = 8
		consumers = 8
		keys      = 64
		addsEach  = 2000
	)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	q := actor.New(cfg)
	h := newHistory(keys)
	var consumersWG sync.WaitGroup
	for c := range consumers {
		r := rand.New(rand.NewPCG(seed, uint64(100+c)))
		consumersWG.Go(func() {
			buf := make([]int, 0, 4)
			for {
				var items []int
				if c%2 == 0 {
					k, p, shutdown := q.GetWithPriority()
					if shutdown {
						if k != 0 || p != 0 {
							t.Errorf("GetWithPriority() = %d, %d, true; want the zero values with shutdown", k, p)
						}
						return
					}
					items = append(buf[:0], k)
				} else {
					var shutdown bool
					if items, shutdown = q.GetBatch(buf); shutdown {
						return
					}
				}
				for _, k := range items {
					h.started(k)
					if r.IntN(5) == 0 {
						h.adding(k)
						q.AddWithOpts(actor.AddOpts{Priority: r.IntN(3) - 1}, k)
					}
					h.finished(k)
					q.Done(k)
				}
			}
		})
	}
	var producersWG sync.WaitGroup
	for p := range producers {
		r := rand.New(rand.NewPCG(seed, uint64(p)))
		producersWG.Go(func() {
			for range addsEach {
				k := r.IntN(keys)
				h.adding(k)
				o := actor.AddOpts{Priority: r.IntN(5) - 2}
				if r.IntN(8) == 0 {
					o.After = time.Duration(r.IntN(100)) * time.Microsecond
				}
				q.AddWithOpts(o, k)
			}
		})
	}
	h.finish(t, q, &producersWG, &consumersWG)
}

// TestStressOwnAddFirst checks, with real concurrency (run it with -race),
// that a Get never passes over an item that its caller's own earlier add
// made ready at a higher priority: workers each add one new item, at 5 or
// (with Add) at 0, and then Get, while many items wait at -100. A Get that
// returns an item of a lower priority than its caller's own is wrong if
// that item was still there after the Get returned, that is, if it went to
// a Get that began later (or to the drain at the end).
func TestStressOwnAddFirst(t *testing.T) {
	const (
		workers = 8
		rounds  = 3000
	)
	q := actor.New(actor.Config[int]{})
	defer q.ShutDown()
	for i := range 1000 {
		q.AddWithOpts(actor.AddOpts{Priority: -100}, -1-i)
	}
	var (
		clock   atomic.Int64                   // orders the starts and ends of Gets
		takenAt [workers * rounds]atomic.Int64 // item -> the start of the Get that took it
		passed  [workers * rounds]atomic.Int64 // item -> the end of its adder's Get that got a lower priority
		wg      sync.WaitGroup
	)
	take := func(item int, start int64) {
		if item >= 0 {
			takenAt[item].Store(start)
		}
	}
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				item, prio := w*rounds+r, 5
				if w%2 == 0 {
					prio = 0
					q.Add(item)
				} else {
					q.AddWithOpts(actor.AddOpts{Priority: prio}, item)
				}
				start := clock.Add(1)
				got, gotPrio, shutdown := q.GetWithPriority()
				end := clock.Add(1)
				if shutdown {
					t.Error("GetWithPriority() = shutdown")
					return
				}
				take(got, start)
				if gotPrio < prio {
					passed[item].Store(end)
				}
				if got < 0 {
					q.AddWithOpts(actor.AddOpts{Priority: -100}, got) // again after its Done
				}
				q.Done(got)
			}
		})
	}
	within(t, "the workers did not finish their rounds", wg.Wait)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for n := q.Len(); n > 0; n = q.Len() {
		start := clock.Add(1)
		got, err := q.GetContext(ctx)
		if err != nil {
			t.Fatalf("GetContext() = %v with %d items ready; want an item", err, n)
		}
		take(got, start)
		q.Done(got)
	}
	wrong := 0
	for item := range passed {
		if end := passed[item].Load(); end != 0 && takenAt[item].Load() > end {
			wrong++
		}
	}
	if wrong != 0 {
		t.Errorf("%d Gets passed over an item their own add made ready", wrong)
	}
}
