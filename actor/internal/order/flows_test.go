package order

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// driver drives a priority order with fairness keys as the state does,
// and knows what the order must count: the key id each item it knows
// holds, and which items are out. An item is delayed (it holds its key,
// and is not in the order), ready, popped ahead (out, and may be put
// back), or out (handed out); an item out may be added again (dirty),
// and goes back in the order when it is done.
type driver struct {
	t      *testing.T
	o      *Prio[int]
	levels int
	now    int64
	seq    uint64
	items  map[int]*driven
	ahead  []int // popped ahead, oldest first: handed out oldest first, put back newest first
}

type driven struct {
	key   uint32
	state string // "delayed", "ready", "ahead" or "out"
	place Place  // ready: its place; ahead: where it was popped
	dirty bool
}

// driverConfig is how the order is made: by work time, with a
// starvation bound, with its keys ranked by load, and with one or two
// levels of keys.
type driverConfig struct {
	byWork, bound, counted bool
	levels                 int
}

func (c driverConfig) String() string {
	return fmt.Sprintf("work=%v/bound=%v/counted=%v/levels=%d", c.byWork, c.bound, c.counted, c.levels)
}

func newDriver(t *testing.T, c driverConfig) *driver {
	var bound time.Duration
	if c.bound {
		bound = 50
	}
	d := &driver{t: t, o: NewPrio[int](bound), levels: c.levels, items: map[int]*driven{}}
	d.o.UseFlows(c.byWork)
	if c.counted {
		d.o.CountKeys()
	}
	d.o.KeyOf = func(item int) uint32 { return d.items[item].key }
	return d
}

// path returns the key path of item k.
func (d *driver) path(k int) []string {
	if d.levels == 1 {
		return []string{fmt.Sprint("k", k%5)}
	}
	return []string{fmt.Sprint("t", k%3), fmt.Sprint("k", k%5)}
}

// push puts item k, which holds its key, in the order at prio.
func (d *driver) push(k, prio int) {
	it := d.items[k]
	d.seq++
	it.state, it.place = "ready", Place{Prio: prio, Seq: d.seq, At: d.now, Key: it.key}
	d.o.Push(k, it.place)
}

// add is an add of item k at prio: a new item is ready, a delayed one
// becomes ready, an item out becomes dirty, and a ready one goes to a
// higher priority (Remove, then Push).
func (d *driver) add(k, prio int) {
	it := d.items[k]
	switch {
	case it == nil:
		d.items[k] = &driven{key: d.o.Hold(d.path(k))}
		d.push(k, prio)
	case it.state == "delayed":
		d.push(k, prio)
	case it.state == "ready" && prio > it.place.Prio:
		d.o.Remove(k, Place{Prio: it.place.Prio, Key: it.key})
		d.push(k, prio)
	case it.state == "ahead" || it.state == "out":
		it.dirty = true
	}
}

// popAhead pops the next item ahead of its hand-out.
func (d *driver) popAhead() {
	if !d.o.Ready() {
		return
	}
	k, p := d.o.PopAhead(d.now)
	it := d.items[k]
	if it == nil || it.state != "ready" || p.Prio != it.place.Prio || p.Key != it.key {
		d.t.Fatalf("PopAhead() = %d at %+v; the item is %+v", k, p, it)
	}
	it.state, it.place = "ahead", p
	d.ahead = append(d.ahead, k)
}

// handOut hands out the oldest item popped ahead, if any, and returns
// it.
func (d *driver) handOut() (k int, ok bool) {
	if len(d.ahead) == 0 {
		return 0, false
	}
	k = d.ahead[0]
	d.ahead = d.ahead[1:]
	d.o.Kept(d.items[k].place, d.now)
	d.items[k].state = "out"
	return k, true
}

// putBack puts back the newest item popped ahead.
func (d *driver) putBack() {
	if len(d.ahead) == 0 {
		return
	}
	k := d.ahead[len(d.ahead)-1]
	d.ahead = d.ahead[:len(d.ahead)-1]
	it := d.items[k]
	d.o.PushFront(k, it.place)
	it.state, it.place.Undo = "ready", 0
}

// done finishes item k, if it is out, after work time w: a dirty item
// goes back in the order, another lets its key go.
func (d *driver) done(k int, w int64) {
	it := d.items[k]
	if it == nil || it.state != "out" {
		return
	}
	d.o.Finish(it.key, w)
	if it.dirty {
		it.dirty = false
		d.push(k, it.place.Prio)
		return
	}
	d.o.Release(it.key)
	delete(d.items, k)
}

// check fails t if the order's flows and trees break their invariants,
// or it counts other than the items ready.
func (d *driver) check(when string) {
	d.t.Helper()
	var held, out []uint32
	ready := 0
	for _, it := range d.items {
		held = append(held, it.key)
		switch it.state {
		case "ahead", "out":
			out = append(out, it.key)
		case "ready":
			ready++
		}
	}
	if d.o.Len() != ready {
		d.t.Fatalf("%s: Len() = %d; %d items ready", when, d.o.Len(), ready)
	}
	if err := d.o.checkFlows(held, out); err != nil {
		d.t.Fatalf("%s: %v", when, err)
	}
}

// drain hands out and finishes every item, and fails t unless the order
// then holds nothing for the keys and items it has seen.
func (d *driver) drain() {
	d.t.Helper()
	for len(d.items) > 0 {
		for len(d.ahead) > 0 {
			d.handOut()
		}
		for k, it := range d.items {
			switch it.state {
			case "delayed":
				d.push(k, 0)
			case "out":
				d.done(k, 1)
			}
		}
		for d.o.Ready() {
			d.popAhead()
		}
		d.check("drain")
	}
	if err := d.o.checkEmpty(); err != nil {
		d.t.Fatalf("drained: %v", err)
	}
}

