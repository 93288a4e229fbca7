package state

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actorq/actorq/actor/internal/order"
)

// updateGolden rewrites testdata/golden.txt from the queue as it is. The
// file was written by the commit that added this test, before the core's
// fair hand-out was reworked for speed: a change of what the queue
// answers is a bug, however fast it makes the queue.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.txt")

const goldenFile = "testdata/golden.txt"

// goldenChunk is how many steps of a workload one digest covers, so that
// a mismatch says where the answers first differ.
const goldenChunk = 1000

// goldenCase is a seeded workload of TestGolden.
type goldenCase struct {
	name    string
	byWork  bool
	keys    int // distinct leaf keys
	tenants int // first-level keys above them; 0 for one level
	items   int // distinct items
	steps   int
	prios   bool          // adds at priorities -1, 0 and 1
	limits  bool          // caps and weights, set as the queue runs
	rates   bool          // rates (level limits too) and pauses
	bound   time.Duration // the starvation bound
	requeue Requeue
	metrics bool // per-key gauges (two keys shown, the rest summed)
}

var goldenCases = []goldenCase{
	{name: "turns", keys: 5, items: 30, steps: 20_000},
	{name: "turns-2levels", keys: 12, tenants: 3, items: 40, steps: 20_000},
	{name: "work", byWork: true, keys: 5, items: 30, steps: 20_000},
	{name: "work-2levels", byWork: true, keys: 12, tenants: 3, items: 40, steps: 20_000},
	{name: "turns-limits", keys: 12, tenants: 3, items: 40, steps: 20_000, limits: true},
	{name: "work-limits", byWork: true, keys: 12, tenants: 3, items: 40, steps: 20_000, limits: true},
	{name: "turns-rates", keys: 8, tenants: 2, items: 40, steps: 20_000, limits: true, rates: true},
	{name: "work-rates", byWork: true, keys: 8, tenants: 2, items: 40, steps: 20_000, limits: true, rates: true},
	{name: "turns-prios", keys: 12, tenants: 3, items: 40, steps: 20_000, prios: true, limits: true},
	{name: "work-prios", byWork: true, keys: 12, tenants: 3, items: 40, steps: 20_000, prios: true, limits: true},
	{name: "turns-many", keys: 3000, items: 9000, steps: 40_000, limits: true},
	{name: "work-many", byWork: true, keys: 3000, items: 9000, steps: 40_000, limits: true},
	{name: "work-many-2levels", byWork: true, keys: 3000, tenants: 50, items: 9000, steps: 40_000, rates: true},
	{name: "turns-bound", keys: 12, tenants: 3, items: 40, steps: 20_000, prios: true, limits: true, bound: 5},
	{name: "turns-atadd", keys: 12, tenants: 3, items: 40, steps: 20_000, prios: true, requeue: RequeueAtAdd},
	{name: "work-atadd", byWork: true, keys: 12, tenants: 3, items: 40, steps: 20_000, prios: true, limits: true, requeue: RequeueAtAdd},
	{name: "turns-metrics", keys: 12, tenants: 3, items: 40, steps: 20_000, limits: true, rates: true, metrics: true},
	{name: "work-metrics", byWork: true, keys: 300, tenants: 10, items: 900, steps: 20_000, limits: true, metrics: true},
}

