// Command example runs a small worker pool on an actorq queue whose metrics
// go to Prometheus through the exporter. While it runs it serves them on
// http://127.0.0.1:<port>/metrics, scrapes itself a few times and prints
// the workqueue lines; it ends by itself within a few seconds.
//
//	go run ./example
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/exporter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const (
	items   = 60                     // jobs to process
	workers = 3                      // concurrent workers
	every   = 400 * time.Millisecond // scrape period
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	reg := prometheus.NewRegistry()
	p, err := exporter.New(reg)
	if err != nil {
		return err
	}
	q := actor.New(actor.Config[int]{Name: "jobs", MetricsProvider: p})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}
	var bg sync.WaitGroup
	bg.Go(func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
		}
	})
	url := "http://" + ln.Addr().String() + "/metrics"
	fmt.Println("serving", url)

	// Workers: every fourth job fails twice and is retried with the
	// queue's rate limiter before it succeeds.
	var finished sync.WaitGroup
	finished.Add(items)
	var mu sync.Mutex
	failures := map[int]int{}
	for range workers {
		bg.Go(func() {
			for {
				job, shutdown := q.Get()
				if shutdown {
					return
				}
				time.Sleep(time.Duration(20+job%5*10) * time.Millisecond)
				mu.Lock()
				fail := job%4 == 0 && failures[job] < 2
				if fail {
					failures[job]++
				}
				mu.Unlock()
				if fail {
					q.AddRateLimited(job)
				} else {
					q.Forget(job)
					finished.Done()
				}
				q.Done(job)
			}
		})
	}

	// Producer: a job every 10ms, every tenth one scheduled 300ms ahead.
	bg.Go(func() {
		for job := range items {
			if job%10 == 9 {
				q.AddAfter(job, 300*time.Millisecond)
			} else {
				q.Add(job)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})

	all := make(chan struct{})
	go func() { finished.Wait(); close(all) }()
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
wait:
	for {
		select {
		case <-all:
			break wait
		case <-tick.C:
			if err := scrape(url, fmt.Sprintf("at %.1fs", time.Since(start).Seconds())); err != nil {
				return err
			}
		case <-time.After(10 * time.Second):
			fmt.Println("gave up waiting for the jobs")
			break wait
		}
	}

	q.ShutDownWithDrain()
	if err := scrape(url, fmt.Sprintf("after ShutDownWithDrain, %.1fs", time.Since(start).Seconds())); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err = srv.Shutdown(ctx)
	bg.Wait()
	return err
}

// shown are the lines scrape prints.
var shown = []string{
	"workqueue_depth{",
	"workqueue_adds_total{",
	"workqueue_retries_total{",
	"workqueue_delayed_items{",
	"workqueue_unfinished_work_seconds{",
	"workqueue_longest_running_processor_seconds{",
	"workqueue_work_duration_seconds_count{",
}

// scrape fetches url and prints the workqueue lines under a title.
func scrape(url, title string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	fmt.Println("--- scrape", title)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		for _, prefix := range shown {
			if strings.HasPrefix(line, prefix) {
				fmt.Println(line)
			}
		}
	}
	return sc.Err()
}
