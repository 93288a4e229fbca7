package actor

import (
	"time"

	"github.com/actorq/actorq/actor/internal/order"
	"github.com/actorq/actorq/actor/internal/state"
)

// Config configures a queue. The zero value is a valid configuration: an
// unnamed FIFO queue on the real clock, with client-go's default controller
// rate limiter and no metrics. Zero fields mean "default".
type Config[T comparable] struct {
	// Name names the queue in metrics and in the list of [NamedQueues],
	// which a debug page shows. A named queue keeps the instant each item
	// became ready and was handed out, for the metrics and the ages in
	// its [Queue.Snapshot]. An unnamed queue records no metrics, is not
	// listed, and its snapshots show no ages.
	Name string

	// Clock is used for delays and metrics. Nil means the real clock.
	Clock Clock

	// RateLimiter decides the delays of [Queue.AddRateLimited] and answers
	// [Queue.NumRequeues] and [Queue.Forget]. It is called in the caller's
	// goroutine, never in the owner goroutine, and must be safe for
	// concurrent use. Nil means client-go's default controller limiter
	// (see ratelimit.DefaultController).
	RateLimiter RateLimiter[T]

	// MetricsProvider makes the queue's metrics when Name is set. Nil means
	// the provider given to [SetProvider], if any.
	MetricsProvider MetricsProvider

	// Storage holds the ready items in hand-out order. Nil means a FIFO
	// ring buffer that shrinks again after a burst. A Storage sees
	// client-go's calls (see [Storage]), so a queue with one hands out
	// every item through its owner goroutine: Get makes a round trip to
	// it, and every duplicate Add reaches it.
	Storage Storage[T]

	// Fairness, if set, returns an item's fairness keys, outermost first
	// (a tenant, then a namespace, say): within a priority, hand-out goes
	// round-robin across the first-level keys, then across the second
	// level within each, and so on, and is first in, first out within one
	// key. It is called in the goroutine of the call that adds the item,
	// once per add that reaches the owner goroutine (duplicate Adds are
	// filtered before), and must be safe for concurrent use and return the
	// same keys for the same item, and as many keys for every item (pad
	// with "" where an item has no key at a level, a cluster-scoped
	// object's namespace, say): an add whose item has more or fewer keys
	// than the first item added panics in the caller's goroutine, and the
	// queue goes on without it. The queue keeps the slice returned, so it
	// must not be changed afterwards (return a slice made once per key, not
	// a reused buffer). The queue keeps a key's state only while the key
	// has items (ready, processing or delayed), limits of its own
	// (KeyLimits, SetKeyLimit), or a rate's bucket not yet full: a key
	// that has gone costs no memory, and a key that comes back starts
	// anew. Choosing the next key costs O(1) by turns
	// (O(log A) by work time, for A keys that may take a turn), whatever
	// the number of keys; keys at their caps are not looked at. An item
	// costs no allocation in steady state. A single consumer sees the
	// exact round-robin; items offered ahead to consumers that contend
	// (the lane, see the package doc) are a few per consumer asking, L in
	// all, and consumers that claim them in another order than they were
	// offered put an item at most L-1 places early. Nil means no
	// fairness. It is ignored with a custom Storage.
	Fairness func(T) []string

	// KeyLimits are the first flow control of fairness keys: caps on the
	// items of a key processing at once, and weights (see [KeyLimit]).
	// [Queue.SetKeyLimit] changes them while the queue runs. They need
	// Fairness: New panics, in the caller's goroutine, if they are set
	// without it, or if one is not valid ([KeyLimit.Check]). They are
	// ignored with a custom Storage, as Fairness is.
	//
	// Experimental: flow control may change before v1 (README,
	// "Stability").
	KeyLimits []KeyLimit

	// LevelLimits are the flow control of every key of a level, without
	// a list of keys: LevelLimits[0] of every first-level key (each
	// tenant, say), LevelLimits[1] of every second-level key, and so on,
	// for keys that appear at run time. A key's own limit (KeyLimits,
	// SetKeyLimit) replaces its level's as a whole. They need Fairness:
	// New panics, in the caller's goroutine, if they are set without it,
	// or if one is not valid ([LevelLimit.Check]).
	//
	// Experimental: flow control may change before v1.
	LevelLimits []LevelLimit

	// FairByWorkTime makes fairness share the consumers' time rather than
	// turns, as Kubernetes' API Priority and Fairness does: each key's
	// virtual time advances by the work time of its items divided by its
	// weight, and the next item goes to the key with the least virtual
	// time, counting its items still processing at its recent time per
	// item. An item's work time runs on the queue's clock from its
	// hand-out (a Get's claim from the lane, the owner goroutine's answer
	// to a waiting call, or a receive from the items channel, which the
	// owner dates as it sees it) to the instant of its Done call, however
	// late the owner goroutine applies the Done: one clock read per
	// hand-out and one per Done, as client-go's metrics pay, and none in
	// queues without it. A key that comes back after being idle starts at
	// the current virtual time: it banks no credit. Choosing a key costs
	// O(log A) at each level, for A keys there that may take a turn (a
	// heap ordered by virtual time). It needs Fairness (New panics
	// without it).
	//
	// Experimental: flow control may change before v1.
	FairByWorkTime bool

	// KeyMetricsLimit is how many first-level keys get series of their
	// own in the per-key gauges of a [KeyMetricsProvider]; the others are
	// summed under "other". Zero means 25.
	//
	// Experimental: the per-key gauges may change before v1.
	KeyMetricsLimit int

	// StarvationBound, if positive, bounds how long a ready item can be
	// passed over by items of higher priorities: once an item has waited
	// that long, it is handed out before every item of a higher priority
	// (those that have waited longer still go first). Zero, the default,
	// means strict priorities, as in controller-runtime. It is ignored
	// with a custom Storage. A key with a rate ([KeyLimit].Rate) loses
	// the tokens that come while it waits behind the items the bound
	// promotes and its bucket is full, as it does while it waits its turn.
	StarvationBound time.Duration

	// Requeue says where an item added again while it was being
	// processed takes its place: RequeueAtDone (client-go's rule, the
	// default) or RequeueAtAdd (controller-runtime's).
	//
	// A starvation bound and metrics by priority (a provider with
	// NewDepthMetricWithPriority, as controller-runtime's) cost speed:
	// with either, every Get is a round trip to the owner goroutine,
	// where otherwise it takes an item offered ahead without waiting (the
	// lane, see the package doc). With RequeueAtAdd, the lane offers
	// nothing more while an item added again while processing waits for
	// its Done, so Gets make that round trip once it runs dry.
	Requeue Requeue
}

