package actor

import "github.com/actorq/actorq/actor/internal/state"

// fastPaths says which optimizations of the transport a queue uses. Each
// lives in its own file, with the invariant it keeps and the figure it
// buys; with all of them off, the queue is the reference transport:
// requests in the inbox, one select, waiting callers answered on
// channels, and the items channel for Items.
type fastPaths struct {
	lane   bool // lane.go
	filter bool // the duplicate filter (filter.go)
}

// defaultPaths are the fast paths of every queue New makes.
var defaultPaths = fastPaths{lane: true, filter: true}

// install sets up in o, and in its shared part, the fast paths fp turns
// on, made for cfg.
func install[T comparable](fp fastPaths, o *owner[T], cfg Config[T], m *state.Metrics[T]) {
	c := o.c
	if fp.filter && cfg.Storage == nil {
		c.filter = newFilter(o.q)
	}
	if fp.lane && cfg.Storage == nil && cfg.StarvationBound <= 0 && !m.ByPriority() {
		c.lane = newLane(cfg, o.q, c.filter, &c.inbox, &c.stamps, &c.phase)
		if c.filter != nil {
			c.filter.lane = c.lane
		}
	}
}
