package actor

// Storage holds the ready items of a queue in hand-out order. Its method set
// is that of client-go's workqueue.Queue[T], so a client-go custom queue can
// be plugged in through [Config.Storage].
//
// Only the queue's owner goroutine calls a Storage, so an implementation
// need not be safe for concurrent use. Push is called only for items not
// already stored; Touch is called when an already stored item is added
// again (the default FIFO ignores it); Pop is called only when Len() > 0.
type Storage[T comparable] interface {
	// Touch can be used by the queue to reorder an item already stored.
	Touch(item T)
	// Push adds an item.
	Push(item T)
	// Len returns the number of items stored.
	Len() int
	// Pop removes and returns the next item to hand out.
	Pop() T
}

const (
	// minRing is the capacity of a ring's first buffer.
	minRing = 16
	// keepRing is the capacity below which a ring does not shrink. A queue
	// whose backlog swings by tens of items would otherwise grow and shrink
	// its buffer on every swing: an allocation every few dozen items.
	keepRing = 256
)

// ring is the default Storage: a FIFO in a circular buffer that doubles
// when full and halves when a quarter full (down to keepRing), so that
// memory returns to near an empty queue's after a burst drains. Popped
// slots are zeroed so the garbage collector can reclaim what items point
// to.
type ring[T comparable] struct {
	buf  []T
	head int // index of the oldest item
	n    int // number of items
}

func (r *ring[T]) Touch(T) {}

func (r *ring[T]) Len() int { return r.n }

func (r *ring[T]) Push(item T) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minRing))
	}
	i := r.head + r.n
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = item
	r.n++
}

func (r *ring[T]) Pop() T {
	var zero T
	item := r.buf[r.head]
	r.buf[r.head] = zero
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
	if len(r.buf) > keepRing && r.n <= len(r.buf)/4 {
		r.resize(len(r.buf) / 2)
	}
	return item
}

// resize moves the items to a new buffer of capacity c >= r.n.
func (r *ring[T]) resize(c int) {
	buf := make([]T, c)
	k := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
	copy(buf[k:], r.buf[:r.n-k])
	r.buf, r.head = buf, 0
}
