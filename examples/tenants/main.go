// Command tenants is a worker pool shared by tenants of very different
// sizes, on an actorq queue with priorities and fair hand-out.
//
// Three tenants start with a backlog from an initial list, added at a low
// priority as controller-runtime's handlers add the objects of an initial
// list: "big" has 3,000 keys, "medium" 300 and "small" 30. While the
// workers chew through it, fresh events arrive at the default priority.
// Fairness hands out round-robin across tenants, so the small tenant's
// keys do not wait behind the big one's; priorities let the fresh events
// overtake the whole backlog. The program prints, every 300 hand-outs, how
// much of each tenant is done, checks that the small tenant finished within
// the first few hundred hand-outs and that every fresh event ran before the
// backlog was half done, and exits by itself (non-zero if a check fails).
//
// Run it with:
//
//	go run ./examples/tenants
package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorq/actorq/actor"
)

const (
	workers     = 4
	lowPriority = -100 // controller-runtime's handler.LowPriority
	work        = 50 * time.Microsecond
)

var tenants = []struct {
	name string
	keys int
}{{"big", 3000}, {"medium", 300}, {"small", 30}}

func main() {
	// A key is "tenant/namespace/name": fairness goes round-robin across
	// tenants, then across each tenant's namespaces.
	fairness := func(key string) []string { return strings.SplitN(key, "/", 3)[:2] }
	q := actor.New(actor.Config[string]{Fairness: fairness})

	total := 0
	for _, t := range tenants {
		keys := make([]string, t.keys)
		for i := range keys {
			keys[i] = fmt.Sprintf("%s/ns%d/obj%04d", t.name, i%3, i)
		}
		q.AddWithOpts(actor.AddOpts{Priority: lowPriority}, keys...) // the initial list, in one message
		total += t.keys
	}

	var (
		mu        sync.Mutex
		done      = map[string]int{}
		handedOut atomic.Int64
		smallAt   int64 // hand-outs when the small tenant's last key was done
		freshAt   []int64
		wg        sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				key, prio, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				n := handedOut.Add(1)
				time.Sleep(work) // reconcile
				tenant := strings.SplitN(key, "/", 2)[0]
				mu.Lock()
				done[tenant]++
				if tenant == "small" && done[tenant] == tenants[2].keys {
					smallAt = n
				}
				if prio > lowPriority {
					freshAt = append(freshAt, n)
				}
				if n%300 == 0 {
					fmt.Printf("%5d handed out: big %4d/%d, medium %3d/%d, small %2d/%d\n",
						n, done["big"], tenants[0].keys, done["medium"], tenants[1].keys, done["small"], tenants[2].keys)
				}
				mu.Unlock()
				q.Done(key)
			}
		})
	}

	// Fresh events arrive while the backlog is worked on: a change to one
	// of the big tenant's objects, at the default priority.
	for i := range 10 {
		time.Sleep(2 * time.Millisecond)
		q.Add(fmt.Sprintf("big/ns0/obj%04d", 2900+i))
	}

	for q.Len() > 0 {
		time.Sleep(time.Millisecond)
	}
	q.ShutDownWithDrain() // waits for the keys being worked on
	wg.Wait()

	fmt.Printf("done: %d hand-outs for %d keys and 10 fresh events\n", handedOut.Load(), total)
	fmt.Printf("the small tenant's %d keys were done by hand-out %d\n", tenants[2].keys, smallAt)
	ok := true
	if smallAt == 0 || smallAt > 4*int64(tenants[2].keys) {
		fmt.Fprintf(os.Stderr, "the small tenant waited too long: done by hand-out %d; want within %d\n", smallAt, 4*tenants[2].keys)
		ok = false
	}
	for _, at := range freshAt {
		if at > int64(total)/2 {
			fmt.Fprintf(os.Stderr, "a fresh event ran at hand-out %d, after half the backlog\n", at)
			ok = false
		}
	}
	if len(freshAt) == 0 {
		fmt.Fprintln(os.Stderr, "no fresh event ran")
		ok = false
	}
	if !ok {
		os.Exit(1)
	}
}
