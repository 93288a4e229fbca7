package state

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/actorq/actorq/actor/internal/order"
)

// TestAdaptiveForgetsRecoveredKeys: a queue whose keys have adaptive caps
// (a level's), through which 1,000,000 keys went with one item each
// (100,000 under the race detector), each
// throttled once while processing, keeps less than a byte per key once
// the keys have been idle past their recovery (a window to recover their
// one decrease, one to rest): each key is forgotten at the instant it is
// back at its start, with nothing left to wake the queue for.
func TestAdaptiveForgetsRecoveredKeys(t *testing.T) {
	const window = 1000
	n := 1_000_000
	if raceEnabled {
		n = 100_000
	}
	keys := make([][]string, n)
	for i := range keys {
		keys[i] = []string{fmt.Sprint("acct-", i)}
	}
	adapt := &order.Adapt{Min: 1, Max: 4, Start: 4, Backoff: 0.9, Window: window}
	q := New(Config[int]{Fair: true, Levels: []order.Limit{{Adapt: adapt}}})
	before := heapBytes()
	var now int64
	for i := range n {
		now = int64(i) / 100 // 100 keys an instant: a thousand keys a window
		q.Add(i, Opts{Keys: keys[i]}, now)
		item, _, ok := q.HandOut(now, 0)
		if !ok || item != i {
			t.Fatalf("handed out %d, %v; want %d", item, ok, i)
		}
		q.Throttle(i, now, 0)
		q.Done(i, now, 0)
	}
	learnt := 0
	q.prio.Learnt(n, func(c order.LearntCap) {
		if learnt++; learnt == 1 && (c.Cap != 3 || c.Throttles != 1) {
			t.Errorf("key %q: cap %d after %d throttles; want 3 after 1", c.Path, c.Cap, c.Throttles)
		}
	})
	if learnt == 0 {
		t.Fatalf("no key learnt anything from its throttle")
	}
	// The last key fell in the window of now; it is back at 4 at the end
	// of the next window, and rests from then.
	rested := (now/window + 2) * window
	if at, ok := q.prio.NextWake(); !ok || at > rested {
		t.Fatalf("the order wakes at %d, %v; want by %d, when the last key rests", at, ok, rested)
	}
	q.Due(rested)
	if at, ok := q.prio.NextWake(); ok {
		t.Errorf("the order still wakes at %d once every key rests", at)
	}
	q.prio.Learnt(n, func(c order.LearntCap) { t.Errorf("key %q still remembered: %+v", c.Path, c) })
	after := heapBytes()
	q.checkEmpty(t)
	perKey := float64(after-before) / float64(n)
	if perKey >= 1 {
		t.Errorf("%.2f B per key throttled once, after recovery (%d B); want less than 1", perKey, after-before)
	}
	t.Logf("%.3f B per key throttled once, after recovery (%d B)", perKey, after-before)
	runtime.KeepAlive(q)
	runtime.KeepAlive(keys)
}
