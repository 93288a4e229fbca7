package actor_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/actorq/actorq/actor"
)

// contractKeys returns the fairness keys of item k at the given depth:
// three tenants, each with two namespaces.
func contractKeys(levels int) func(int) []string {
	t := [3]string{"t0", "t1", "t2"}
	n := [2]string{"n0", "n1"}
	return func(k int) []string {
		return [][]string{nil, {t[k%3]}, {t[k%3], n[k%2]}}[levels]
	}
}

// contractLimiter is the rate limiter of FuzzContract: item k waits
// (k%4) half seconds, so that k%4 == 0 is added at once.
type contractLimiter struct{}

func (contractLimiter) When(k int) time.Duration { return time.Duration(k%4) * 500 * time.Millisecond }
func (contractLimiter) Forget(int)               {}
func (contractLimiter) NumRequeues(int) int      { return 0 }

// FuzzContract drives a whole queue from one goroutine, with every fast
// path the build has on, through random sequences of every call (Add,
// AddAfter, AddWithOpts, AddRateLimited, Get, GetWithPriority,
// GetContext, GetBatch, Items, Done, DoneBatch, Len, SetKeyLimit, steps
// of a fake clock, ShutDown and ShutDownWithDrain), and compares every
// answer with the contract's model (spec): each item handed out and its
// priority, Len, the error of a GetContext that finds nothing, whether
// each ShutDownWithDrain has returned, and what is left after ShutDown.
// The first byte chooses the queue: fairness keys at no, one or two
// levels, by turns or by work time, either requeue rule, named or not
// (a named queue stamps every call), and rates for every key of each
// level or not; with those, two more calls: SetKeyLimit with a rate, and
// PauseKey; and adaptive caps for every first-level key or not: with
// them, those calls and two more, Throttled and ThrottledKey, and Len
// compares the learnt caps of the snapshot too. Time is synctest's.
//
// The caller never waits for the owner goroutine between calls, except
// where the contract says a call is not ordered after the caller's
// earlier ones: a receive from the items channel (synctest.Wait before
// it, and after it so that the owner dates the receive), and a deadline
// passing (after a step of the clock).
func FuzzContract(f *testing.F) {
	for _, seed := range contractSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		cfg, levels := contractConfig(ops[0])
		synctest.Test(t, func(t *testing.T) {
			runContract(t, cfg, levels, ops[1:])
		})
	})
}

// contractConfig returns the queue that FuzzContract's first byte,
// mode, chooses, and its levels of keys.
func contractConfig(mode byte) (actor.Config[int], int) {
	levels := int(mode % 3)
	cfg := actor.Config[int]{RateLimiter: contractLimiter{}}
	if levels > 0 {
		cfg.Fairness = contractKeys(levels)
		cfg.FairByWorkTime = mode&4 != 0
	}
	if mode&8 != 0 {
		cfg.Requeue = actor.RequeueAtAdd
	}
	if mode&16 != 0 {
		cfg.Name = "contract"
	}
	if mode&128 != 0 && levels > 0 {
		cfg.LevelLimits = slices.Clone(contractLevels[:levels])
	}
	if mode&64 != 0 && levels > 0 {
		if cfg.LevelLimits == nil {
			cfg.LevelLimits = make([]actor.LevelLimit, 1)
		}
		cfg.LevelLimits[0].Adaptive = contractAdaptive
		if mode&32 != 0 {
			cfg.LevelLimits[0].Adaptive.Start = contractAdaptive.Max
		}
	}
	return cfg, levels
}

// contractAdaptive is the adaptive cap of every tenant in the modes with
// them: windows of two steps of the clock, a cap from 1 to 3 that starts
// at 2 and halves at a throttle; or, with mode&32, that starts at 3, its
// Max, so that a tenant has no state until its first throttle (dormant).
var contractAdaptive = actor.AdaptiveCap{Min: 1, Max: 3, Start: 2, Backoff: 0.5, Window: time.Second}

// TestContractRandom runs FuzzContract's check on random sequences of
// calls, the same ones on every run, in every mode: the model judges the
// queue in the suites' every configuration, not only while fuzzing.
// About half of the sequences make each kind of call more often than
// chance would: the adds, the hand-outs, Done, the clock's steps, and
// the limits and pauses.
func TestContractRandom(t *testing.T) {
	for seed := range uint64(1500) {
		rng := rand.New(rand.NewPCG(seed, 11))
		ops := make([]byte, 20+rng.IntN(120))
		for i := range ops {
			ops[i] = byte(rng.IntN(256))
			if i%2 == 1 && rng.IntN(3) == 0 {
				ops[i] = []byte{0, 6, 7, 9, 10, 11, 15, 18, 19, 20, 21}[rng.IntN(11)]
			}
		}
		cfg, levels := contractConfig(ops[0])
		if !t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runContract(t, cfg, levels, ops[1:]) })
		}) {
			t.Fatalf("seed %d: FuzzContract input %q", seed, ops)
		}
	}
}

