package debug

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/actorq/actorq/actor"
)

// serveMounted serves the pages under /debug/queues/ on a local server
// until the test ends, and returns the server's URL.
func serveMounted(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/debug/queues/", http.StripPrefix("/debug/queues", Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(srv.Client().CloseIdleConnections)
	return srv.URL
}

// fetch gets u, which must answer 200, and returns the final URL and body.
func fetch(t *testing.T, u string) (*url.URL, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %s %q; want 200", u, resp.Status, body)
	}
	return resp.Request.URL, string(body)
}

var href = regexp.MustCompile(`href="([^"]*)"`)

// link returns the target of the link of page whose href starts with
// prefix, resolved from base.
func link(t *testing.T, base *url.URL, page, prefix string) string {
	t.Helper()
	for _, m := range href.FindAllStringSubmatch(page, -1) {
		if strings.HasPrefix(m[1], prefix) {
			ref, err := url.Parse(m[1])
			if err != nil {
				t.Fatal(err)
			}
			return base.ResolveReference(ref).String()
		}
	}
	t.Fatalf("no link %q... in\n%s", prefix, page)
	return ""
}

// TestMounted follows the pages' relative links under a prefix, on a real
// server.
func TestMounted(t *testing.T) {
	q := actor.New(actor.Config[string]{Name: "mounted"})
	defer q.ShutDown()
	q.Add("item-1")
	base := serveMounted(t)
	defer http.DefaultClient.CloseIdleConnections()

	indexAt, index := fetch(t, base+"/debug/queues") // the mux redirects to .../
	if indexAt.Path != "/debug/queues/" {
		t.Errorf("index at %s; want /debug/queues/", indexAt.Path)
	}
	at, page := fetch(t, link(t, indexAt, index, "queue?id="))
	if at.Path != "/debug/queues/queue" {
		t.Errorf("queue page at %s; want /debug/queues/queue", at.Path)
	}
	contains(t, page, `<td class="item">item-1</td>`)
	if _, js := fetch(t, link(t, at, page, "queue?")); !strings.Contains(js, `"item": "item-1"`) {
		t.Errorf("the queue page's JSON link gave\n%s", js)
	}
	if back, _ := fetch(t, link(t, at, page, "./")); back.Path != "/debug/queues/" {
		t.Errorf("the queue page's link back goes to %s; want /debug/queues/", back.Path)
	}
	if _, js := fetch(t, link(t, indexAt, index, "?format=json")); !strings.Contains(js, `"name": "mounted"`) {
		t.Errorf("the index's JSON link gave\n%s", js)
	}
}
