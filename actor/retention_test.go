package actor_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
)

// The queue must not keep items it no longer holds: once an item is Done,
// and not queued, delayed or processing again, nothing in the queue
// references it (slots, the lane's ring, inbox batches, pooled waiters and
// lists, the item staged on the items channel, the duplicate filter's
// entries). TestRetention checks it for every kind of queue, every way to
// add and every way to take, with the fast paths on and off: each item
// taken and Done must be collected while the queue still lives.

// retentionWait is how long TestRetention waits, in real time, for the
// collector to take the items Done, and for each item to be taken.
var retentionWait = flag.Duration("retention.wait", 10*time.Second, "how long TestRetention waits for the items Done to be collected")

// retentionItems is how many items each case adds, takes and marks Done.
const retentionItems = 64

// heavy is an item: a pointer to it is what the queues hold. Its keys are
// fields, for Fairness; its padding makes it 1 KiB, so that a leak is memory.
type heavy struct {
	tenant, ns string
	_          [1024]byte
}

func tenantKey(h *heavy) []string { return []string{h.tenant} }

func tenantNsKeys(h *heavy) []string { return []string{h.tenant, h.ns} }

// shortDelays is a rate limiter whose delays are a few milliseconds.
type shortDelays struct{ n atomic.Int64 }

func (l *shortDelays) When(*heavy) time.Duration {
	return time.Duration(1+l.n.Add(1)%3) * time.Millisecond
}
func (l *shortDelays) Forget(*heavy)          {}
func (l *shortDelays) NumRequeues(*heavy) int { return 0 }

// fifoStorage is a custom Storage: a plain FIFO that forgets what it pops.
type fifoStorage struct{ items []*heavy }

func (s *fifoStorage) Touch(*heavy)     {}
func (s *fifoStorage) Push(item *heavy) { s.items = append(s.items, item) }
func (s *fifoStorage) Len() int         { return len(s.items) }
func (s *fifoStorage) Pop() *heavy {
	item := s.items[0]
	s.items[0] = nil
	s.items = s.items[1:]
	return item
}

// retentionKind is a kind of queue.
type retentionKind struct {
	name string
	cfg  func(name string) actor.Config[*heavy]
	prio func(i int) int // the priority of the i-th item added
	lane bool            // with the default fast paths, Gets take items from the lane
}

func noPrio(int) int { return 0 }

var retentionKinds = []retentionKind{
	{name: "plain", lane: true, prio: noPrio, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{}
	}},
	{name: "named", lane: true, prio: noPrio, cfg: func(name string) actor.Config[*heavy] {
		return actor.Config[*heavy]{Name: name}
	}},
	{name: "priorities", lane: true, prio: func(i int) int { return i%3 - 1 }, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{}
	}},
	{name: "fair1", lane: true, prio: noPrio, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{Fairness: tenantKey}
	}},
	{name: "fair2", lane: true, prio: noPrio, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{Fairness: tenantNsKeys}
	}},
	{name: "worktime", lane: true, prio: noPrio, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{Fairness: tenantKey, FairByWorkTime: true}
	}},
	{name: "caps", lane: true, prio: noPrio, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{Fairness: tenantKey, KeyLimits: []actor.KeyLimit{
			{Keys: []string{"t0"}, Cap: 1},
			{Keys: []string{"t1"}, Cap: 2, Weight: 2},
		}}
	}},
	{name: "storage", lane: false, prio: noPrio, cfg: func(string) actor.Config[*heavy] {
		return actor.Config[*heavy]{Storage: &fifoStorage{}}
	}},
}

// retentionAdd is a way to add items, each at the priority prio gives.
type retentionAdd struct {
	name string
	add  func(q *actor.Queue[*heavy], items []*heavy, prio func(int) int)
}

// addNow adds item at priority p through Add, or AddWithOpts if p is not 0.
func addNow(q *actor.Queue[*heavy], item *heavy, p int) {
	if p == 0 {
		q.Add(item)
	} else {
		q.AddWithOpts(actor.AddOpts{Priority: p}, item)
	}
}

