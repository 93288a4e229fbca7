package exporter_test

import (
	"fmt"
	"os"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/exporter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

func Example() {
	reg := prometheus.NewRegistry()
	p, err := exporter.New(reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := actor.New(actor.Config[string]{Name: "jobs", MetricsProvider: p})
	defer q.ShutDown()

	q.Add("a")
	q.Add("b")
	q.AddAfter("c", 0) // a retry
	item, _ := q.Get()
	q.Done(item)
	q.Len() // waits until the queue has applied the calls above

	mfs, err := reg.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := expfmt.NewEncoder(os.Stdout, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		switch mf.GetName() {
		case "workqueue_adds_total", "workqueue_depth", "workqueue_retries_total":
			if err := enc.Encode(mf); err != nil {
				fmt.Println(err)
			}
		}
	}
	// Output:
	// # HELP workqueue_adds_total Total number of adds handled by workqueue
	// # TYPE workqueue_adds_total counter
	// workqueue_adds_total{name="jobs"} 3
	// # HELP workqueue_depth Current depth of workqueue
	// # TYPE workqueue_depth gauge
	// workqueue_depth{name="jobs"} 2
	// # HELP workqueue_retries_total Total number of retries handled by workqueue
	// # TYPE workqueue_retries_total counter
	// workqueue_retries_total{name="jobs"} 1
}