// A RateLimiter tells how long an item should wait before it is retried.
// The implementations, and client-go's, are in package ratelimit.
type RateLimiter[T comparable] interface {
	// When returns how long to wait before retrying item, and records the
	// failure.
	When(item T) time.Duration
	// Forget clears item's history.
	Forget(item T)
	// NumRequeues returns how many failures of item are recorded.
	NumRequeues(item T) int
}

// Requeue says where an item that was added again while it was being
// processed takes its place among the ready items, and with it a few rules
// that follow from the same view of such an item.
type Requeue uint8

const (
	// RequeueAtDone, the default, is client-go's rule: the item becomes
	// ready at its Done, after the items already ready; until then Len
	// does not count it. An item waiting on a delay that an Add makes
	// ready goes after the items already ready.
	RequeueAtDone Requeue = iota
	// RequeueAtAdd is controller-runtime's priority queue's rule: the
	// item is ready from the Add, only locked until its Done, so it keeps
	// the place that Add gave it (ahead of items that became ready after
	// the Add), and Len counts it. An item keeps the place its first Add
	// gave it while it waits on a delay that an Add cuts short; a raised
	// priority, or a deadline passing, gives it a new place.
	RequeueAtAdd
)

// Storage holds the ready items of a queue in hand-out order. Its method set
// is that of client-go's workqueue.Queue[T], so a client-go custom queue can
// be plugged in through [Config.Storage].
//
// Only the queue's owner goroutine calls a Storage while the queue runs
// (and, after shutdown, the goroutines that call Get and Done, one at a
// time), so an implementation need not be safe for concurrent use. The
// calls are client-go's: Push when an item becomes ready, Touch when an
// item that is ready (and not being processed) is added again, Pop when a
// consumer takes the next item — from Get or GetBatch, or, for a consumer
// of [Queue.Items], when the item is offered on that channel.
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

// flowControl returns the flow control of cfg, a configuration with
// fairness (or a custom Storage, which ignores it), for the state; it
// panics if cfg asks for flow control without fairness, or a limit is not
// valid.
func flowControl[T comparable](cfg Config[T]) (byWork bool, limits []state.KeyLimit, levels []order.Limit) {
	if cfg.Fairness == nil {
		if len(cfg.KeyLimits) > 0 || len(cfg.LevelLimits) > 0 || cfg.FairByWorkTime {
			panic("actor: Config.KeyLimits, Config.LevelLimits and Config.FairByWorkTime need Config.Fairness")
		}
		return false, nil, nil
	}
	for _, l := range cfg.KeyLimits {
		if err := l.Check(); err != nil {
			panic("actor: Config.KeyLimits: " + err.Error())
		}
		limits = append(limits, l.core())
	}
	for _, l := range cfg.LevelLimits {
		if err := l.Check(); err != nil {
			panic("actor: Config.LevelLimits: " + err.Error())
		}
		levels = append(levels, l.core())
	}
	return cfg.FairByWorkTime, limits, levels
}
