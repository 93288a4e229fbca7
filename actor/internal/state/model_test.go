package state

import (
	"slices"
	"testing"
)

// model is a sequential model of the rules with client-go's requeue rule
// and every item at priority 0, written as plainly as possible,
// independently of the queue (as actor's FuzzQueue model is).
type model struct {
	ready      []int
	processing map[int]bool
	dirty      map[int]bool
	delayed    map[int][2]int64 // deadline, and the order deadlines were set
	seq        int64
	shut       bool
}

func newModel() *model {
	return &model{processing: map[int]bool{}, dirty: map[int]bool{}, delayed: map[int][2]int64{}}
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

func (m *model) addAt(k int, at int64) {
	if m.shut || slices.Contains(m.ready, k) || m.dirty[k] {
		return
	}
	if d, ok := m.delayed[k]; ok && d[0] <= at {
		return
	}
	m.seq++
	m.delayed[k] = [2]int64{at, m.seq}
}

func (m *model) due(now int64) {
	for {
		best, found := 0, false
		for k, d := range m.delayed {
			if d[0] > now {
				continue
			}
			if b := m.delayed[best]; !found || d[0] < b[0] || d[0] == b[0] && d[1] < b[1] {
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

func (m *model) get() (int, bool) {
	if len(m.ready) == 0 {
		return 0, false
	}
	k := m.ready[0]
	m.ready = m.ready[1:]
	m.processing[k] = true
	return k, true
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

func (m *model) shutDown() {
	m.shut = true
	clear(m.delayed)
}

// FuzzState drives random sequences of Add, AddAt, Due, HandOut (some
// popped and returned first), Done and Drain against the queue and the
// model in lockstep, and compares every item handed out and Len after
// every step; the queue's invariants are checked after every step.
func FuzzState(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 20, 10, 3, 1, 4, 7, 9, 2})
	f.Add([]byte{1, 5, 9, 2, 2, 1, 4, 30, 0, 5, 12, 2, 3, 5, 4, 99})
	f.Add([]byte{0, 1, 0, 2, 2, 0, 0, 1, 6, 9, 2, 0, 5, 2, 0, 1, 6, 2, 3, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		q := New(Config[int]{})
		m := newModel()
		var now int64
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%7, int(ops[i+1])
			k := arg % 8
			switch op {
			case 0:
				q.Add(k, Opts{}, now)
				m.add(k)
			case 1:
				at := now + int64(arg%5)
				q.AddAt(k, at, Opts{Retry: true}, now)
				m.addAt(k, at)
			case 2:
				want, ok := m.get()
				got, _, gotOK := q.HandOut(now, 0)
				if ok != gotOK || got != want {
					t.Fatalf("op %d: HandOut() = %d, %v; want %d, %v", i/2, got, gotOK, want, ok)
				}
			case 3:
				q.Done(k, now, 0)
				m.done(k)
			case 4:
				now += int64(arg % 4)
				q.Due(now)
				m.due(now)
			case 5: // popped, and returned: nothing changes
				if item, p, ok := q.Pop(now); ok {
					q.Return(item, p, now)
				}
			case 6:
				if arg%4 == 0 {
					q.Drain()
					m.shutDown()
				}
			}
			q.verify(t)
			if got, want := q.Len(), len(m.ready); got != want {
				t.Fatalf("op %d (%d %d): Len() = %d; want %d", i/2, op, arg, got, want)
			}
		}
	})
}
