package bench

import (
	"fmt"
	"runtime"
	"time"
)

// memoryResult is the heap growth of one queue, per item.
type memoryResult struct {
	// queued is the heap growth with all n items queued, over the empty
	// queue, divided by n.
	queued float64
	// drained is the heap growth after every item was got and done, over
	// the empty queue, divided by n: what the queue keeps from a burst.
	drained float64
	// allocs counts the heap allocations from the first Add to the last
	// Done, divided by n.
	allocs float64
	// drainTime is the time the drain took (every Get and Done from one
	// goroutine over the n-item backlog, and the Len that waits for the
	// last Done to be applied), divided by n.
	drainTime time.Duration
}

// runMemory adds items 0..n-1 to the empty queue q, measures the live heap,
// then gets and dones every item from this goroutine (with GetBatch and
// DoneBatch, pipelineBatch at a time, if q is a batchTaker) and measures
// again.
// Each measurement follows two runtime.GC calls and reads HeapAlloc, so it
// counts what is reachable plus what other goroutines allocated meanwhile
// (nothing much: the benchmark is alone). It reports an error if q does not
// hold n items after the adds or any after the drain. It does not shut q
// down.
func runMemory(q queue, n int) (memoryResult, error) {
	q.Len() // let the queue settle: its goroutines are started
	empty := liveHeap()
	m0 := mallocs()
	for i := range n {
		q.Add(i)
	}
	// Len waits for the adds to be applied (actorq's Add is one-way,
	// controller-runtime's is buffered), so the heap holds them all.
	if l := q.Len(); l != n {
		return memoryResult{}, fmt.Errorf("Len() = %d after %d adds; want %d", l, n, n)
	}
	queued := liveHeap()
	t0 := time.Now()
	if err := drain(q, n); err != nil {
		return memoryResult{}, err
	}
	// Len from this goroutine also sees its Dones applied.
	if l := q.Len(); l != 0 {
		return memoryResult{}, fmt.Errorf("Len() = %d after the drain; want 0", l)
	}
	drainTime := time.Since(t0) / time.Duration(n)
	m1 := mallocs()
	drained := liveHeap()
	runtime.KeepAlive(q)
	return memoryResult{
		allocs:    float64(m1-m0) / float64(n),
		queued:    float64(int64(queued)-int64(empty)) / float64(n),
		drained:   float64(int64(drained)-int64(empty)) / float64(n),
		drainTime: drainTime,
	}, nil
}

// drain gets and dones n items of q from this goroutine, with GetBatch and
// DoneBatch, pipelineBatch at a time, if q is a batchTaker. It reports an
// error if q reports shutdown before.
func drain(q queue, n int) error {
	if bt, ok := q.(batchTaker); ok {
		buf := make([]int, 0, pipelineBatch)
		for got := 0; got < n; {
			items, shutdown := bt.takeBatch(buf)
			if shutdown {
				return fmt.Errorf("GetBatch() reported shutdown during the drain")
			}
			bt.doneBatch(items)
			got += len(items)
		}
		return nil
	}
	for range n {
		item, shutdown := q.Get()
		if shutdown {
			return fmt.Errorf("Get() reported shutdown during the drain")
		}
		q.Done(item)
	}
	return nil
}

// liveHeap returns HeapAlloc after two garbage collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// mallocs returns how many heap objects were allocated so far. It reads
// runtime.MemStats, as the testing package does for allocs/op.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}
