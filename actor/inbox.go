package actor

// inbox carries the callers' requests to the owner goroutine, in one
// order: every request of a caller after its earlier ones, so a caller's
// calls take effect in the order it made them, whatever their kind.
type inbox[T comparable] interface {
	// put sends r, waiting only while the inbox is full. It reports
	// false, without sending, if done is closed first.
	put(r request[T], done <-chan struct{}) bool
	// take returns the next request, if one is there, without waiting.
	// Only the owner calls it (or, after the owner ended, the caller
	// holding the state).
	take() (request[T], bool)
	// len returns how many requests are there now.
	len() int
	// idle returns what the owner's select waits on once take found
	// nothing: a channel that delivers the next request, or one that says
	// that requests arrived (then the owner takes them). Only the owner
	// calls it, and calls woke once its select returns.
	idle() (next <-chan request[T], bell <-chan struct{})
	woke()
}

// inboxSize is how many requests may wait in a channel inbox before their
// senders wait for the owner to take them. It is a hand-over buffer, not
// storage: the owner moves requests into its own state in rounds.
const inboxSize = 256

// roundSize bounds the requests the owner serves in one round, so that
// consumers and due timers are served between rounds however long the
// flood.
const roundSize = 64

// chanInbox is the reference inbox: a buffered channel.
type chanInbox[T comparable] struct{ ch chan request[T] }

func newChanInbox[T comparable]() *chanInbox[T] {
	return &chanInbox[T]{ch: make(chan request[T], inboxSize)}
}

func (in *chanInbox[T]) put(r request[T], done <-chan struct{}) bool {
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

func (in *chanInbox[T]) take() (r request[T], ok bool) {
	select {
	case r = <-in.ch:
		return r, true
	default:
		return r, false
	}
}

func (in *chanInbox[T]) len() int { return len(in.ch) }

func (in *chanInbox[T]) idle() (<-chan request[T], <-chan struct{}) { return in.ch, nil }

func (in *chanInbox[T]) woke() {}
