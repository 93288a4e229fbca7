package state

import (
	"maps"
	"slices"
	"testing"

	"github.com/actorq/actorq/actor/internal/order"
)

// flowModel is a sequential model of fair hand-out with caps, weights,
// rates and pauses, by turns or by work time, over one level of keys and
// one priority, written as plainly as possible: each key's ready items in
// a list, the keys that may take a turn in another, in the order of their
// turns, and a pick by work time a scan of them all. It keeps a key only
// while the key has items or limits, or its bucket is not full, as the
// queue must: a key that comes back starts anew, at the current virtual
// time.
//
// A key with a rate (tau: the interval between its tokens) may start an
// item at now if tat - (burst-1)·tau <= now and its pause has ended, and
// then tat = max(tat, now) + tau; otherwise it waits, out of the turns.
// Time passing (Due) releases the keys whose instant came, the earliest
// first (ties: the first to begin to wait), each to the back of the
// turns at the current virtual time.
type flowModel struct {
	byWork     bool
	keyOf      func(int) string
	keys       map[string]*keyModel // keys with items ready or processing, or limits
	turns      []string             // keys that may take a turn, the next first
	processing map[int]bool
	dirty      map[int]bool
	started    map[int]int64 // hand-out instants
	vnow       int64         // the largest tag picked
	shut       bool
	now        int64
	waitSeq    uint64 // the last number given to a key that began to wait
}

type keyModel struct {
	ready       []int
	used, out   int
	cap, weight int
	vtime, est  int64

	tau, burst, tat, pause int64
	wait                   bool
	waitSeq                uint64 // while it waits: the order it began to
}

// eligibleAt is the instant from which r may start an item.
func (r *keyModel) eligibleAt() int64 {
	at := r.pause
	if r.tau > 0 {
		at = max(at, r.tat-(r.burst-1)*r.tau)
	}
	return at
}

func newFlowModel(keyOf func(int) string, byWork bool) *flowModel {
	return &flowModel{
		byWork: byWork, keyOf: keyOf, keys: map[string]*keyModel{},
		processing: map[int]bool{}, dirty: map[int]bool{}, started: map[int]int64{},
	}
}

// key returns key's record, making it at the current virtual time.
func (m *flowModel) key(key string) *keyModel {
	if m.keys[key] == nil {
		m.keys[key] = &keyModel{vtime: m.vnow}
	}
	return m.keys[key]
}

// tidy forgets key if it has no item, no limits, and a full bucket.
func (m *flowModel) tidy(key string) {
	if r := m.keys[key]; r != nil && len(r.ready) == 0 && r.out == 0 && r.cap == 0 && r.weight <= 1 && r.tau == 0 && !r.wait && r.tat <= m.now {
		delete(m.keys, key)
	}
}

func (m *flowModel) eligible(key string) bool {
	r := m.keys[key]
	return r != nil && len(r.ready) > 0 && (m.shut || (r.cap == 0 || r.out < r.cap) && !r.wait)
}

// rewake sets whether r waits, after its bucket or pause changed; a key
// that begins to wait takes the next number.
func (m *flowModel) rewake(r *keyModel) {
	was := r.wait
	r.wait = !m.shut && r.eligibleAt() > m.now
	if r.wait && !was {
		m.waitSeq++
		r.waitSeq = m.waitSeq
	}
}

// advance moves the clock to now: the keys whose instant came take their
// turns again, the earliest first, and the keys that only their full
// buckets kept are forgotten.
func (m *flowModel) advance(now int64) {
	m.now = max(m.now, now)
	var due []string
	for key, r := range m.keys {
		if r.wait && r.eligibleAt() <= m.now {
			due = append(due, key)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		x, y := m.keys[a], m.keys[b]
		if x.eligibleAt() != y.eligibleAt() {
			return int(min(max(x.eligibleAt()-y.eligibleAt(), -1), 1))
		}
		return int(min(max(int64(x.waitSeq)-int64(y.waitSeq), -1), 1))
	})
	for _, key := range due {
		r := m.keys[key]
		r.wait = false
		if m.byWork {
			r.vtime = max(r.vtime, m.vnow)
		}
		m.fix(key)
	}
	for _, key := range slices.Sorted(maps.Keys(m.keys)) {
		m.tidy(key)
	}
}

