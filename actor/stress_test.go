package actor_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
)

// TestStress runs many producers and consumers in real time (run it with
// -race) and checks three things: no item is ever held by two consumers at
// once; every Add is followed by a processing that starts after it; and
// nothing is lost or left behind.
func TestStress(t *testing.T) {
	const (
		producers = 16
		consumers = 16
		keys      = 512
		addsEach  = 2000
	)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	q := actor.New(actor.Config[int]{})
	var (
		clock     atomic.Int64 // orders adds and processing starts
		lastAdd   [keys]atomic.Int64
		lastStart [keys]atomic.Int64
		held      [keys]atomic.Bool
		processed atomic.Int64
		doubles   atomic.Int64
	)
	var consumersWG sync.WaitGroup
	handle := func(k int) {
		lastStart[k].Store(clock.Add(1))
		if !held[k].CompareAndSwap(false, true) {
			doubles.Add(1)
		}
		processed.Add(1)
		if k%7 == 0 {
			time.Sleep(time.Microsecond)
		}
		held[k].Store(false)
		q.Done(k)
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
						handle(k)
					}
				}
			}
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				handle(k)
			}
		})
	}
	var producersWG sync.WaitGroup
	for p := range producers {
		producersWG.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(p)))
			for range addsEach {
				k := r.IntN(keys)
				now := clock.Add(1)
				for {
					old := lastAdd[k].Load()
					if old >= now || lastAdd[k].CompareAndSwap(old, now) {
						break
					}
				}
				if r.IntN(8) == 0 {
					q.AddAfter(k, time.Duration(r.IntN(100))*time.Microsecond)
				} else {
					q.Add(k)
				}
			}
		})
	}
	producersWG.Wait()

	// Every key's last add must be followed by a processing start. Wait for
	// that (bounded: a hang is a failure, not a slow pass).
	deadline := time.Now().Add(30 * time.Second)
	for k := 0; k < keys; {
		if lastAdd[k].Load() < lastStart[k].Load() || lastAdd[k].Load() == 0 {
			k++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("key %d: last add at %d never followed by a processing (last start %d)", k, lastAdd[k].Load(), lastStart[k].Load())
		}
		time.Sleep(time.Millisecond)
	}
	q.ShutDownWithDrain()
	consumersWG.Wait()

	if n := doubles.Load(); n != 0 {
		t.Fatalf("%d times an item was held by two consumers at once", n)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() = %d after draining; want 0", got)
	}
	if processed.Load() == 0 {
		t.Fatal("nothing was processed")
	}
	t.Logf("%d adds, %d processings", producers*addsEach, processed.Load())
}
