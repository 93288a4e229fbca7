package actor

const (
	// minRing is the capacity of a ring's first buffer.
	minRing = 16
	// keepRing is the capacity below which a ring does not shrink. A queue
	// whose backlog swings by tens of items would otherwise grow and shrink
	// its buffer on every swing: an allocation every few dozen items.
	keepRing = 256
)

// fifo is the default ready order: first in, first out, in a ring, every
// item at priority 0 (places are ignored).
type fifo[T comparable] struct{ r ring[T] }

func (f *fifo[T]) push(item T, _ place)      { f.r.push(item) }
func (f *fifo[T]) pushFront(item T, _ place) { f.r.pushFront(item) }
func (f *fifo[T]) touch(T)                   {}
func (f *fifo[T]) remove(T, place)           {}
func (f *fifo[T]) len() int                  { return f.r.len() }
func (f *fifo[T]) pop() (T, place)           { return f.r.pop(), place{} }

// ring is a double-ended queue in a circular buffer that doubles when full
// and halves when a quarter full (down to keepRing), so that memory returns
// to near an empty queue's after a burst drains. Popped slots are zeroed so
// the garbage collector can reclaim what items point to.
type ring[T comparable] struct {
	buf  []T
	head int // index of the first item
	n    int // number of items
}

func (r *ring[T]) len() int { return r.n }

// push adds item at the back.
func (r *ring[T]) push(item T) {
	r.grow()
	i := r.head + r.n
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = item
	r.n++
}

// pushFront adds item at the front.
func (r *ring[T]) pushFront(item T) {
	r.grow()
	r.head--
	if r.head < 0 {
		r.head += len(r.buf)
	}
	r.buf[r.head] = item
	r.n++
}

// pop removes and returns the front item. The ring must not be empty.
func (r *ring[T]) pop() T {
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

// front returns the first item, back the last, at(i) the i-th from the
// front. The ring must hold them.
func (r *ring[T]) front() T { return r.buf[r.head] }
func (r *ring[T]) back() T  { return r.at(r.n - 1) }
func (r *ring[T]) at(i int) T {
	i += r.head
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	return r.buf[i]
}

// grow makes room for one more item.
func (r *ring[T]) grow() {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minRing))
	}
}

// resize moves the items to a new buffer of capacity c >= r.n.
func (r *ring[T]) resize(c int) {
	buf := make([]T, c)
	k := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
	copy(buf[k:], r.buf[:r.n-k])
	r.buf, r.head = buf, 0
}
