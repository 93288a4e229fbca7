package compattest

import (
	"slices"
	"sync"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// A queue given its own storage (TypedQueueConfig.Queue) calls it exactly
// as client-go's Typed does: Push when an item becomes ready (an Add of an
// item that is neither waiting nor processing, or the Done of an item
// added again while processing), Touch when an item already waiting is
// added again (never for an item being processed), Pop when a Get hands
// one out. A storage that keeps priorities relies on every one of those
// calls, so the cases compare the exact call logs. The adapter calls its
// storage from its own goroutine; a Len, which waits for that goroutine,
// orders the log with the caller's calls.

// recordingStorage is client-go's default storage, logging each call. It
// is safe for concurrent use.
type recordingStorage struct {
	mu  sync.Mutex
	q   workqueue.Queue[string]
	log []string
}

func newRecordingStorage() *recordingStorage {
	return &recordingStorage{q: workqueue.DefaultQueue[string]()}
}

func (r *recordingStorage) Touch(item string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, "Touch "+item)
	r.q.Touch(item)
}

func (r *recordingStorage) Push(item string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, "Push "+item)
	r.q.Push(item)
}

func (r *recordingStorage) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.q.Len()
}

func (r *recordingStorage) Pop() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	item := r.q.Pop()
	r.log = append(r.log, "Pop "+item)
	return item
}

// take returns the calls logged since the last take.
func (r *recordingStorage) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	log := r.log
	r.log = nil
	return log
}

// newStorageQueue returns a plain queue over a recording storage, shut down
// at the end of the test.
func newStorageQueue(t *testing.T, impl Impl) (workqueue.TypedInterface[string], *recordingStorage) {
	t.Helper()
	rec := newRecordingStorage()
	q := impl.NewPlain(workqueue.TypedQueueConfig[string]{Queue: rec})
	t.Cleanup(q.ShutDown)
	return q, rec
}

// wantCalls checks the storage calls made since the last check, once a Len
// has ordered them with the caller's.
func wantCalls(t *testing.T, q workqueue.TypedInterface[string], rec *recordingStorage, want ...string) {
	t.Helper()
	q.Len()
	if got := rec.take(); !slices.Equal(got, want) {
		t.Fatalf("storage calls = %q; want %q", got, want)
	}
}

func testStorageCalls(t *testing.T, impl Impl) {
	q, rec := newStorageQueue(t, impl)
	q.Add("a")
	q.Add("b")
	q.Add("a") // waiting: Touch
	wantCalls(t, q, rec, "Push a", "Push b", "Touch a")
	wantGet(t, q, "a")
	wantCalls(t, q, rec, "Pop a")
	q.Add("a") // processing: dirty, no storage call
	q.Add("a") // processing and dirty: no Touch
	wantCalls(t, q, rec)
	q.Done("a")
	wantCalls(t, q, rec, "Push a")
	q.Add("b")
	q.Add("a")
	wantCalls(t, q, rec, "Touch b", "Touch a")
	wantGet(t, q, "b")
	wantGet(t, q, "a")
	wantCalls(t, q, rec, "Pop b", "Pop a")
	q.Done("b")
	q.Done("a")
	wantCalls(t, q, rec)
	wantLen(t, q, 0)
}

// testStorageCallOrder: with x processing, one goroutine calls Add(x),
// Add(x), Done(x). client-go applies them in that order: x is dirty, the
// second Add changes nothing (x is processing: no Touch), Done pushes x. A
// Done applied before the second Add would show as a Touch after the Push.
func testStorageCallOrder(t *testing.T, impl Impl) {
	q, rec := newStorageQueue(t, impl)
	for range 20 {
		q.Add("x")
		wantGet(t, q, "x")
		wantCalls(t, q, rec, "Push x", "Pop x")
		done := make(chan struct{})
		go func() {
			defer close(done)
			q.Add("x")
			q.Add("x")
			q.Done("x")
		}()
		<-done
		wantCalls(t, q, rec, "Push x")
		wantGet(t, q, "x")
		q.Done("x")
		wantCalls(t, q, rec, "Pop x")
	}
}

// testStorageAcrossShutDown: after ShutDown, Get pops the items still
// waiting and the Done of an item added again while processing pushes it;
// a Get that reports shutdown pops nothing, and adds call nothing.
func testStorageAcrossShutDown(t *testing.T, impl Impl) {
	q, rec := newStorageQueue(t, impl)
	q.Add("a")
	q.Add("b")
	wantGet(t, q, "a")
	q.Add("a")
	q.ShutDown()
	q.Add("c")
	q.Add("b")
	wantCalls(t, q, rec, "Push a", "Push b", "Pop a")
	wantGet(t, q, "b")
	q.Done("a")
	wantCalls(t, q, rec, "Pop b", "Push a")
	wantGet(t, q, "a")
	wantShutdown(t, q)
	q.Done("b")
	q.Done("a")
	q.Add("a")
	wantCalls(t, q, rec, "Pop a")
	wantShutdown(t, q)
	wantCalls(t, q, rec)
}