var retentionAdds = []retentionAdd{
	{"Add", func(q *actor.Queue[*heavy], items []*heavy, prio func(int) int) {
		for i, item := range items {
			addNow(q, item, prio(i))
		}
	}},
	{"AddAfter", func(q *actor.Queue[*heavy], items []*heavy, prio func(int) int) {
		for i, item := range items {
			d := time.Duration(1+i%3) * time.Millisecond
			if p := prio(i); p == 0 {
				q.AddAfter(item, d)
			} else {
				q.AddWithOpts(actor.AddOpts{Priority: p, After: d}, item)
			}
		}
	}},
	{"AddWithOpts", func(q *actor.Queue[*heavy], items []*heavy, prio func(int) int) {
		// Lists of 8 (one request each), every other list delayed.
		for g := 0; g < len(items); g += 8 {
			o := actor.AddOpts{Priority: prio(g / 8)}
			if g/8%2 == 1 {
				o.After = time.Millisecond
			}
			q.AddWithOpts(o, items[g:min(g+8, len(items))]...)
		}
	}},
	{"AddRateLimited", func(q *actor.Queue[*heavy], items []*heavy, prio func(int) int) {
		for i, item := range items {
			if p := prio(i); p == 0 {
				q.AddRateLimited(item)
			} else {
				q.AddWithOpts(actor.AddOpts{Priority: p, RateLimited: true}, item)
			}
		}
	}},
	{"AddRepeated", func(q *actor.Queue[*heavy], items []*heavy, prio func(int) int) {
		// The second Add reaches the owner while the item is ready, which
		// gives it an entry in the duplicate filter; the later ones find
		// the entry's flag set and return at once.
		for i, item := range items {
			addNow(q, item, prio(i))
			for range 4 {
				q.Add(item)
			}
		}
		q.Len() // every Add applied
	}},
}

// retentionTake is a way to take items: take takes and marks Done every
// one of n items, and returns an error if it could not by deadline.
type retentionTake struct {
	name string
	take func(q *actor.Queue[*heavy], n int, deadline time.Time) error
}

// withWatchdog runs take, which blocks in calls that have no deadline of
// their own: if it runs past deadline, the queue is shut down, which
// releases them.
func withWatchdog(q *actor.Queue[*heavy], n int, deadline time.Time, take func() (int, error)) error {
	var fired atomic.Bool
	t := time.AfterFunc(time.Until(deadline), func() {
		fired.Store(true)
		q.ShutDown()
	})
	got, err := take()
	t.Stop()
	if fired.Load() {
		return fmt.Errorf("took %d of %d items before the deadline", got, n)
	}
	return err
}

var retentionTakes = []retentionTake{
	{"Get", func(q *actor.Queue[*heavy], n int, deadline time.Time) error {
		return withWatchdog(q, n, deadline, func() (int, error) {
			for got := range n {
				item, shutdown := q.Get()
				if shutdown {
					return got, fmt.Errorf("Get reported shutdown after %d of %d items", got, n)
				}
				q.Done(item)
			}
			return n, nil
		})
	}},
	{"GetWithPriority", func(q *actor.Queue[*heavy], n int, deadline time.Time) error {
		return withWatchdog(q, n, deadline, func() (int, error) {
			for got := range n {
				item, _, shutdown := q.GetWithPriority()
				if shutdown {
					return got, fmt.Errorf("GetWithPriority reported shutdown after %d of %d items", got, n)
				}
				q.Done(item)
			}
			return n, nil
		})
	}},
	{"GetContext", func(q *actor.Queue[*heavy], n int, deadline time.Time) error {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		for got := range n {
			item, err := q.GetContext(ctx)
			if err != nil {
				return fmt.Errorf("GetContext after %d of %d items: %v", got, n, err)
			}
			q.Done(item)
		}
		return nil
	}},
	{"GetBatch", func(q *actor.Queue[*heavy], n int, deadline time.Time) error {
		return withWatchdog(q, n, deadline, func() (int, error) {
			buf := make([]*heavy, 0, 8)
			defer clear(buf[:cap(buf)]) // the caller's buffer is the caller's to clear
			got := 0
			for got < n {
				items, shutdown := q.GetBatch(buf)
				if shutdown {
					return got, fmt.Errorf("GetBatch reported shutdown after %d of %d items", got, n)
				}
				got += len(items)
				q.DoneBatch(items)
				clear(items)
			}
			return got, nil
		})
	}},
	{"Items", func(q *actor.Queue[*heavy], n int, deadline time.Time) error {
		timeout := time.NewTimer(time.Until(deadline))
		defer timeout.Stop()
		for got := range n {
			select {
			case item, ok := <-q.Items():
				if !ok {
					return fmt.Errorf("the items channel closed after %d of %d items", got, n)
				}
				q.Done(item)
			case <-timeout.C:
				return fmt.Errorf("received %d of %d items from the items channel before the deadline", got, n)
			}
		}
		return nil
	}},
}

