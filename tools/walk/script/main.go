// Command script is the run that walk measures: one Add of a new item and
// one Get that returns it, in a new unnamed queue without fairness, with
// the fast paths on. walk builds it with coverage of package actor and
// runs it at GOMAXPROCS=1; it writes the coverage counters at four points
// into the directories 0 to 3 of $WALKDIR: before the Add, once the Add
// returned, once the owner goroutine applied it and sleeps, and once the
// Get returned and the owner sleeps again. With WALKMODE=claim, a Get
// and a Done come first, so that the lane is wanted: the owner offers the
// item added, and the Get claims it without the owner.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/coverage"
	"time"

	"github.com/actorq/actorq/actor"
)

func main() {
	q := actor.New(actor.Config[string]{})
	if os.Getenv("WALKMODE") == "claim" {
		q.Add("x")
		settle()
		q.Get()
		q.Done("x")
	}
	settle()
	snapshot(0)
	q.Add("a")
	snapshot(1) // the Add, in the caller: at GOMAXPROCS=1 the owner has not run
	settle()
	snapshot(2) // the owner applied it, ended its round and sleeps
	if item, shutdown := q.Get(); item != "a" || shutdown {
		fail(fmt.Errorf("Get() = %q, %v; want \"a\", false", item, shutdown))
	}
	settle()
	snapshot(3) // the Get, in the caller and the owner
	q.ShutDown()
}

// settle returns once every other goroutine is blocked: the owner
// goroutine has done what the step gave it, and sleeps.
func settle() {
	buf := make([]byte, 1<<20)
	for {
		time.Sleep(time.Millisecond)
		st := buf[:runtime.Stack(buf, true)]
		if !bytes.Contains(st, []byte(" [runnable]")) && bytes.Count(st, []byte(" [running]")) == 1 {
			return
		}
	}
}

// snapshot writes the coverage counters so far into $WALKDIR/i.
func snapshot(i int) {
	d := filepath.Join(os.Getenv("WALKDIR"), fmt.Sprint(i))
	if err := os.MkdirAll(d, 0o755); err != nil {
		fail(err)
	}
	if err := coverage.WriteMetaDir(d); err != nil {
		fail(err)
	}
	if err := coverage.WriteCountersDir(d); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "script:", err)
	os.Exit(1)
}
