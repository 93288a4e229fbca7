package bench

import (
	"flag"
	"fmt"
	"testing"
)

// memoryFairItems is how many items BenchmarkMemoryFair queues.
const memoryFairItems = 200_000

// keysSeen is how many distinct keys BenchmarkMemoryKeysSeen adds, in
// bursts of keysSeenBurst; a smaller count makes a quick run.
var keysSeen = flag.Int("keys-seen", 1_000_000, "distinct keys `n` that BenchmarkMemoryKeysSeen adds")

// keysSeenBurst is how many items BenchmarkMemoryKeysSeen adds before it
// drains them.
const keysSeenBurst = 1_000

func TestOwnKeys(t *testing.T) {
	seen := make(map[string]bool)
	for i := range 1_000 {
		k := ownKey(i)
		if len(k) != 1 || seen[k[0]] {
			t.Fatalf("ownKey(%d) = %q; want one key of its own", i, k)
		}
		seen[k[0]] = true
		k2 := tenantOwnKey(i)
		if len(k2) != 2 || k2[0] != hundred.keys[i%tenants][0] || k2[1] != k[0] {
			t.Fatalf("tenantOwnKey(%d) = %q; want [%s %s]", i, k2, hundred.keys[i%tenants][0], k[0])
		}
	}
}

func TestMemoryFair(t *testing.T) {
	for _, k := range memoryFairKeys {
		for _, im := range memoryFairImpls(k.fairness, k.work) {
			testMemory(t, fmt.Sprintf("keys=%s/impl=%s", k.name, im.name), im, 5_000, nil)
		}
	}
}

// BenchmarkMemoryFair is BenchmarkMemory with fairness, memoryFairItems
// items per op: heap bytes per item with all of them queued
// (B/queued-item) and after all were got and done (B/item-after-drain),
// allocations per item from the first Add to the last Done (allocs/item)
// and the time per Get and Done of one goroutine over the backlog
// (ns/get-done), averaged over the ops. keys=100: the items are skewed
// over a hundred tenants as in BenchmarkPipelineFair; keys=item: every
// item is a key of its own, a string the Fairness function makes for it
// (see ownKey), which the fair queues keep while they need it.
// impl=actorqfair is actor.New fair by turns, impl=actorqwork by work time
// (at keys=100 only, see memoryFairKeys); impl=actorq
// (actor.New without fairness) and impl=clientgo (client-go's plain queue,
// the base) hold the same items without keys. ns/op is not reported, B/op
// and allocs/op count a whole op.
func BenchmarkMemoryFair(b *testing.B) {
	for _, k := range memoryFairKeys {
		b.Run("keys="+k.name, func(b *testing.B) {
			benchMemory(b, memoryFairImpls(k.fairness, k.work), memoryFairItems)
		})
	}
}

func TestKeysSeen(t *testing.T) {
	const keys, burst = 3_000, 1_000
	for levels, f := range []func(int) []string{ownKey, tenantOwnKey} {
		for _, im := range keysSeenImpls(f) {
			t.Run(fmt.Sprintf("levels=%d/impl=%s", levels+1, im.name), func(t *testing.T) {
				q := im.newQueue()
				defer q.ShutDown()
				if _, err := runKeysSeen(q, keys, burst); err != nil {
					t.Fatalf("runKeysSeen() error: %v", err)
				}
			})
		}
	}
}

// BenchmarkMemoryKeysSeen measures what a queue keeps of the keys it has
// seen: per op, a new queue gets -keys-seen distinct items (1,000,000 by
// default), each a fairness key of its own that the Fairness function
// makes for it (see ownKey), in bursts of keysSeenBurst, each drained
// before the next, and B/key-seen is the growth of the live heap over the
// empty queue once the last burst is drained, divided by the keys.
// levels=1: the item's key is its only key; levels=2: it sits below its
// tenant, one of a hundred (see tenantOwnKey). impl=actorqfair is
// actor.New fair by turns, impl=actorqwork by work time, impl=actorq
// actor.New without fairness, all three drained with GetBatch and
// DoneBatch; impl=clientgo (client-go's plain queue, drained with Get and
// Done) is the base. The last two run the same items without keys at both
// levels. ns/op is not reported, B/op and allocs/op count a whole op.
func BenchmarkMemoryKeysSeen(b *testing.B) {
	for levels, f := range []func(int) []string{ownKey, tenantOwnKey} {
		b.Run(fmt.Sprintf("levels=%d", levels+1), func(b *testing.B) {
			for _, im := range keysSeenImpls(f) {
				b.Run("impl="+im.name, func(b *testing.B) {
					var perKey float64
					ops := 0
					for b.Loop() {
						q := im.newQueue()
						res, err := runKeysSeen(q, *keysSeen, keysSeenBurst)
						q.ShutDown()
						if err != nil {
							b.Fatalf("runKeysSeen() error: %v", err)
						}
						perKey += res
						ops++
					}
					b.ReportMetric(0, "ns/op")
					b.ReportMetric(perKey/float64(ops), "B/key-seen")
				})
			}
		})
	}
}
