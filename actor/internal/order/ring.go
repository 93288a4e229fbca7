package order

import "slices"

const (
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
// buffer that doubles when full, from one slot (a fairness key's leaf
// often holds one item); past that, a list of chunks of keepRing items
// each (big.list[big.first:], at least two), in order from
// big.list[big.first][head], the first and last chunk partly used. Popped
// slots are zeroed so the garbage collector can reclaim what items point
// to. The list lives apart, so that the many small rings of fairness keys
// pay only for a pointer to it.
type ring[T comparable] struct {
	buf  []T // while the ring is not chunked: the circular buffer
	head int // index of the first item, in buf or in the first chunk
	n    int // number of items
	big  *chunks[T]
}

// chunks is the list of chunks of a ring past keepRing items; a ring back
// in one buffer keeps it, empty, with its spare.
type chunks[T comparable] struct {
	list  []*[keepRing]T
	first int          // chunks before first are nil: popped
	spare *[keepRing]T // the chunk freed last, for the next one needed
}

func (r *ring[T]) len() int { return r.n }

// chunked reports whether the ring is a list of chunks.
func (r *ring[T]) chunked() bool { return r.big != nil && len(r.big.list) > 0 }

// push adds item at the back.
func (r *ring[T]) push(item T) {
	if !r.chunked() {
		if r.n == len(r.buf) {
			r.grow()
		}
		if !r.chunked() {
			i := r.head + r.n
			if i >= len(r.buf) {
				i -= len(r.buf)
			}
			r.buf[i] = item
			r.n++
			return
		}
	}
	c := r.big
	i := r.head + r.n
	if i == (len(c.list)-c.first)*keepRing {
		c.list = append(c.list, c.chunk())
	}
	c.list[c.first+i/keepRing][i%keepRing] = item
	r.n++
}

// pushFront adds item at the front.
func (r *ring[T]) pushFront(item T) {
	if !r.chunked() {
		if r.n == len(r.buf) {
			r.grow()
		}
		if !r.chunked() {
			r.head--
			if r.head < 0 {
				r.head += len(r.buf)
			}
			r.buf[r.head] = item
			r.n++
			return
		}
	}
	c := r.big
	if r.head == 0 {
		if c.first > 0 {
			c.first--
			c.list[c.first] = c.chunk()
		} else {
			c.list = slices.Insert(c.list, 0, c.chunk())
		}
		r.head = keepRing
	}
	r.head--
	c.list[c.first][r.head] = item
	r.n++
}

// pop removes and returns the front item. The ring must not be empty.
func (r *ring[T]) pop() T {
	var zero T
	if !r.chunked() {
		item := r.buf[r.head]
		r.buf[r.head] = zero
		r.head++
		if r.head == len(r.buf) {
			r.head = 0
		}
		r.n--
		return item
	}
	c := r.big
	first := c.list[c.first]
	item := first[r.head]
	first[r.head] = zero
	r.head++
	r.n--
	if r.head == keepRing { // the first chunk is empty
		c.spare, c.list[c.first] = first, nil
		c.first++
		r.head = 0
		if c.first > len(c.list)/2 { // move the list down
			k := copy(c.list, c.list[c.first:])
			clear(c.list[k:])
			c.list, c.first = c.list[:k], 0
		}
	}
	if len(c.list)-c.first == 1 { // the rest fits one buffer
		r.buf = c.list[c.first][:]
		c.list[c.first] = nil
		c.list, c.first = c.list[:0], 0
		if cap(c.list) > keepChunks {
			c.list = nil // the list of a big backlog
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
	if r.chunked() {
		return r.big.list[r.big.first+i/keepRing][i%keepRing]
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
		buf := make([]T, max(2*len(r.buf), 1))
		k := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
		copy(buf[k:], r.buf[:r.n-k])
		r.buf, r.head = buf, 0
		return
	}
	// In order from index 0: rotate left by head.
	slices.Reverse(r.buf[:r.head])
	slices.Reverse(r.buf[r.head:])
	slices.Reverse(r.buf)
	if r.big == nil {
		r.big = new(chunks[T])
	}
	r.big.list = append(r.big.list[:0], (*[keepRing]T)(r.buf))
	r.buf, r.head = nil, 0
}

// chunk returns an empty chunk: the spare one, or a new one.
func (c *chunks[T]) chunk() *[keepRing]T {
	if s := c.spare; s != nil {
		c.spare = nil
		return s
	}
	return new([keepRing]T)
}