// contractSeeds are FuzzContract's seed corpus: each queue kind with a
// little of everything.
var contractSeeds = [][]byte{
	{0, 0, 1, 0, 2, 6, 0, 0, 37, 2, 49, 6, 0, 11, 1, 6, 0, 13, 0},
	{1, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 6, 0, 6, 0, 6, 0, 11, 0, 6, 0},
	{2, 0, 0, 0, 1, 0, 2, 0, 3, 0, 5, 6, 0, 7, 0, 11, 0, 8, 0, 9, 3, 12, 1},
	{5, 0, 0, 0, 1, 0, 2, 0, 3, 6, 0, 15, 1, 11, 0, 6, 0, 15, 3, 11, 1, 6, 0},
	{9, 14, 4, 0, 0, 0, 3, 0, 6, 6, 0, 6, 0, 11, 0, 6, 0, 6, 0},
	{10, 0, 0, 6, 0, 0, 0, 1, 13, 11, 0, 6, 0, 13, 0},
	{17, 3, 25, 1, 14, 15, 2, 6, 0, 10, 0, 11, 0, 16, 0, 6, 0},
	{26, 4, 40, 5, 6, 15, 3, 9, 4, 12, 4, 17, 0, 6, 0, 11, 3},
	{1, 2, 40, 2, 41, 2, 42, 6, 0, 0, 43, 6, 0, 6, 0, 6, 0},
	{6, 0, 0, 0, 1, 0, 2, 6, 0, 15, 2, 11, 0, 6, 0, 6, 0, 15, 1, 11, 1, 6, 0, 6, 0},
	{129, 0, 0, 0, 3, 0, 6, 0, 1, 6, 0, 6, 0, 6, 0, 11, 0, 6, 0, 15, 1, 6, 0, 11, 3, 6, 0},
	{134, 18, 73, 0, 0, 0, 1, 0, 3, 0, 4, 6, 0, 6, 0, 19, 50, 6, 0, 15, 2, 11, 0, 6, 0, 6, 0, 15, 3, 6, 0},
	{130, 0, 0, 0, 1, 0, 2, 0, 3, 6, 0, 6, 0, 6, 0, 19, 60, 15, 1, 6, 0, 12, 1, 15, 1, 6, 0, 6, 0},
	{141, 18, 170, 0, 0, 0, 1, 0, 2, 0, 3, 9, 2, 11, 0, 15, 2, 10, 0, 16, 0},
	{65, 0, 0, 0, 1, 0, 2, 6, 0, 6, 0, 20, 0, 6, 0, 15, 1, 11, 0, 20, 1, 21, 0, 15, 2, 6, 0, 11, 1, 6, 0, 15, 3, 6, 0},
	{97, 0, 0, 0, 1, 0, 2, 6, 0, 6, 0, 20, 0, 6, 0, 15, 1, 11, 0, 20, 1, 21, 0, 15, 2, 6, 0, 11, 1, 6, 0, 15, 3, 6, 0},
}

// contractOps is how many kinds of call FuzzContract makes: two more
// (rates and pauses) in the modes with rates, and four more (those, and
// throttles) in the modes with adaptive caps.
const contractOps = 18

// contractLevels are the rates of every key of each level in the modes
// with rates: a token each 500 ms (a step of the clock) for a tenant,
// each 250 ms (between two steps) for a namespace.
var contractLevels = []actor.LevelLimit{{Rate: 2, Burst: 2}, {Rate: 4, Burst: 1}}

