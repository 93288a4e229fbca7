package actor_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// FuzzInvariants drives the features that FuzzQueue's and
// FuzzPriorityQueue's exact models leave out, in every combination the
// first byte chooses (fairness keys, a starvation bound, RequeueAtAdd, an
// end through ShutDownWithDrain, metrics), with random AddWithOpts
// (priorities, delays, two items at once), Add, AddAfter, AddRateLimited,
// Forget, Get (with a deadline), GetBatch, the items channel, Done and
// steps of time, in a synctest bubble. It checks
// what must hold whatever the order: no item is handed out while it is
// processing, none is handed out that no add since its last hand-out asked
// for, and, once every delay is due and every item done, each item that
// an add asked for is handed out.
func FuzzInvariants(f *testing.F) {
	f.Add([]byte{7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{15, 1, 1, 4, 0, 1, 1, 0, 21, 6, 1, 4, 0})
	f.Add([]byte{31, 0, 33, 4, 0, 8, 4, 1, 33, 4, 1, 6, 33, 7, 0})
	f.Add([]byte{3, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		mode := ops[0]
		ops = ops[1:]
		synctest.Test(t, func(t *testing.T) {
			cfg := actor.Config[int]{}
			if mode&1 != 0 {
				cfg.Fairness = func(k int) []string { return []string{fmt.Sprint("t", k%3), fmt.Sprint("n", k%2)} }
			}
			if mode&2 != 0 {
				cfg.StarvationBound = time.Second
			}
			if mode&4 != 0 {
				cfg.Requeue = actor.RequeueAtAdd
			}
			var rec *recorder
			if mode&16 != 0 {
				rec = newRecorder()
				cfg.Name, cfg.MetricsProvider = "q", rec
			}
			q := actor.New(cfg)
			defer q.ShutDown()
			owed := map[int]bool{} // an add asked for the item since its last hand-out
			proc := map[int]bool{} // handed out, not done yet
			// length is Len, checked against the depth gauge with metrics:
			// once Len returns, the metrics of every earlier call are in.
			// The depth also counts an item added again while processing,
			// from that add on (client-go's), which Len counts only with
			// RequeueAtAdd: so it is at least Len, and at most Len and
			// the processing items that an add is owed for.
			length := func() int {
				n := q.Len()
				if rec != nil {
					dirty := 0
					for k := range proc {
						if proc[k] && owed[k] {
							dirty++
						}
					}
					rec.mu.Lock()
					d := rec.value[kDepth]
					rec.mu.Unlock()
					if d < float64(n) || d > float64(n+dirty) {
						t.Fatalf("depth gauge %v; want Len() = %d, plus up to %d added again while processing (mode %d)", d, n, dirty, mode)
					}
				}
				return n
			}
			got := func(k int, how string) {
				if proc[k] {
					t.Fatalf("%s handed out %d while processing", how, k)
				}
				if !owed[k] {
					t.Fatalf("%s handed out %d, which no add owed", how, k)
				}
				owed[k] = false
				proc[k] = true
			}
			useItems := false
			for i := 0; i+1 < len(ops); i += 2 {
				op, arg := ops[i]%10, int(ops[i+1])
				k, p := arg%10, int(arg/10)%5-2
				d := time.Duration(arg%3) * 500 * time.Millisecond
				switch op {
				case 0:
					q.AddWithOpts(actor.AddOpts{Priority: p, After: d}, k, (k+1)%10)
					owed[k], owed[(k+1)%10] = true, true
				case 1:
					q.Add(k)
					owed[k] = true
				case 2:
					q.AddAfter(k, d)
					owed[k] = true
				case 3:
					q.AddRateLimited(k)
					owed[k] = true
				case 4, 5:
					// With a deadline: with RequeueAtAdd, Len counts an item
					// added again while processing, which Get cannot take
					// until its Done (as in controller-runtime).
					synctest.Wait()
					if length() == 0 {
						continue
					}
					if useItems && op == 5 {
						select {
						case it := <-q.Items():
							got(it, "Items")
						default:
						}
						continue
					}
					ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
					it, err := q.GetContext(ctx)
					cancel()
					if err == nil {
						got(it, "Get")
					}
				case 6:
					if proc[k] {
						q.Done(k)
						proc[k] = false
					}
				case 7:
					synctest.Wait()
					if length() == 0 || mode&4 != 0 {
						continue
					}
					items, _ := q.GetBatch(make([]int, 0, 3))
					for _, it := range items {
						got(it, "GetBatch")
					}
				case 8:
					time.Sleep(time.Duration(arg%5) * 300 * time.Millisecond)
				case 9:
					if arg%7 == 0 {
						useItems = true
					}
					q.Forget(k)
				}
			}
			for k := range proc {
				if proc[k] {
					q.Done(k)
					proc[k] = false
				}
			}
			time.Sleep(time.Hour) // every delay due (rate limits too)
			synctest.Wait()
			if mode&8 != 0 { // the end through a drain: Get until shutdown
				drained := make(chan struct{})
				go func() {
					q.ShutDownWithDrain()
					close(drained)
				}()
				for {
					it, shutdown := q.Get()
					if shutdown {
						break
					}
					got(it, "Get while draining")
					q.Done(it)
					proc[it] = false
				}
				<-drained
			}
			for length() > 0 {
				it, _ := q.Get()
				got(it, "final Get")
				q.Done(it)
				proc[it] = false
				synctest.Wait()
			}
			for k, o := range owed {
				if o {
					t.Fatalf("item %d owed but never handed out (mode %d)", k, mode)
				}
			}
		})
	})
}
