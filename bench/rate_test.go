package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
)

func TestPipelineRated(t *testing.T) { testFairShapes(t, ratedImpls, "rates") }

// TestUnboundFair checks that rates=unbound is still fair by turns, as
// rates=none: with all items queued before any is taken, the first
// hundred items handed out belong to a hundred tenants.
func TestUnboundFair(t *testing.T) {
	const n = 10_000
	q := ratedImpls(hundred)[1].newQueue()
	defer q.ShutDown()
	for i := range n {
		q.Add(i)
	}
	seen := make(map[int]bool)
	for range tenants {
		item, shutdown := q.Get()
		if shutdown {
			t.Fatal("Get() reported shutdown")
		}
		if seen[tenantOf(item)] {
			t.Fatalf("Get() = %d of tenant %d twice in the first %d items; want round-robin", item, tenantOf(item), tenants)
		}
		seen[tenantOf(item)] = true
		q.Done(item)
	}
}

// bindingBursts are the Bursts of BenchmarkRateBinding's rows.
var bindingBursts = []int{1, 10}

// bindingWorkload is BenchmarkRateBinding's workload with the given
// Burst: half the hundred tenants limited to 2,000 items a second,
// 2,000 items each, so that a run lasts about a second; 4 consumers
// working 1µs on each item.
func bindingWorkload(burst int) binding {
	return binding{
		limited:   tenants / 2,
		limit:     actor.LevelLimit{Rate: 2_000, Burst: burst},
		items:     2_000,
		consumers: 4,
		work:      time.Microsecond,
	}
}

// TestRateBinding checks the binding workload on a short run: every
// limited tenant's items are handed out once each, an achieved rate is
// measured for each, and the unlimited tenants get items meanwhile.
func TestRateBinding(t *testing.T) {
	w := bindingWorkload(1)
	w.limit.Rate, w.items = 1_000, 20 // 20ms
	res, err := runBinding(w)
	if err != nil {
		t.Fatalf("runBinding() error: %v", err)
	}
	for tt, r := range res.rates {
		if r <= 0 {
			t.Errorf("tenant %d: achieved rate %v; want one measured", tt, r)
		}
	}
	if res.unlimited == 0 {
		t.Error("no unlimited item handed out while the limited tenants waited")
	}
	if res.elapsed <= 0 {
		t.Errorf("elapsed = %v; want > 0", res.elapsed)
	}
}

// TestRateHeld checks the held workload: every held key waits for a token
// with an item ready (Snapshot's HeldKeys), and the consumer takes
// freeKey's items, and only those, while the held keys' stay queued.
func TestRateHeld(t *testing.T) {
	const held = 300
	h, err := newRateHeld(held)
	if err != nil {
		t.Fatalf("newRateHeld(%d) error: %v", held, err)
	}
	defer h.q.ShutDown()
	s := h.q.Snapshot(2 * held)
	tokens := 0
	for _, k := range s.HeldKeys {
		if k.Why == "token" {
			tokens++
		}
	}
	if tokens != held {
		t.Errorf("Snapshot: %d keys waiting for a token; want %d", tokens, held)
	}
	for range 3 * held {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		item, err := h.q.GetContext(ctx)
		cancel()
		if err != nil {
			t.Fatalf("GetContext() error: %v; want freeKey's item", err)
		}
		if item < 2*held {
			t.Fatalf("GetContext() = %d, of held key %d; want freeKey's", item, item%held)
		}
		h.q.Done(item)
		h.q.Add(item + handOutDepth)
	}
	if _, shutdown := h.step(); shutdown {
		t.Fatal("step() reported shutdown")
	}
	if l := h.q.Len(); l != held+handOutDepth {
		t.Errorf("Len() = %d after the hand-outs; want %d", l, held+handOutDepth)
	}
}

// TestRateChurn checks the churn workload on fewer keys: every burst is
// drained, with rates and without.
func TestRateChurn(t *testing.T) {
	const keys, burst = 3_000, 1_000
	for _, r := range churnRates {
		t.Run("rates="+r.name, func(t *testing.T) {
			clk := &fakeClock{}
			q := actor.New(churnConfig(r.levels, clk))
			defer q.ShutDown()
			if _, err := runRateChurn(q, clk, keys, burst); err != nil {
				t.Fatalf("runRateChurn() error: %v", err)
			}
		})
	}
}

