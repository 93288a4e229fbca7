package order

import (
	"unsafe"
	"weak"
)

// Spares. Most keys of a skewed workload come and go with every item
// they have: an order keeps what a key that went had (its node, its flow,
// their children's lists and maps), reset, for the next key, and the
// bands of priorities with nothing ready for the next priority. Its
// invariant:
//
//	every spare is as new but for its buffers: a node's late heap, a
//	list of children's heap, a map's buckets, a band's heap of turns;
//	a list holds at most maxSpareNodes, or as many as the most keys
//	items held at once since the order last drained (bands: maxSpare);
//	a buffer of a spare node, list or map holds at most spareRing.
//
// So a queue that cycles through more keys than maxSpareNodes, its keys
// coming and going as its backlog swings, allocates nothing for them
// once it has held as many at once. The nodes and flows that no spare
// provides are allocated a batch at a time (fresh), so that a queue
// allocates for its first keys a few times, not once a key.
// A band keeps its heap of turns whatever its size, as a queue that
// drains between bursts over many keys by work time would grow it again
// each time. Once the order drains (no item holds a key) after a burst
// over at least maxSpareNodes keys, or with a band's heap past spareRing,
// the spares are held weakly: the garbage collector takes them unless the
// next keys come first, so that a pipeline that drains between bursts
// reuses them, and a queue left idle gives their memory back.

// spares is what an order keeps for reuse.
type spares[T comparable] struct {
	bands []*band[T]
	nodes []*node[T]
	kids  []*kids[T]
	maps  []map[string]*flow[T]
	flows []*flow[T]
	// adaptive caps' states (adaptive.go)
	adapts []*adaptive
}

// fresh are nodes, flows and adaptive caps' states allocated a batch at
// a time, not handed out yet, and how many the order allocated so far (a
// batch is as big as that, from minBatch objects to what fits in batchBytes with the
// allocator's header, so that no size class is wasted).
type fresh[T comparable] struct {
	nodes  []node[T]
	flows  []flow[T]
	adapts []adaptive
	made   int
}

const minBatch, batchBytes = 4, 8192 - 16

// alloc returns a new object of *batch, allocating a batch if need be.
func alloc[E any](batch *[]E, made *int) *E {
	if len(*batch) == 0 {
		var x E
		n := min(max(*made, minBatch), max(batchBytes/int(unsafe.Sizeof(x)), 1))
		*batch = make([]E, n)
		*made += n
	}
	x := &(*batch)[0]
	*batch = (*batch)[1:]
	return x
}

// big reports whether s is what a burst over many keys leaves: a list
// full, or a band's heap past spareRing.
func (s *spares[T]) big() bool {
	for _, b := range s.bands {
		if b.root.kids != nil && cap(b.root.kids.heap) > spareRing {
			return true
		}
	}
	return max(len(s.nodes), len(s.kids), len(s.maps), len(s.flows), len(s.adapts)) >= maxSpareNodes
}

// put adds what t keeps to s, each list within limit (bands: maxSpare).
func (s *spares[T]) put(t *spares[T], limit int) {
	s.bands = appendSpares(s.bands, t.bands, maxSpare)
	s.nodes = appendSpares(s.nodes, t.nodes, limit)
	s.kids = appendSpares(s.kids, t.kids, limit)
	s.maps = appendSpares(s.maps, t.maps, limit)
	s.flows = appendSpares(s.flows, t.flows, limit)
	s.adapts = appendSpares(s.adapts, t.adapts, limit)
}

func appendSpares[E any](s, t []E, limit int) []E {
	return append(s, t[:min(len(t), max(limit-len(s), 0))]...)
}

// spareLimit is how many spares of each kind a list may hold.
func (o *Prio[T]) spareLimit() int { return max(maxSpareNodes, o.ids.most) }

// keepSpare adds x to *list if it holds fewer than limit.
func keepSpare[E any](list *[]E, x E, limit int) {
	if len(*list) < limit {
		*list = append(*list, x)
	}
}

