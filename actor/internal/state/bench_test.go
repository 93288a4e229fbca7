package state

import (
	"fmt"
	"testing"

	"github.com/actorq/actorq/actor/internal/order"
)

// BenchmarkBurst is the state's own work per item of a burst: n items
// added, then each handed out and done, as the owner applies them in the
// pipeline of bench/ (no transport).
func BenchmarkBurst(b *testing.B) {
	q := New(Config[int]{})
	b.ReportAllocs()
	const n = 200_000
	for i := 0; b.Loop(); i++ {
		if i%n == 0 {
			for j := range n {
				q.Add(i+j, Opts{}, 0)
			}
		}
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkStream is the same with the queue nearly empty: each item is
// added, handed out and done in turn.
func BenchmarkStream(b *testing.B) {
	q := New(Config[int]{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(i, Opts{}, 0)
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkWindow keeps about 160 items ready, as the pipeline's lane
// does: each step adds one, hands one out and finishes one.
func BenchmarkWindow(b *testing.B) {
	q := New(Config[int]{})
	for i := range 160 {
		q.Add(-1-i, Opts{}, 0)
	}
	for i := 0; b.Loop(); i++ {
		q.Add(i, Opts{}, 0)
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkPrioWindow is BenchmarkWindow with controller-runtime's
// requeue rule (which orders by priority, as adapter/priorityqueue's
// queues do) and one item in ten at priority -100, as bench's
// PipelinePrio.
func BenchmarkPrioWindow(b *testing.B) {
	q := New(Config[int]{Requeue: RequeueAtAdd})
	prio := func(i int) int {
		if i%10 == 0 {
			return -100
		}
		return 0
	}
	for i := range 160 {
		q.Add(-1-i, Opts{Prio: prio(i)}, 0)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(i, Opts{Prio: prio(i)}, 0)
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkFairLane is the state's work per item in a fair pipeline, as
// the owner applies it with the lane on: keys skewed as in bench/ (key 0
// owns half the items, the others share the rest), adds in rounds of 16,
// the lane kept offering 16 items popped ahead, of which consumers
// receive 12 a round and finish them the round after, and everything
// offered taken back (newest first) when a key joins the turns. With
// caps, key 0 may have 4 items out and keys 1 to 9 have weight 3, as
// bench's actorqpqcaps; with level, every key has a cap or a rate that
// never binds (2^20 items out; 10^12 a second, a burst of 2^20), as
// bench's PipelineRated rates=cap and rates=unbound. One op is one item
// handed out.
func BenchmarkFairLane(b *testing.B) {
	for _, c := range []struct {
		name   string
		keys   int
		byWork bool
		caps   bool
		level  order.Limit
	}{
		{name: "turns/keys=100", keys: 100},
		{name: "work/keys=100", keys: 100, byWork: true},
		{name: "caps/keys=100", keys: 100, caps: true},
		{name: "turns/keys=10000", keys: 10_000},
		{name: "work/keys=10000", keys: 10_000, byWork: true},
		{name: "unboundcap/keys=100", keys: 100, level: order.Limit{Cap: 1 << 20}},
		{name: "unboundrate/keys=100", keys: 100, level: order.Limit{Rate: 1e12, Burst: 1 << 20}},
		{name: "unboundadaptive/keys=100", keys: 100, level: order.Limit{Adapt: &order.Adapt{Min: 1, Max: 1 << 20, Start: 1 << 20, Backoff: 0.9, Window: 1e9}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			keys := make([][]string, c.keys)
			for i := range keys {
				keys[i] = []string{fmt.Sprint("tenant-", i)}
			}
			keyOf := func(i int) []string {
				if i%2 == 0 {
					return keys[0]
				}
				return keys[1+(i/2)%(c.keys-1)]
			}
			cfg := Config[int]{Fair: true, ByWork: c.byWork, Requeue: RequeueAtAdd}
			if c.level != (order.Limit{}) {
				cfg.Levels = []order.Limit{c.level}
			}
			if c.caps {
				cfg.Limits = append(cfg.Limits, KeyLimit{Keys: keys[0], Limit: order.Limit{Cap: 4}})
				for k := 1; k <= 9; k++ {
					cfg.Limits = append(cfg.Limits, KeyLimit{Keys: keys[k], Limit: order.Limit{Weight: 3}})
				}
			}
			l := newLaneDriver(New(cfg), keyOf)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				l.step()
				n++
			}
			b.ReportMetric(float64(l.pops)/float64(n), "pops/op")
			b.ReportMetric(float64(l.returns)/float64(n), "returns/op")
			l.q.Drain()
		})
	}
}

// laneDriver drives a state as the owner does with the lane on
// (BenchmarkFairLane).
type laneDriver struct {
	q         *Queue[int]
	keyOf     func(int) []string
	next      int           // the next item to add
	offered   []popped[int] // popped ahead, oldest first
	received  []int         // received this round, done the next
	changes   uint64
	now, seqs int64

	pops, returns int // items popped ahead, and returned
}

func newLaneDriver(q *Queue[int], keyOf func(int) []string) *laneDriver {
	l := &laneDriver{q: q, keyOf: keyOf}
	for range 1024 { // a backlog, as producers keep the inbox full
		l.add()
	}
	return l
}

func (l *laneDriver) seq() uint64 { l.seqs++; return uint64(l.seqs) }

func (l *laneDriver) add() {
	l.q.Add(l.next, Opts{Keys: l.keyOf(l.next), Seq: l.seq()}, l.now)
	l.next++
}

// step is one item received, and what comes with it: the lane refilled
// (and taken back first if a key joined the turns), and every 12 items
// received, their Dones and 12 adds.
func (l *laneDriver) step() {
	for {
		l.now += 100
		if l.q.Changes() != l.changes {
			for i := len(l.offered) - 1; i >= 0; i-- {
				l.q.Return(l.offered[i].item, l.offered[i].p, l.now)
				l.returns++
			}
			l.offered = l.offered[:0]
		}
		for len(l.offered) < 4 {
			item, p, ok := l.q.Pop(l.now)
			if !ok {
				break
			}
			l.offered = append(l.offered, popped[int]{item, p})
			l.pops++
		}
		l.changes = l.q.Changes()
		if len(l.offered) > 0 {
			x := l.offered[0]
			l.offered = l.offered[:copy(l.offered, l.offered[1:])]
			l.q.Received(x.item, x.p, l.now, l.seq())
			l.received = append(l.received, x.item)
		}
		if len(l.received) >= 12 || len(l.offered) == 0 {
			for _, item := range l.received {
				l.q.Done(item, l.now, l.seq())
				l.add()
			}
			l.received = l.received[:0]
		}
		if len(l.offered) > 0 || len(l.received) > 0 {
			return
		}
	}
}

// BenchmarkFairHandOut is a hand-out with fairness, by turns and by work
// time, with 200,000 items ready over 100 keys and over 100,000 (one
// level of keys): each step hands an item out, finishes it after a work
// time that depends on its key, and adds it again, as a controller's
// consumer does; so the keys ready, and the items, stay as many.
func BenchmarkFairHandOut(b *testing.B) {
	const n = 200_000
	for _, byWork := range []bool{false, true} {
		for _, a := range []int{100, 100_000} {
			b.Run(fmt.Sprintf("work=%v/keys=%d", byWork, a), func(b *testing.B) {
				keys := make([][]string, a)
				for i := range keys {
					keys[i] = []string{fmt.Sprint("k", i)}
				}
				q := New(Config[int]{Fair: true, ByWork: byWork})
				for item := range n {
					q.Add(item, Opts{Keys: keys[item%a]}, 0)
				}
				var now int64
				b.ReportAllocs()
				for b.Loop() {
					item, _, _ := q.HandOut(now, 0)
					now++
					q.Done(item, now+int64(item%7)*100, 0)
					q.Add(item, Opts{Keys: keys[item%a]}, now)
				}
			})
		}
	}
}
