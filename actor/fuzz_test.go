package actor_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// model is a small sequential model of the contract in ARCHITECTURE.md and actor's package doc, written
// as plainly as possible, independently of the actor's state.
type model struct {
	ready      []int            // hand-out order
	processing map[int]bool     // handed out, not Done
	dirty      map[int]bool     // added again while processing
	delayed    map[int]deadline // waiting on a delay
	seq        int
	shut       bool   // ShutDown or ShutDownWithDrain was called
	drains     []bool // per ShutDownWithDrain call, whether it has returned
}

type deadline struct {
	at  time.Duration
	seq int
}

func newModel() *model {
	return &model{processing: map[int]bool{}, dirty: map[int]bool{}, delayed: map[int]deadline{}}
}

func (m *model) add(k int) {
	if m.shut {
		return
	}
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
	if m.shut || slices.Contains(m.ready, k) || m.dirty[k] {
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
	m.settle()
}

// shutDown begins a shutdown: delays are dropped, and every drain begun
// before a ShutDown returns.
func (m *model) shutDown(drain bool) {
	m.shut = true
	clear(m.delayed)
	if drain {
		m.drains = append(m.drains, false)
	} else {
		for i := range m.drains {
			m.drains[i] = true
		}
	}
	m.settle()
}

// settle marks every drain returned once nothing is processing.
func (m *model) settle() {
	if len(m.processing) == 0 {
		for i := range m.drains {
			m.drains[i] = true
		}
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
// compares every observable result: each item handed out, Len after every
// operation, whether each ShutDownWithDrain call has returned, and what
// Get returns after ShutDown.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 20, 10, 3, 1, 4, 7, 9, 2})
	f.Add([]byte{1, 5, 9, 2, 2, 1, 4, 30, 0, 5, 12, 2, 3, 5, 4, 99})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 12, 18, 24, 30, 36, 42, 3, 0, 3, 1})
	f.Add([]byte{0, 1, 0, 2, 2, 0, 0, 1, 6, 9, 2, 0, 5, 2, 0, 1, 6, 2, 3, 1})
	// Shutdowns: a drain with a dirty item, a ShutDown then a drain.
	f.Add([]byte{0, 1, 0, 2, 2, 0, 0, 1, 8, 0, 2, 0, 2, 0, 3, 1, 2, 0, 3, 1, 3, 2, 2, 0})
	f.Add([]byte{0, 1, 2, 0, 0, 1, 7, 0, 2, 0, 8, 0, 3, 1, 2, 0, 3, 1, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		synctest.Test(t, func(t *testing.T) {
			q := actor.New(actor.Config[int]{})
			defer q.ShutDown()
			m := newModel()
			start := time.Now()
			var drains []chan struct{} // closed when each ShutDownWithDrain returns
			for i := 0; i+1 < len(ops); i += 2 {
				op, arg := ops[i]%9, int(ops[i+1])
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
						if m.shut { // shutting down: Get returns at once
							if got, shutdown := q.Get(); !shutdown {
								t.Fatalf("op %d: Get() = %d, false while shutting down with nothing ready; want shutdown", i/2, got)
							}
						}
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
				case 7:
					q.ShutDown()
					m.shutDown(false)
				case 8:
					returned := make(chan struct{})
					go func() {
						defer close(returned)
						q.ShutDownWithDrain()
					}()
					drains = append(drains, returned)
					m.shutDown(true)
				}
				synctest.Wait()
				for d, returned := range drains {
					select {
					case <-returned:
						if !m.drains[d] {
							t.Fatalf("op %d (%d %d): ShutDownWithDrain #%d returned; want it waiting", i/2, op, arg, d)
						}
					default:
						if m.drains[d] {
							t.Fatalf("op %d (%d %d): ShutDownWithDrain #%d waiting; want it returned", i/2, op, arg, d)
						}
					}
				}
				if got, want := q.Len(), len(m.ready); got != want {
					t.Fatalf("op %d (%d %d): Len() = %d; want %d", i/2, op, arg, got, want)
				}
			}
			q.ShutDown()
			for _, returned := range drains {
				<-returned
			}
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