func runContract(t *testing.T, cfg actor.Config[int], levels int, ops []byte) {
	q := actor.New(cfg)
	defer q.ShutDown()
	m := newSpec(levels, cfg.FairByWorkTime, cfg.Requeue == actor.RequeueAtAdd, contractKeys(levels), contractLimiter{}.When)
	nops := contractOps
	for _, l := range cfg.LevelLimits {
		m.levelLims = append(m.levelLims, specLimit(actor.KeyLimit{Cap: l.Cap, Weight: l.Weight, Rate: l.Rate, Burst: l.Burst, Adaptive: l.Adaptive}))
		nops = contractOps + 2
		if l.Adaptive != (actor.AdaptiveCap{}) {
			nops = contractOps + 4
		}
	}
	start := time.Now()
	var drains []chan struct{}
	var before string // the model before the step, for failure messages
	fail := func(step int, format string, args ...any) {
		t.Helper()
		t.Fatalf("step %d: %s\nmodel before: %v", step, fmt.Sprintf(format, args...), before)
	}
	// take compares one hand-out by a way of taking with the model's;
	// gotPrio is -1000 for a way that does not report the priority.
	take := func(step int, how string, got int, gotPrio int, shutdown bool) {
		t.Helper()
		want, wantPrio, ok := m.get()
		if gotPrio == unreported {
			gotPrio = wantPrio
		}
		switch {
		case !ok && !shutdown:
			fail(step, "%s = %d; want shutdown", how, got)
		case ok && (shutdown || got != want || gotPrio != wantPrio):
			fail(step, "%s = %d (prio %d), shutdown %v; want %d (prio %d)", how, got, gotPrio, shutdown, want, wantPrio)
		}
	}
	for i := 0; i+1 < len(ops); i += 2 {
		step, op, arg := i/2, int(ops[i])%nops, int(ops[i+1])
		k, k2, k3 := arg%12, (arg/12+arg)%12, (arg/3)%12
		prio := arg/12%4 - 1
		after := time.Duration(arg%4-1) * time.Second
		_, pickable := m.next()
		before = m.String()
		if testing.Verbose() {
			t.Logf("step %d: op %d arg %d (k %d %d %d, prio %d, after %v); model next %v, len %d\n%v", step, op, arg, k, k2, k3, prio, after, pickable, m.len(), m)
		}
		switch op {
		case 0:
			q.Add(k)
			m.add(k, 0)
		case 1:
			q.AddAfter(k, after)
			m.addAfter(k, 0, after)
		case 2:
			q.AddWithOpts(actor.AddOpts{Priority: prio}, k)
			m.add(k, prio)
		case 3:
			q.AddWithOpts(actor.AddOpts{Priority: prio, After: after}, k, k2, k3)
			for _, item := range []int{k, k2, k3} {
				m.addAfter(item, prio, after)
			}
		case 4:
			q.AddWithOpts(actor.AddOpts{Priority: prio, After: after, RateLimited: true}, k, k2)
			for _, item := range []int{k, k2} {
				d := m.limiter(item)
				if after != 0 && after < d {
					d = after
				}
				m.addAfter(item, prio, d)
			}
		case 5:
			q.AddRateLimited(k)
			m.addAfter(k, 0, m.limiter(k))
		case 6:
			if !pickable && m.phase == 0 {
				continue // Get would wait
			}
			got, shutdown := q.Get()
			take(step, "Get()", got, unreported, shutdown)
		case 7:
			if !pickable && m.phase == 0 {
				continue
			}
			got, p, shutdown := q.GetWithPriority()
			take(step, "GetWithPriority()", got, p, shutdown)
		case 8:
			ctx, cancel := context.WithCancel(context.Background())
			if !pickable {
				cancel()
			}
			got, err := q.GetContext(ctx)
			cancel()
			switch {
			case pickable:
				if err != nil {
					fail(step, "GetContext() = %d, %v; want an item", got, err)
				}
				take(step, "GetContext()", got, unreported, false)
			case m.phase == 0 && !errors.Is(err, context.Canceled):
				fail(step, "GetContext(canceled) = %d, %v with nothing to hand out; want context.Canceled", got, err)
			case m.phase > 0 && !errors.Is(err, actor.ErrShutDown):
				fail(step, "GetContext() = %d, %v while shutting down with nothing to hand out; want ErrShutDown", got, err)
			}
		case 9:
			if !pickable && m.phase == 0 {
				continue
			}
			n := arg%3 + 1
			got, shutdown := q.GetBatch(make([]int, 0, n))
			var want []int
			for range n {
				item, _, ok := m.get()
				if !ok {
					break
				}
				want = append(want, item)
			}
			if shutdown != (len(want) == 0) || !slices.Equal(got, want) {
				fail(step, "GetBatch(%d) = %v, %v; want %v", n, got, shutdown, want)
			}
		case 10:
			if !pickable || m.phase != 0 {
				continue
			}
			items := q.Items()
			synctest.Wait() // a receive is not ordered after the caller's calls
			got := <-items
			synctest.Wait() // the owner dates the receive before the clock moves
			take(step, "<-Items()", got, unreported, false)
		case 11:
			q.Done(k)
			m.done(k)
		case 12:
			q.DoneBatch([]int{k, k2, k})
			for _, item := range []int{k, k2, k} {
				m.done(item)
			}
		case 13:
			if got, want := q.Len(), m.len(); got != want {
				fail(step, "Len() = %d; want %d", got, want)
			}
			if nops > contractOps+2 {
				if got, want := learnt(q.Snapshot(100).AdaptiveKeys), m.learnt(); got != want {
					fail(step, "Snapshot().AdaptiveKeys = %s; want %s", got, want)
				}
			}
		case 14:
			if levels == 0 {
				continue
			}
			keys := contractKeys(levels)(k)[:1+arg/12%levels]
			capN, weight := arg/24%3, arg/72%4
			if err := q.SetKeyLimit(actor.KeyLimit{Keys: keys, Cap: capN, Weight: weight}); err != nil {
				fail(step, "SetKeyLimit(%v, cap %d, weight %d) = %v", keys, capN, weight, err)
			}
			m.setLimit(keys, sLimit{cap: capN, weight: weight})
		case 15:
			time.Sleep(time.Duration(arg%4) * 500 * time.Millisecond)
			synctest.Wait() // the owner's timer fires at the new instant
			m.advance(time.Since(start))
		case 16:
			if arg%4 != 0 {
				continue
			}
			q.ShutDown()
			m.shutDown(false)
		case 17:
			if arg%4 != 0 {
				continue
			}
			returned := make(chan struct{})
			go func() {
				defer close(returned)
				q.ShutDownWithDrain()
			}()
			synctest.Wait() // the drain has begun
			drains = append(drains, returned)
			m.shutDown(true)
		case 18:
			keys := contractKeys(levels)(k)[:1+arg/12%levels]
			l := actor.KeyLimit{Keys: keys, Cap: arg / 24 % 3, Rate: []rate.Limit{0, 1, 2, 4, rate.Inf}[arg/72%5], Burst: 1 + arg%3}
			if err := q.SetKeyLimit(l); err != nil {
				fail(step, "SetKeyLimit(%+v) = %v", l, err)
			}
			m.setLimit(keys, specLimit(l))
		case 19:
			keys := contractKeys(levels)(k)[:1+arg/12%levels]
			d := time.Duration(arg/24%5-1) * 250 * time.Millisecond
			if err := q.PauseKey(keys, time.Now().Add(d)); err != nil {
				fail(step, "PauseKey(%v, %v) = %v", keys, d, err)
			}
			m.pauseKey(keys, m.now+d)
		case 20, 21:
			d := time.Duration(arg/24%4) * 250 * time.Millisecond
			var retryAfter time.Time
			if d > 0 {
				retryAfter = time.Now().Add(d)
			}
			if op == 20 {
				if err := q.Throttled(k, retryAfter); err != nil {
					fail(step, "Throttled(%d, %v) = %v", k, d, err)
				}
				m.throttleItem(k, m.now+d)
				continue
			}
			keys := contractKeys(levels)(k)[:1+arg/12%levels]
			if err := q.ThrottledKey(keys, retryAfter); err != nil {
				fail(step, "ThrottledKey(%v, %v) = %v", keys, d, err)
			}
			m.throttleKey(keys, m.now+d)
		}
		if len(drains) > 0 {
			synctest.Wait()
			for d, returned := range drains {
				select {
				case <-returned:
					if !m.drains[d] {
						fail(step, "ShutDownWithDrain #%d returned; want it waiting", d)
					}
				default:
					if m.drains[d] {
						fail(step, "ShutDownWithDrain #%d waiting; want it returned", d)
					}
				}
			}
		}
	}
	q.ShutDown()
	m.shutDown(false)
	for _, returned := range drains {
		<-returned
	}
	if got, want := q.Len(), m.len(); got != want {
		t.Fatalf("after ShutDown: Len() = %d; want %d", got, want)
	}
	for {
		want, wantPrio, ok := m.get()
		got, p, shutdown := q.GetWithPriority()
		if !ok {
			if !shutdown {
				t.Fatalf("after ShutDown: GetWithPriority() = %d, %d; want shutdown", got, p)
			}
			return
		}
		if shutdown || got != want || p != wantPrio {
			t.Fatalf("after ShutDown: GetWithPriority() = %d, %d, %v; want %d, %d\nmodel: %v", got, p, shutdown, want, wantPrio, m)
		}
	}
}

// learnt describes a snapshot's adaptive caps, as spec.learnt does.
func learnt(keys []actor.AdaptiveKey) string {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: cap %d, processing %d, throttles %d; ", strings.Join(k.Keys, "/"), k.Cap, k.Processing, k.Throttles)
	}
	return b.String()
}

// unreported stands for the priority of a hand-out that does not report one.
const unreported = -1000
