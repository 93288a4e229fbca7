package actor_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
)

// pmodel is a sequential model of priorities and fairness, written
// independently of the queue's order: the ready items with their
// priority and sequence number, and for fairness, per priority and per
// node of the key tree, the logical time each child key last got (or
// first asked for) its turn. Hand-out takes the highest priority, then at
// each level the child whose turn is oldest, then the lowest sequence
// number. It follows client-go's rule for items added again while
// processing (RequeueAtDone).
type pmodel struct {
	ready      map[int]pitem // item -> priority and place
	processing map[int]bool
	dirty      map[int]int // item -> its priority, when added again while processing
	delayed    map[int]pdelay
	seq, clock int
	turns      map[string]int // priority/path -> logical time of its turn
	keys       func(int) []string
}

type pitem struct{ prio, seq int }

type pdelay struct {
	at   time.Duration
	seq  int // tie order for equal deadlines
	prio int
}

func newPModel(keys func(int) []string) *pmodel {
	return &pmodel{
		ready: map[int]pitem{}, processing: map[int]bool{}, dirty: map[int]int{},
		delayed: map[int]pdelay{}, turns: map[string]int{}, keys: keys,
	}
}

// paths returns the turn keys of item's path at priority p, outermost
// first: "p/k1", "p/k1/k2", ...
func (m *pmodel) paths(item, p int) []string {
	var out []string
	path := fmt.Sprint(p)
	for _, k := range m.keys(item) {
		path += "/" + k
		out = append(out, path)
	}
	return out
}

// occupied reports whether a ready item other than except lies under path.
func (m *pmodel) occupied(path string, except int) bool {
	for it, r := range m.ready {
		if it == except {
			continue
		}
		for _, q := range m.paths(it, r.prio) {
			if q == path {
				return true
			}
		}
	}
	return false
}

// makeReady puts item in the ready set; a path that had no item gets its
// turn now, after every other.
func (m *pmodel) makeReady(item, p int) {
	for _, path := range m.paths(item, p) {
		if !m.occupied(path, item) {
			m.clock++
			m.turns[path] = m.clock
		}
	}
	m.seq++
	m.ready[item] = pitem{p, m.seq}
}

// unready takes item out of the ready set; paths left empty lose their
// turn.
func (m *pmodel) unready(item int) {
	r := m.ready[item]
	delete(m.ready, item)
	for _, path := range m.paths(item, r.prio) {
		if !m.occupied(path, -1) {
			delete(m.turns, path)
		}
	}
}

func (m *pmodel) add(item, p int) {
	if d, ok := m.delayed[item]; ok {
		delete(m.delayed, item)
		p = max(p, d.prio)
		if m.processing[item] {
			m.dirty[item] = p
		} else {
			m.makeReady(item, p)
		}
		return
	}
	switch r, ok := m.ready[item]; {
	case ok:
		if p > r.prio { // to the back of the new priority
			m.unready(item)
			m.makeReady(item, p)
		}
	case m.processing[item]:
		if old, dirty := m.dirty[item]; !dirty || p > old {
			m.dirty[item] = p
		}
	default:
		m.makeReady(item, p)
	}
}

func (m *pmodel) addAt(item, p int, at time.Duration) {
	if _, ok := m.ready[item]; ok {
		m.add(item, p)
		return
	}
	if _, ok := m.dirty[item]; ok {
		m.add(item, p)
		return
	}
	d, ok := m.delayed[item]
	m.seq++
	if !ok || at < d.at {
		d.at, d.seq = at, m.seq
	}
	d.prio = max(d.prio, p)
	if !ok {
		d.prio = p
	}
	m.delayed[item] = d
}

// get hands out the next item.
func (m *pmodel) get() (item, prio int) {
	best := -1
	for it := range m.ready {
		if best < 0 || m.before(it, best) {
			best = it
		}
	}
	return best, m.serve(best)
}

// serve hands out item, which must be ready, and returns its priority.
func (m *pmodel) serve(item int) int {
	r := m.ready[item]
	// Served paths go to the back of their turns, if items remain there.
	m.unready(item)
	for _, path := range m.paths(item, r.prio) {
		if _, ok := m.turns[path]; ok {
			m.clock++
			m.turns[path] = m.clock
		}
	}
	m.processing[item] = true
	return r.prio
}

// take checks a hand-out of item at priority prio by a queue that may
// hand out items up to slack places early: item must be ready at prio,
// and among the next slack+1 items the model would hand out. Then the
// model hands it out.
func (m *pmodel) take(item, prio, slack int) error {
	if r, ok := m.ready[item]; !ok || r.prio != prio {
		return fmt.Errorf("handed out %d at priority %d; the model has it ready %v at %d", item, prio, ok, r.prio)
	}
	if next := m.next(slack + 1); !slices.Contains(next, item) {
		return fmt.Errorf("handed out %d; the model would hand out %v next", item, next)
	}
	m.serve(item)
	return nil
}

