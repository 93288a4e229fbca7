package actor

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkOwnerCycle is the work of one item's life through the default
// transport, in one goroutine, without the scheduler: an Add, the owner's
// round that applies it and offers the item in the lane, a Get that
// claims it, a Done, and the owner's round that sees the claim and
// applies the Done. The items come and go in bursts of burst, as in
// bench/'s pipeline.
func BenchmarkOwnerCycle(b *testing.B) {
	for _, burst := range []int{1, 256} {
		b.Run(fmt.Sprint("burst=", burst), func(b *testing.B) {
			o := newOwner(Config[int]{}, defaultPaths)
			c := o.c
			o.c.lane.wanted = true
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				for range burst {
					q := &Queue[int]{c: c}
					q.Add(i)
					i++
				}
				o.serveInbox(math.MaxInt)
				o.serveReady()
				for range burst {
					item, _, got, _ := c.get(nil)
					if !got {
						b.Fatal("no item from the lane")
					}
					(&Queue[int]{c: c}).Done(item)
				}
				o.serveInbox(math.MaxInt)
				o.serveReady()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*burst), "ns/item")
		})
	}
}
