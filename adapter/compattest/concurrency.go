package compattest

import (
	"sync"
	"testing"
	"time"
)

// Concurrency runs producers and consumers in real time and checks that no
// item is handed to two consumers at once and every added item is
// processed. It is a stress test for -race.
func Concurrency(t *testing.T, impl Impl) {
	q, _ := newQueue(t, impl, nil, "", nil)
	const producers, consumers, items = 4, 4, 500
	var mu sync.Mutex
	busy := map[string]bool{}
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range consumers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				if busy[item] {
					t.Errorf("item %q handed to two consumers", item)
				}
				busy[item], seen[item] = true, true
				mu.Unlock()
				mu.Lock()
				busy[item] = false
				mu.Unlock()
				q.Done(item)
			}
		})
	}
	var pg sync.WaitGroup
	for p := range producers {
		pg.Go(func() {
			for i := range items {
				q.Add(string(rune('a'+p)) + string(rune('0'+i%50)))
			}
		})
	}
	pg.Wait()
	eventually(t, "queue empty", func() bool { return q.Len() == 0 })
	q.ShutDownWithDrain()
	wg.Wait()
	if len(seen) != producers*50 {
		t.Fatalf("processed %d distinct items; want %d", len(seen), producers*50)
	}
}

// eventually polls cond in real time until it holds, for the one case that
// runs outside a bubble. It fails the test after 5s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 5000 {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%s: condition not reached in 5s", what)
}
