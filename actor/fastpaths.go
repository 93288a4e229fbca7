package actor

// fastPaths says which optimizations of the transport a queue uses. Each
// lives in its own file, with the invariant it keeps and the figure it
// buys; with all of them off, the queue is the reference transport:
// requests on a channel, one select, waiting callers answered on
// channels, and the items channel for Items.
type fastPaths struct {
}

// defaultPaths are the fast paths of every queue New makes.
var defaultPaths = fastPaths{}

// install sets up in c the fast paths fp turns on, made for cfg.
func install[T comparable](fp fastPaths, c *shared[T], cfg Config[T]) {
	c.inbox = newChanInbox[T]()
}
