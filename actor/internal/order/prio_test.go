package order

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestPrioStaleEntries drives the priority order directly with random
// pushes, raises (remove, then push at a higher priority), pops and
// take-backs, with and without fairness keys and a starvation bound, and
// checks after every step that each item popped is ready at the priority
// it was popped from, that the highest priority goes first (without a
// bound), that first-in-first-out holds within a priority (without keys),
// and that dead counts exactly the stale entries still stored; drained,
// the order holds nothing at all.
func TestPrioStaleEntries(t *testing.T) {
	for _, fair := range []bool{false, true} {
		for _, bound := range []int64{0, 50} {
			t.Run(fmt.Sprintf("fair=%v/bound=%d", fair, bound), func(t *testing.T) {
				for seed := range uint64(40) {
					runPrioOrder(t, seed, fair, bound)
				}
			})
		}
	}
}

func runPrioOrder(t *testing.T, seed uint64, fair bool, bound int64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var now int64
	o := NewPrio[int](time.Duration(bound))
	keysOf := func(item int) []string { return []string{fmt.Sprint(item % 3), fmt.Sprint(item % 5)} }
	ids := map[int]uint32{} // the key ids of the items ready
	if fair {
		o.UseFlows(false)
		o.KeyOf = func(item int) uint32 { return ids[item] }
	}
	type ready struct {
		prio int
		seq  uint64
	}
	model := map[int]ready{}
	var seq uint64
	placeOf := func(item, prio int) Place {
		seq++
		p := Place{Prio: prio, Seq: seq, At: now}
		if fair {
			if _, ok := ids[item]; !ok {
				ids[item] = o.Hold(keysOf(item))
			}
			p.Key = ids[item]
		}
		return p
	}
	prios := []int{-100, 0, 10}
	pop := func(step int) (int, Place) {
		item, p := o.Pop(now)
		r, ok := model[item]
		if !ok || r.prio != p.Prio {
			t.Fatalf("seed %d step %d: pop() = %d at %d; ready: %v at %v", seed, step, item, p.Prio, ok, r.prio)
		}
		for other, ro := range model {
			if bound == 0 && ro.prio > p.Prio {
				t.Fatalf("seed %d step %d: pop() = %d at %d before %d at %d", seed, step, item, p.Prio, other, ro.prio)
			}
			if !fair && bound == 0 && ro.prio == p.Prio && ro.seq < r.seq {
				t.Fatalf("seed %d step %d: pop() = %d (seq %d) before %d (seq %d)", seed, step, item, r.seq, other, ro.seq)
			}
		}
		if p.Key != ids[item] {
			t.Fatalf("seed %d step %d: pop() = %d with key %d; want %d", seed, step, item, p.Key, ids[item])
		}
		delete(model, item)
		return item, p
	}
	// gone is the end of a popped item not taken back: it is done.
	gone := func(p Place, item int) {
		if fair {
			o.Finish(p.Key, 0)
			o.Release(p.Key)
			delete(ids, item)
		}
	}
	for step := range 400 {
		now += int64(rng.IntN(10))
		item := rng.IntN(30)
		switch r, ok := model[item]; {
		case !ok && rng.IntN(3) > 0:
			p := placeOf(item, prios[rng.IntN(len(prios))])
			o.Push(item, p)
			model[item] = ready{p.Prio, p.Seq}
		case ok && r.prio < prios[len(prios)-1] && rng.IntN(2) == 0: // raise
			old := Place{Prio: r.prio, Key: ids[item]}
			o.Remove(item, old)
			p := placeOf(item, r.prio+10+rng.IntN(100))
			o.Push(item, p)
			model[item] = ready{p.Prio, p.Seq}
		case o.Len() > 0:
			got, p := pop(step)
			if rng.IntN(4) == 0 { // taken back
				o.PushFront(got, p)
				model[got] = ready{p.Prio, p.Seq}
			} else {
				gone(p, got)
			}
		}
		if o.Len() != len(model) {
			t.Fatalf("seed %d step %d: len() = %d; want %d", seed, step, o.Len(), len(model))
		}
		checkDead(t, o, fmt.Sprintf("seed %d step %d", seed, step))
	}
	for step := 0; o.Len() > 0; step++ {
		item, p := pop(1000 + step)
		gone(p, item)
		checkDead(t, o, fmt.Sprintf("seed %d drain %d", seed, step))
	}
	if len(model) != 0 || len(o.bands) != 0 || len(o.prios) != 0 || len(o.dead) != 0 || o.top != nil {
		t.Fatalf("seed %d: drained: model %d, bands %d, prios %d, dead %d, top %p; want all 0", seed, len(model), len(o.bands), len(o.prios), len(o.dead), o.top)
	}
	if err := o.checkEmpty(); err != nil {
		t.Fatalf("seed %d: drained: %v", seed, err)
	}
}

// checkDead checks that dead counts exactly the stored entries that are
// not live: every leaf and log entry but one leaf entry per ready item
// (and one log entry, with a bound).
func checkDead(t *testing.T, o *Prio[int], when string) {
	t.Helper()
	if len(o.prios) > 0 && o.top != o.bands[o.prios[0]] {
		t.Fatalf("%s: top band is not the band of priority %d", when, o.prios[0])
	}
	if err := o.checkEntries(); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	stored := 0
	for _, b := range o.bands {
		walkNodes(&b.root, func(n *node[int]) {
			stored += o.chainLen(n.fifo)
			if n.late != nil {
				stored += len(*n.late)
			}
		})
		stored += b.log.len()
	}
	live := o.n
	if o.bound > 0 {
		live *= 2
	}
	dead := 0
	for _, c := range o.dead {
		dead += c
	}
	if dead != stored-live {
		t.Fatalf("%s: dead counts %d entries; %d stored, %d live", when, dead, stored, live)
	}
	if o.flows == nil {
		return
	}
	var held []uint32
	for _, id := range o.ids.ids {
		if id != nil {
			for range id.held {
				held = append(held, id.id)
			}
		}
	}
	var out []uint32
	if err := o.checkFlows(held, out); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
}

// walkNodes calls fn for x and every node under it.
func walkNodes[T comparable](x *node[T], fn func(*node[T])) {
	fn(x)
	if x.kids == nil {
		return
	}
	for _, t := range x.kids.heap {
		walkNodes(t.Val, fn)
	}
	for _, l := range []*list[T]{&x.kids.turns, &x.kids.held} {
		for c := l.first; c != nil; c = c.next {
			walkNodes(c, fn)
		}
	}
}
