package debug

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/ratelimit"
)

// get serves method target with h and returns the response.
func do(t *testing.T, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

// get serves GET target and fails the test unless it answers 200.
func get(t *testing.T, target string) string {
	t.Helper()
	rec := do(t, http.MethodGet, target)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %q; want 200", target, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// decode decodes the JSON body of GET target into v.
func decode(t *testing.T, target string, v any) {
	t.Helper()
	rec := do(t, http.MethodGet, target)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %q; want 200", target, rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET %s: Content-Type %q; want application/json", target, ct)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("GET %s: %v in %s", target, err, rec.Body)
	}
}

// idOf returns the ID of the named queue called name.
func idOf(t *testing.T, name string) uint64 {
	t.Helper()
	for _, q := range actor.NamedQueues() {
		if q.Name == name {
			return q.ID
		}
	}
	t.Fatalf("no named queue %q in %v", name, actor.NamedQueues())
	return 0
}

func contains(t *testing.T, page string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q:\n%s", w, page)
		}
	}
}

// TestIndex lists two queues, one of them with items in every state, with
// exact counts and ages (synctest's clock).
func TestIndex(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := actor.New(actor.Config[string]{Name: "alpha"})
		defer a.ShutDown()
		b := actor.New(actor.Config[string]{Name: "beta"})
		defer b.ShutDown()

		a.Add("a1")
		a.Add("a2")
		a.Add("a3")
		time.Sleep(2 * time.Second)
		if item, _ := a.Get(); item != "a1" {
			t.Fatalf("Get() = %q; want a1", item)
		}
		time.Sleep(time.Second)
		a.AddAfter("d1", time.Minute)
		a.AddAfter("d2", time.Hour)

		var got []Summary
		decode(t, "/?format=json", &got)
		three, one := 3*time.Second, time.Second
		want := []Summary{
			{Name: "alpha", ID: idOf(t, "alpha"), Ready: 2, Processing: 1, Delayed: 2, FirstReadyAge: &three, LongestProcessingAge: &one},
			{Name: "beta", ID: idOf(t, "beta")},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("index JSON = %s; want %s", js(got), js(want))
		}

		page := get(t, "/")
		contains(t, page,
			`<meta name="viewport"`,
			"2 named queues",
			fmt.Sprintf(`<tr><td><a href="queue?id=%d">alpha</a></td><td class="n">%[1]d</td><td class="n">2</td><td class="n">1</td><td class="n">2</td><td class="n">3s</td><td class="n">1s</td></tr>`, idOf(t, "alpha")),
			fmt.Sprintf(`<tr><td><a href="queue?id=%d">beta</a></td><td class="n">%[1]d</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">–</td><td class="n">–</td></tr>`, idOf(t, "beta")),
		)
		if got, want := page, get(t, "/?format=html"); got != want {
			t.Errorf("format=html differs from the default")
		}
		a.Done("a1")
	})
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestQueuePage shows a queue with priorities, fairness keys and a rate
// limiter, as JSON and as HTML.
func TestQueuePage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().UTC().Round(0) // as JSON gives it back
		q := actor.New(actor.Config[string]{
			Name:        "reconciler",
			Fairness:    func(s string) []string { return []string{strings.SplitN(s, "/", 2)[0]} },
			RateLimiter: ratelimit.NewExponential[string](ratelimit.ExponentialConfig{Base: time.Second, Max: time.Hour}),
		})
		defer q.ShutDown()

		q.Add("ns2/a")
		q.Add("ns1/b")
		time.Sleep(time.Second)
		q.AddWithOpts(actor.AddOpts{Priority: 10}, "ns1/c")
		q.AddWithOpts(actor.AddOpts{Priority: 10}, "ns2/d")
		time.Sleep(time.Second)
		if item, _ := q.Get(); item != "ns1/c" { // priority 10, key ns1 first
			t.Fatalf("Get() = %q; want ns1/c", item)
		}
		time.Sleep(500 * time.Millisecond)
		q.Add("ns1/c") // added again while processing
		q.AddRateLimited("ns3/e")
		q.AddRateLimited("ns3/e") // a second failure: 2s from now
		id := idOf(t, "reconciler")

		var got actor.Snapshot[string]
		decode(t, fmt.Sprintf("/queue?id=%d&format=json", id), &got)
		taken := start.Add(2500 * time.Millisecond)
		want := actor.Snapshot[string]{
			Name: "reconciler", ID: id, Taken: taken,
			Ready:           3,
			ReadyByPriority: []actor.PriorityCount{{Priority: 10, Count: 1}, {Priority: 0, Count: 2}},
			Processing:      1, AddedAgain: 1, Delayed: 1,
			ReadyItems: []actor.ItemInfo[string]{
				{Item: "ns2/d", State: "ready", Priority: 10, Keys: []string{"ns2"}, Age: 1500 * time.Millisecond},
				{Item: "ns2/a", State: "ready", Keys: []string{"ns2"}, Age: 2500 * time.Millisecond}, // ns2 joined the turns first
				{Item: "ns1/b", State: "ready", Keys: []string{"ns1"}, Age: 2500 * time.Millisecond},
			},
			ProcessingItems: []actor.ItemInfo[string]{
				{Item: "ns1/c", State: "processing+dirty", Keys: []string{"ns1"}, Age: 500 * time.Millisecond},
			},
			DelayedItems: []actor.ItemInfo[string]{
				{Item: "ns3/e", State: "delayed", Keys: []string{"ns3"}, Requeues: 2, Deadline: taken.Add(time.Second)},
			},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("queue JSON =\n%s\nwant\n%s", js(got), js(want))
		}

		var two actor.Snapshot[string]
		decode(t, fmt.Sprintf("/queue?id=%d&format=json&n=1", id), &two)
		if len(two.ReadyItems) != 1 || two.ReadyItems[0].Item != "ns2/d" || two.Ready != 3 {
			t.Errorf("n=1: ready items %v of %d; want [ns2/d] of 3", two.ReadyItems, two.Ready)
		}
		var none actor.Snapshot[string]
		decode(t, fmt.Sprintf("/queue?id=%d&format=json&n=0", id), &none)
		if len(none.ReadyItems)+len(none.ProcessingItems)+len(none.DelayedItems) != 0 || none.Processing != 1 {
			t.Errorf("n=0: %s; want the counts only", js(none))
		}
		get(t, fmt.Sprintf("/queue?id=%d&n=%d", id, MaxItems))

		page := get(t, fmt.Sprintf("/queue?id=%d", id))
		contains(t, page,
			`<meta name="viewport"`,
			`<h1>reconciler <small>#`+fmt.Sprint(id)+`</small></h1>`,
			`<a href="./">All queues</a>`,
			fmt.Sprintf(`<a href="queue?id=%d&n=100&format=json">JSON</a>`, id),
			`<td class="n" id="ready">3</td>`,
			`<td class="n" id="processing">1</td>`,
			`<td class="n" id="added-again">1</td>`,
			`<td class="n" id="delayed">1</td>`,
			`<tr><th>Priority</th><td class="n">10</td><td class="n">0</td></tr>`,
			`<tr><th>Ready</th><td class="n">1</td><td class="n">2</td></tr>`,
			`Ready <small>3 of 3, highest priority first, then key by key in the order of their turns (hand-out goes round-robin across keys), oldest first within a key</small>`,
			`<tr><td class="item">ns2/d</td><td>ready</td><td class="n">10</td><td>ns2</td><td class="n">1.5s</td><td class="n">0</td><td></td></tr>`,
			`<tr><td class="item">ns1/b</td><td>ready</td><td class="n">0</td><td>ns1</td><td class="n">2.5s</td><td class="n">0</td><td></td></tr>`,
			`<tr><td class="item">ns1/c</td><td>processing&#43;dirty</td><td class="n">0</td><td>ns1</td><td class="n">500ms</td><td class="n">0</td><td></td></tr>`,
			`<tr><td class="item">ns3/e</td><td>delayed</td><td class="n">0</td><td>ns3</td><td class="n">–</td><td class="n">2</td><td><time datetime="2000-01-01T00:00:03.5Z">in 1s</time></td></tr>`,
		)
		q.Done("ns1/c")
	})
}