// takeSpare takes the last of *spares off the list and returns it; ok is
// false if the list is empty.
func takeSpare[E any](spares *[]E) (x E, ok bool) {
	n := len(*spares)
	if n == 0 {
		return x, false
	}
	x = (*spares)[n-1]
	var zero E
	(*spares)[n-1] = zero // the list keeps no reference to what it gave
	*spares = (*spares)[:n-1]
	return x, true
}

// drained is the instant no item holds a key any more: the order has no
// node, and no flow but those of keys with limits (and the flows above
// them). After a burst over many keys, the spares are held weakly from
// now on.
func (o *Prio[T]) drained() {
	o.ids.drained()
	if !o.sp.big() {
		return
	}
	o.fresh = fresh[T]{}
	w := new(spares[T])
	*w = o.sp
	o.sp = spares[T]{}
	o.weak, o.weakly = weak.Make(w), true
}

// unweak takes back the spares held weakly since the order drained, if
// the collector has not taken them: the order needs a spare its lists do
// not have.
func (o *Prio[T]) unweak() {
	if w := o.weak.Value(); w != nil {
		o.sp.put(w, o.spareLimit())
		*w = spares[T]{}
	}
	o.weak, o.weakly = weak.Pointer[spares[T]]{}, false
}

// newNode returns an empty node: a spare one, or a new one.
func (o *Prio[T]) newNode() *node[T] {
	if x, ok := takeSpare(spare(o, &o.sp.nodes)); ok {
		return x
	}
	return alloc(&o.fresh.nodes, &o.fresh.made)
}

// newFlow returns an empty flow: a spare one, or a new one.
func (o *Prio[T]) newFlow() *flow[T] {
	if f, ok := takeSpare(spare(o, &o.sp.flows)); ok {
		return f
	}
	return alloc(&o.fresh.flows, &o.fresh.made)
}

// newKids returns empty lists of children: spare ones, or new ones.
func (o *Prio[T]) newKids() *kids[T] {
	if k, ok := takeSpare(spare(o, &o.sp.kids)); ok {
		return k
	}
	return new(kids[T])
}

// newChildren returns an empty map of children: a spare one, or a new
// one.
func (o *Prio[T]) newChildren() map[string]*flow[T] {
	if m, ok := takeSpare(spare(o, &o.sp.maps)); ok {
		return m
	}
	return make(map[string]*flow[T])
}

// newBandObject returns an empty band: a spare one, or a new one.
func (o *Prio[T]) newBandObject() *band[T] {
	if b, ok := takeSpare(spare(o, &o.sp.bands)); ok {
		return b
	}
	return &band[T]{}
}

// newAdaptiveObject returns an adaptive cap's state to reset: a spare
// one, or a new one.
func (o *Prio[T]) newAdaptiveObject() *adaptive {
	if a, ok := takeSpare(spare(o, &o.sp.adapts)); ok {
		return a
	}
	return alloc(&o.fresh.adapts, &o.fresh.made)
}

// keepNode, keepFlow, keepAdaptive, keepKids, keepChildren and keepBand keep an
// object, reset, as a spare if its list has room.
func (o *Prio[T]) keepNode(x *node[T])                { keepSpare(&o.sp.nodes, x, o.spareLimit()) }
func (o *Prio[T]) keepFlow(f *flow[T])                { keepSpare(&o.sp.flows, f, o.spareLimit()) }
func (o *Prio[T]) keepKids(k *kids[T])                { keepSpare(&o.sp.kids, k, o.spareLimit()) }
func (o *Prio[T]) keepChildren(m map[string]*flow[T]) { keepSpare(&o.sp.maps, m, o.spareLimit()) }
func (o *Prio[T]) keepBand(b *band[T])                { keepSpare(&o.sp.bands, b, maxSpare) }
func (o *Prio[T]) keepAdaptive(a *adaptive)           { keepSpare(&o.sp.adapts, a, o.spareLimit()) }

// spare returns *list after taking back the spares held weakly, if it is
// empty and some are.
func spare[E any, T comparable](o *Prio[T], list *[]E) *[]E {
	if len(*list) == 0 && o.weakly {
		o.unweak()
	}
	return list
}
