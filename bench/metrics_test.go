package bench

import (
	"testing"

	"github.com/actorq/actorq/actor"
)

func TestCountingProvider(t *testing.T) {
	p := new(countingProvider)
	q := actor.New(actor.Config[int]{Name: "bench", MetricsProvider: p})
	for i := range 3 {
		q.Add(i)
	}
	for range 3 {
		item, _ := q.Get()
		q.Done(item)
	}
	q.ShutDown()
	for _, c := range []struct {
		name string
		got  int
	}{
		{"adds", p.adds.n},
		{"latency", p.latency.n},
		{"work duration", p.workDuration.n},
	} {
		if c.got != 3 {
			t.Errorf("%s metric calls = %d; want 3", c.name, c.got)
		}
	}
}

// BenchmarkActorMetrics measures actorq alone, one Add, Get and Done of the
// same item per op from one goroutine: metrics=off is an unnamed queue,
// metrics=on a named one whose provider only counts.
func BenchmarkActorMetrics(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  actor.Config[int]
	}{
		{"off", actor.Config[int]{}},
		{"on", actor.Config[int]{Name: "bench", MetricsProvider: new(countingProvider)}},
	} {
		b.Run("metrics="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			q := actor.New(c.cfg)
			defer q.ShutDown()
			for b.Loop() {
				q.Add(1)
				item, _ := q.Get()
				q.Done(item)
			}
		})
	}
}
