package actor_test

import (
	"bytes"
	"regexp"
	"runtime"
)

var goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[([^\],]+)`)

// ownerGoroutines returns how many goroutines started by actor.New exist,
// and how many of them are blocked (in any state but running or
// runnable), from one stack dump, without retrying.
//
// Go has no way to join a goroutine: the owner closes its done channel as
// its last act and ShutDown returns on that, while the owner may still be
// returning through the runtime's exit path (which the race detector makes
// longer). Such a goroutine can never block or touch the queue again, so
// the instant check is that no owner goroutine is blocked; goleak's
// VerifyTestMain then proves none is left at all.
func ownerGoroutines() (total, blocked int) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("created by github.com/actorq/actorq/actor.New[")) {
			continue
		}
		total++
		m := goroutineHeader.FindSubmatch(g)
		if m == nil || string(m[1]) != "running" && string(m[1]) != "runnable" {
			blocked++
		}
	}
	return total, blocked
}