// BenchmarkPipelineRated is the fair pipeline of BenchmarkPipelineFairPQ
// (the same keys=K tenant counts, skewed, and p=P,c=C shapes: b.N
// distinct items, producers Add, consumers Get and Done) through actor.New
// fair by turns, without rates (rates=none) and with every tenant given,
// through Config.LevelLimits, a rate so high that it never binds
// (rates=unbound: 10^12 items a second, a burst of 2^20; see unbound), so
// that the queue keeps each tenant's bucket and spends a token at every
// hand-out, and with no rate but a cap that never binds (rates=cap: 2^20
// items out; see capped), or an adaptive cap that never binds
// (rates=adaptive; see adaptive). They run in the same run, one after the other;
// benchstat -col /rates gives the cost of the rate and cap machinery as
// the ratio to rates=none. One op is one item; ns/item is the time per item, ns/op
// unchanged, and allocs/item is allocs/op unrounded.
func BenchmarkPipelineRated(b *testing.B) {
	for _, k := range fairPQKeys {
		impls := ratedImpls(newSkewed(k))
		b.Run(fmt.Sprintf("keys=%d", k), func(b *testing.B) {
			for _, s := range fairPQShapes {
				b.Run(fmt.Sprintf("p=%d,c=%d", s.p, s.c), func(b *testing.B) {
					for _, im := range impls {
						b.Run("rates="+im.name, func(b *testing.B) {
							pipelineRun(b, im, s.p, s.c)
							b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/item")
						})
					}
				})
			}
		})
	}
}

