package adapter_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	workqueue "github.com/actorq/actorq/adapter"
	clientgo "k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

// FuzzDifferential applies one random sequence of non-blocking operations
// to client-go's queue and to the adapter in lockstep and compares every
// result: Len after each operation, each item Get returns, and the drain
// after ShutDown. Done is only called for items being processed (Done of
// an idle item is an intended difference, tested in compattest), and
// delays are left to compattest, where client-go's asynchronous delay loop
// can be waited for.
//
// Each byte is one operation: the low two bits choose Add, Get (when Len >
// 0), Done (of the n-th processing item) or AddAfter with a zero delay,
// the rest chooses the item.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{0, 4, 8, 1, 0, 2, 1, 1})
	f.Add([]byte{0, 0, 1, 0, 3, 2, 1, 6, 5})
	f.Add([]byte{4, 8, 12, 16, 1, 1, 1, 0, 4, 2, 6, 10, 1, 1})
	f.Fuzz(runOps)
}

// runOps is the body of FuzzDifferential.
func runOps(t *testing.T, ops []byte) {
	c := clocktesting.NewFakeClock(time.Unix(0, 0))
	want := clientgo.NewTypedRateLimitingQueueWithConfig(clientgo.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		clientgo.TypedRateLimitingQueueConfig[string]{Clock: c})
	got := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Clock: c})
	defer want.ShutDown()
	defer got.ShutDown()
	var processing []string
	for i, b := range ops {
		item := fmt.Sprint("item", b>>2%8)
		var what string
		switch b & 3 {
		case 0:
			what = "Add(" + item + ")"
			want.Add(item)
			got.Add(item)
		case 1:
			if want.Len() == 0 {
				continue
			}
			w, _ := want.Get()
			g, _ := got.Get()
			if g != w {
				t.Fatalf("op %d: Get() = %q; client-go %q", i, g, w)
			}
			processing = append(processing, w)
			what = "Get() = " + w
		case 2:
			if len(processing) == 0 {
				continue
			}
			k := int(b>>2) % len(processing)
			item = processing[k]
			processing = slices.Delete(processing, k, k+1)
			what = "Done(" + item + ")"
			want.Done(item)
			got.Done(item)
		case 3:
			what = "AddAfter(" + item + ", 0)"
			want.AddAfter(item, 0)
			got.AddAfter(item, 0)
		}
		if w, g := want.Len(), got.Len(); g != w {
			t.Fatalf("op %d %s: Len() = %d; client-go %d", i, what, g, w)
		}
	}
	want.ShutDown()
	got.ShutDown()
	for {
		w, wdown := want.Get()
		g, gdown := got.Get()
		if g != w || gdown != wdown {
			t.Fatalf("drain: Get() = %q, %v; client-go %q, %v", g, gdown, w, wdown)
		}
		if wdown {
			break
		}
	}
}
