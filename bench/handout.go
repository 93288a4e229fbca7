package bench

import (
	"fmt"
	"sync"

	"github.com/actorq/actorq/actor"
)

// handOutKeys returns the fairness keys of the hand-out workload, made
// once for the most keys it uses: key k is "key-k", zero-padded.
var handOutKeys = sync.OnceValue(func() [][]string {
	keys := make([][]string, handOutMaxKeys)
	for k := range keys {
		keys[k] = []string{fmt.Sprintf("key-%06d", k)}
	}
	return keys
})

// handOutMaxKeys is the most keys the hand-out workload spreads items
// over.
const handOutMaxKeys = 100_000

// handOut is one consumer of a fair queue that holds items of keys
// distinct keys ready, handOutDepth each, and keeps them so: item i's key
// is i%keys, and each item taken is done and replaced, in the same
// goroutine, by the next item of its key (i + handOutDepth*keys), so that
// every key has an item ready at every hand-out.
type handOut struct {
	q     *actor.Queue[int]
	keys  int
	batch bool
	buf   []int
}

// handOutDepth is how many items of each key the hand-out workload keeps
// queued: a key whose item is taken still has one ready.
const handOutDepth = 2

// newHandOut returns a queue with fairness over keys keys (at most
// handOutMaxKeys), by work time if work is set, by turns otherwise, filled
// with handOutDepth items of each; its consumer takes them with GetBatch
// (up to pipelineBatch at a time) if batch is set, with Get otherwise. It
// returns once the queue holds them all.
func newHandOut(keys int, work, batch bool) *handOut {
	all := handOutKeys()[:keys]
	q := actor.New(actor.Config[int]{
		Fairness:       func(i int) []string { return all[i%len(all)] },
		FairByWorkTime: work,
	})
	items := make([]int, handOutDepth*keys)
	for i := range items {
		items[i] = i
	}
	q.AddWithOpts(actor.AddOpts{}, items...)
	q.Len() // waits for the add
	return &handOut{q: q, keys: keys, batch: batch, buf: make([]int, 0, pipelineBatch)}
}

// step takes one item (or, with batch, one GetBatch of up to
// pipelineBatch), marks it done and adds its key's next item, and returns
// the items taken. It returns 0 once the queue is shut down.
func (h *handOut) step() int {
	next := handOutDepth * h.keys
	if h.batch {
		items, shutdown := h.q.GetBatch(h.buf)
		if shutdown {
			return 0
		}
		h.q.DoneBatch(items)
		for i := range items {
			items[i] += next
		}
		h.q.AddWithOpts(actor.AddOpts{}, items...)
		return len(items)
	}
	item, shutdown := h.q.Get()
	if shutdown {
		return 0
	}
	h.q.Done(item)
	h.q.Add(item + next)
	return 1
}
