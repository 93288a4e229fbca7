package priorityqueue_test

import (
	"testing"

	"github.com/actorq/actorq/adapter/priorityqueue"
	"github.com/actorq/actorq/adapter/priorityqueue/pqcompat"
	crpq "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// TestCompat runs the behaviour cases of package pqcompat against
// controller-runtime's priority queue and against this package's.
func TestCompat(t *testing.T) {
	for _, impl := range []pqcompat.Impl{
		{Name: "controller-runtime", New: crpq.New[string]},
		{Name: "adapter", Fixed: true, New: priorityqueue.New[string]},
	} {
		t.Run(impl.Name, func(t *testing.T) { pqcompat.Run(t, impl) })
	}
}
