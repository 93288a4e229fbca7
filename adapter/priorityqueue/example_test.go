package priorityqueue_test

import (
	"fmt"
	"strings"

	"github.com/actorq/actorq/adapter/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A worker takes items highest priority first, first in, first out within
// a priority. An item added again at a higher priority moves to the back
// of that priority.
func Example() {
	q := priorityqueue.New[string]("")
	defer q.ShutDown()

	q.AddWithOpts(priorityqueue.AddOpts{Priority: new(handler.LowPriority)}, "from-initial-list")
	q.Add("changed-1")
	q.Add("changed-2")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: new(10)}, "urgent")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: new(10)}, "changed-1")

	for q.Len() > 0 {
		item, priority, _ := q.GetWithPriority()
		fmt.Println(item, priority)
		q.Done(item)
	}
	// Output:
	// urgent 10
	// changed-1 10
	// changed-2 0
	// from-initial-list -100
}

// With fairness by namespace, a namespace with a backlog does not hold up
// the others: within a priority, hand-out goes round-robin across
// namespaces.
func ExampleNewQueueFunc() {
	byNamespace := func(r reconcile.Request) []string { return []string{r.Namespace} }
	opts := controller.Options{
		NewQueue: priorityqueue.NewQueueFunc(priorityqueue.Config[reconcile.Request]{Fairness: byNamespace}),
	}

	// What the controller does with it:
	q := opts.NewQueue("pods", nil)
	defer q.ShutDown()
	for _, key := range []string{"busy/a", "busy/b", "busy/c", "quiet/x", "quiet/y"} {
		ns, name, _ := strings.Cut(key, "/")
		q.Add(reconcile.Request{NamespacedName: struct{ Namespace, Name string }{ns, name}})
	}
	for q.Len() > 0 {
		r, _ := q.Get()
		fmt.Println(r)
		q.Done(r)
	}
	// Output:
	// busy/a
	// quiet/x
	// busy/b
	// quiet/y
	// busy/c
}