func (m *flowModel) tag(key string) int64 {
	r := m.keys[key]
	return r.vtime + int64(r.out)*r.est/int64(max(r.weight, 1))
}

// fix puts key in the turns, at the back, or takes it out, as it may take
// a turn or not; its turn starts over either way.
func (m *flowModel) fix(key string) {
	in := slices.Contains(m.turns, key)
	switch {
	case m.eligible(key) && !in:
		m.turns = append(m.turns, key)
		m.keys[key].used = 0
	case !m.eligible(key) && in:
		m.turns = slices.DeleteFunc(m.turns, func(k string) bool { return k == key })
		m.keys[key].used = 0
	}
}

// ready makes k ready; a key with nothing ready and nothing out was idle
// until now, and banks no credit.
func (m *flowModel) ready(k int) {
	key := m.keyOf(k)
	r := m.key(key)
	if len(r.ready) == 0 && r.out == 0 {
		r.vtime = max(r.vtime, m.vnow)
	}
	r.ready = append(r.ready, k)
	m.fix(key)
}

func (m *flowModel) add(k int) {
	switch r := m.keys[m.keyOf(k)]; {
	case m.shut, r != nil && slices.Contains(r.ready, k), m.dirty[k]:
	case m.processing[k]:
		m.dirty[k] = true
	default:
		m.ready(k)
	}
}

// pick returns the index in the turns of the key whose turn it is: the
// first, or by work time the least tag (the first of equal ones).
func (m *flowModel) pick() int {
	i := 0
	if m.byWork {
		for j := range m.turns {
			if m.tag(m.turns[j]) < m.tag(m.turns[i]) {
				i = j
			}
		}
		m.vnow = max(m.vnow, m.tag(m.turns[i]))
	}
	return i
}

func (m *flowModel) get(now int64) (int, bool) {
	if len(m.turns) == 0 {
		return 0, false
	}
	i := m.pick()
	key := m.turns[i]
	r := m.keys[key]
	k := r.ready[0]
	r.ready = r.ready[1:]
	m.processing[k] = true
	m.started[k] = now
	r.out++
	r.used++
	if r.tau > 0 {
		r.tat = max(r.tat, m.now) + r.tau
		m.rewake(r)
	}
	switch {
	case !m.eligible(key):
		m.fix(key)
	case m.byWork || r.used >= max(r.weight, 1):
		m.turns = append(slices.Delete(m.turns, i, i+1), key)
		r.used = 0
	}
	return k, true
}

func (m *flowModel) done(k int, now int64) {
	if !m.processing[k] {
		return
	}
	key := m.keyOf(k)
	r := m.keys[key]
	delete(m.processing, k)
	if m.byWork {
		d, w := max(now-m.started[k], 0), int64(max(r.weight, 1))
		r.vtime += d / w
		if r.est == 0 {
			r.est = d
		} else {
			r.est += (d - r.est) / 4
		}
	}
	delete(m.started, k)
	r.out--
	m.fix(key)
	if m.dirty[k] {
		delete(m.dirty, k)
		m.ready(k)
	}
	m.tidy(key)
}

func (m *flowModel) setLimit(key string, cap, weight int, tau, burst int64) {
	r := m.key(key)
	r.cap, r.weight, r.tau, r.burst = cap, weight, tau, max(burst, 1)
	m.rewake(r)
	m.fix(key)
	m.tidy(key)
}

// pauseKey pauses key until the instant until.
func (m *flowModel) pauseKey(key string, until int64) {
	if m.shut || until <= m.now {
		return
	}
	r := m.key(key)
	if until <= r.pause {
		return
	}
	r.pause = until
	m.rewake(r)
	m.fix(key)
}

func (m *flowModel) drain() {
	m.shut = true
	for _, r := range m.keys {
		r.wait = false
	}
	for _, key := range slices.Sorted(maps.Keys(m.keys)) {
		m.fix(key)
	}
}

