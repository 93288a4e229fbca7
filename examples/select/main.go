// Command select is a consumer that selects on a queue's items channel next
// to its context and a ticker, something a sync.Cond-based queue cannot do.
//
// A producer adds jobs, some of them delayed. The consumer handles each job
// as it arrives, prints a status line on every tick, and stops when its
// context ends; it then shuts the queue down and drains what is left with
// Get, as a worker would after the items channel is closed.
//
// Run it with:
//
//	go run ./examples/select
package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/actorq/actorq/actor"
)

func main() {
	q := actor.New(actor.Config[string]{})
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()

	var producer sync.WaitGroup
	defer producer.Wait()
	producer.Go(func() {
		for i := range 20 {
			job := fmt.Sprintf("job-%02d", i)
			if i%4 == 0 {
				q.AddAfter(job, 300*time.Millisecond) // retried later
			} else {
				q.Add(job)
			}
			time.Sleep(25 * time.Millisecond)
		}
		// A job whose delay outlasts the consumer: dropped at shutdown.
		q.AddAfter("late-job", time.Hour)
	})

	ticker := time.NewTicker(250 * time.Millisecond)
	defer ticker.Stop()
	handled := 0
loop:
	for {
		select {
		case job, ok := <-q.Items():
			if !ok {
				break loop // shut down by someone else
			}
			handled++
			fmt.Printf("handled %s\n", job)
			q.Done(job)
		case <-ticker.C:
			fmt.Printf("tick: %d handled, %d waiting\n", handled, q.Len())
		case <-ctx.Done():
			fmt.Printf("context ended: %v\n", ctx.Err())
			break loop
		}
	}

	// Work that arrives as the consumer stops. The items channel is closed
	// at shutdown; Get returns what was still queued, then reports
	// shutdown. Delayed items are dropped.
	q.Add("final-a")
	q.Add("final-b")
	q.ShutDown()
	for {
		job, shutdown := q.Get()
		if shutdown {
			break
		}
		handled++
		fmt.Printf("drained %s after shutdown\n", job)
		q.Done(job)
	}
	fmt.Printf("done: %d jobs handled\n", handled)
	if handled != 22 {
		fmt.Fprintf(os.Stderr, "want 22 jobs handled (20 + 2 final), got %d\n", handled)
		os.Exit(1)
	}
}