// TestBadRequests checks every refusal: its status and its message.
func TestBadRequests(t *testing.T) {
	q := actor.New(actor.Config[string]{Name: "bad"})
	defer q.ShutDown()
	id := idOf(t, "bad")
	for _, tc := range []struct {
		method, target string
		status         int
		msg            string
	}{
		{"GET", "/queue", 400, "debug: missing id: want /queue?id=ID"},
		{"GET", "/queue?id=", 400, `debug: bad id "": want a non-negative integer`},
		{"GET", "/queue?id=x", 400, `debug: bad id "x": want a non-negative integer`},
		{"GET", "/queue?id=-1", 400, `debug: bad id "-1": want a non-negative integer`},
		{"GET", fmt.Sprintf("/queue?id=%d&n=x", id), 400, `debug: bad n "x": want an integer from 0 to 10000`},
		{"GET", fmt.Sprintf("/queue?id=%d&n=-1", id), 400, `debug: bad n "-1": want an integer from 0 to 10000`},
		{"GET", fmt.Sprintf("/queue?id=%d&n=10001", id), 400, "debug: n 10001 is over 10000"},
		{"GET", fmt.Sprintf("/queue?id=%d&format=xml", id), 400, `debug: unknown format "xml": want html or json`},
		{"GET", "/?format=xml", 400, `debug: unknown format "xml": want html or json`},
		{"GET", "/?format=JSON", 400, `debug: unknown format "JSON": want html or json`},
		{"GET", "/?a=%zz", 400, "debug: malformed query: invalid URL escape"},
		{"GET", "/queue?id=0", 404, "debug: no queue 0: it was never made, or it has been shut down"},
		{"GET", fmt.Sprintf("/queue?id=%d", id+1000), 404, fmt.Sprintf("debug: no queue %d:", id+1000)},
		{"GET", "/queues", 404, "debug: no page /queues: the pages are / and /queue?id=ID"},
		{"POST", "/", 405, "debug: method POST not allowed: use GET or HEAD"},
		{"PUT", fmt.Sprintf("/queue?id=%d", id), 405, "debug: method PUT not allowed"},
		{"DELETE", "/", 405, "debug: method DELETE not allowed"},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			rec := do(t, tc.method, tc.target)
			if rec.Code != tc.status || !strings.HasPrefix(rec.Body.String(), tc.msg) {
				t.Errorf("%s %s = %d %q; want %d %q", tc.method, tc.target, rec.Code, rec.Body, tc.status, tc.msg)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type %q; want text/plain", ct)
			}
			if allow := rec.Header().Get("Allow"); (tc.status == 405) != (allow == "GET, HEAD") {
				t.Errorf("Allow: %q with status %d", allow, tc.status)
			}
		})
	}
}