func (m *flowModel) len() int {
	n := 0
	for _, r := range m.keys {
		n += len(r.ready)
	}
	return n
}

// FuzzFlows drives random sequences of Add, HandOut, Pop and Return,
// Done, SetLimit (caps of 0 to 2, weights of 0 to 3, rates of none or a
// token each 4 to 16 instants, bursts of 1 or 2), Pause, the passing of
// time (then Due, as the owner's timer) and Drain against a fair queue
// (by turns, or by work time) and the model in lockstep, and compares
// every item handed out and Len after every step. Keys come and go: a key's items are all Done, and an Add
// brings it back. The queue's invariants are checked after every step,
// the flows' among them: the queue keeps a flow only for a key with items
// or limits.
func FuzzFlows(f *testing.F) {
	for _, byWork := range []bool{false, true} {
		f.Add(byWork, []byte{5, 1, 0, 0, 0, 1, 0, 2, 0, 3, 2, 0, 2, 0, 2, 0, 3, 0, 2, 0})
		f.Add(byWork, []byte{5, 13, 0, 0, 0, 3, 0, 6, 0, 1, 2, 0, 2, 0, 2, 0, 2, 0, 3, 3, 2, 0})
		f.Add(byWork, []byte{5, 2, 5, 7, 0, 0, 0, 1, 0, 2, 0, 4, 0, 5, 2, 0, 4, 0, 2, 0, 6, 0, 2, 0, 2, 0})
		f.Add(byWork, []byte{0, 0, 0, 1, 0, 5, 2, 0, 7, 9, 3, 0, 2, 0, 7, 3, 3, 1, 2, 0, 0, 4, 0, 8, 2, 0, 2, 0, 7, 1, 3, 5, 3, 4, 0, 0, 2, 0})
	}
	keys := []string{"a", "b", "c", "d"}
	keyOf := func(k int) string { return keys[k%len(keys)] }
	f.Fuzz(func(t *testing.T, byWork bool, ops []byte) {
		q := New(Config[int]{Fair: true, ByWork: byWork})
		m := newFlowModel(keyOf, byWork)
		var now int64
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%8, int(ops[i+1])
			k := arg % 12
			switch op {
			case 0, 1:
				q.Add(k, Opts{Keys: []string{keyOf(k)}}, now)
				m.add(k)
			case 2:
				want, ok := m.get(now)
				got, _, gotOK := q.HandOut(now, 0)
				if ok != gotOK || got != want {
					t.Fatalf("op %d: HandOut() = %d, %v; want %d, %v", i/2, got, gotOK, want, ok)
				}
			case 3:
				q.Done(k, now, 0)
				m.done(k, now)
			case 4: // a pop undone changes nothing
				if item, p, ok := q.Pop(now); ok {
					q.Return(item, p, now)
				}
			case 5:
				key, cap, weight := keys[arg%len(keys)], arg/4%3, arg/12%4
				tau := []int64{0, 0, 4, 5, 8, 16}[arg/48] // rates whose interval is exact in floating point
				burst := 1 + arg/2%2
				l := order.Limit{Cap: cap, Weight: weight}
				if tau > 0 {
					l.Rate, l.Burst = 1e9/float64(tau), burst
				}
				q.SetLimit(KeyLimit{Keys: []string{key}, Limit: l}, now)
				m.setLimit(key, cap, weight, tau, int64(burst))
			case 6:
				switch arg % 8 {
				case 0:
					q.Drain()
					m.drain()
				case 1:
					key, until := keys[arg/8%len(keys)], now+int64(arg/32)-1
					q.Pause([]string{key}, until, now)
					m.pauseKey(key, until)
				}
			case 7:
				now += int64(arg % 16)
				q.Due(now)
				m.advance(now)
			}
			q.verify(t)
			if got, want := q.Len(), m.len(); got != want {
				t.Fatalf("op %d (%d %d): Len() = %d; want %d", i/2, op, arg, got, want)
			}
		}
	})
}
