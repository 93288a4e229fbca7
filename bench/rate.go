package bench

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorq/actorq/actor"
)

// The workloads of per-key rates (issue 49, actor.KeyLimit's Rate and
// Burst, actor.Config.LevelLimits): what a rate costs where it never
// binds, how exact it is where it binds, what a hand-out costs with many
// keys waiting for a token, and what the queue keeps of rated keys once
// their buckets are full again.

// unbound is the level limit of BenchmarkPipelineRated's rates=unbound: a
// rate so high that it never binds (a token every nanosecond, a million
// at one instant), but finite, so that the queue keeps every key's
// bucket and spends a token of it at every hand-out. rate.Inf, or 0,
// would be no rate at all.
var unbound = actor.LevelLimit{Rate: 1e12, Burst: 1 << 20}

// capped is the level limit of BenchmarkPipelineRated's rates=cap: no
// rate, but a cap on the items out so high that it never binds, so that
// the queue counts every tenant's items out against it.
var capped = actor.LevelLimit{Cap: 1 << 20}

// adaptive is the level limit of BenchmarkPipelineRated's rates=adaptive:
// no rate, but an adaptive cap that never binds and is never reported
// for (Max and Start of capped's cap), so that the queue counts every
// tenant's items out against it and dates every hand-out, receive and
// Done for its windows: its cost over rates=cap is what adaptation adds.
var adaptive = actor.LevelLimit{Adaptive: actor.AdaptiveCap{Max: 1 << 20, Window: time.Second}}

// ratedImpls are the implementations of BenchmarkPipelineRated over the
// tenants s: actor.New fair by turns across them (Config.Fairness returns
// an item's tenant as its one key), without rates (rates=none) and with
// LevelLimits[0] giving every tenant the rate unbound (rates=unbound), or
// no rate but the cap capped (rates=cap) or the adaptive cap adaptive
// (rates=adaptive). All are actor.New itself, not
// the adapter of BenchmarkPipelineFairPQ, so that they differ only in the
// limits.
func ratedImpls(s skewed) []impl {
	return []impl{
		{
			name:     "none",
			newQueue: func() queue { return actor.New(actor.Config[int]{Fairness: s.fairness}) },
		},
		{
			name: "unbound",
			newQueue: func() queue {
				return actor.New(actor.Config[int]{Fairness: s.fairness, LevelLimits: []actor.LevelLimit{unbound}})
			},
		},
		{
			name: "cap",
			newQueue: func() queue {
				return actor.New(actor.Config[int]{Fairness: s.fairness, LevelLimits: []actor.LevelLimit{capped}})
			},
		},
		{
			name: "adaptive",
			newQueue: func() queue {
				return actor.New(actor.Config[int]{Fairness: s.fairness, LevelLimits: []actor.LevelLimit{adaptive}})
			},
		},
	}
}

// binding is the workload of BenchmarkRateBinding: the hundred tenants of
// BenchmarkPipelineFair (hundred.keys), of which the first limited each
// have the rate limit, and the others none.
type binding struct {
	limited   int              // tenants 0..limited-1 have the rate
	limit     actor.LevelLimit // their Rate and Burst (Cap and Weight unused)
	items     int              // items of each limited tenant
	consumers int              // goroutines that Get and Done
	work      time.Duration    // each consumer's work per item, spinning
}

// bindingResult is what the consumers of one binding run saw.
type bindingResult struct {
	// elapsed is the time from the consumers' start to the last limited
	// item handed out.
	elapsed time.Duration
	// rates[t] is limited tenant t's achieved rate, items a second: its
	// items beyond its burst over the time from its first hand-out to
	// its last (0 if it had no more items than its burst).
	rates []float64
	// got[t] counts limited tenant t's items handed out.
	got []int
	// unlimited counts the unlimited tenants' items handed out before the
	// last limited item was.
	unlimited int
}

// worstError returns the largest relative error of an achieved rate in
// r against want, |achieved-want|/want, over the limited tenants.
func (r bindingResult) worstError(want float64) float64 {
	worst := 0.0
	for _, achieved := range r.rates {
		worst = max(worst, math.Abs(achieved-want)/want)
	}
	return worst
}

// worstExcess returns the largest relative excess of an achieved rate in
// r over want, (achieved-want)/want, over the limited tenants, or 0 if
// none exceeds it.
func (r bindingResult) worstExcess(want float64) float64 {
	worst := 0.0
	for _, achieved := range r.rates {
		worst = max(worst, (achieved-want)/want)
	}
	return worst
}

// tenantStats is one consumer's view of the limited tenants: how many of
// each one's items it got, and when it got the first and the last.
type tenantStats struct {
	got         []int
	first, last []time.Duration
	unlimited   int
}

