package actor

// inbox carries the callers' requests to the owner goroutine, in one
// order: every request of a caller after its earlier ones, so a caller's
// calls take effect in the order it made them, whatever their kind. It is
// a buffered channel (the reference), or the batch inbox, a fast path.
// Only the owner takes requests (or, after the owner ended, the caller
// holding the state).
type inbox[T comparable] struct {
	ch    chan request[T] // the reference inbox; nil with the batch inbox
	batch *batchInbox[T]
	takes uint64     // counts the channel's receives (see batches)
	cur   request[T] // the request last received from ch
}

// inboxSize is how many requests may wait in a channel inbox before their
// senders wait for the owner to take them. It is a hand-over buffer, not
// storage: the owner moves requests into its own state in rounds.
const inboxSize = 256

// roundSize bounds the requests the owner serves in one round, so that
// consumers and due timers are served between rounds however long the
// flood.
const roundSize = 64

// put sends r, waiting only while the inbox is full. It reports false,
// without sending, if done is closed first. hot is the filter entry of an
// Add's item, or nil: the batch inbox sets its sent flag as it puts r
// (filter.go).
func (in *inbox[T]) put(r request[T], hot *hotEntry[T], done <-chan struct{}) bool {
	if in.batch != nil {
		return in.batch.put(r, hot, done)
	}
	select {
	case in.ch <- r:
		return true
	default:
	}
	select {
	case in.ch <- r:
		return true
	case <-done:
		return false
	}
}

// take returns the next request, if one is there, without waiting. The
// request stays valid until the next take. Only the owner takes (or,
// after it ended, the caller holding the state).
func (in *inbox[T]) take() (*request[T], bool) {
	if in.batch != nil {
		return in.batch.take()
	}
	select {
	case in.cur = <-in.ch:
		in.takes++
		return &in.cur, true
	default:
		return nil, false
	}
}

// batches counts the batches taken so far: every request taken since the
// last change of the count was sent before its batch was taken. (A
// channel inbox takes one request at a time.) The owner uses it to see
// the lane's claims once per batch (offers.see).
func (in *inbox[T]) batches() uint64 {
	if in.batch != nil {
		return in.batch.swaps
	}
	return in.takes
}

// len returns how many requests are there now.
func (in *inbox[T]) len() int {
	if in.batch != nil {
		return in.batch.len()
	}
	return len(in.ch)
}

// empty reports whether no request is there now.
func (in *inbox[T]) empty() bool { return in.len() == 0 }

// idle returns what the owner's select waits on once take found nothing:
// a channel that delivers the next request, or a bell that rings once
// requests arrived (then the owner takes them). The owner calls woke once
// its select returns.
func (in *inbox[T]) idle() (next <-chan request[T], bell <-chan struct{}) {
	if in.batch != nil {
		return nil, in.batch.idle()
	}
	return in.ch, nil
}

func (in *inbox[T]) woke() {
	if in.batch != nil {
		in.batch.woke()
	}
}

// took counts a request that the owner received from next in its select:
// a take like any other, so batches moves on and the lane's claims made
// before it was sent are seen before it is served.
func (in *inbox[T]) took() { in.takes++ }
