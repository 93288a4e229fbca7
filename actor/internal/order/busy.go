package order

// The busiest first-level keys, for per-key gauges that show a few keys
// and sum the rest: kept up to date at every event, so that a refresh
// costs what it shows, not the number of keys.
//
// busy holds the first-level keys whose load (items ready plus items out)
// is above zero, in keys, in decreasing order of load; runs gives, for
// each load, where its keys start in keys and how many there are. An
// event moves one key's load by one, which moves the key to the edge of
// its run by one swap: O(1) an event, as in an O(1) LFU cache. Keys of
// equal load are in no particular order.
type busy[T comparable] struct {
	keys []*flow[T]
	runs map[int]run
	peak int // the most keys since keys was made
}

type run struct{ start, n int }

// KeyCount is what a first-level key holds: items ready, and items out;
// Held says why its ready items are held back, if they are: "cap" (at
// its cap) or "rate" (waiting for a token or a pause's end).
type KeyCount struct {
	Key        string
	Ready, Out int
	Held       string
	// With an adaptive cap (Adaptive): the cap it has learnt, and the
	// throttles reported for it.
	Adaptive  bool
	Cap       int
	Throttles uint64
}

// CountKeys makes the order rank its first-level keys by load, for
// Busiest. It must be called before the first Push, and after UseFlows.
func (o *Prio[T]) CountKeys() {
	o.busy = &busy[T]{runs: make(map[int]run)}
}

// Busiest calls yield for the n busiest first-level keys that hold an
// item ready or out, busiest first, and returns the number of such keys
// and their sums of items ready and out (every item's).
func (o *Prio[T]) Busiest(n int, yield func(KeyCount)) (keys, ready, out int) {
	if o.busy == nil {
		return 0, 0, 0
	}
	for _, f := range o.busy.keys[:min(n, len(o.busy.keys))] {
		c := KeyCount{Key: f.key, Out: f.out}
		switch {
		case o.capsOff:
		case f.cap > 0 && f.out >= int(f.cap):
			c.Held = "cap"
		case f.r != nil && f.r.wait:
			c.Held = "rate"
		}
		for x := f.nodes; x != nil; x = x.sib {
			c.Ready += x.n
		}
		if a := f.ad; a != nil {
			if !o.capsOff {
				o.advanceAdapt(f, o.clock) // a read: the windows since its last event
			}
			c.Adaptive, c.Cap, c.Throttles = true, a.cap, a.throttles
		}
		yield(c)
	}
	return len(o.busy.keys), o.n, o.nout
}

// load adds d (1 or -1) to the load of the first-level key above f, if
// the order counts keys.
func (o *Prio[T]) load(f *flow[T], d int) {
	if o.busy == nil || f == nil || f.parent == nil {
		return
	}
	for f.parent != o.flows {
		f = f.parent
	}
	if d > 0 {
		o.busy.up(f)
	} else {
		o.busy.down(f)
	}
}

// up raises f's load by one: f swaps with the first key of its run, which
// joins the run above.
func (b *busy[T]) up(f *flow[T]) {
	l := f.load
	f.load++
	if l == 0 {
		f.rank = int32(len(b.keys))
		b.keys = append(b.keys, f)
		b.peak = max(b.peak, len(b.keys))
		b.grow(1, len(b.keys)-1)
		return
	}
	r := b.runs[l]
	i := r.start
	b.swap(int(f.rank), i)
	b.set(l, run{i + 1, r.n - 1})
	b.grow(l+1, i)
}

// down lowers f's load by one: f swaps with the last key of its run,
// which joins the run below, or leaves keys from the load of one (the
// last run).
func (b *busy[T]) down(f *flow[T]) {
	l := f.load
	f.load--
	r := b.runs[l]
	last := r.start + r.n - 1
	b.swap(int(f.rank), last)
	b.set(l, run{r.start, r.n - 1})
	if l > 1 {
		b.grow(l-1, last)
		return
	}
	b.keys[last] = nil
	b.keys = b.keys[:last]
	f.rank = 0
	if len(b.keys) == 0 && b.peak >= shrinkFloor {
		b.keys, b.peak = nil, 0
	}
}

// grow adds index i, next to the run of load l (or where it begins), to
// that run.
func (b *busy[T]) grow(l, i int) {
	r, ok := b.runs[l]
	if !ok {
		r.start = i
	}
	r.start = min(r.start, i)
	r.n++
	b.runs[l] = r
}

func (b *busy[T]) set(l int, r run) {
	if r.n == 0 {
		delete(b.runs, l)
	} else {
		b.runs[l] = r
	}
}

func (b *busy[T]) swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.keys[i].rank = int32(i)
	b.keys[j].rank = int32(j)
}
