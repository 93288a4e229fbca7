// Command accounts is a controller that calls a cloud API whose limit on
// calls in flight per account is unknown, differs from account to
// account, and is enforced with a 429 Too Many Requests: an adaptive cap
// on every key of the account level (Config.LevelLimits with an
// AdaptiveCap) learns each account's limit from the throttles the
// workers report (Queue.Throttled).
//
// No fixed cap fits every account: one low enough for the strictest
// holds back the others, and one high enough for the loosest has the
// strict ones answer most calls with a 429. An adaptive cap starts at Max
// and falls at most once a window while 429s come, then grows by 1 after
// each window without one, so it settles at the account's limit or one
// above it. A worker that gets a 429 reports it and adds the object
// again: the object waits in the queue, not in a worker, while the other
// accounts' objects go on.
//
// Three accounts, behind limits of 3 and 8 calls at once and no limit,
// are worked on by 32 workers, more than their three caps at Max take, so
// only the learnt caps bind. Each account keeps 40 objects ready for
// 1.5 s of run time (a stall of the machine is left out, see watch). The
// program checks that each limited account's cap at the end is within a
// step of its limit L, in [L−1, L+2], and that less than 20% of its calls
// were throttled once its cap had settled (from the second half of the
// run on; caps stuck at Max would see 81% and 50%); that the account
// without a limit was never throttled, kept its cap at Max and had Max
// calls in flight at once; and that every object was reconciled exactly
// once. It exits non-zero if a check fails.
//
// Run it with:
//
//	go run ./examples/accounts
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorq/actorq/actor"
)

const (
	workers  = 32
	maxCap   = 16                      // the adaptive cap's Max, and its Start
	window   = 50 * time.Millisecond   // the adaptive cap's Window
	callTime = 4 * time.Millisecond    // one API call's round trip, 429 or not
	backlog  = 40                      // objects ready per account
	runFor   = 1500 * time.Millisecond // then no new objects; the rest drain
	tick     = 10 * time.Millisecond   // the caps are sampled each tick
	settle   = 10 * window             // a stall unsettles the caps for at most this long
	maxRun   = 4 * time.Second         // however much the machine stalls
)

// accounts are the cloud accounts and their limits on calls in flight,
// hidden from the controller; 0 means none.
var accounts = []struct {
	name  string
	limit int
}{{"acct-small", 3}, {"acct-large", 8}, {"acct-free", 0}}

func main() {
	q := actor.New(actor.Config[string]{
		// A key is "account/object"; its one fairness key is the account.
		Fairness: func(key string) []string { return []string{accountOf(key)} },
		// Every account: a cap that learns its limit, from 16 down.
		LevelLimits: []actor.LevelLimit{{Adaptive: actor.AdaptiveCap{Max: maxCap, Window: window}}},
	})
	api := newCloud()
	start := time.Now()
	api.start = start

	var (
		feeding atomic.Bool // objects replace those reconciled
		mu      sync.Mutex
		next    = map[string]int{} // each account's objects added
		wg      sync.WaitGroup
	)
	add := func(acct string) {
		mu.Lock()
		n := next[acct]
		next[acct]++
		mu.Unlock()
		api.expect()
		q.Add(fmt.Sprintf("%s/obj%05d", acct, n))
	}
	feeding.Store(true)
	for _, a := range accounts {
		for range backlog {
			add(a.name)
		}
	}
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if err := api.call(key); errors.Is(err, errTooManyRequests) {
					// Report it, which lowers the account's cap (once a
					// window), and try the object again: it waits in the
					// queue, not in a worker, until the account has room.
					if err := q.Throttled(key, time.Time{}); err != nil {
						panic(err)
					}
					q.Add(key) // processing: ready again at its Done
					q.Done(key)
					continue
				}
				q.Forget(key)
				q.Done(key)
				if feeding.Load() {
					add(accountOf(key))
				}
			}
		})
	}

	w := watch(q, api)
	feeding.Store(false)

	drained := api.drained(10 * time.Second)
	q.ShutDown()
	wg.Wait()
	report(api, w, drained)
	fmt.Printf("ran %v; counted %v, leaving out %d stalls of the machine\n",
		time.Since(start).Round(time.Millisecond), w.ran.Round(time.Millisecond), w.stalls)
}