// BenchmarkRateBinding measures rates that bind, on the real clock: per
// op, a queue fair by turns over a hundred tenants, half of them limited
// (KeyLimit Rate 2,000 a second, Burst burst=B) with 2,000 items queued
// each, the other half without rates and kept with work ready all along
// (a consumer adds an unlimited tenant's next item as it finishes one),
// and 4 consumers that Get, spin 1µs and Done (see bindingWorkload and
// runBinding); the op ends when the last limited item is handed out,
// about a second in.
//
// rate-err-% is the worst, over the limited tenants, of
// |achieved - Rate| / Rate, in percent, where a tenant's achieved rate is
// its items beyond its burst over the time from its first hand-out to its
// last, as the consumers date them when Get returns: the start-up burst
// is left out. A token used late (the owner's timer waking late, or the
// tenant's turn coming at the back of the turns, behind the tenants that
// had theirs) is lost for good when the bucket holds one token, since a
// bucket banks no credit beyond its Burst: with burst=1 the achieved rate
// falls short of Rate by that lateness, with burst=10 the bucket absorbs
// it. rate-over-% is the worst excess of an achieved rate over Rate, in
// percent (0 if none exceeds it): a rate not respected.
// unlimited-items/s is the unlimited tenants' items handed out over the
// op's duration: the throughput the others get while half the tenants
// wait for tokens (not an idle fraction: the consumers are never short of
// work). All three are averaged over the ops; ns/op is not reported.
func BenchmarkRateBinding(b *testing.B) {
	for _, burst := range bindingBursts {
		b.Run(fmt.Sprintf("burst=%d", burst), func(b *testing.B) {
			w := bindingWorkload(burst)
			want := float64(w.limit.Rate)
			var worst, over, unlimited float64
			ops := 0
			for b.Loop() {
				res, err := runBinding(w)
				if err != nil {
					b.Fatalf("runBinding() error: %v", err)
				}
				worst += res.worstError(want)
				over += res.worstExcess(want)
				unlimited += float64(res.unlimited) / res.elapsed.Seconds()
				ops++
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(100*worst/float64(ops), "rate-err-%")
			b.ReportMetric(100*over/float64(ops), "rate-over-%")
			b.ReportMetric(unlimited/float64(ops), "unlimited-items/s")
		})
	}
}

// rateHeldKeys are the held key counts of BenchmarkRateHeld.
var rateHeldKeys = []int{100, 100_000}

// BenchmarkRateHeld measures the cost of a hand-out against the number of
// keys waiting for a token: one consumer takes the items of the one key
// without a rate (freeKey) of a queue (actor.New) in which keys=K other
// keys, limited to one item an hour through Config.LevelLimits, have each
// started an item and wait, with a second item ready that their rate
// holds back (see newRateHeld); each item taken is done and replaced by
// the key's next. One op is one hand-out with its Done and its Add;
// ns/hand-out is the same figure, named as BenchmarkFairHandOut's.
// benchstat -col /keys gives the ratio to keys=100.
func BenchmarkRateHeld(b *testing.B) {
	for _, k := range rateHeldKeys {
		b.Run(fmt.Sprintf("keys=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			h, err := newRateHeld(k)
			if err != nil {
				b.Fatalf("newRateHeld(%d) error: %v", k, err)
			}
			defer h.q.ShutDown()
			for b.Loop() {
				if _, shutdown := h.step(); shutdown {
					b.Fatal("Get() reported shutdown")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/hand-out")
		})
	}
}

// rateChurnKeys is how many distinct keys BenchmarkRateChurnMemory adds.
const rateChurnKeys = 1_000_000

// churnRates are the rows of BenchmarkRateChurnMemory, rates=NAME: the
// level limits of the queue's keys, none or churnLimit.
var churnRates = []struct {
	name   string
	levels []actor.LevelLimit
}{
	{"none", nil},
	{"level", []actor.LevelLimit{churnLimit}},
}

// churnConfig is the configuration of BenchmarkRateChurnMemory's queues:
// fair by turns with a key of each item's own (ownKey), the level limits
// levels, on the clock clk.
func churnConfig(levels []actor.LevelLimit, clk *fakeClock) actor.Config[int] {
	return actor.Config[int]{Fairness: ownKey, LevelLimits: levels, Clock: clk}
}

// BenchmarkRateChurnMemory measures what a queue keeps of rated keys once
// their buckets are full again: per op, a new queue on a fakeClock, fair
// by turns, gets rateChurnKeys distinct items, each a key of its own
// (ownKey), in bursts of keysSeenBurst, each drained with GetBatch and
// DoneBatch before the next, while the clock stands still (see
// runRateChurn). rates=level: every key has a rate (Config.LevelLimits,
// one item a second, Burst 1), so each key's one item spends its token
// and its bucket is not full; B/key-refilling is the growth of the live
// heap over the empty queue's then, per key. Then the clock is advanced
// 2s, past every bucket's refill, a Len makes the queue see it, and
// B/key-after-drain is the growth of the live heap, per key, measured as
// BenchmarkMemoryKeysSeen measures B/key-seen. rates=none is the same
// queue without rates, the base. ns/op is not reported, B/op and
// allocs/op count a whole op.
func BenchmarkRateChurnMemory(b *testing.B) {
	for _, r := range churnRates {
		b.Run("rates="+r.name, func(b *testing.B) {
			var refilling, drained float64
			ops := 0
			for b.Loop() {
				clk := &fakeClock{}
				q := actor.New(churnConfig(r.levels, clk))
				res, err := runRateChurn(q, clk, rateChurnKeys, keysSeenBurst)
				q.ShutDown()
				if err != nil {
					b.Fatalf("runRateChurn() error: %v", err)
				}
				refilling += res.refilling
				drained += res.drained
				ops++
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(refilling/float64(ops), "B/key-refilling")
			b.ReportMetric(drained/float64(ops), "B/key-after-drain")
		})
	}
}

// BenchmarkThrottled measures a throttle report, as a worker makes it on
// a 429: per op, one Queue.Throttled for an item processing (report=item)
// or one Queue.ThrottledKey for its key (report=key), without a
// Retry-After, on a queue fair by turns whose tenant has an adaptive cap
// (most reports fall in a window that already cut it, as a burst of
// correlated throttles does). Its allocs/op is the rule of zero
// allocations per report.
func BenchmarkThrottled(b *testing.B) {
	for _, report := range []string{"item", "key"} {
		b.Run("report="+report, func(b *testing.B) {
			q := actor.New(actor.Config[int]{
				Fairness:    func(int) []string { return []string{"acct"} },
				LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: 64, Window: time.Millisecond}}},
			})
			defer q.ShutDown()
			q.Add(1)
			item, _ := q.Get()
			keys := []string{"acct"}
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if report == "item" {
					err = q.Throttled(item, time.Time{})
				} else {
					err = q.ThrottledKey(keys, time.Time{})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			q.Done(item)
		})
	}
}
