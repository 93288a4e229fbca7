// Command example serves the debug page of two named queues while a small
// worker pool works on them, and ends by itself.
//
//   - "reconciler" gets events for 60 objects in three namespaces, faster
//     than its three workers can reconcile them: fairness hands them out
//     round-robin across the namespaces, about one in five fails and is
//     retried through the queue's exponential rate limiter, and one in
//     ten events is urgent (a higher priority).
//   - "mailer" gets a mail for one in four reconciled objects; its two
//     workers are slower, and one mail in ten fails and is retried.
//
// It prints the page's URL, and every second a line per queue from the
// page's own JSON. Open the URL while it runs (-for 0 runs it until
// interrupted):
//
//	go run ./example -for 0
//	go run ./example -addr 127.0.0.1:0 -for 5s
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/debug"
	"github.com/actorq/actorq/ratelimit"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to serve the debug page on (port 0: any free port)")
	d := flag.Duration("for", 3*time.Second, "how long to run; 0 runs until interrupted")
	flag.Parse()
	if err := run(*addr, *d); err != nil {
		log.Fatal(err)
	}
}

func run(addr string, d time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/debug/queues/", http.StripPrefix("/debug/queues", debug.Handler()))
	mux.Handle("/{$}", http.RedirectHandler("/debug/queues/", http.StatusFound))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	var serving sync.WaitGroup
	serving.Go(func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
		}
	})
	url := "http://" + ln.Addr().String() + "/debug/queues/"
	fmt.Println("serving", url)

	reconciler := actor.New(actor.Config[string]{
		Name:     "reconciler",
		Fairness: func(key string) []string { return []string{strings.SplitN(key, "/", 2)[0]} },
		RateLimiter: ratelimit.NewExponential[string](ratelimit.ExponentialConfig{
			Base: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: ratelimit.DefaultJitter,
		}),
	})
	mailer := actor.New(actor.Config[string]{Name: "mailer"})

	var workers sync.WaitGroup
	for range 3 {
		workers.Go(func() { work(reconciler, 20*time.Millisecond, 5, mailer) })
	}
	for range 2 {
		workers.Go(func() { work(mailer, 150*time.Millisecond, 10, nil) })
	}
	var producing sync.WaitGroup
	producing.Go(func() { produce(ctx, reconciler) })

	report := time.NewTicker(time.Second)
	defer report.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-report.C:
			if err := printSummaries(url); err != nil {
				log.Print(err)
			}
		}
	}

	producing.Wait()
	reconciler.ShutDown()
	mailer.ShutDown()
	workers.Wait()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	serving.Wait()
	fmt.Println("queues and server shut down")
	return err
}

// produce adds events for 60 objects to q, about 150 a second (many of
// them duplicates, which the queue drops), until ctx is done.
func produce(ctx context.Context, q *actor.Queue[string]) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for range 3 {
			key := fmt.Sprintf("ns-%c/object-%02d", 'a'+rand.IntN(3), rand.IntN(20))
			prio := 0
			if rand.IntN(10) == 0 {
				prio = 10 // urgent
			}
			q.AddWithOpts(actor.AddOpts{Priority: prio}, key)
		}
	}
}

// work is one worker of q: each item takes about perItem, one in failOneIn
// fails and is retried through the rate limiter; a success forgets the
// item's failures and, for one in four, adds a mail to next (if not nil).
// Once q shuts down, it drops what is left rather than work on it, and
// returns when Get says so.
func work(q *actor.Queue[string], perItem time.Duration, failOneIn int, next *actor.Queue[string]) {
	for {
		item, shutdown := q.Get()
		if shutdown {
			return
		}
		if q.ShuttingDown() {
			q.Done(item)
			continue
		}
		time.Sleep(perItem/2 + rand.N(perItem))
		switch {
		case rand.IntN(failOneIn) == 0:
			q.AddRateLimited(item)
		default:
			q.Forget(item)
			if next != nil && rand.IntN(4) == 0 {
				next.Add("welcome/" + item)
			}
		}
		q.Done(item)
	}
}

// printSummaries prints a line per queue of the index at url, as JSON.
func printSummaries(url string) error {
	resp, err := http.Get(url + "?format=json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var queues []debug.Summary
	if err := json.NewDecoder(resp.Body).Decode(&queues); err != nil {
		return err
	}
	for _, s := range queues {
		fmt.Printf("%-10s %3d ready, %d processing, %2d delayed; first ready waited %v, longest processing %v\n",
			s.Name, s.Ready, s.Processing, s.Delayed, round(s.FirstReadyAge), round(s.LongestProcessingAge))
	}
	return nil
}

func round(d *time.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Round(time.Millisecond)
}