// watched is what watch saw.
type watched struct {
	final   map[string]actor.AdaptiveKey // each account's cap at the last settled sample
	seen    map[string][2]int            // the least and most cap of each while settled
	settled []bool                       // whether the caps were settled between samples i and i+1
	ran     time.Duration                // the run time counted
	stalls  int
}

// watch samples the learnt caps every tick until the program has run
// for runFor, and returns what it saw. The caps are settled from the
// second half of the run on.
//
// It counts only the time the program got to run: a gap of more than a
// window between two samples (a machine too busy to run it) is a stall,
// is not counted, and unsettles the caps for a while. During a stall the
// items processing stay processing and no 429 comes, so the caps grow a
// step a window, as after quiet windows, up to twice the items
// processing; settle is long enough for them to come down from that. A
// run that stalls past maxRun ends there.
func watch(q *actor.Queue[string], api *cloud) watched {
	w := watched{seen: map[string][2]int{}}
	calm := runFor / 2 // the run time from which the caps are settled
	for i, last := 0, time.Now(); (w.ran < runFor || w.ran < calm) && time.Since(api.start) < maxRun; i++ {
		time.Sleep(tick)
		keys := q.Snapshot(len(accounts)).AdaptiveKeys
		now := time.Now()
		api.interval.Store(int32(i + 1)) // calls from now on count after sample i+1
		gap := now.Sub(last)
		last = now
		stalled := gap > window
		w.settled = append(w.settled, w.ran >= calm && !stalled)
		if stalled {
			// The caps grew at most a step a window of the stall: give
			// them as many windows, and two more, to come down.
			w.stalls++
			calm = max(calm, w.ran+min(settle, (gap/window+2)*window))
			gap = tick
		}
		w.ran += gap
		if w.ran < calm {
			continue
		}
		w.final = map[string]actor.AdaptiveKey{}
		for _, k := range keys {
			w.final[k.Keys[0]] = k
			r, ok := w.seen[k.Keys[0]]
			if !ok {
				r = [2]int{k.Cap, k.Cap}
			}
			w.seen[k.Keys[0]] = [2]int{min(r[0], k.Cap), max(r[1], k.Cap)}
		}
	}
	return w
}