// runBinding runs the workload w on a new queue with fairness over the
// hundred tenants (item i's key is tenant i%100's) and the limits of w:
// it queues w.items items of each limited tenant and handOutDepth of each
// unlimited one, then starts w.consumers goroutines that Get an item,
// work on it for w.work, Done it and, while limited items are left, add
// the next item of an unlimited tenant whose item they got (item +
// 100·handOutDepth), so that every unlimited tenant keeps work ready all
// along and the limited tenants' turns come between theirs. A consumer
// dates each item as Get returns it. Once the last limited item was
// handed out, runBinding shuts the queue down and returns when the
// consumers have ended. It reports an error if an item of a limited
// tenant was lost or handed out twice.
func runBinding(w binding) (bindingResult, error) {
	limits := make([]actor.KeyLimit, w.limited)
	for t := range limits {
		limits[t] = actor.KeyLimit{Keys: hundred.keys[t], Rate: w.limit.Rate, Burst: w.limit.Burst}
	}
	q := actor.New(actor.Config[int]{
		Fairness:  func(i int) []string { return hundred.keys[i%tenants] },
		KeyLimits: limits,
	})
	var items []int
	for t := range tenants {
		n := handOutDepth
		if t < w.limited {
			n = w.items
		}
		for j := range n {
			items = append(items, t+tenants*j)
		}
	}
	q.AddWithOpts(actor.AddOpts{}, items...)
	q.Len() // waits for the add

	var (
		remaining atomic.Int64
		stopped   atomic.Bool
		finished  = make(chan struct{})
		stats     = make([]tenantStats, w.consumers)
		wg        sync.WaitGroup
	)
	remaining.Store(int64(w.limited * w.items))
	start := time.Now()
	for c := range w.consumers {
		st := &stats[c]
		st.got = make([]int, w.limited)
		st.first = make([]time.Duration, w.limited)
		st.last = make([]time.Duration, w.limited)
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				at := time.Since(start)
				if w.work > 0 {
					spin(w.work)
				}
				q.Done(item)
				if t := item % tenants; t < w.limited {
					if st.got[t] == 0 {
						st.first[t] = at
					}
					st.got[t]++
					st.last[t] = at
					if remaining.Add(-1) == 0 {
						stopped.Store(true)
						close(finished)
					}
				} else if !stopped.Load() {
					st.unlimited++
					q.Add(item + tenants*handOutDepth)
				}
			}
		})
	}
	<-finished
	res := bindingResult{elapsed: time.Since(start)}
	q.ShutDown()
	wg.Wait()

	res.rates = make([]float64, w.limited)
	res.got = make([]int, w.limited)
	for t := range w.limited {
		first, last := time.Duration(math.MaxInt64), time.Duration(0)
		for _, st := range stats {
			if st.got[t] > 0 {
				res.got[t] += st.got[t]
				first, last = min(first, st.first[t]), max(last, st.last[t])
			}
		}
		if res.got[t] != w.items {
			return res, fmt.Errorf("tenant %d: %d items handed out; want %d", t, res.got[t], w.items)
		}
		if beyond := res.got[t] - max(w.limit.Burst, 1); beyond > 0 && last > first {
			res.rates[t] = float64(beyond) / (last - first).Seconds()
		}
	}
	for _, st := range stats {
		res.unlimited += st.unlimited
	}
	return res, nil
}

// heldLimit is the level limit of BenchmarkRateHeld's held keys: one item
// an hour, one at a time, so that a key that has started an item waits
// for the rest of the run.
var heldLimit = actor.LevelLimit{Rate: 1.0 / 3600, Burst: 1}

// freeKey is the one key of BenchmarkRateHeld without a rate.
var freeKey = []string{"free"}

// rateHeld is one consumer of a fair queue in which held keys (the first
// of handOutKeys) each wait for a token of their rate, heldLimit, with an
// item ready that the rate holds back, while one more key, freeKey,
// whose own limit has no rate, keeps handOutDepth items ready; the
// consumer takes those. Items 0..2·held-1 are the held keys' (item i of
// key i%held), the others freeKey's.
type rateHeld struct {
	q    *actor.Queue[int]
	held int
}

