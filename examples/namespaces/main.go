// Command namespaces is a controller that reconciles one object at a
// time per namespace, and many namespaces at once: a cap of 1 on every
// key of the namespace level (Config.LevelLimits), with no list of
// namespaces.
//
// A reconciler that takes a namespace-wide lock (a quota, a shared
// config map, a cloud resource per namespace) must not run twice for one
// namespace at once, while the other namespaces go on. With a cap of 1
// per namespace, the queue passes over a namespace that has an object
// processing until its Done, and hands the workers the other namespaces'
// objects meanwhile: no worker sits blocked on a lock, and no namespace
// waits behind another.
//
// Six namespaces of different sizes are worked on by four workers. The
// program checks that no namespace ever had two objects processing at
// once, that several namespaces were processed at once, and that every
// object was reconciled; it exits non-zero if a check fails.
//
// Run it with:
//
//	go run ./examples/namespaces
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
	workers = 4
	work    = 2 * time.Millisecond // one reconcile
)

var namespaces = []struct {
	name    string
	objects int
}{{"team-a", 40}, {"team-b", 10}, {"team-c", 10}, {"team-d", 5}, {"team-e", 5}, {"kube-system", 20}}

func main() {
	q := actor.New(actor.Config[string]{
		// A key is "namespace/name"; its one fairness key is the namespace.
		Fairness: func(key string) []string { return []string{namespaceOf(key)} },
		// Every namespace: at most one object processing at once.
		LevelLimits: []actor.LevelLimit{{Cap: 1}},
	})

	total := 0
	for _, ns := range namespaces {
		for i := range ns.objects {
			q.Add(fmt.Sprintf("%s/obj%02d", ns.name, i))
		}
		total += ns.objects
	}

	var (
		mu         sync.Mutex
		processing = map[string]int{}
		most       = map[string]int{} // the most objects of a namespace processing at once
		busy, peak int                // namespaces processing now, and at most
		reconciled = map[string]int{}
		wg         sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				ns := namespaceOf(key)
				mu.Lock()
				processing[ns]++
				most[ns] = max(most[ns], processing[ns])
				busy++
				peak = max(peak, busy)
				mu.Unlock()

				time.Sleep(work) // reconcile, holding the namespace's lock

				mu.Lock()
				processing[ns]--
				busy--
				reconciled[ns]++
				mu.Unlock()
				q.Done(key)
			}
		})
	}

	for q.Len() > 0 {
		time.Sleep(time.Millisecond)
	}
	q.ShutDownWithDrain() // waits for the objects being reconciled
	wg.Wait()

	ok := true
	check := func(good bool, format string, args ...any) {
		if !good {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
			ok = false
		}
	}
	done := 0
	for _, ns := range namespaces {
		fmt.Printf("%-12s %2d reconciled, at most %d at once\n", ns.name, reconciled[ns.name], most[ns.name])
		check(most[ns.name] == 1, "%s had %d objects processing at once; want 1", ns.name, most[ns.name])
		check(reconciled[ns.name] == ns.objects, "%s: %d reconciled; want %d", ns.name, reconciled[ns.name], ns.objects)
		done += reconciled[ns.name]
	}
	fmt.Printf("%d objects reconciled by %d workers, up to %d namespaces at once\n", done, workers, peak)
	check(peak >= 2, "at most %d namespace was processed at once; want several", peak)
	if !ok {
		os.Exit(1)
	}
}

func namespaceOf(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns }
