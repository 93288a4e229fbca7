// Command cloudapi is a controller that calls a cloud API once per
// reconcile, with at most 40 calls a second per cloud account, and that
// stops calling an account when the API answers 429 Too Many Requests,
// until its Retry-After: a rate on every key of the account level
// (Config.LevelLimits) and Queue.PauseKey.
//
// The queue hands out an account's objects no faster than its rate (5 at
// once, then 40 a second), on the queue's clock, and passes over an
// account without a token, or paused, while the other accounts' objects go
// on: no worker waits, and no account waits behind another. A worker that
// gets a 429 pauses the account until the Retry-After, adds the object
// again and calls Done: the object is ready again at once, and waits in
// the queue, not in a worker, until the pause ends.
//
// Three accounts each have 30 objects. The fake API throttles "acct-b"
// once, with a Retry-After of 250ms. The program checks that no account
// got more than its rate allows, that no object of the paused account was
// handed out during its pause, that the other accounts were served
// meanwhile, and that every object was reconciled; it exits non-zero if a
// check fails.
//
// Run it with:
//
//	go run ./examples/cloudapi
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/actorq/actorq/actor"
)

const (
	workers    = 4
	rate       = 40 // calls a second per account
	burst      = 5  // calls at once per account
	objects    = 30 // per account
	retryAfter = 250 * time.Millisecond
)

var accounts = []string{"acct-a", "acct-b", "acct-c"}

func main() {
	q := actor.New(actor.Config[string]{
		// A key is "account/resource"; its one fairness key is the account.
		Fairness:    func(key string) []string { return []string{accountOf(key)} },
		LevelLimits: []actor.LevelLimit{{Rate: rate, Burst: burst}},
	})
	api := newCloud()
	for _, acct := range accounts {
		for i := range objects {
			q.Add(fmt.Sprintf("%s/vm%02d", acct, i))
		}
	}

	var (
		mu      sync.Mutex
		handOut = map[string][]time.Time{} // each account's hand-outs
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				acct := accountOf(key)
				mu.Lock()
				handOut[acct] = append(handOut[acct], time.Now())
				mu.Unlock()

				var throttled *tooManyRequests
				if err := api.call(key); errors.As(err, &throttled) {
					// Hold the account until the API lets it call again;
					// the object waits in the queue meanwhile.
					if err := q.PauseKey([]string{acct}, throttled.until); err != nil {
						panic(err)
					}
					q.Add(key) // processing: ready again at its Done
				}
				q.Done(key)
			}
		})
	}

	for q.Len() > 0 {
		time.Sleep(time.Millisecond)
	}
	q.ShutDownWithDrain()
	wg.Wait()
	report(api, handOut)
}

// report prints what each account got and checks the rules, exiting
// non-zero if one fails.
func report(api *cloud, handOut map[string][]time.Time) {
	ok := true
	check := func(good bool, format string, args ...any) {
		if !good {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
			ok = false
		}
	}
	from, until := api.paused()
	check(!from.IsZero(), "acct-b was never throttled")
	for _, acct := range accounts {
		times := handOut[acct]
		span := times[len(times)-1].Sub(times[0])
		during := 0
		for _, t := range times {
			if t.After(from) && t.Before(until) {
				during++
			}
		}
		fmt.Printf("%s: %d calls over %v, %d during acct-b's pause\n", acct, api.calls(acct), span.Round(time.Millisecond), during)
		check(api.done(acct) == objects, "%s: %d objects reconciled; want %d", acct, api.done(acct), objects)
		// The rate allows burst calls at once, then one each 1/rate: a
		// worker notes its hand-out a moment after the queue made it, so
		// allow one more.
		allowed := burst + 1 + int(span.Seconds()*rate)
		check(len(times) <= allowed, "%s: %d hand-outs in %v; its rate allows %d", acct, len(times), span, allowed)
		if acct == "acct-b" {
			// Items handed out before the pause may still be under way;
			// none is handed out after it began.
			check(during <= workers-1, "acct-b: %d hand-outs during its pause", during)
		} else {
			check(during > 0, "%s: no call during acct-b's pause; the others must go on", acct)
		}
	}
	fmt.Printf("acct-b paused for %v after a 429\n", until.Sub(from).Round(time.Millisecond))
	if !ok {
		os.Exit(1)
	}
}

func accountOf(key string) string { acct, _, _ := strings.Cut(key, "/"); return acct }

// cloud is a fake cloud API that answers acct-b's tenth call with a 429
// and a Retry-After, and counts each account's calls.
type cloud struct {
	mu          sync.Mutex
	n, ok       map[string]int
	from, until time.Time // acct-b's pause
}

type tooManyRequests struct{ until time.Time }

func (e *tooManyRequests) Error() string { return "429 Too Many Requests" }

func newCloud() *cloud { return &cloud{n: map[string]int{}, ok: map[string]int{}} }

// call makes one API call for the object key.
func (c *cloud) call(key string) error {
	time.Sleep(time.Millisecond) // the call's round trip
	acct := accountOf(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[acct]++
	if acct == "acct-b" && c.n[acct] == 10 {
		c.from = time.Now()
		c.until = c.from.Add(retryAfter)
		return &tooManyRequests{c.until}
	}
	c.ok[acct]++
	return nil
}

func (c *cloud) calls(acct string) int { c.mu.Lock(); defer c.mu.Unlock(); return c.n[acct] }
func (c *cloud) done(acct string) int  { c.mu.Lock(); defer c.mu.Unlock(); return c.ok[acct] }
func (c *cloud) paused() (from, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.from, c.until
}
