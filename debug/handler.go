package debug

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/actorq/actorq/actor"
)

// The number of items of each state that the queue page shows: DefaultItems
// unless the query asks for n, at most MaxItems.
const (
	DefaultItems = 100
	MaxItems     = 10000
)

// Summary is one queue of the index, as its JSON form lists it.
type Summary struct {
	Name         string `json:"name"`
	ID           uint64 `json:"id"`
	ShuttingDown bool   `json:"shuttingDown,omitempty"`
	Ready        int    `json:"ready"` // the depth
	Processing   int    `json:"processing"`
	AddedAgain   int    `json:"addedAgain"`
	Delayed      int    `json:"delayed"`
	// FirstReadyAge is how long the first ready item of the queue's
	// [actor.Snapshot] has been ready: the next to be handed out, and the
	// oldest, in a FIFO queue; with priorities the oldest of the highest
	// priority; with fairness the oldest of the first key by name at that
	// priority. It is nil if the snapshot lists no ready item: none is
	// ready, or the queue has a custom Storage.
	FirstReadyAge *time.Duration `json:"firstReadyAge,omitempty"`
	// LongestProcessingAge is how long the item processing the longest
	// has been, nil if none is processing.
	LongestProcessingAge *time.Duration `json:"longestProcessingAge,omitempty"`
}

// summarize takes a snapshot of q with one item of each state.
func summarize(q actor.NamedQueue) Summary {
	s := q.Snapshot(1)
	sum := Summary{
		Name: q.Name, ID: q.ID, ShuttingDown: s.ShuttingDown,
		Ready: s.Ready, Processing: s.Processing, AddedAgain: s.AddedAgain, Delayed: s.Delayed,
	}
	if len(s.ReadyItems) > 0 {
		sum.FirstReadyAge = &s.ReadyItems[0].Age
	}
	if len(s.ProcessingItems) > 0 {
		sum.LongestProcessingAge = &s.ProcessingItems[0].Age
	}
	return sum
}

// Handler returns the handler of the debug pages: the index at / and a
// queue's page at /queue?id=ID (see the package doc). Mount it with
// [http.StripPrefix] under a prefix that ends in a slash. It is safe for
// concurrent use.
func Handler() http.Handler { return http.HandlerFunc(serve) }

// refusal is a request the handler refuses, with the status to answer.
type refusal struct {
	status int
	msg    string
}

func (e *refusal) Error() string { return e.msg }

func serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "debug: method "+r.Method+" not allowed: use GET or HEAD", http.StatusMethodNotAllowed)
		return
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, "debug: malformed query: "+err.Error(), http.StatusBadRequest)
		return
	}
	f, err := format(query)
	var p page
	if err == nil {
		switch r.URL.Path {
		case "", "/":
			p = index()
		case "/queue":
			p, err = queue(query)
		default:
			err = &refusal{http.StatusNotFound, "debug: no page " + r.URL.Path + ": the pages are / and /queue?id=ID"}
		}
	}
	if err == nil {
		err = write(w, f, p)
	}
	if e, ok := err.(*refusal); ok {
		http.Error(w, e.msg, e.status)
	} else if err != nil {
		http.Error(w, "debug: "+err.Error(), http.StatusInternalServerError)
	}
}

// index is the index page: a summary of every named queue.
func index() *indexPage {
	queues := actor.NamedQueues()
	p := &indexPage{Summaries: make([]Summary, len(queues))}
	for i, q := range queues {
		p.Summaries[i] = summarize(q)
	}
	return p
}

// queue is the page of the queue query asks for.
func queue(query url.Values) (*queuePage, error) {
	if !query.Has("id") {
		return nil, &refusal{http.StatusBadRequest, "debug: missing id: want /queue?id=ID, with an ID of the index"}
	}
	id, err := strconv.ParseUint(query.Get("id"), 10, 64)
	if err != nil {
		return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("debug: bad id %q: want a non-negative integer", query.Get("id"))}
	}
	n := DefaultItems
	if query.Has("n") {
		v, err := strconv.ParseUint(query.Get("n"), 10, 64)
		if err != nil {
			return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("debug: bad n %q: want an integer from 0 to %d", query.Get("n"), MaxItems)}
		}
		if v > MaxItems {
			return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("debug: n %d is over %d", v, MaxItems)}
		}
		n = int(v)
	}
	for _, q := range actor.NamedQueues() {
		if q.ID == id {
			return &queuePage{ID: id, N: n, Snapshot: q.Snapshot(n)}, nil
		}
	}
	return nil, &refusal{http.StatusNotFound, fmt.Sprintf("debug: no queue %d: it was never made, or it has been shut down", id)}
}

// format returns the format query asks for: "html" (the default) or
// "json".
func format(query url.Values) (string, error) {
	switch f := query.Get("format"); f {
	case "", "html":
		return "html", nil
	case "json":
		return f, nil
	default:
		return "", &refusal{http.StatusBadRequest, fmt.Sprintf("debug: unknown format %q: want html or json", f)}
	}
}

// write writes p in format f to w, whole or not at all.
func write(w http.ResponseWriter, f string, p page) error {
	var buf bytes.Buffer
	if f == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p.data()); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
	} else {
		if err := pages.ExecuteTemplate(&buf, p.template(), p); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes()) // an error means the client went away: nothing to tell it
	return nil
}
