package bench

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// stormResult is what one AddAfter storm measured.
type stormResult struct {
	// deliver is the time from releasing the producers to the last item
	// being received.
	deliver time.Duration
	// slowestAdd is the longest single AddAfter call.
	slowestAdd time.Duration
	// lateness holds, per item, receive time minus deadline (the time just
	// before its AddAfter call plus its delay), sorted.
	lateness []time.Duration
	// got counts the items received.
	got int
}

// stormDelays returns n delays uniform in [0, maxDelay), the same for a
// given seed, so every implementation gets the same storm.
func stormDelays(n int, maxDelay time.Duration, seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, seed))
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = time.Duration(r.Int64N(int64(maxDelay)))
	}
	return d
}

// runAddAfterStorm has producers goroutines call AddAfter(i, delays[i])
// for disjoint shares of the items 0..len(delays)-1, while consumers
// goroutines Get and Done them. It returns when every item was received
// (so it blocks if q loses one), after shutting q down and waiting for
// its goroutines. start is called just before the producers are released,
// stop when the last item was received (both may be nil).
func runAddAfterStorm(q queue, delays []time.Duration, producers, consumers int, start, stop func()) stormResult {
	n := len(delays)
	var (
		deadline = make([]time.Duration, n) // since base; written before AddAfter
		received = make([]time.Duration, n) // since base
		slowest  = make([]time.Duration, producers)
		got      atomic.Int64
		finished = make(chan struct{})
		release  = make(chan struct{})
		wg, pwg  sync.WaitGroup
		base     = time.Now()
	)
	if n == 0 {
		close(finished)
	}
	for range consumers {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				received[item] = time.Since(base)
				q.Done(item)
				if got.Add(1) == int64(n) {
					close(finished)
				}
			}
		})
	}
	for p := range producers {
		pwg.Go(func() {
			<-release
			var worst time.Duration
			for i := p; i < n; i += producers {
				t0 := time.Since(base)
				deadline[i] = t0 + delays[i]
				q.AddAfter(i, delays[i])
				worst = max(worst, time.Since(base)-t0)
			}
			slowest[p] = worst
		})
	}
	if start != nil {
		start()
	}
	released := time.Since(base)
	close(release)
	<-finished
	if stop != nil {
		stop()
	}
	pwg.Wait()
	q.ShutDown()
	wg.Wait()

	res := stormResult{got: int(got.Load()), lateness: make([]time.Duration, n)}
	var last time.Duration
	for i := range n {
		last = max(last, received[i])
		res.lateness[i] = received[i] - deadline[i]
	}
	res.deliver = last - released
	for _, s := range slowest {
		res.slowestAdd = max(res.slowestAdd, s)
	}
	slices.Sort(res.lateness)
	return res
}
