package bench

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ten := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", []time.Duration{7}, 99, 7},
		{"ten p50", ten, 50, 5},
		{"ten p90", ten, 90, 9},
		{"ten p99", ten, 99, 10},
		{"ten p100", ten, 100, 10},
		{"ten p1", ten, 1, 1},
		{"ten p10", ten, 10, 1},
		{"ten p11", ten, 11, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := percentile(c.sorted, c.p); got != c.want {
				t.Errorf("percentile(%v, %v) = %v; want %v", c.sorted, c.p, got, c.want)
			}
		})
	}
}