// next returns the next n items the model would hand out, without
// handing them out.
func (m *pmodel) next(n int) []int {
	c := *m
	c.ready, c.turns, c.processing = maps.Clone(m.ready), maps.Clone(m.turns), map[int]bool{}
	var out []int
	for len(out) < n && len(c.ready) > 0 {
		item, _ := c.get()
		out = append(out, item)
	}
	return out
}

// before reports whether ready item a goes before ready item b.
func (m *pmodel) before(a, b int) bool {
	ra, rb := m.ready[a], m.ready[b]
	if ra.prio != rb.prio {
		return ra.prio > rb.prio
	}
	pa, pb := m.paths(a, ra.prio), m.paths(b, rb.prio)
	for i := range pa {
		if pa[i] != pb[i] {
			return m.turns[pa[i]] < m.turns[pb[i]]
		}
	}
	return ra.seq < rb.seq
}

func (m *pmodel) done(item int) {
	if !m.processing[item] {
		return
	}
	delete(m.processing, item)
	if p, ok := m.dirty[item]; ok {
		delete(m.dirty, item)
		m.makeReady(item, p)
	}
}

func (m *pmodel) advance(now time.Duration) {
	for {
		best, found := 0, false
		for it, d := range m.delayed {
			if d.at > now {
				continue
			}
			if b := m.delayed[best]; !found || d.at < b.at || d.at == b.at && d.seq < b.seq {
				best, found = it, true
			}
		}
		if !found {
			return
		}
		d := m.delayed[best]
		delete(m.delayed, best)
		if m.processing[best] {
			if old, dirty := m.dirty[best]; !dirty || d.prio > old {
				m.dirty[best] = d.prio
			}
		} else {
			m.makeReady(best, d.prio)
		}
	}
}

// FuzzPriorityQueue drives random sequences of AddWithOpts (priorities and
// delays), Add, Get, GetBatch and Done against the queue and the model in
// lockstep, with and without fairness keys (two levels), in a synctest
// bubble, and compares every item handed out, its priority, and Len.
func FuzzPriorityQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 9, 1, 2, 2, 0, 2, 0, 3, 1, 2, 0})
	f.Add([]byte{1, 0, 1, 1, 1, 2, 1, 3, 0, 4, 2, 0, 2, 0, 2, 0, 2, 0, 3, 4, 2, 0})
	f.Add([]byte{0, 5, 2, 0, 0, 5, 0, 37, 3, 5, 2, 0, 2, 0, 4, 200, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, fair := range []bool{false, true} {
			var keys func(int) []string
			if fair {
				keys = func(k int) []string { return []string{fmt.Sprint("t", k%3), fmt.Sprint("n", k%2)} }
			}
			synctest.Test(t, func(t *testing.T) {
				cfg := actor.Config[int]{}
				mkeys := func(int) []string { return nil }
				if fair {
					cfg.Fairness = keys
					mkeys = keys
				}
				q := actor.New(cfg)
				defer q.ShutDown()
				m := newPModel(mkeys)
				start := time.Now()
				for i := 0; i+1 < len(ops); i += 2 {
					op, arg := ops[i]%6, int(ops[i+1])
					k, p := arg%12, int(arg/12)%5-2 // priorities -2..2
					switch op {
					case 0:
						q.AddWithOpts(actor.AddOpts{Priority: p}, k)
						m.add(k, p)
					case 1:
						q.Add(k)
						m.add(k, 0)
					case 2:
						if len(m.ready) == 0 {
							continue
						}
						want, wantP := m.get()
						got, gotP, shutdown := q.GetWithPriority()
						if shutdown || got != want || gotP != wantP {
							t.Fatalf("op %d (fair %v): GetWithPriority() = %d, %d, %v; want %d, %d", i/2, fair, got, gotP, shutdown, want, wantP)
						}
					case 3:
						q.Done(k)
						m.done(k)
					case 4:
						d := time.Duration(arg%3+1) * time.Second
						q.AddWithOpts(actor.AddOpts{Priority: p, After: d}, k)
						m.addAt(k, p, time.Since(start)+d)
					case 5:
						time.Sleep(time.Duration(arg%4) * 700 * time.Millisecond)
						synctest.Wait()
						m.advance(time.Since(start))
					}
					if got, want := q.Len(), len(m.ready); got != want {
						t.Fatalf("op %d (fair %v, %d %d): Len() = %d; want %d", i/2, fair, op, arg, got, want)
					}
				}
				var want []int
				for len(m.ready) > 0 {
					item, _ := m.get()
					want = append(want, item)
				}
				if len(want) == 0 {
					return
				}
				got, _ := q.GetBatch(make([]int, 0, len(want)+1))
				if !slices.Equal(got, want) {
					t.Fatalf("fair %v: final GetBatch() = %v; want %v", fair, got, want)
				}
			})
		}
	})
}
