package priorityqueue

import (
	"context"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/adapter"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// PriorityQueue is controller-runtime's priority queue interface itself (an
// alias), so that its handlers and controllers, which find a priority queue
// with a type assertion on this interface, find the queues of this package.
type PriorityQueue[T comparable] = priorityqueue.PriorityQueue[T]

// AddOpts are controller-runtime's options of AddWithOpts: a nil Priority
// means 0, higher goes first; After delays the items; RateLimited delays
// each by its rate limiter's delay, or by After if that is shorter and not
// zero.
type AddOpts = priorityqueue.AddOpts

// Opts are controller-runtime's options of [New]: RateLimiter (nil means
// exponential from 5 ms to 1000 s per item) and MetricProvider (nil means
// the provider set process-wide, see the package doc). Log is accepted and
// not used: the queue logs nothing.
type Opts[T comparable] = priorityqueue.Opts[T]

// Opt is controller-runtime's option function, so options written for its
// New work with this package's unchanged.
type Opt[T comparable] = priorityqueue.Opt[T]

// Config holds what actorq adds to controller-runtime's queue; its zero
// value is controller-runtime's behaviour. See [NewWithConfig].
type Config[T comparable] struct {
	// Fairness, if set, returns an item's fairness keys, outermost first
	// (a namespace, say): within a priority, hand-out goes round-robin
	// across the first-level keys, then across the second level within
	// each, and is first in, first out within one key, so a key with many
	// items does not hold up the items of the others. It is called in the
	// goroutine that adds the item and must be safe for concurrent use
	// and return the same keys for the same item, and as many for every
	// item (an add whose item has more or fewer keys than the first
	// item's panics in the adding goroutine); the queue keeps the slice,
	// which must not change afterwards. Nil means no fairness:
	// first in, first out within a priority, as in controller-runtime.
	Fairness func(T) []string

	// StarvationBound, if positive, bounds how long a ready item can be
	// passed over by items of higher priorities: once it has waited that
	// long, it goes before them (those that have waited longer still go
	// first). Zero means strict priorities, as in controller-runtime.
	StarvationBound time.Duration

	// KeyLimits cap the items of a fairness key processing at once (a
	// key at its cap is passed over until one of its items is Done), give
	// keys weights (turns per round), and limit the items a key starts a
	// second (a rate and a burst: "each tenant at most 50 a second");
	// LevelLimits give every key of a level such limits without a list of
	// keys; FairByWorkTime shares the workers' time rather than turns.
	// A limit's Adaptive cap (actor.AdaptiveCap) learns the key's cap from
	// the throttles its workers report through [Throttler].
	// They need Fairness; see actor.KeyLimit, actor.Config.LevelLimits and
	// actor.Config.FairByWorkTime. A queue's limits change, and a key is
	// paused until an instant (a 429 with Retry-After), while it runs
	// through [KeyLimiter].
	//
	// Experimental: flow control may change before v1, as package
	// actor's does.
	KeyLimits []actor.KeyLimit
	// LevelLimits give every key of a level limits: see KeyLimits.
	//
	// Experimental: flow control may change before v1.
	LevelLimits []actor.LevelLimit
	// FairByWorkTime shares the workers' time: see KeyLimits.
	//
	// Experimental: flow control may change before v1.
	FairByWorkTime bool

	// KeyMetricsLimit is how many first-level keys get series of their
	// own in the per-key gauges (with a provider that has them, such as
	// github.com/actorq/actorq/exporter's); 0 means 25.
	//
	// Experimental: the per-key gauges may change before v1.
	KeyMetricsLimit int
}

// KeyLimiter is implemented by the queues of this package: SetKeyLimit
// sets a fairness key's cap, weight and rate while the queue runs, and
// PauseKey holds a key's items until an instant; both return once they
// are in effect (see actor.Queue.SetKeyLimit and actor.Queue.PauseKey).
// Reach it with a type assertion:
//
//	err := q.(priorityqueue.KeyLimiter).SetKeyLimit(actor.KeyLimit{Keys: []string{"tenant-a"}, Cap: 2, Rate: 50, Burst: 5})
//
// Experimental: flow control may change before v1.
type KeyLimiter interface {
	SetKeyLimit(l actor.KeyLimit) error
	PauseKey(keys []string, until time.Time) error
}

// Throttler is implemented by the queues of this package: Throttled
// reports that an item being processed was throttled (a 429, a "rate
// exceeded"), and ThrottledKey that a fairness key was; the adaptive caps
// (actor.AdaptiveCap, in Config's KeyLimits and LevelLimits) of the keys
// fall, at most once a window, and with a retryAfter after now the keys
// are also paused until then. Any goroutine may report, a reconciler too,
// which never calls Done itself (the controller does); both return once
// the report is in effect, and return an error if the queue has no
// Fairness (see actor.Queue.Throttled and actor.Queue.ThrottledKey).
// Reach it with a type assertion, as [KeyLimiter]:
//
//	err := q.(priorityqueue.Throttler[reconcile.Request]).Throttled(req, retryAfter)
//
// It is not part of KeyLimiter because Throttled takes the item, so the
// interface has the item's type as a parameter: a generic KeyLimiter
// would break every assertion written for it. The two also serve
// different callers: KeyLimiter sets limits, Throttler is a worker's
// report.
//
// Experimental: flow control may change before v1.
type Throttler[T comparable] interface {
	Throttled(item T, retryAfter time.Time) error
	ThrottledKey(keys []string, retryAfter time.Time) error
}

// New returns a priority queue named name (its metrics' name; an empty
// name records no metrics), configured by the option functions o, as
// controller-runtime's New does. Its one goroutine has done its last work
// when ShutDown returns.
func New[T comparable](name string, o ...Opt[T]) PriorityQueue[T] {
	return NewWithConfig(name, Config[T]{}, o...)
}

// NewWithConfig is [New] with actorq's additions: fairness across keys,
// with caps, weights, rates and adaptive caps, and a starvation bound.
// It panics, in the caller's goroutine, if cfg has key or level limits
// (adaptive caps among them) or fairness by work time without Fairness,
// or a limit that is not valid (actor.KeyLimit.Check,
// actor.LevelLimit.Check), with package actor's message.
func NewWithConfig[T comparable](name string, cfg Config[T], o ...Opt[T]) PriorityQueue[T] {
	opts := &Opts[T]{}
	for _, f := range o {
		f(opts)
	}
	if opts.RateLimiter == nil {
		opts.RateLimiter = adapter.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
	}
	return &queue[T]{q: actor.New(actor.Config[T]{
		Name:            name,
		RateLimiter:     opts.RateLimiter,
		MetricsProvider: metricsProvider(name, opts.MetricProvider),
		Fairness:        cfg.Fairness,
		StarvationBound: cfg.StarvationBound,
		KeyLimits:       cfg.KeyLimits,
		LevelLimits:     cfg.LevelLimits,
		FairByWorkTime:  cfg.FairByWorkTime,
		KeyMetricsLimit: cfg.KeyMetricsLimit,
		Requeue:         actor.RequeueAtAdd,
	})}
}

// NewQueue has the type of controller-runtime's controller.Options.NewQueue
// and makes the queue controller-runtime's default NewQueue makes, named
// after the controller and using the rate limiter the controller passes
// (its Options.RateLimiter, or its default for a priority queue), here
// from this package:
//
//	NewQueue: priorityqueue.NewQueue[reconcile.Request],
func NewQueue[T comparable](controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	return NewQueueFunc(Config[T]{})(controllerName, rateLimiter)
}

// NewQueueFunc returns a controller.Options.NewQueue like [NewQueue] that
// makes its queues with cfg:
//
//	NewQueue: priorityqueue.NewQueueFunc(priorityqueue.Config[reconcile.Request]{
//		Fairness: func(r reconcile.Request) []string { return []string{r.Namespace} },
//	}),
func NewQueueFunc[T comparable](cfg Config[T]) func(controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	return func(controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
		return NewWithConfig(controllerName, cfg, func(o *Opts[T]) { o.RateLimiter = rateLimiter })
	}
}

// queue is a PriorityQueue: each method translates to the actor queue's.
// It also satisfies adapter.Extras.
type queue[T comparable] struct {
	q *actor.Queue[T]
}

// Add adds item at priority 0, ready now. An item already waiting keeps
// its place and its higher priority; an item being processed is handed
// out again after its Done, at the place this Add gives it. After
// ShutDown, Add does nothing.
func (q *queue[T]) Add(item T) { q.q.Add(item) }

// AddAfter adds item at priority 0 once d has passed (at once if d <= 0).
// As in controller-runtime, only a positive d counts as a retry.
func (q *queue[T]) AddAfter(item T, d time.Duration) {
	q.q.AddWithOpts(actor.AddOpts{After: d}, item)
}

// AddRateLimited adds item at priority 0 after the delay its rate limiter
// gives, computed in the caller's goroutine.
func (q *queue[T]) AddRateLimited(item T) {
	q.q.AddWithOpts(actor.AddOpts{RateLimited: true}, item)
}

// AddWithOpts adds items with the options o, in one message to the queue's
// goroutine. An item keeps the highest priority and the earliest ready
// time it was given; a raised priority puts it at the back of its new
// priority.
func (q *queue[T]) AddWithOpts(o AddOpts, items ...T) {
	q.q.AddWithOpts(actor.AddOpts{Priority: ptr.Deref(o.Priority, 0), After: o.After, RateLimited: o.RateLimited}, items...)
}

// Get is GetWithPriority without the priority.
func (q *queue[T]) Get() (item T, shutdown bool) { return q.q.Get() }

// GetWithPriority blocks until an item is ready and returns it with its
// priority, or, once ShutDown was called, returns shutdown == true as soon
// as no item is ready. Otherwise the caller must call Done with item.
func (q *queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	return q.q.GetWithPriority()
}

// Done marks item as finished; if it was added again meanwhile, it is
// ready again at the place that Add gave it.
func (q *queue[T]) Done(item T) { q.q.Done(item) }

// Len returns the number of ready items, counting those added again while
// they are processed; items waiting on a delay are not counted.
func (q *queue[T]) Len() int { return q.q.Len() }

// Forget makes the rate limiter forget item's failures.
func (q *queue[T]) Forget(item T) { q.q.Forget(item) }

// NumRequeues returns how many failures the rate limiter has recorded.
func (q *queue[T]) NumRequeues(item T) int { return q.q.NumRequeues(item) }

// ShutDown makes the queue ignore new items and releases the consumers
// blocked in Get once no item is ready. It returns once the queue's
// goroutine has done its last work (it is returning, blocked on nothing),
// and may be called more than once.
func (q *queue[T]) ShutDown() { q.q.ShutDown() }

// ShutDownWithDrain is like ShutDown but first waits until every item
// handed out is Done (controller-runtime's only calls ShutDown).
func (q *queue[T]) ShutDownWithDrain() { q.q.ShutDownWithDrain() }

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *queue[T]) ShuttingDown() bool { return q.q.ShuttingDown() }

// SetKeyLimit implements [KeyLimiter].
func (q *queue[T]) SetKeyLimit(l actor.KeyLimit) error { return q.q.SetKeyLimit(l) }

// PauseKey implements [KeyLimiter].
func (q *queue[T]) PauseKey(keys []string, until time.Time) error { return q.q.PauseKey(keys, until) }

// Throttled implements [Throttler].
func (q *queue[T]) Throttled(item T, retryAfter time.Time) error {
	return q.q.Throttled(item, retryAfter)
}

// ThrottledKey implements [Throttler].
func (q *queue[T]) ThrottledKey(keys []string, retryAfter time.Time) error {
	return q.q.ThrottledKey(keys, retryAfter)
}

// Items implements adapter.Extras.
func (q *queue[T]) Items() <-chan T { return q.q.Items() }

// GetContext implements adapter.Extras.
func (q *queue[T]) GetContext(ctx context.Context) (T, error) { return q.q.GetContext(ctx) }