func TestRetention(t *testing.T) {
	// Whether the default fast paths have the lane (ACTORQ_FASTPATHS=off
	// and -tags actorq_nolane turn it off): then the fast cases take
	// items through it, as checked below, wherever their kind has one.
	probe := actor.New(actor.Config[*heavy]{})
	lanes := actor.HasLane(probe)
	probe.ShutDown()
	for _, paths := range []string{"fast", "reference"} {
		for _, k := range retentionKinds {
			for _, a := range retentionAdds {
				for _, tk := range retentionTakes {
					name := paths + "/" + k.name + "/" + a.name + "/" + tk.name
					t.Run(name, func(t *testing.T) {
						cfg := k.cfg("retention/" + name)
						cfg.RateLimiter = &shortDelays{}
						newQueue := actor.New[*heavy]
						if paths == "reference" {
							newQueue = actor.NewWithoutFastPaths[*heavy]
						}
						q := newQueue(cfg)
						defer q.ShutDown()
						if want := paths == "fast" && lanes && k.lane; actor.HasLane(q) != want {
							t.Fatalf("the queue has a lane: %v; want %v", actor.HasLane(q), want)
						}
						checkRetention(t, q, k, a, tk)
					})
				}
			}
		}
	}
}

// checkRetention adds retentionItems items to q in the way a, takes each
// in the way tk and marks it Done, and then checks that the collector
// takes every one of them while q lives.
func checkRetention(t *testing.T, q *actor.Queue[*heavy], k retentionKind, a retentionAdd, tk retentionTake) {
	t.Helper()
	var held atomic.Int64 // items not yet collected
	addHeavy(q, &held, k, a)
	if err := tk.take(q, retentionItems, time.Now().Add(*retentionWait)); err != nil {
		t.Fatalf("%s: %v", t.Name(), err)
	}
	deadline := time.Now().Add(*retentionWait)
	for held.Load() > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := held.Load(); n > 0 {
		t.Errorf("%s: %d of %d items Done are still referenced after %v while the queue lives", t.Name(), n, retentionItems, *retentionWait)
	}
	runtime.KeepAlive(q)
}

// addHeavy makes the items, each with a cleanup that counts it collected,
// and adds them in the way a. It keeps no reference to them once it
// returns.
//
//go:noinline
func addHeavy(q *actor.Queue[*heavy], held *atomic.Int64, k retentionKind, a retentionAdd) {
	items := make([]*heavy, retentionItems)
	for i := range items {
		h := &heavy{tenant: fmt.Sprintf("t%d", i%3), ns: fmt.Sprintf("n%d", i%2)}
		held.Add(1)
		runtime.AddCleanup(h, func(held *atomic.Int64) { held.Add(-1) }, held)
		items[i] = h
	}
	a.add(q, items, k.prio)
	clear(items)
}
