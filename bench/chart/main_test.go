package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sample is a results file in run.sh's format: three rounds at
// GOMAXPROCS=1 and 2, a latency and a storm benchmark, and lines the
// parser must skip.
const sample = `commit: abc1234
uncommitted-library-changes: none
goos: linux
pkg: github.com/actorq/actorq/bench
BenchmarkPipeline/p=1,c=1/impl=clientgo     	 100	       100 ns/op	 1 allocs/item	 53 B/op	 0 allocs/op
BenchmarkPipeline/p=1,c=1/impl=clientgo-2   	 100	      1000 ns/op
BenchmarkPipeline/p=1,c=1/impl=actorq       	 100	        50 ns/op	 0 allocs/item
BenchmarkPipeline/p=1,c=1/impl=actorq-2     	 100	      3000 ns/op
BenchmarkPipeline/p=1,c=1/impl=x&y<z>       	 100	       400 ns/op
BenchmarkDedupStorm/p=4,c=4/impl=clientgo   	 100	        10 ns/op	 1000 adds/s
BenchmarkDedupStorm/p=4,c=4/impl=actorq     	 100	        90 ns/op	 4000 adds/s
BenchmarkLatency/impl=clientgo              	   7	         0 ns/op	 2 us-p50	 100 us-p99
BenchmarkLatency/impl=actorq                	   7	         0 ns/op	 1 us-p50	 300 us-p99
BenchmarkAddAfterStorm/impl=clientgo        	   5	       100 ns/op
BenchmarkAddAfterStorm/impl=crpq            	   5	        20 ns/op
BenchmarkActorMetrics/metrics=on            	 100	        30 ns/op
BenchmarkOnlyActorq/impl=actorq             	 100	        30 ns/op
BenchmarkPipeline/p=1,c=1/impl=clientgo     	 100	       200 ns/op
BenchmarkPipeline/p=1,c=1/impl=clientgo-2   	 100	      1000 ns/op
BenchmarkPipeline/p=1,c=1/impl=actorq       	 100	       100 ns/op
BenchmarkPipeline/p=1,c=1/impl=actorq-2     	 100	      3000 ns/op
BenchmarkDedupStorm/p=4,c=4/impl=clientgo   	 100	        10 ns/op	 2000 adds/s
BenchmarkDedupStorm/p=4,c=4/impl=actorq     	 100	        90 ns/op	 4000 adds/s
BenchmarkLatency/impl=clientgo              	   7	         0 ns/op	 2 us-p50	 100 us-p99
BenchmarkLatency/impl=actorq                	   7	         0 ns/op	 1 us-p50	 300 us-p99
BenchmarkAddAfterStorm/impl=clientgo        	   5	       100 ns/op
BenchmarkAddAfterStorm/impl=crpq            	   5	        20 ns/op
BenchmarkPipeline/p=1,c=1/impl=clientgo     	 100	       300 ns/op
BenchmarkPipeline/p=1,c=1/impl=clientgo-2   	 100	      1000 ns/op
BenchmarkPipeline/p=1,c=1/impl=actorq       	 100	       150 ns/op
BenchmarkPipeline/p=1,c=1/impl=actorq-2     	 100	      3000 ns/op
BenchmarkDedupStorm/p=4,c=4/impl=clientgo   	 100	        10 ns/op	 3000 adds/s
BenchmarkDedupStorm/p=4,c=4/impl=actorq     	 100	        90 ns/op	 4000 adds/s
BenchmarkLatency/impl=clientgo              	   7	         0 ns/op	 2 us-p50	 100 us-p99
BenchmarkLatency/impl=actorq                	   7	         0 ns/op	 1 us-p50	 300 us-p99
BenchmarkAddAfterStorm/impl=clientgo        	   5	       100 ns/op
BenchmarkAddAfterStorm/impl=crpq            	   5	        20 ns/op
BenchmarkTruncated/impl=clientgo
PASS
ok  	github.com/actorq/actorq/bench	12.3s
`

func mustRows(t *testing.T, cpu int) (*results, []row) {
	t.Helper()
	res, err := parse(strings.NewReader(sample), cpu)
	if err != nil {
		t.Fatal(err)
	}
	return res, rows(res)
}