// TestHead answers HEAD as GET.
func TestHead(t *testing.T) {
	q := actor.New(actor.Config[string]{Name: "head"})
	defer q.ShutDown()
	for _, target := range []string{"/", fmt.Sprintf("/queue?id=%d&format=json", idOf(t, "head"))} {
		if rec := do(t, http.MethodHead, target); rec.Code != http.StatusOK {
			t.Errorf("HEAD %s = %d %q; want 200", target, rec.Code, rec.Body)
		}
	}
}

// TestEscaping shows an item and a name that look like markup as text.
func TestEscaping(t *testing.T) {
	q := actor.New(actor.Config[string]{Name: "<b>bold</b>"})
	defer q.ShutDown()
	q.Add(`<script>alert("x")</script>`)
	id := idOf(t, "<b>bold</b>")
	for _, page := range []string{get(t, "/"), get(t, fmt.Sprintf("/queue?id=%d", id))} {
		if strings.Contains(page, "<script>") || strings.Contains(page, "<b>") {
			t.Errorf("page holds markup from the queue:\n%s", page)
		}
		contains(t, page, "&lt;b&gt;bold&lt;/b&gt;")
	}
	contains(t, get(t, fmt.Sprintf("/queue?id=%d", id)), `<td class="item">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</td>`)
}

