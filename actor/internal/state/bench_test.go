package state

import "testing"

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
		item, _, _ := q.HandOut(0)
		q.Done(item, 0)
	}
}

// BenchmarkStream is the same with the queue nearly empty: each item is
// added, handed out and done in turn.
func BenchmarkStream(b *testing.B) {
	q := New(Config[int]{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(i, Opts{}, 0)
		item, _, _ := q.HandOut(0)
		q.Done(item, 0)
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
		item, _, _ := q.HandOut(0)
		q.Done(item, 0)
	}
}
