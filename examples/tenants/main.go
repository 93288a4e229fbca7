// Command tenants is a worker pool shared by tenants of very different
// sizes, on an actorq queue with priorities, fair hand-out, a cap, a
// weight and a rate.
//
// Four tenants start with a backlog from an initial list, added at a low
// priority as controller-runtime's handlers add the objects of an initial
// list: "big" has 3,000 keys, "medium" 300, "small" 30 and "metered" 100.
// While the four workers chew through it, fresh events arrive at the
// default priority.
//
//   - Fairness hands out round-robin across tenants, so the small tenant's
//     keys do not wait behind the big one's.
//   - Priorities let the fresh events overtake the whole backlog.
//   - The big tenant has a cap of 2: it never holds more than two of the
//     four workers, however much it has queued.
//   - The medium tenant has a weight of 3: three turns for each of the
//     others'.
//   - The metered tenant calls an API that allows it 200 calls a second,
//     10 at once: the queue hands out its keys no faster, and the others'
//     keys go on meanwhile.
//
// The program prints, every 300 hand-outs, each tenant's items processing
// and done, then what each tenant got; it checks each of the five rules
// above and exits by itself (non-zero if a check fails).
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
}{{"big", 3000}, {"medium", 300}, {"small", 30}, {"metered", 100}}

// The metered tenant's rate: items a second, and at once.
const (
	meteredRate  = 200
	meteredBurst = 10
)

func main() {
	// A key is "tenant/namespace/name": fairness goes round-robin across
	// tenants, then across each tenant's namespaces.
	fairness := func(key string) []string { return strings.SplitN(key, "/", 3)[:2] }
	q := actor.New(actor.Config[string]{
		Fairness: fairness,
		KeyLimits: []actor.KeyLimit{
			{Keys: []string{"big"}, Cap: 2},
			{Keys: []string{"medium"}, Weight: 3},
			{Keys: []string{"metered"}, Rate: meteredRate, Burst: meteredBurst},
		},
	})

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
		mu         sync.Mutex
		handedOut  int
		processing = map[string]int{}
		most       = map[string]int{} // the most processing at once
		done       = map[string]int{}
		smallAt    int            // hand-outs when the small tenant's last key was done
		freshAt    []int          // the hand-out of each fresh event
		whileBoth  map[string]int // hand-outs while medium and big both had keys left
		metered    []time.Time    // the metered tenant's hand-outs
		start      = time.Now()
		wg         sync.WaitGroup
	)
	whileBoth = map[string]int{}
	for range workers {
		wg.Go(func() {
			for {
				key, prio, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				tenant := strings.SplitN(key, "/", 2)[0]
				mu.Lock()
				handedOut++
				n := handedOut
				processing[tenant]++
				most[tenant] = max(most[tenant], processing[tenant])
				if done["medium"] < tenants[1].keys-workers && done["big"] < tenants[0].keys-workers {
					whileBoth[tenant]++
				}
				if prio > lowPriority {
					freshAt = append(freshAt, n)
				}
				if tenant == "metered" {
					metered = append(metered, time.Now())
				}
				if n%300 == 0 {
					fmt.Printf("%5d handed out:", n)
					for _, t := range tenants {
						fmt.Printf("  %s %d processing, %4d/%d done", t.name, processing[t.name], done[t.name], t.keys)
					}
					fmt.Println()
				}
				mu.Unlock()

				time.Sleep(work) // reconcile

				mu.Lock()
				processing[tenant]--
				done[tenant]++
				if tenant == "small" && done[tenant] == tenants[2].keys {
					smallAt = n
				}
				mu.Unlock()
				q.Done(key)
			}
		})
	}

	// Fresh events arrive while the backlog is worked on: changes to the
	// big tenant's objects, at the default priority.
	for i := range 10 {
		time.Sleep(2 * time.Millisecond)
		q.Add(fmt.Sprintf("big/ns0/obj%04d", 2900+i))
	}

	for q.Len() > 0 {
		time.Sleep(time.Millisecond)
	}
	q.ShutDownWithDrain() // waits for the keys being worked on
	wg.Wait()

	fmt.Printf("done: %d hand-outs for %d keys and 10 fresh events in %v\n", handedOut, total, time.Since(start).Round(time.Millisecond))
	for _, t := range tenants {
		fmt.Printf("  %-8s %4d done\n", t.name, done[t.name])
	}
	span := metered[len(metered)-1].Sub(metered[0])
	got := float64(len(metered)-meteredBurst) / span.Seconds() // after its first burst
	fmt.Printf("the metered tenant: %d hand-outs over %v, %.0f a second after its burst of %d (its rate: %d a second)\n",
		len(metered), span.Round(time.Millisecond), got, meteredBurst, meteredRate)
	fmt.Printf("the small tenant's %d keys were done by hand-out %d\n", tenants[2].keys, smallAt)
	fmt.Printf("the most processing at once: big %d (cap 2), medium %d, small %d\n", most["big"], most["medium"], most["small"])
	fmt.Printf("while medium and big both had keys: medium %d hand-outs, big %d (weights 3 and 1)\n", whileBoth["medium"], whileBoth["big"])
	ok := true
	check := func(good bool, format string, args ...any) {
		if !good {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
			ok = false
		}
	}
	check(smallAt > 0 && smallAt <= 6*tenants[2].keys,
		"the small tenant waited too long: done by hand-out %d; want within %d", smallAt, 6*tenants[2].keys)
	check(len(freshAt) > 0, "no fresh event ran")
	for _, at := range freshAt {
		check(at <= total/2, "a fresh event ran at hand-out %d, after half the backlog", at)
	}
	check(most["big"] == 2, "big had %d items processing at once; want 2, its cap", most["big"])
	check(got <= meteredRate*1.05 && got >= meteredRate*0.8,
		"the metered tenant got %.0f a second; want its rate, %d", got, meteredRate)
	check(whileBoth["medium"] >= 2*whileBoth["big"],
		"medium had %d hand-outs to big's %d while both had keys; want about 3 to 1", whileBoth["medium"], whileBoth["big"])
	if !ok {
		os.Exit(1)
	}
}