func TestRows(t *testing.T) {
	res, got := mustRows(t, 1)
	if res.commit != "abc1234" {
		t.Errorf("commit = %q, want abc1234", res.commit)
	}
	if want := []string{"actorq", "crpq", "x&y<z>"}; !reflect.DeepEqual(res.impls, want) {
		t.Errorf("impls = %q, want %q", res.impls, want)
	}
	if r := res.runs(); r != "1–3" {
		t.Errorf("runs = %q, want 1–3 (x&y<z> has one sample)", r)
	}
	want := []row{
		// Medians 200 and 100: 0.5; x&y<z> has one sample, 400.
		{"Pipeline/p=1,c=1", []bar{{"actorq", 0.5}, {"x&y<z>", 2}}},
		// adds/s is a rate: client-go's median 2000 over actorq's 4000,
		// not ns/op's 9.
		{"DedupStorm/p=4,c=4 adds/s", []bar{{"actorq", 0.5}}},
		// ns/op is 0 for Latency; the table gives two rows.
		{"Latency p50", []bar{{"actorq", 0.5}}},
		{"Latency p99", []bar{{"actorq", 3}}},
		// us-slowest-add missing: ns/op instead, without the suffix.
		{"AddAfterStorm", []bar{{"crpq", 0.2}}},
		// ActorMetrics has no impl, OnlyActorq no client-go: no rows.
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
}

func TestCPU(t *testing.T) {
	_, got := mustRows(t, 2)
	want := []row{{"Pipeline/p=1,c=1", []bar{{"actorq", 3}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cpu=2 rows:\n got %v\nwant %v", got, want)
	}
	if _, got := mustRows(t, 4); len(got) != 0 {
		t.Errorf("cpu=4 rows = %v, want none", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in, workload, impl string
		procs              int
	}{
		{"Pipeline/p=1,c=1/impl=actorq-2", "Pipeline/p=1,c=1", "actorq", 2},
		{"Pipeline/p=1,c=16/impl=actorq", "Pipeline/p=1,c=16", "actorq", 1},
		{"Latency/impl=crpq/rate=1k-16", "Latency/rate=1k", "crpq", 16},
		{"ActorMetrics/metrics=on-2", "ActorMetrics/metrics=on", "", 2},
	} {
		name, procs := splitProcs(c.in)
		w, impl := splitImpl(name)
		if w != c.workload || impl != c.impl || procs != c.procs {
			t.Errorf("%s: got %q %q %d, want %q %q %d", c.in, w, impl, procs, c.workload, c.impl, c.procs)
		}
	}
}

// TestSVG runs the command on the sample and checks that the output is
// well-formed XML with the expected labels.
func TestSVG(t *testing.T) {
	in := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(in, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "chart.svg")
	if err := run([]string{"-cpu", "1", "-o", out, in}, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
	}
	for _, s := range []string{
		"actorq and controller-runtime vs client-go (GOMAXPROCS=1, medians of 1–3 runs, commit abc1234)",
		">Pipeline/p=1,c=1<", ">DedupStorm/p=4,c=4 adds/s<", ">Latency p99<",
		">0.50×<", ">3.00×<", ">0.20×<", ">x&amp;y&lt;z&gt;<", ">1×<",
		"ratio &lt; 1: better than client-go",
	} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}

	var stdout strings.Builder
	if err := run([]string{in}, &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "GOMAXPROCS=2, medians of 3 runs") {
		t.Errorf("-cpu 2 by default, to stdout without -o: title not found in\n%s", stdout.String())
	}
	if err := run([]string{"-cpu", "4", in}, io.Discard); err == nil {
		t.Error("-cpu 4: no error for a file without such rows")
	}
}

// TestLegend checks that each implementation drawn has a color of its
// own, and that the legend names only the implementations with a bar.
func TestLegend(t *testing.T) {
	impls := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "unused"}
	var r row
	r.label = "Pipeline"
	for _, impl := range impls[:9] {
		r.bars = append(r.bars, bar{impl, 0.5})
	}
	var b strings.Builder
	if err := render(&b, "title", impls, []row{r}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if strings.Contains(svg, ">unused<") {
		t.Error("the legend names an implementation without a bar")
	}
	fills := regexp.MustCompile(`<rect x="\d+" y="32" width="12" height="12" fill="(#[0-9a-f]+)"/>\s*<text x="\d+" y="42">([a-z0-9]+)</text>`).FindAllStringSubmatch(svg, -1)
	if len(fills) != 9 {
		t.Fatalf("the legend has %d entries, want 9:\n%s", len(fills), svg)
	}
	seen := map[string]string{}
	for _, f := range fills {
		if other, ok := seen[f[1]]; ok {
			t.Errorf("%s and %s share the color %s", other, f[2], f[1])
		}
		seen[f[1]] = f[2]
	}
}
