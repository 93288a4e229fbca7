package actor_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// model is a small sequential model of the contract in DESIGN.md, written
// as plainly as possible, independently of the actor's state.
type model struct {
	ready      []int            // hand-out order
	processing map[int]bool     // handed out, not Done
	dirty      map[int]bool     // added again while processing
	delayed    map[int]deadline // waiting on a delay
	seq        int
}

type deadline struct {
	at  time.Duration
	seq int
}

func newModel() *model {
	return &model{processing: map[int]bool{}, dirty: map[int]bool{}, delayed: map[int]deadline{}}
}

func (m *model) add(k int) {
	delete(m.delayed, k)
	switch {
	case slices.Contains(m.ready, k), m.dirty[k]:
	case m.processing[k]:
		m.dirty[k] = true
	default:
		m.ready = append(m.ready, k)
	}
}

func (m *model) addAt(k int, at time.Duration) {
	if slices.Contains(m.ready, k) || m.dirty[k] {
		return
	}
	if d, ok := m.delayed[k]; ok && d.at <= at {
		return
	}
	m.seq++
	m.delayed[k] = deadline{at, m.seq}
}

func (m *model) get() int {
	k := m.ready[0]
	m.ready = m.ready[1:]
	m.processing[k] = true
	return k
}

func (m *model) done(k int) {
	if !m.processing[k] {
		return
	}
	delete(m.processing, k)
	if m.dirty[k] {
		delete(m.dirty, k)
		m.ready = append(m.ready, k)
	}
}

// advance makes ready, in deadline order, the items due at now.
func (m *model) advance(now time.Duration) {
	for {
		best, found := 0, false
		for k, d := range m.delayed {
			if d.at > now {
				continue
			}
			if b := m.delayed[best]; !found || d.at < b.at || d.at == b.at && d.seq < b.seq {
				best, found = k, true
			}
		}
		if !found {
			return
		}
		delete(m.delayed, best)
		m.add(best)
	}
}

// FuzzQueue drives random operation sequences against the queue and the
// model in lockstep, in a synctest bubble so that time is exact, and
// compares every observable result.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 20, 10, 3, 1, 4, 7, 9, 2})
	f.Add([]byte{1, 5, 9, 2, 2, 1, 4, 30, 0, 5, 12, 2, 3, 5, 4, 99})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 12, 18, 24, 30, 36, 42, 3, 0, 3, 1})
	f.Add([]byte{0, 1, 0, 2, 2, 0, 0, 1, 6, 9, 2, 0, 5, 2, 0, 1, 6, 2, 3, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		synctest.Test(t, func(t *testing.T) {
			q := actor.New(actor.Config[int]{})
			defer q.ShutDown()
			m := newModel()
			start := time.Now()
			for i := 0; i+1 < len(ops); i += 2 {
				op, arg := ops[i]%7, int(ops[i+1])
				k := arg % 8
				switch op {
				case 0:
					q.Add(k)
					m.add(k)
				case 1:
					d := time.Duration(arg%5) * time.Second
					q.AddAfter(k, d)
					now := time.Since(start)
					if d <= 0 {
						m.add(k)
					} else {
						m.addAt(k, now+d)
					}
				case 2:
					if len(m.ready) == 0 {
						continue
					}
					want := m.get()
					if got, shutdown := q.Get(); shutdown || got != want {
						t.Fatalf("op %d: Get() = %d, %v; want %d, false", i/2, got, shutdown, want)
					}
				case 3:
					q.Done(k)
					m.done(k)
				case 4:
					time.Sleep(time.Duration(arg%4) * 700 * time.Millisecond)
					synctest.Wait()
					m.advance(time.Since(start))
				case 5:
					if len(m.ready) == 0 {
						continue
					}
					var want []int
					for range min(arg%3+1, len(m.ready)) {
						want = append(want, m.get())
					}
					got, shutdown := q.GetBatch(make([]int, 0, arg%3+1))
					if shutdown || !slices.Equal(got, want) {
						t.Fatalf("op %d: GetBatch() = %v, %v; want %v, false", i/2, got, shutdown, want)
					}
				case 6:
					items := []int{k, (k + 1 + arg/8) % 8, k} // k twice: the second does nothing
					q.DoneBatch(items)
					items[0], items[1] = 99, 99 // DoneBatch copied them
					for _, k := range []int{k, (k + 1 + arg/8) % 8, k} {
						m.done(k)
					}
				}
				if got, want := q.Len(), len(m.ready); got != want {
					t.Fatalf("op %d (%d %d): Len() = %d; want %d", i/2, op, arg, got, want)
				}
			}
			q.ShutDown()
			for _, want := range m.ready {
				if got, shutdown := q.Get(); shutdown || got != want {
					t.Fatalf("after ShutDown: Get() = %d, %v; want %d, false", got, shutdown, want)
				}
			}
			if got, shutdown := q.Get(); !shutdown {
				t.Fatalf("after ShutDown: Get() = %d, false; want shutdown", got)
			}
		})
	})
}