// newRateHeld returns the workload with held keys (1 to handOutMaxKeys)
// waiting: it queues two items of each held key, hands out and finishes
// the first of each (which spends its key's one token), then queues
// freeKey's items. It reports an error, and shuts the queue down, if a
// hand-out takes a second item of a held key, or the queue does not hold
// the items it should.
func newRateHeld(held int) (*rateHeld, error) {
	keys := handOutKeys()[:held]
	q := actor.New(actor.Config[int]{
		Fairness: func(i int) []string {
			if i < 2*held {
				return keys[i%held]
			}
			return freeKey
		},
		LevelLimits: []actor.LevelLimit{heldLimit},
		KeyLimits:   []actor.KeyLimit{{Keys: freeKey}}, // replaces the level's limit: no rate
	})
	items := make([]int, 2*held)
	for i := range items {
		items[i] = i
	}
	q.AddWithOpts(actor.AddOpts{}, items...)
	buf := make([]int, 0, pipelineBatch)
	for got := 0; got < held; {
		batch, shutdown := q.GetBatch(buf)
		if shutdown {
			return nil, fmt.Errorf("GetBatch() reported shutdown")
		}
		for _, item := range batch {
			if item >= held {
				q.ShutDown()
				return nil, fmt.Errorf("GetBatch() handed out item %d, the second of key %d, whose rate allows one", item, item%held)
			}
		}
		q.DoneBatch(batch)
		got += len(batch)
	}
	for i := range handOutDepth {
		q.Add(2*held + i)
	}
	if l := q.Len(); l != held+handOutDepth {
		q.ShutDown()
		return nil, fmt.Errorf("Len() = %d with %d keys held; want %d", l, held, held+handOutDepth)
	}
	return &rateHeld{q: q, held: held}, nil
}

// step takes one item, marks it done and adds the next item of freeKey,
// and returns the item taken. It reports shutdown as Get does.
func (h *rateHeld) step() (item int, shutdown bool) {
	item, shutdown = h.q.Get()
	if shutdown {
		return item, true
	}
	h.q.Done(item)
	h.q.Add(item + handOutDepth)
	return item, false
}

// churnLimit is the level limit of BenchmarkRateChurnMemory's rated keys:
// one item a second, one at a time. On a fakeClock that stands still, a
// key that has started its item has a bucket that is not full until the
// clock is advanced by churnRefill.
var churnLimit = actor.LevelLimit{Rate: 1, Burst: 1}

// churnRefill is how far runRateChurn advances the clock once the keys
// are drained: past the instant every bucket of churnLimit is full again.
const churnRefill = 2 * time.Second

// fakeClock is an actor.Clock that stands still until advanced, and whose
// timers never fire: a queue on it sees time pass only when it reads the
// clock, as it does at every Len, which makes what is due by then (a
// bucket full again) take effect.
type fakeClock struct {
	ns atomic.Int64 // nanoseconds since fakeEpoch
}

// fakeEpoch is a fakeClock's reading before it is advanced.
var fakeEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) Now() time.Time { return fakeEpoch.Add(time.Duration(c.ns.Load())) }

func (c *fakeClock) NewTimer(time.Duration) actor.Timer { return stillTimer{make(chan time.Time)} }

// advance moves the clock forward by d.
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// stillTimer is a fakeClock's timer: its channel never delivers.
type stillTimer struct{ c chan time.Time }

func (t stillTimer) C() <-chan time.Time      { return t.c }
func (t stillTimer) Stop() bool               { return false }
func (t stillTimer) Reset(time.Duration) bool { return false }

// churnResult is the live heap a queue kept of the keys of one
// runRateChurn, per key, over the empty queue's.
type churnResult struct {
	// refilling is measured once the last burst is drained, with the
	// clock where it was throughout: every rated key's bucket is then not
	// full, and the queue keeps it.
	refilling float64
	// drained is measured after the clock was advanced past every
	// bucket's refill and a Len made the queue see it.
	drained float64
}

// runRateChurn adds items 0..keys-1 to the empty queue q, which is on the
// clock clk, in bursts of burst items, and drains each burst with
// GetBatch and DoneBatch before the next, as runKeysSeen does, while clk
// stands still; with a Fairness that gives each item a key of its own
// (ownKey) and a rate (churnLimit) on every key, each key starts one
// item, which spends its token. Then it advances clk by churnRefill,
// calls Len, which makes the queue see the buckets full again, and
// measures the heap. It reports an error if q is not empty after a
// drain. It does not shut q down.
func runRateChurn(q *actor.Queue[int], clk *fakeClock, keys, burst int) (churnResult, error) {
	q.Len() // let the queue settle: its goroutines are started
	empty := liveHeap()
	bq := batchQueue{q}
	for start := 0; start < keys; start += burst {
		end := min(start+burst, keys)
		for i := start; i < end; i++ {
			q.Add(i)
		}
		if err := drain(bq, end-start); err != nil {
			return churnResult{}, err
		}
		// Len from this goroutine sees its Dones applied.
		if l := q.Len(); l != 0 {
			return churnResult{}, fmt.Errorf("Len() = %d after draining items %d to %d; want 0", l, start, end-1)
		}
	}
	refilling := liveHeap()
	clk.advance(churnRefill)
	if l := q.Len(); l != 0 { // the owner reads the clock: the buckets are full
		return churnResult{}, fmt.Errorf("Len() = %d after the clock was advanced; want 0", l)
	}
	drained := liveHeap()
	runtime.KeepAlive(q)
	perKey := func(heap uint64) float64 { return float64(int64(heap)-int64(empty)) / float64(keys) }
	return churnResult{refilling: perKey(refilling), drained: perKey(drained)}, nil
}
