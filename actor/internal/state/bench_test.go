package state

import (
	"fmt"
	"testing"
)

// BenchmarkBurst is the state's own work per item of a burst: n items
// added, then each handed out and done, as the owner applies them in the
// pipeline of bench/ (no transport).
func BenchmarkBurst(b *testing.B) {
	q := New(Config[int]{})
	b.ReportAllocs()
	const n = 200_000
	for i := 0; b.Loop(); i++ {
		if i%n == 0 {
			for j := range n {
				q.Add(i+j, Opts{}, 0)
			}
		}
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkStream is the same with the queue nearly empty: each item is
// added, handed out and done in turn.
func BenchmarkStream(b *testing.B) {
	q := New(Config[int]{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(i, Opts{}, 0)
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkWindow keeps about 160 items ready, as the pipeline's lane
// does: each step adds one, hands one out and finishes one.
func BenchmarkWindow(b *testing.B) {
	q := New(Config[int]{})
	for i := range 160 {
		q.Add(-1-i, Opts{}, 0)
	}
	for i := 0; b.Loop(); i++ {
		q.Add(i, Opts{}, 0)
		item, _, _ := q.HandOut(0, 0)
		q.Done(item, 0, 0)
	}
}

// BenchmarkFairHandOut is a hand-out with fairness, by turns and by work
// time, with 200,000 items ready over 100 keys and over 100,000 (one
// level of keys): each step hands an item out, finishes it after a work
// time that depends on its key, and adds it again, as a controller's
// consumer does; so the keys ready, and the items, stay as many.
func BenchmarkFairHandOut(b *testing.B) {
	const n = 200_000
	for _, byWork := range []bool{false, true} {
		for _, a := range []int{100, 100_000} {
			b.Run(fmt.Sprintf("work=%v/keys=%d", byWork, a), func(b *testing.B) {
				keys := make([][]string, a)
				for i := range keys {
					keys[i] = []string{fmt.Sprint("k", i)}
				}
				q := New(Config[int]{Fair: true, ByWork: byWork})
				for item := range n {
					q.Add(item, Opts{Keys: keys[item%a]}, 0)
				}
				var now int64
				b.ReportAllocs()
				for b.Loop() {
					item, _, _ := q.HandOut(now, 0)
					now++
					q.Done(item, now+int64(item%7)*100, 0)
					q.Add(item, Opts{Keys: keys[item%a]}, now)
				}
			})
		}
	}
}
