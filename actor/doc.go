// Package actor is a work queue whose whole state is owned by one goroutine.
//
// It does the job of client-go's util/workqueue and keeps its guarantees:
//
//   - Fair: items are handed out in the order in which they were added.
//   - Stingy: an item added many times before it is handed out is handed
//     out once, and an item is never processed by two consumers at once. An
//     item added again while it is being processed is handed out again
//     after [Queue.Done], so no change is missed.
//   - Delays: [Queue.AddAfter] and [Queue.AddRateLimited] make an item ready
//     later. One de-duplication domain spans ready, delayed and processing
//     items: an immediate Add of an item waiting on a delay makes it ready
//     now and drops the delay, and a delay can be shortened, never
//     lengthened.
//   - Shutdown notification: [Queue.ShutDown] releases every consumer;
//     [Queue.ShutDownWithDrain] first waits for the items being processed.
//
// # Who owns what
//
// [New] starts one owner goroutine per queue, the only goroutine actorq
// starts. It alone touches the queue's state: a map from each known item to
// its state, a FIFO ring of ready items, a heap of delayed items and one
// timer armed to the earliest deadline (an idle queue wakes up for
// nothing). Callers talk to it over channels: Add, AddAfter and Done are
// one-way messages into hand-over buffers that the owner drains in
// batches, so they never wait for a reply; Len and GetBatch wait for one.
//
// Consumers take items in one of two ways, and a consumer that gives up
// (GetContext, or a select on Items) loses nothing either way:
//
//   - Items is an unbuffered channel on which the owner offers the head
//     item: the item becomes "processing" exactly when a consumer receives
//     it.
//   - Get and GetContext also take from the lane, a small buffered channel
//     of slots the owner keeps filled with the oldest ready items. The
//     consumer claims a slot with one atomic store, and the item becomes
//     processing at that store. The owner reads the claim whenever it next
//     needs to know (an Add of the item, its Done, Len, shutdown), so every
//     rule above holds exactly as with the unbuffered hand-off, while a
//     consumer takes a ready item without waiting for the owner goroutine
//     to be scheduled. The lane is off once Items has been called; see
//     lane.go for the details.
//
// One shortcut spares the owner the commonest message of all, the
// duplicate Add: once the owner has seen an item added again while it was
// waiting, it publishes a flag for the item (in a fixed table of hot items)
// saying that an Add would change nothing, and Add checks it first: a
// hash and two atomic loads in the caller instead of a message. The flag
// is true only while the item is ready, or processing and already marked
// to run again, and is cleared before the item is handed out; see
// filter.go. It is used only with the default Storage, whose Touch does
// nothing.
//
// Rate limiters run in the caller's goroutine; metrics are recorded by the
// owner goroutine.
//
// A caller always sees its own earlier calls applied: Add then Len from one
// goroutine counts the add, and Done then Add applies the Done first. The
// one-way calls have one allowed reordering against a Get: if a consumer
// adds an item that is ready and at once takes it with Get, the Get may
// come first, and then the Add counts as made while the item was
// processing, so the item runs once more after Done (never concurrently,
// never lost). The owner goroutine ends when ShutDown or
// ShutDownWithDrain returns, or once the Queue becomes unreachable.
//
// # Differences from client-go
//
// The rules above fix four client-go behaviours on purpose: Done of an
// item that is not being processed does nothing (client-go queues a
// duplicate if the item was dirty); an Add supersedes a pending delay
// (client-go processes the item twice); AddAfter never waits behind the
// delays already pending (client-go's delaying queue stalls producers once
// its 1000-slot buffer is full); and no goroutine remains after
// ShutDown (client-go's delaying loop and heartbeat linger). After
// ShutDown, items that were added again while being processed are dropped
// rather than handed out again, since no goroutine remains to keep them from
// being processed twice at once.
//
// # Bad input
//
// A negative or zero delay means "now". An item whose type can hold
// interface values that cannot be map keys (an any holding a slice, say)
// makes Add, AddAfter or Done panic in the caller's goroutine with a message
// naming the type; the queue keeps working. A panicking metric is recovered
// in the owner goroutine. A panicking rate limiter panics in the caller.
package actor
