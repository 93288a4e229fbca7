package debug_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/actorq/actorq/actor"
	"github.com/actorq/actorq/debug"
)

// Mount the pages as net/http/pprof's are, under a prefix that ends in a
// slash; a server would then serve mux (http.ListenAndServe(addr, mux)),
// and /debug/queues/ lists the queues. Here a recorder stands in for the
// server and the browser.
func Example() {
	mux := http.NewServeMux()
	mux.Handle("/debug/queues/", http.StripPrefix("/debug/queues", debug.Handler()))

	q := actor.New(actor.Config[string]{Name: "jobs"}) // only named queues are listed
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.AddAfter("c", 3600e9)
	item, _ := q.Get()
	defer q.Done(item)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/queues/?format=json", nil))
	var queues []debug.Summary
	if err := json.Unmarshal(rec.Body.Bytes(), &queues); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range queues {
		fmt.Printf("%s: %d ready, %d processing, %d delayed\n", s.Name, s.Ready, s.Processing, s.Delayed)
	}
	// Output:
	// jobs: 1 ready, 1 processing, 1 delayed
}
