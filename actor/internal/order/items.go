package order

import "github.com/actorq/actorq/actor/internal/heap"

// Items calls yield for the entries of ready items, by priority, highest
// first; within a priority key by key, in the order of the keys' turns
// (the key whose turn is next first: by turns, the order of the round;
// by work time, the least virtual time first), then the keys held back
// at their caps; and within a key in sequence order; until yield returns
// false. Stale entries are among them: the caller tells them from the
// live ones (an item yielded twice, or at a priority it no longer has, is
// stale there). It costs O(e log e) for the e entries yielded and nodes
// on the way (each with a live entry), whatever the number of keys.
func (o *Prio[T]) Items(yield func(item T, prio int) bool) {
	for _, prio := range o.prios {
		if !o.items(&o.bands[prio].root, prio, yield) {
			return
		}
	}
}

func (o *Prio[T]) items(x *node[T], prio int, yield func(T, int) bool) bool {
	if x.n == 0 {
		return true
	}
	if !x.inner {
		return o.leafItems(x, prio, yield)
	}
	k := x.kids
	if o.byWork {
		for i := range heap.Walk(k.heap) {
			if !o.items(k.heap[i].Val, prio, yield) {
				return false
			}
		}
	}
	for _, l := range []*list[T]{&k.turns, &k.held} {
		for c := l.first; c != nil; c = c.next {
			if !o.items(c, prio, yield) {
				return false
			}
		}
	}
	return true
}

// leafItems yields the entries of leaf x in sequence order: its list,
// merged with its late heap.
func (o *Prio[T]) leafItems(x *node[T], prio int, yield func(T, int) bool) bool {
	var late []heap.Item[entry[T]]
	if x.late != nil {
		late = *x.late
	}
	i := x.fifo.head // the next entry of the list
	for j := range heap.Walk(late) {
		for ; i != 0 && o.ents.at(i).seq < late[j].Seq; i = o.ents.at(i).next {
			if !yield(o.ents.at(i).item, prio) {
				return false
			}
		}
		if !yield(late[j].Val.item, prio) {
			return false
		}
	}
	for ; i != 0; i = o.ents.at(i).next {
		if !yield(o.ents.at(i).item, prio) {
			return false
		}
	}
	return true
}