// TestShutDownWhileViewed: a queue shut down leaves the index and its
// page answers 404, while a NamedQueue taken before still answers
// Snapshot from what is left, during a drain and after it.
func TestShutDownWhileViewed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := actor.New(actor.Config[string]{Name: "leaving"})
		nq := actor.NamedQueues()
		if len(nq) != 1 || nq[0].Name != "leaving" {
			t.Fatalf("NamedQueues() = %v; want [leaving]", nq)
		}
		target := fmt.Sprintf("/queue?id=%d", nq[0].ID)
		q.Add("a")
		q.Add("b")
		q.AddAfter("c", time.Second)
		item, _ := q.Get()
		get(t, target)

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait() // the drain waits for a's Done
		if rec := do(t, http.MethodGet, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s while draining = %d %q; want 404", target, rec.Code, rec.Body)
		}
		var index []Summary
		decode(t, "/?format=json", &index)
		if len(index) != 0 {
			t.Errorf("index while draining = %s; want []", js(index))
		}
		s := nq[0].Snapshot(10)
		if !s.ShuttingDown || s.Ready != 1 || s.Processing != 1 || s.Delayed != 0 || len(s.ReadyItems) != 1 || s.ReadyItems[0].Item != "b" {
			t.Errorf("Snapshot while draining = %v; want shutting down, b ready, a processing, c dropped", s)
		}
		// The page of a queue that shut down after the handler found it.
		rec := httptest.NewRecorder()
		if err := write(rec, "html", &queuePage{ID: nq[0].ID, N: 10, Snapshot: s}); err != nil {
			t.Fatal(err)
		}
		contains(t, rec.Body.String(), `<h1>leaving <small>#`+fmt.Sprint(nq[0].ID)+`</small> <small>shutting down</small></h1>`,
			`<tr><td class="item">b</td><td>ready</td>`, `<tr><td class="item">a</td><td>processing</td>`)

		q.Done(item)
		<-drained // nothing processing: the drain ends, with b still ready
		s = nq[0].Snapshot(10)
		if !s.ShuttingDown || s.Ready != 1 || s.Processing != 0 || len(s.ReadyItems) != 1 || s.ReadyItems[0].Item != "b" {
			t.Errorf("Snapshot after the drain = %v; want shutting down, b ready", s)
		}
		if item, shutdown := q.Get(); shutdown || item != "b" {
			t.Fatalf("Get() = %q, %v after the drain; want b", item, shutdown)
		}
		q.Done("b")
		s = nq[0].Snapshot(10)
		if !s.ShuttingDown || s.Ready+s.Processing+s.Delayed != 0 {
			t.Errorf("Snapshot after the last Done = %v; want an empty queue shutting down", s)
		}
		if rec := do(t, http.MethodGet, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s after ShutDown = %d; want 404", target, rec.Code)
		}
	})
}

// TestConcurrent asks for the pages while queues come and go, in real
// time, under the race detector: no request blocks or fails but with 404.
func TestConcurrent(t *testing.T) {
	const rounds = 200
	done := make(chan struct{})
	errs := make(chan error, 2)
	go func() {
		defer close(done)
		for i := range rounds {
			q := actor.New(actor.Config[int]{Name: fmt.Sprint("churn-", i%3)})
			q.Add(i)
			q.AddAfter(i+1, time.Hour)
			if item, _ := q.Get(); i%2 == 0 {
				q.Done(item)
			}
			q.ShutDown()
		}
	}()
	for _, format := range []string{"html", "json"} {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				for _, q := range actor.NamedQueues() {
					rec := do(t, http.MethodGet, fmt.Sprintf("/queue?id=%d&format=%s", q.ID, format))
					if rec.Code != http.StatusOK && rec.Code != http.StatusNotFound {
						errs <- fmt.Errorf("GET queue %d = %d %q", q.ID, rec.Code, rec.Body)
						return
					}
				}
				if rec := do(t, http.MethodGet, "/?format="+format); rec.Code != http.StatusOK {
					errs <- fmt.Errorf("GET / = %d %q", rec.Code, rec.Body)
					return
				}
			}
		}()
	}
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for range 2 {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
				<-done
			}
		case <-timeout.C:
			t.Fatal("the page requests did not all return within 30s while queues came and went")
		}
	}
}

func TestAge(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1234 * time.Nanosecond, "1µs"},
		{350 * time.Microsecond, "350µs"},
		{97848 * time.Microsecond, "97.8ms"},
		{2291 * time.Millisecond, "2.29s"},
		{83456 * time.Millisecond, "1m23s"},
		{26 * time.Hour, "26h0m0s"},
	} {
		if got := age(tc.d); got != tc.want {
			t.Errorf("age(%d) = %q; want %q", tc.d, got, tc.want)
		}
	}
}

// TestUnencodable answers 500 when encoding/json cannot encode an item,
// and shows the HTML page all the same.
func TestUnencodable(t *testing.T) {
	type job struct{ Done chan struct{} }
	q := actor.New(actor.Config[job]{Name: "unencodable"})
	defer q.ShutDown()
	q.Add(job{})
	id := idOf(t, "unencodable")
	rec := do(t, http.MethodGet, fmt.Sprintf("/queue?id=%d&format=json", id))
	if want := "debug: json: unsupported type: chan struct {}"; rec.Code != http.StatusInternalServerError || !strings.HasPrefix(rec.Body.String(), want) {
		t.Errorf("JSON of an unencodable item = %d %q; want 500 %q", rec.Code, rec.Body, want)
	}
	contains(t, get(t, fmt.Sprintf("/queue?id=%d", id)), `<td class="item">{&lt;nil&gt;}</td>`)
}

