// Package actor is a work queue whose whole state is owned by one goroutine.
//
// It does the job of client-go's util/workqueue and keeps its guarantees:
//
//   - Fair: items are handed out in the order in which they became ready.
//   - Stingy: an item added many times before it is handed out is handed
//     out once, and an item is never processed by two consumers at once.
//   - Re-adding while processing: an item added again while it is being
//     processed is handed out again after [Queue.Done], so no change is
//     missed — also after shutdown.
//   - Delays: [Queue.AddAfter] and [Queue.AddRateLimited] make an item ready
//     later. One de-duplication domain spans ready, delayed and processing
//     items: an Add of an item waiting on a delay makes it ready now and
//     drops the delay, and a delay can be shortened, never lengthened.
//   - Shutdown: [Queue.ShutDown] and [Queue.ShutDownWithDrain] release every
//     consumer, who first get the items still ready; the drain also waits
//     for the items being processed.
//
// # Taking items
//
// A consumer takes an item, processes it, and calls [Queue.Done] with it.
// There are four ways to take one, and they differ in how they wait. Most
// workers should call [Queue.Get], client-go's way: it blocks until an item
// is ready, and returns shutdown == true once the queue is shutting down
// and nothing is ready. [Queue.GetContext] is Get for a worker that must
// also stop when a context ends; it gives up waiting at once and loses
// nothing. [Queue.GetBatch] hands out up to cap(buf) ready items in one
// exchange, for consumers that can work in bulk (finish them with
// [Queue.DoneBatch]); it is the cheapest per item when many are ready.
// [Queue.Items] is a channel, for a consumer that selects on the queue next
// to its own channels and timers; an item is processing once received.
// Calling Items costs every Get of the queue a round trip to the owner
// goroutine, which Get otherwise avoids, so use it only where a select is
// needed. Get and GetContext can be mixed freely with GetBatch.
//
// # Priorities and fairness
//
// [Queue.AddWithOpts] adds items with a priority (higher first), a delay,
// or a rate-limited delay, many in one message; [Queue.GetWithPriority]
// returns an item with its priority, and every way of taking items hands
// them out in priority order. The rules are controller-runtime's priority
// queue's: an item keeps the highest priority it was given and the
// earliest time at which it is ready; a raised priority puts it at the back
// of its new priority; within one priority, first in, first out. An item
// added again while processing comes back after its Done at the highest
// priority it was given meanwhile, at the place [Config.Requeue] says.
// [Config.Fairness] gives items keys (a tenant, then a namespace, say):
// within a priority, hand-out goes round-robin across the keys of each
// level. [Config.StarvationBound] bounds how long a ready item can be
// passed over by higher priorities. A queue that only ever uses priority 0
// and no fairness pays for none of this: its items are first in, first
// out.
//
// # Flow control per key
//
// Fairness stops a big tenant from delaying a small one's items; a cap
// stops it from occupying every worker. [Config.KeyLimits] and
// [Queue.SetKeyLimit] give a key (at any level) a cap, the most of its
// items processing at once, and a weight, its turns per round: a key at
// its cap is passed over by every way of taking items until one of its
// items is Done, and a key of weight 3 gets three turns for each of a key
// of weight 1. A key's rate and burst ([KeyLimit].Rate and Burst) bound
// the items it starts: at most Burst at one instant and Rate a second, on
// the queue's clock, at every level of an item's keys; a key without a
// token is passed over as a key at its cap is, so the other keys go on
// (no head-of-line blocking), and it takes its turn at the back when its
// token comes, banking no credit. [Config.LevelLimits] give every key of
// a level such limits, for keys that appear at run time, and
// [Queue.PauseKey] holds a key until an instant (a 429's Retry-After).
// [Config.FairByWorkTime] shares the workers' time instead of turns, as
// Kubernetes' API Priority and Fairness does. These are rules of the
// queue's state, exact under every other rule (de-duplication, delays,
// drain and shutdown, metrics); SetKeyLimit and PauseKey are requests to
// the owner goroutine, so no user code runs there. Caps, rates and pauses
// hold while the queue runs: once shutdown begins, the items still ready
// are handed out whatever the limits. Len and the depth count the items
// they hold back as queued. A [KeyMetricsProvider] shows each busy key's
// items ready and processing, and a [KeyHeldMetricsProvider] those held
// back by a cap apart from those held by a rate; [Queue.Snapshot] lists
// the keys held back, and why.
//
// A key that stands for a throttling scope (a cloud account, a
// subscription) whose limit no fixed number fits can have an adaptive cap
// instead ([AdaptiveCap], on [KeyLimit] or [LevelLimit]): its workers
// report each throttle with [Queue.Throttled] or [Queue.ThrottledKey],
// from any goroutine, and the cap falls at most once a window and grows
// by 1 after a window that used half of it, as a TCP congestion window
// does. A lowered cap revokes nothing; an idle key recovers one step a
// window and is forgotten once back at its start, so the queue keeps
// state only for keys that learnt something. The snapshot, the per-key
// gauges ([KeyAdaptiveMetricsProvider]) and the debug page show each
// key's learnt cap.
//
// Fairness costs what the keys with work cost, not what every key ever
// seen would: the queue keeps a key's state only while the key has items
// ready, processing or delayed, or limits of their own (or, with a rate,
// while its bucket is not full), so that keys that come and go
// (namespaces created and deleted, tenants that leave) leave no memory
// behind, and a key that comes back starts anew, with no credit. Choosing
// the next key costs O(1) by turns and weights, and O(log A) by work time
// for the A keys that may take a turn at a level; a key at its cap is out
// of the turns until its Done, and one waiting for a token is out of them
// until its token comes: holding and releasing it costs O(log K) for the
// K keys whose buckets are not full (one heap, one timer). The per-key gauges and [Queue.Snapshot]
// cost what they show, not the number of keys.
//
// # Who owns what
//
// [New] starts one owner goroutine per queue, the only goroutine actorq
// starts. It alone touches the queue's state while the queue runs: which
// items are ready, processing or delayed, the ready order, the deadlines,
// one timer armed to the earliest of them (an idle queue wakes up for
// nothing), and the metrics bookkeeping. The rules live in a sequential
// package (internal/state); this package is how requests reach it and
// items leave it. Callers put requests in one inbox, which the owner
// serves in rounds: Add, AddAfter, AddWithOpts, Done and DoneBatch are
// one-way and wait at most for room in the inbox; Len and GetBatch wait
// for the answer. A caller's calls take effect in the order it made them
// (an Add then a Done of one goroutine are applied in that order), and
// once Len returns, every earlier call of the caller is applied, its
// metrics included. Rate limiters and Fairness functions run in the
// caller's goroutine; metrics are recorded by the owner goroutine.
//
// Get takes an item without waiting for the owner when it can: the owner
// offers ready items ahead, in hand-out order, in the lane, and a Get
// claims one with a compare-and-swap; a Get that finds none asks the
// owner. A claim takes effect after every call its caller made before
// and before every call it makes after, as a Get that asks does, and a
// Get never passes over an item that its caller's own earlier add made
// ready at a higher priority: one goroutine that adds, gets and finishes
// items sees exactly the hand-out order of the rules. With fairness, the
// lane offers items only once two Gets were seen under way at once
// (waiting together, or put in one inbox batch: a single consumer's Gets
// ask the owner, which decides after the consumer's own calls), a few per
// consumer seen so, L in all, and
// takes them back whenever a key joins the turns or a limit changes: an
// item is then handed out with at most L-1 items before it that exact
// round-robin would hand out first, as consumers race to claim them. The
// lane is off, and every Get asks the owner, with a starvation bound,
// metrics by priority (controller-runtime's), a custom Storage, or once
// Items was called; with RequeueAtAdd, the lane offers nothing more while
// an item added again while processing or a delayed item keeps a place.
//
// The owner goroutine does its last work before ShutDown returns (it is
// then returning, blocked on nothing), before a ShutDownWithDrain returns
// once it finds nothing processing, or soon after the Queue becomes
// unreachable. What is left then (items still ready, and items being
// processed, which come back at their Done if they were added again
// meanwhile) is kept by the goroutines that call Get, Done and Len, one at
// a time: no goroutine of the queue keeps it.
//
// # Differences from client-go
//
// Everything else follows client-go's behaviour; these differences are on
// purpose (the adapter module's doc names the client-go issue each fixes):
//
//  1. Done of an item that is not being processed does nothing (client-go
//     queues a duplicate if the item is waiting to be handed out).
//  2. An Add supersedes a pending delay of the same item (client-go
//     processes it twice), and an AddAfter of an item that is already ready
//     does nothing: one de-duplication domain.
//  3. AddAfter never waits behind the delays already pending (client-go's
//     delaying queue stalls producers once its 1000-slot buffer is full).
//  4. No goroutine remains after ShutDown (client-go's delaying loop
//     lingers).
//  5. The exponential limiter never overflows into a negative or tiny delay
//     (package ratelimit).
//  6. A nil rate limiter means client-go's default controller limiter.
//  7. Metrics are recorded by the owner goroutine: they reflect a call once
//     the owner has applied it, which Len returning guarantees. Values and
//     update instants are client-go's.
//  8. None (the number is kept, so that the others keep theirs): a
//     consumer's own Add of a ready item, made just before its Get takes
//     that item, is a duplicate, as in client-go.
//  9. Additions: Items, GetContext, GetBatch, DoneBatch, and priorities,
//     fairness, flow control per key, the starvation bound, and
//     snapshots ([Queue.Snapshot], [NamedQueues]).
//
// Also unlike client-go, every call of ShutDownWithDrain returns once
// nothing is processing (client-go wakes only one of several).
//
// # Stability
//
// actorq's versions are semantic, and its README's "Stability" is the
// promise. Every exported name of this package is stable from v0.1.0 on
// (a release may add to it, never change or remove it, v0.x included)
// except those whose doc says Experimental: flow control per key
// ([KeyLimit], [LevelLimit], [AdaptiveCap], [Queue.SetKeyLimit],
// [Queue.PauseKey], [Queue.Throttled], [Queue.ThrottledKey] and their
// Config fields), the per-key gauges ([KeyMetricsProvider]) and
// snapshots ([Queue.Snapshot], [NamedQueues]), which may change in a
// minor release until v1, each change named in CHANGELOG.md. The
// behaviour is client-go's but for the differences above. The module
// needs Go 1.26 or later.
//
// # Bad input
//
// A negative or zero delay means "now"; a deadline beyond the clock's range
// saturates (the item waits that long). An item whose type can hold
// interface values that cannot be map keys (an any holding a slice, say)
// makes Add, AddAfter, AddRateLimited, Done or DoneBatch panic in the
// caller's goroutine with a message naming the type; the queue keeps
// working. A panicking metric is recovered in the owner goroutine. A
// panicking rate limiter panics in the caller.
package actor
