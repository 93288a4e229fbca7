package order

import "slices"

const (
	// minRing is the capacity of a ring's first buffer.
	minRing = 16
	// keepRing is the size of a ring's chunks: a ring grows its one buffer
	// by doubling up to keepRing items, and past that chains chunks of
	// keepRing items instead of copying into a buffer twice the size. A
	// backlog that grows to a million items and drains, again and again,
	// then copies nothing and allocates only the chunks it did not have
	// (each ring keeps one spare), and a ring that drains is back to one
	// buffer of keepRing items, so that memory returns to near an empty
	// queue's.
	keepRing = 256
	// keepChunks is the longest list of chunks a ring keeps once it is
	// back to one buffer, so that a backlog swinging across keepRing items
	// does not allocate a list every time.
	keepChunks = 16
)

// ring is a double-ended queue. Up to keepRing items it is a circular
// buffer that doubles when full; past that, a list of chunks of keepRing
// items each (chunks[first:], at least two), in order from
// chunks[first][head], the first and last chunk partly used. Popped slots
// are zeroed so the garbage collector can reclaim what items point to.
type ring[T comparable] struct {
	buf    []T // while chunks is empty: the circular buffer
	head   int // index of the first item, in buf or in chunks[first]
	n      int // number of items
	chunks []*[keepRing]T
	first  int          // chunks before first are nil: popped
	spare  *[keepRing]T // the chunk freed last, for the next one needed
}

func (r *ring[T]) len() int { return r.n }

// push adds item at the back.
func (r *ring[T]) push(item T) {
	if r.n == len(r.buf) && len(r.chunks) == 0 {
		r.grow()
	}
	if len(r.chunks) == 0 {
		i := r.head + r.n
		if i >= len(r.buf) {
			i -= len(r.buf)
		}
		r.buf[i] = item
		r.n++
		return
	}
	i := r.head + r.n
	if i == (len(r.chunks)-r.first)*keepRing {
		r.chunks = append(r.chunks, r.chunk())
	}
	r.chunks[r.first+i/keepRing][i%keepRing] = item
	r.n++
}

// pushFront adds item at the front.
func (r *ring[T]) pushFront(item T) {
	if r.n == len(r.buf) && len(r.chunks) == 0 {
		r.grow()
	}
	if len(r.chunks) == 0 {
		r.head--
		if r.head < 0 {
			r.head += len(r.buf)
		}
		r.buf[r.head] = item
		r.n++
		return
	}
	if r.head == 0 {
		if r.first > 0 {
			r.first--
			r.chunks[r.first] = r.chunk()
		} else {
			r.chunks = slices.Insert(r.chunks, 0, r.chunk())
		}
		r.head = keepRing
	}
	r.head--
	r.chunks[r.first][r.head] = item
	r.n++
}

// pop removes and returns the front item. The ring must not be empty.
func (r *ring[T]) pop() T {
	var zero T
	if len(r.chunks) == 0 {
		item := r.buf[r.head]
		r.buf[r.head] = zero
		r.head++
		if r.head == len(r.buf) {
			r.head = 0
		}
		r.n--
		return item
	}
	c := r.chunks[r.first]
	item := c[r.head]
	c[r.head] = zero
	r.head++
	r.n--
	if r.head == keepRing { // the first chunk is empty
		r.spare, r.chunks[r.first] = c, nil
		r.first++
		r.head = 0
		if r.first > len(r.chunks)/2 { // move the list down
			k := copy(r.chunks, r.chunks[r.first:])
			clear(r.chunks[k:])
			r.chunks, r.first = r.chunks[:k], 0
		}
	}
	if len(r.chunks)-r.first == 1 { // the rest fits one buffer
		r.buf = r.chunks[r.first][:]
		r.chunks[r.first] = nil
		r.chunks, r.first = r.chunks[:0], 0
		if cap(r.chunks) > keepChunks {
			r.chunks = nil // the list of a big backlog
		}
	}
	return item
}

// front returns the first item, back the last, at(i) the i-th from the
// front. The ring must hold them.
func (r *ring[T]) front() T { return r.at(0) }
func (r *ring[T]) back() T  { return r.at(r.n - 1) }
func (r *ring[T]) at(i int) T {
	i += r.head
	if len(r.chunks) > 0 {
		return r.chunks[r.first+i/keepRing][i%keepRing]
	}
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	return r.buf[i]
}

// grow makes room for one more item in a full buffer: it doubles the
// buffer up to keepRing items, and turns a full one of keepRing into the
// first chunk.
func (r *ring[T]) grow() {
	if len(r.buf) < keepRing {
		buf := make([]T, max(2*len(r.buf), minRing))
		k := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
		copy(buf[k:], r.buf[:r.n-k])
		r.buf, r.head = buf, 0
		return
	}
	// In order from index 0: rotate left by head.
	slices.Reverse(r.buf[:r.head])
	slices.Reverse(r.buf[r.head:])
	slices.Reverse(r.buf)
	r.chunks = append(r.chunks[:0], (*[keepRing]T)(r.buf))
	r.buf, r.head = nil, 0
}

// chunk returns an empty chunk: the spare one, or a new one.
func (r *ring[T]) chunk() *[keepRing]T {
	if c := r.spare; c != nil {
		r.spare = nil
		return c
	}
	return new([keepRing]T)
}
