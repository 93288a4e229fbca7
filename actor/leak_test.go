package actor_test

import (
	"runtime"
	"strings"
)

// ownerGoroutines returns how many owner goroutines of queues exist, and
// how many of them are blocked, from one look at every goroutine, without
// retrying. A queue's owner goroutine is seen once it has started: call it
// after the queue has answered a call (Len, say).
//
// It reads runtime.GoroutineProfile, the runtime's record of each
// goroutine's stack as program counters, and names the frames with
// runtime.CallersFrames: no text is parsed. It relies on two rules:
//   - an owner goroutine is the one New starts with `go o.loop()`, so the
//     method (*owner[T]).loop is on its stack, next to the bottom, from
//     the moment the goroutine starts until that method returns (a record
//     keeps the innermost 32 frames: an owner running deeper than that is
//     not counted; blocked, it is a few frames deep, in its select; and
//     the record of a goroutine not yet started holds no frame of its
//     function);
//   - a goroutine parked by the scheduler (blocked on a channel, a select,
//     a timer, a lock, a sleep, or woken from one and not yet running) has
//     runtime.gopark as its innermost frame. A goroutine running or
//     preempted does not.
//
// Go has no way to join a goroutine: the owner closes its done channel as
// its last act and ShutDown returns on that, while the owner may still be
// returning through the runtime's exit path (which the race detector makes
// longer). Such a goroutine can never block or touch the queue again, so
// the instant check is that no owner goroutine is blocked; goleak's
// VerifyTestMain then proves none is left at all.
func ownerGoroutines() (total, blocked int) {
	var records []runtime.StackRecord
	for n := runtime.NumGoroutine() + 8; ; {
		records = make([]runtime.StackRecord, n)
		got, ok := runtime.GoroutineProfile(records)
		if ok {
			records = records[:got]
			break
		}
		n = got + 8 // goroutines were started meanwhile
	}
	for _, r := range records {
		owner, parked := false, false
		frames := runtime.CallersFrames(r.Stack())
		for i := 0; ; i++ {
			f, more := frames.Next()
			if i == 0 {
				parked = f.Function == "runtime.gopark"
			}
			if isOwnerLoop(f.Function) {
				owner = true
			}
			if !more {
				break
			}
		}
		if owner {
			total++
			if parked {
				blocked++
			}
		}
	}
	return total, blocked
}

// isOwnerLoop reports whether fn, a frame's function name, is the owner
// goroutine's loop, (*owner[T]).loop for any T: the runtime names it
// "github.com/actorq/actorq/actor.(*owner[...]).loop".
func isOwnerLoop(fn string) bool {
	return strings.HasPrefix(fn, "github.com/actorq/actorq/actor.(*owner[") && strings.HasSuffix(fn, "]).loop")
}