// TestHeldKeys: the queue page shows each key whose items are held back,
// and why: waiting for a token of its rate, paused, or at its cap.
func TestHeldKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().UTC().Round(0)
		q := actor.New(actor.Config[string]{
			Name:     "held",
			Fairness: func(s string) []string { return []string{strings.SplitN(s, "/", 2)[0]} },
			KeyLimits: []actor.KeyLimit{
				{Keys: []string{"rated"}, Rate: 2, Burst: 1},
				{Keys: []string{"capped"}, Cap: 1},
			},
		})
		defer q.ShutDown()
		for _, item := range []string{"rated/1", "rated/2", "capped/1", "capped/2", "paused/1"} {
			q.Add(item)
		}
		if err := q.PauseKey([]string{"paused"}, start.Add(3*time.Second)); err != nil {
			t.Fatal(err)
		}
		for range 2 { // rated/1 and capped/1
			if _, shutdown := q.Get(); shutdown {
				t.Fatal("shut down")
			}
		}
		id := idOf(t, "held")
		var got actor.Snapshot[string]
		decode(t, fmt.Sprintf("/queue?id=%d&format=json", id), &got)
		want := []actor.HeldKey{
			{Keys: []string{"rated"}, Why: "token", Until: start.Add(500 * time.Millisecond)},
			{Keys: []string{"paused"}, Why: "pause", Until: start.Add(3 * time.Second)},
			{Keys: []string{"capped"}, Why: "cap"},
		}
		if !reflect.DeepEqual(got.HeldKeys, want) {
			t.Errorf("held keys =\n%s\nwant\n%s", js(got.HeldKeys), js(want))
		}
		contains(t, get(t, fmt.Sprintf("/queue?id=%d", id)),
			`<table id="held-keys">`,
			`<tr><td>rated</td><td>waiting for a token</td><td><time datetime="2000-01-01T00:00:00.5Z">in 500ms</time></td></tr>`,
			`<tr><td>paused</td><td>paused</td><td><time datetime="2000-01-01T00:00:03Z">in 3s</time></td></tr>`,
			`<tr><td>capped</td><td>at its cap</td><td></td></tr>`,
		)
	})
}

// TestAdaptiveKeys: the queue page shows each key whose adaptive cap
// learnt something: one throttle at 250ms brings the cap of "api" from 4
// to min(4−1, ⌊4·0.9⌋) = 3; "quiet" learnt nothing and is not shown.
func TestAdaptiveKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().UTC().Round(0)
		adaptive := actor.AdaptiveCap{Min: 2, Max: 4, Window: time.Second}
		q := actor.New(actor.Config[string]{
			Name:     "adaptive",
			Fairness: func(s string) []string { return []string{strings.SplitN(s, "/", 2)[0]} },
			KeyLimits: []actor.KeyLimit{
				{Keys: []string{"api"}, Adaptive: adaptive},
				{Keys: []string{"quiet"}, Adaptive: adaptive},
			},
		})
		defer q.ShutDown()
		for _, item := range []string{"api/1", "api/2", "quiet/1"} {
			q.Add(item)
		}
		for range 2 { // api/1 and quiet/1
			if _, shutdown := q.Get(); shutdown {
				t.Fatal("shut down")
			}
		}
		time.Sleep(250 * time.Millisecond)
		if err := q.Throttled("api/1", time.Time{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		id := idOf(t, "adaptive")
		var got actor.Snapshot[string]
		decode(t, fmt.Sprintf("/queue?id=%d&format=json", id), &got)
		want := []actor.AdaptiveKey{{
			Keys: []string{"api"}, Cap: 3, Processing: 1, Min: 2, Max: 4, Start: 4,
			Throttles: 1, LastDecrease: start.Add(250 * time.Millisecond),
		}}
		if !reflect.DeepEqual(got.AdaptiveKeys, want) {
			t.Errorf("adaptive keys =\n%s\nwant\n%s", js(got.AdaptiveKeys), js(want))
		}
		page := get(t, fmt.Sprintf("/queue?id=%d", id))
		contains(t, page,
			`<table id="adaptive-keys">`,
			`<tr><td>api</td><td class="n">3</td><td class="n">1</td><td class="n">2</td><td class="n">4</td><td class="n">4</td><td class="n">1</td><td><time datetime="2000-01-01T00:00:00.25Z">500ms ago</time></td></tr>`,
		)
		if strings.Contains(page, `<tr><td>quiet</td><td class="n">`) {
			t.Errorf("page shows the key quiet, which learnt nothing:\n%s", page)
		}
	})
}