// TestGolden drives fair queues through seeded workloads (adds, delays,
// pops received or returned, hand-outs, Dones, limits, rates, pauses and
// the passing of time, then a drain) and compares what they answer, step
// by step (each item popped or handed out, Len, the next wake, snapshots
// and per-key gauges), with digests recorded before the core was reworked
// for speed: a single consumer must see exactly the same queue.
func TestGolden(t *testing.T) {
	want := readGolden(t)
	var lines []string
	for _, c := range goldenCases {
		got := c.run()
		for i, d := range got {
			lines = append(lines, fmt.Sprintf("%s %d %s", c.name, i, d))
		}
		if *updateGolden {
			continue
		}
		w := want[c.name]
		for i := range max(len(got), len(w)) {
			if i >= len(got) || i >= len(w) || got[i] != w[i] {
				t.Errorf("%s: the answers differ from the recorded ones in steps %d to %d (%d digests, %d recorded)",
					c.name, i*goldenChunk, (i+1)*goldenChunk-1, len(got), len(w))
				break
			}
		}
	}
	if *updateGolden {
		if err := os.WriteFile(goldenFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readGolden(t *testing.T) map[string][]string {
	want := map[string][]string{}
	f, err := os.Open(goldenFile)
	if err != nil {
		if *updateGolden {
			return want
		}
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		var name, d string
		var i int
		if _, err := fmt.Sscan(s.Text(), &name, &i, &d); err != nil {
			t.Fatalf("%s: %q: %v", goldenFile, s.Text(), err)
		}
		want[name] = append(want[name], d)
	}
	return want
}

// goldenGauge notes each per-key gauge call, for the digest: a refresh
// deletes series in no particular order, so the calls of a step are
// sorted.
type goldenGauge struct {
	name  string
	calls *[]string
}

func (g goldenGauge) Set(key string, v float64) {
	*g.calls = append(*g.calls, fmt.Sprintf("%s %s %v", g.name, key, v))
}
func (g goldenGauge) Delete(key string) {
	*g.calls = append(*g.calls, fmt.Sprintf("%s %s del", g.name, key))
}

// run runs the workload and returns the digests of its answers, one per
// goldenChunk steps, then one of the drain.
func (c goldenCase) run() []string {
	seed := fnv.New64a()
	seed.Write([]byte(c.name))
	r := rand.New(rand.NewPCG(57, seed.Sum64()))
	var h hash.Hash = sha256.New()
	if d := os.Getenv("GOLDEN_DUMP"); d != "" { // what is hashed, to compare two runs with diff
		f, _ := os.Create(d + "." + c.name)
		defer f.Close()
		h = dumpHash{h, f}
	}
	var digests []string
	flush := func() {
		digests = append(digests, hex.EncodeToString(h.Sum(nil))[:16])
		h.Reset()
	}
	paths := make([][]string, c.keys)
	for k := range paths {
		paths[k] = []string{fmt.Sprint("k", k)}
		if c.tenants > 0 {
			paths[k] = []string{fmt.Sprint("t", k%c.tenants), fmt.Sprint("k", k)}
		}
	}
	keysOf := func(item int) []string { return paths[item%c.keys] }
	randomPath := func() []string {
		p := paths[r.IntN(c.keys)]
		if len(p) > 1 && r.IntN(3) == 0 {
			return p[:1]
		}
		return p
	}
	// An instant's unit: with metrics, time passes in tenths of a
	// second, so that the per-key gauges are refreshed.
	unit := int64(1)
	if c.metrics {
		unit = 1e8
	}
	randomLimit := func() order.Limit {
		l := order.Limit{Cap: r.IntN(4), Weight: r.IntN(4)}
		if c.rates && r.IntN(2) == 0 {
			l.Rate, l.Burst = 1e9/float64([]int64{4, 5, 8, 16}[r.IntN(4)]*unit), 1+r.IntN(3)
		}
		return l
	}
	cfg := Config[int]{Fair: true, ByWork: c.byWork, Bound: c.bound, Requeue: c.requeue}
	if c.limits {
		for range 4 {
			cfg.Limits = append(cfg.Limits, KeyLimit{Keys: randomPath(), Limit: randomLimit()})
		}
	}
	if c.rates {
		cfg.Levels = []order.Limit{{Rate: 1e9 / float64(3*unit), Burst: 2}}
	}
	var calls []string
	if c.metrics {
		cfg.Metrics = NewMetrics[int](MetricSet{
			KeyDepth: goldenGauge{"depth", &calls}, KeyProcessing: goldenGauge{"proc", &calls},
			KeyHeldByCap: goldenGauge{"cap", &calls}, KeyHeldByRate: goldenGauge{"rate", &calls},
			KeyLimit: 2,
		})
	}
	q := New(cfg)
	var (
		now, seq   int64
		processing []int
		inTransit  []popped[int]
		changes    = q.Changes()
	)
	next := func() uint64 { seq++; return uint64(seq) }
	returnAll := func() {
		for i := len(inTransit) - 1; i >= 0; i-- {
			q.Return(inTransit[i].item, inTransit[i].p, now)
		}
		inTransit = inTransit[:0]
	}
	handOut := func() bool {
		item, p, ok := q.HandOut(now, next())
		fmt.Fprintf(h, "h %d %d %v;", item, p.Prio, ok)
		if ok {
			processing = append(processing, item)
		}
		return ok
	}
	for step := range c.steps {
		if step > 0 && step%goldenChunk == 0 {
			flush()
		}
		item := r.IntN(c.items)
		o := Opts{Keys: keysOf(item), Seq: next()}
		if c.prios {
			o.Prio = r.IntN(3) - 1
		}
		switch op := r.IntN(100); {
		case op < 30:
			q.Add(item, o, now)
		case op < 35:
			q.AddAt(item, now+int64(r.IntN(20))*unit, o, now)
		case op < 47:
			item, p, ok := q.Pop(now)
			fmt.Fprintf(h, "p %d %d %v;", item, p.Prio, ok)
			if ok {
				inTransit = append(inTransit, popped[int]{item, p})
			}
		case op < 52 && len(inTransit) > 0: // one received, the others in any order later
			i := r.IntN(len(inTransit))
			q.Received(inTransit[i].item, inTransit[i].p, now, next())
			processing = append(processing, inTransit[i].item)
			inTransit = slices.Delete(inTransit, i, i+1)
		case op < 55:
			returnAll()
		case op < 70:
			handOut()
		case op < 90 && len(processing) > 0:
			i := r.IntN(len(processing))
			q.Done(processing[i], now, next())
			processing = slices.Delete(processing, i, i+1)
		case op < 96:
			now += int64(r.IntN(8)) * unit
			q.Due(now)
			if c.metrics {
				q.Refresh(now)
			}
		case op < 98 && c.limits:
			q.SetLimit(KeyLimit{Keys: randomPath(), Limit: randomLimit()}, now)
		case op < 99 && c.rates:
			q.Pause(randomPath(), now+int64(r.IntN(30))*unit, now)
		case op < 100:
			p, ok := q.Head(now)
			prio, pok := q.TopPrio()
			fmt.Fprintf(h, "head %d %v %d %v;", p.Prio, ok, prio, pok)
		}
		// What a transport does: an add that raised an item popped, or
		// a change of what goes first, takes back what was popped.
		if raised(q, inTransit) || q.Changes() != changes {
			returnAll()
		}
		changes = q.Changes()
		slices.Sort(calls)
		fmt.Fprintf(h, "g %q;", calls)
		calls = calls[:0]
		at, ok := q.NextDue()
		fmt.Fprintf(h, "l %d %d %d %v;", q.Len(), q.Processing(), at, ok)
		if step%97 == 0 {
			s := q.Snapshot(200)
			// The popped items come first, in no order among those
			// popped at one instant, and so do the keys at their caps
			// on their paths: sorted here.
			var popped []int
			for _, it := range s.ReadyItems {
				if it.Status == Popped {
					popped = append(popped, it.Item)
					continue
				}
				fmt.Fprintf(h, "r %d %d %q;", it.Item, it.Prio, it.Keys)
			}
			slices.Sort(popped)
			fmt.Fprintf(h, "popped %v;", popped)
			var capped []string
			for _, k := range s.HeldKeys {
				if k.Why == "cap" {
					capped = append(capped, fmt.Sprintf("%q", k.Path))
					continue
				}
				fmt.Fprintf(h, "k %q %s %d;", k.Path, k.Why, k.At)
			}
			slices.Sort(capped)
			fmt.Fprintf(h, "capped %v;", capped)
		}
	}
	flush()
	returnAll()
	q.Drain()
	for {
		now++
		if handOut() {
			q.Done(processing[len(processing)-1], now, next())
			processing = processing[:len(processing)-1]
			continue
		}
		if len(processing) == 0 {
			break
		}
		q.Done(processing[0], now, next()) // dirty ones come back
		processing = processing[1:]
	}
	fmt.Fprintf(h, "end %d %d;", q.Len(), q.Processing())
	flush()
	return digests
}

// dumpHash is a hash that writes what it hashes to f too, a line a write.
type dumpHash struct {
	hash.Hash
	f *os.File
}

func (d dumpHash) Write(b []byte) (int, error) {
	fmt.Fprintf(d.f, "%s\n", b)
	return d.Hash.Write(b)
}
