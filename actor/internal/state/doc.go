// Package state holds the rules of a work queue: what the queue knows of
// each item, and what every event does to it. It is a plain data
// structure, with no goroutines, channels, atomics, locks or clock reads:
// every time is an argument, in nanoseconds since the queue's epoch. One
// goroutine at a time uses a [Queue]: the queue's owner goroutine while it
// runs, then its callers one at a time (package actor's transport says
// how). How an item travels to a consumer is not its concern.
//
// # Item states
//
// Every item the queue knows is in exactly one state; an item it does not
// know is absent.
//
//	ready               in the ready order, waiting to be handed out
//	popped              taken out of the order toward a consumer, which
//	                    has not received it yet: ready by the rules
//	processing          handed out, not Done yet
//	processing+dirty    processing, and added again: ready again at Done
//	delayed             waiting for its deadline
//	processing+delayed  processing, with a deadline: dirty once it passes
//
// # Events
//
// Each event is one method, which performs every side effect of its
// transitions: the ready order, the deadlines, the counts and the
// metrics.
//
//	event       absent   ready   popped      processing  +dirty  delayed  +delayed
//	Add         ready    (dup)   (dup)       +dirty      (dup)   ready    +dirty
//	AddAt       delayed  (dup)   (dup)       +delayed    (dup)   earlier  earlier
//	Due         -        -       -           -           -       ready    +dirty
//	Pop         -        popped  -           -           -       -        -
//	Received    -        -       processing  -           -       -        -
//	Return      -        -       ready       -           -       -        -
//	Done        -        -       -           absent      ready   -        delayed
//	Drain, End  -        -       -           -           -       absent   processing
//
// A duplicate (dup) changes nothing but a raised priority (a popped item
// raised goes to its new place when it is returned); an AddAt of a ready,
// popped or dirty item is an Add. Once a
// shutdown has begun (Drain or End), Add and AddAt do nothing, and delays
// are dropped. Pop takes the next ready item toward a consumer; Received
// is the instant a consumer received it, from which it is processing (and
// the metrics record its hand-out); Return puts back an item that no
// consumer received, as if Pop had not taken it. HandOut is Pop and
// Received at once. How a popped item travels is the transport's
// business; it tells the state of its reception before any other event
// of the item that the reception happened before.
//
// Where an item added again while processing goes is Config.Requeue:
// client-go's rule (at its Done, after the items ready then) or
// controller-runtime's (at the place of that add, counted by Len from the
// add).
package state