// report prints what each account got and checks the rules, exiting
// non-zero if one fails.
func report(api *cloud, w watched, drained bool) {
	ok := true
	check := func(good bool, format string, args ...any) {
		if !good {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
			ok = false
		}
	}
	check(drained, "the objects were not all reconciled within 10s of the end")
	fmt.Println("account     limit  cap at end (settled)  most in flight  reconciled  throttled (all, settled)")
	for _, a := range accounts {
		s := api.stats(a.name)
		var calm tally // the calls while the caps were settled
		for i, t := range s.byInterval {
			if i < len(w.settled) && w.settled[i] {
				calm.calls += t.calls
				calm.throttled += t.throttled
			}
		}
		k, learnt := w.final[a.name]
		if !learnt {
			k.Cap = maxCap // not listed: at its Start, with no throttle
		}
		limit, within := "none", fmt.Sprintf("%d", k.Cap)
		if r, ok := w.seen[a.name]; ok {
			within = fmt.Sprintf("%d (%d..%d)", k.Cap, r[0], r[1])
		}
		if a.limit > 0 {
			limit = fmt.Sprintf("%d", a.limit)
		}
		fmt.Printf("%-11s %5s  %-20s  %14d  %10d  %5.1f%%, %4.1f%%\n", a.name, limit, within,
			s.most, s.ok, percent(s.throttled, s.calls), percent(calm.throttled, calm.calls))

		if a.limit > 0 {
			// The cap settles at L or L+1 (a 429 at L+1 takes it back
			// to L); allow a step either side for a noisy machine.
			lo, hi := a.limit-1, a.limit+2
			check(learnt, "%s: no adaptive cap in the last settled snapshot", a.name)
			check(k.Cap >= lo && k.Cap <= hi,
				"%s: cap %d at the end; want it in [%d, %d], near its limit %d", a.name, k.Cap, lo, hi, a.limit)
			// Settled, a few calls in a hundred are throttled (a 429
			// at L+1, about every other window); a busy machine adds
			// some.
			check(calm.calls > 0 && percent(calm.throttled, calm.calls) < 20,
				"%s: %d of %d calls throttled once settled; want under 20%%", a.name, calm.throttled, calm.calls)
		} else {
			check(s.throttled == 0, "%s: %d calls throttled; want none", a.name, s.throttled)
			check(k.Cap == maxCap, "%s: cap %d at the end; want %d, its Max", a.name, k.Cap, maxCap)
			check(s.most == maxCap, "%s: at most %d calls in flight; want %d, its cap", a.name, s.most, maxCap)
		}
	}
	if twice := api.reconciledTwice(); twice != "" {
		check(false, "%s reconciled twice", twice)
	}
	fmt.Printf("%d objects reconciled once each\n", api.reconciled())
	if !ok {
		os.Exit(1)
	}
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func accountOf(key string) string { acct, _, _ := strings.Cut(key, "/"); return acct }

var errTooManyRequests = errors.New("429 Too Many Requests")

// cloud is a fake cloud API that answers a call with a 429 when its
// account already has its limit of calls in flight, and keeps counts.
type cloud struct {
	start    time.Time
	interval atomic.Int32 // the samples watch has taken: a call counts after the last

	mu       sync.Mutex
	inFlight map[string]int
	acct     map[string]*account
	done     map[string]bool // the objects reconciled
	pending  int             // objects added and not reconciled
	twice    string          // an object reconciled twice, if any
}

// account is what the API counted for one account.
type account struct {
	calls, throttled, ok int
	most                 int     // the most calls in flight at once
	byInterval           []tally // the calls between samples i and i+1
}

type tally struct{ calls, throttled int }

func newCloud() *cloud {
	c := &cloud{inFlight: map[string]int{}, acct: map[string]*account{}, done: map[string]bool{}}
	for _, a := range accounts {
		c.acct[a.name] = new(account)
	}
	return c
}

// expect counts one more object to reconcile.
func (c *cloud) expect() { c.mu.Lock(); c.pending++; c.mu.Unlock() }

// call makes one API call for the object key, which takes callTime
// whatever the answer.
func (c *cloud) call(key string) error {
	name := accountOf(key)
	limit := 0
	for _, a := range accounts {
		if a.name == name {
			limit = a.limit
		}
	}
	c.mu.Lock()
	a := c.acct[name]
	i := int(c.interval.Load())
	for len(a.byInterval) <= i {
		a.byInterval = append(a.byInterval, tally{})
	}
	a.calls++
	a.byInterval[i].calls++
	throttled := limit > 0 && c.inFlight[name] >= limit
	if throttled {
		a.throttled++
		a.byInterval[i].throttled++
	} else {
		c.inFlight[name]++
		a.most = max(a.most, c.inFlight[name])
	}
	c.mu.Unlock()

	time.Sleep(callTime)
	if throttled {
		return errTooManyRequests
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight[name]--
	a.ok++
	if c.done[key] && c.twice == "" {
		c.twice = key
	}
	c.done[key] = true
	c.pending--
	return nil
}

// drained waits until every object added is reconciled, or for timeout,
// and reports whether they were.
func (c *cloud) drained(timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		c.mu.Lock()
		n := c.pending
		c.mu.Unlock()
		if n == 0 {
			return true
		}
	}
	return false
}

func (c *cloud) stats(name string) account {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := *c.acct[name]
	a.byInterval = slices.Clone(a.byInterval)
	return a
}
func (c *cloud) reconciledTwice() string { c.mu.Lock(); defer c.mu.Unlock(); return c.twice }
func (c *cloud) reconciled() int         { c.mu.Lock(); defer c.mu.Unlock(); return len(c.done) }