// run applies ops, two bytes each, checking the order after every step.
func (d *driver) run(ops []byte) {
	prios := []int{0, 1, 5}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i]%10, int(ops[i+1])
		k := arg % 24
		switch op {
		case 0, 1:
			d.add(k, prios[arg/24%3])
		case 2:
			if d.items[k] == nil {
				d.items[k] = &driven{key: d.o.Hold(d.path(k)), state: "delayed"}
			}
		case 3, 4:
			d.popAhead()
		case 5:
			d.handOut()
		case 6:
			d.putBack()
		case 7:
			d.done(k, int64(arg%5)*100)
		case 8:
			d.o.SetLimit(d.path(arg % 15)[:1+arg/15%d.levels], Limit{Cap: arg / 4 % 3, Weight: arg / 12 % 4})
		case 9:
			d.now += int64(arg % 16)
			if arg == 255 {
				d.o.CapsOff()
			}
		}
		d.check(fmt.Sprintf("op %d (%d %d)", i/2, op, arg))
	}
	d.drain()
}

var driverConfigs = func() []driverConfig {
	var cs []driverConfig
	for _, byWork := range []bool{false, true} {
		for _, bound := range []bool{false, true} {
			for _, levels := range []int{1, 2} {
				cs = append(cs, driverConfig{byWork: byWork, bound: bound, counted: levels == 2, levels: levels})
			}
		}
	}
	return cs
}()

// TestFlowsRandom drives the order with fairness keys through random
// adds, delays, raises, pops ahead, hand-outs, put-backs, Dones (some of
// items added again while out), limits and caps lifted, by turns and by
// work time, with and without a starvation bound, at one level of keys
// and two, and checks the flows and trees after every step (checkFlows);
// drained, the order holds nothing for what it has seen (checkEmpty).
func TestFlowsRandom(t *testing.T) {
	for _, c := range driverConfigs {
		t.Run(c.String(), func(t *testing.T) {
			for seed := range uint64(30) {
				rng := rand.New(rand.NewPCG(seed, 11))
				ops := make([]byte, 600)
				for i := range ops {
					ops[i] = byte(rng.UintN(256))
				}
				newDriver(t, c).run(ops)
			}
		})
	}
}

// FuzzOrderFlows is TestFlowsRandom with the fuzzer's ops.
func FuzzOrderFlows(f *testing.F) {
	f.Add(byte(0), []byte{0, 1, 0, 2, 3, 0, 3, 0, 6, 0, 5, 0, 7, 1, 8, 4, 0, 3, 3, 0, 5, 0, 7, 3})
	f.Add(byte(5), []byte{2, 4, 0, 4, 0, 30, 8, 16, 3, 0, 3, 0, 0, 4, 9, 3, 6, 0, 6, 0, 9, 255, 3, 0})
	f.Fuzz(func(t *testing.T, cfg byte, ops []byte) {
		newDriver(t, driverConfigs[int(cfg)%len(driverConfigs)]).run(ops)
	})
}

// TestDrainLeavesNoKeys: after bursts over thousands of distinct keys
// drain (added, some delayed first, some raised, some added again while
// out, some put back after a pop ahead, all handed out and done), the
// order holds nothing per key or item it has seen beyond its bounded
// spares; after bursts over fewer keys, which leave spares, the spare
// nodes and flows keep no children's lists or maps.
func TestDrainLeavesNoKeys(t *testing.T) {
	for _, c := range driverConfigs {
		t.Run(c.String(), func(t *testing.T) {
			d := newDriver(t, c)
			if c.levels == 2 { // a first-level key with limits keeps the root's map
				d.o.SetLimit([]string{"t1"}, Limit{Cap: 3, Weight: 2})
			}
			for burst := range 4 {
				n := 3000
				if burst >= 2 {
					n = 150
				}
				d.burst(burst, n)
				d.drain()
			}
		})
	}
}

// burst adds n items of n distinct keys, raising some and delaying some,
// then pops them all ahead, putting some back, and hands out and
// finishes them, adding some again while out.
func (d *driver) burst(burst, n int) {
	d.t.Helper()
	path := func(i int) []string {
		k := fmt.Sprint("k", burst, "-", i)
		if d.levels == 1 {
			return []string{k}
		}
		return []string{fmt.Sprint("t", i%7), k}
	}
	for i := range n {
		d.items[i] = &driven{key: d.o.Hold(path(i)), state: "delayed"}
		if i%5 != 0 {
			d.push(i, i%3)
		}
		if i%11 == 0 {
			d.add(i, 5) // raised
		}
	}
	for i := 0; len(d.items) > 0; i++ {
		d.now += 3
		d.popAhead()
		if i%7 == 0 {
			d.putBack()
			d.popAhead()
		}
		if i%5 == 0 {
			d.add(i%n, 0) // delayed ones become ready
		}
		if k, ok := d.handOut(); ok {
			if k%13 == 0 && i%2 == 0 {
				d.add(k, 0) // runs again after its Done
			}
			d.done(k, int64(k%4))
		}
		if len(d.ahead) == 0 && !d.o.Ready() {
			for k, it := range d.items {
				if it.state == "delayed" {
					d.push(k, 0)
				}
			}
		}
	}
	d.check("burst")
}
