// Command chart draws an SVG bar chart of each queue's ratio to client-go
// from one raw results file of run.sh (Go benchmark output).
//
// Usage, from bench/:
//
//	go run ./chart -o chart.svg results/bench-XXX.txt
//	go run ./chart -cpu 1 -o chart-1.svg results/bench-XXX.txt
//
// -cpu selects the rows of one GOMAXPROCS value (default 2): a benchmark name
// ending in -N ran at GOMAXPROCS=N, one without the suffix at 1. Without -o
// the SVG goes to standard output.
//
// Every sub-benchmark name holds an impl=X element. The name without it is
// the workload (Pipeline/p=1,c=1, Latency, ...), drawn as one group of
// horizontal bars, one bar per implementation other than clientgo. The
// headlines table picks the unit each benchmark is judged by; a bar is the
// median of the implementation's samples over client-go's median. Bars are
// oriented so that a ratio below 1 means better than client-go: for units
// where higher is better (adds/s) the bar is client-go's median over the
// implementation's, the inverse ratio. The axis is logarithmic.
package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// base is the implementation every other one is compared with.
const base = "clientgo"

// metric is one unit a benchmark can be judged by.
type metric struct {
	unit   string // as in the results, e.g. "ns/op"
	higher bool   // higher values are better (rates)
	suffix string // appended to the workload's row label
}

var nsPerOp = metric{unit: "ns/op"}

// headlines maps a top-level benchmark name to its rows: each workload gets
// one bar group per row, and a row takes the first of its metrics whose
// unit client-go reported. Benchmarks not listed are judged by ns/op.
var headlines = map[string][][]metric{
	"Pipeline":         {{nsPerOp}},
	"PipelinePrio":     {{nsPerOp}},
	"PipelineFair":     {{nsPerOp}},
	"DedupStorm":       {{{"adds/s", true, " adds/s"}}},
	"DedupStormWork":   {{{"adds/s", true, " adds/s"}}},
	"AddAfterStorm":    {{{"us-slowest-add", false, " slowest add"}, nsPerOp}},
	"AddWithOptsBatch": {{{"us-max-add", false, " slowest call"}, nsPerOp}},
	"Latency":          {{{"us-p50", false, " p50"}}, {{"us-p99", false, " p99"}}},
	"Memory":           {{{"B/queued-item", false, " B/queued"}}, {{"ns/get-done", false, " one consumer Get+Done"}}},
	"MemoryPrio":       {{{"B/queued-item", false, " B/queued"}}},
}

type key struct{ workload, impl, unit string }

// results holds the samples of one GOMAXPROCS value from a results file.
type results struct {
	commit    string
	workloads []string // in order of first appearance
	impls     []string // sorted, without base
	samples   map[key][]float64
}

// parse reads Go benchmark output and keeps the samples of the benchmarks
// that ran at GOMAXPROCS=cpu and have an impl element. Lines are name,
// iterations, then value-unit pairs; others are skipped. (The format is
// parsed here rather than with golang.org/x/perf/benchfmt, which would
// raise the versions of golang.org/x/net, sys, text, term and oauth2 that
// the benchmarked client-go and controller-runtime are built with.)
func parse(r io.Reader, cpu int) (*results, error) {
	res := &results{samples: map[key][]float64{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, "commit:"); ok && res.commit == "" {
			res.commit = strings.TrimSpace(c)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name, procs := splitProcs(strings.TrimPrefix(f[0], "Benchmark"))
		if procs != cpu {
			continue
		}
		workload, impl := splitImpl(name)
		if impl == "" {
			continue
		}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad value %q", f[0], f[i])
			}
			k := key{workload, impl, f[i+1]}
			res.samples[k] = append(res.samples[k], v)
		}
		if !seen["w:"+workload] {
			seen["w:"+workload] = true
			res.workloads = append(res.workloads, workload)
		}
		if impl != base && !seen["i:"+impl] {
			seen["i:"+impl] = true
			res.impls = append(res.impls, impl)
		}
	}
	sort.Strings(res.impls)
	return res, sc.Err()
}

// splitProcs splits the -N GOMAXPROCS suffix off a benchmark name.
func splitProcs(name string) (string, int) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name, 1
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n <= 0 {
		return name, 1
	}
	return name[:i], n
}

// splitImpl removes the impl=X element from a name and returns the rest
// and X; X is empty if there is none.
func splitImpl(name string) (workload, impl string) {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if v, ok := strings.CutPrefix(p, "impl="); ok {
			return strings.Join(append(parts[:i:i], parts[i+1:]...), "/"), v
		}
	}
	return name, ""
}

// median returns the median of xs, NaN if xs is empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

type bar struct {
	impl  string
	ratio float64
}

type row struct {
	label string
	bars  []bar
}

// rows computes the bar groups: per workload and headline metric, the
// ratio of each implementation's median to client-go's, inverted for
// higher-is-better units. Ratios that are not finite and positive (a zero
// median, a missing sample) are left out, as are groups without bars.
func rows(res *results) []row {
	var out []row
	for _, w := range res.workloads {
		top, _, _ := strings.Cut(w, "/")
		spec, ok := headlines[top]
		if !ok {
			spec = [][]metric{{nsPerOp}}
		}
		for _, alts := range spec {
			for _, m := range alts {
				b := median(res.samples[key{w, base, m.unit}])
				if math.IsNaN(b) {
					continue
				}
				r := row{label: w + m.suffix}
				for _, impl := range res.impls {
					v := median(res.samples[key{w, impl, m.unit}])
					ratio := v / b
					if m.higher {
						ratio = b / v
					}
					if ratio > 0 && !math.IsInf(ratio, 0) && !math.IsNaN(ratio) {
						r.bars = append(r.bars, bar{impl, ratio})
					}
				}
				if len(r.bars) > 0 {
					out = append(out, r)
				}
				break
			}
		}
	}
	return out
}

// runs describes the number of samples per benchmark and unit: "6", or
// "2–6" if they differ.
func (res *results) runs() string {
	lo, hi := math.MaxInt, 0
	for _, s := range res.samples {
		lo, hi = min(lo, len(s)), max(hi, len(s))
	}
	if lo == hi {
		return strconv.Itoa(hi)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// palette gives each implementation its color, in the order of their
// names: as many colors as bench/ has implementations and more, so that no
// two share one.
var palette = []string{"#2b6cb0", "#dd6b20", "#38a169", "#805ad5", "#e53e3e", "#718096", "#d69e2e", "#319795", "#b83280", "#1a202c", "#975a16", "#63b3ed"}

// Layout of the chart in pixels.
const (
	width    = 900
	labelW   = 250 // left column with the row labels
	plotR    = 870 // right end of the plot area
	barH     = 12
	barGap   = 3
	groupPad = 10
	topY     = 72 // first row group
	font     = "font-family=\"Helvetica, Arial, sans-serif\""
)

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// ratioText formats a ratio for a bar end: 0.012×, 0.52×, 1.00×, 21×.
func ratioText(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 0.1:
		return fmt.Sprintf("%.2f×", r)
	default:
		return fmt.Sprintf("%.2g×", r)
	}
}

// render writes the SVG chart of rs to w.
func render(w io.Writer, title string, impls []string, rs []row) error {
	// Logarithmic axis over whole decades with room for the bar labels.
	lo, hi := 1.0, 1.0
	for _, r := range rs {
		for _, b := range r.bars {
			lo, hi = min(lo, b.ratio), max(hi, b.ratio)
		}
	}
	loE := min(-1, math.Floor(math.Log10(lo)-0.35))
	hiE := max(1, math.Ceil(math.Log10(hi)+0.35))
	x := func(r float64) float64 {
		return labelW + 10 + (math.Log10(r)-loE)/(hiE-loE)*(plotR-labelW-10)
	}
	height := topY
	for _, r := range rs {
		height += len(r.bars)*(barH+barGap) - barGap + 2*groupPad
	}
	plotB := height
	height += 60

	color := map[string]string{}
	for i, impl := range impls {
		color[impl] = palette[i%len(palette)]
	}

	var s strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&s, format+"\n", a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="12">`, width, height, width, height, font)
	p(`<rect width="100%%" height="100%%" fill="white"/>`)
	p(`<text x="%d" y="22" text-anchor="middle" font-size="15" font-weight="bold">%s</text>`, width/2, esc(title))

	// Legend: the implementations with a bar in this chart.
	drawn := map[string]bool{}
	for _, r := range rs {
		for _, b := range r.bars {
			drawn[b.impl] = true
		}
	}
	lx := 20.0
	for _, impl := range impls {
		if !drawn[impl] {
			continue
		}
		p(`<rect x="%.0f" y="32" width="12" height="12" fill="%s"/>`, lx, color[impl])
		p(`<text x="%.0f" y="42">%s</text>`, lx+16, esc(impl))
		lx += 16 + 7.5*float64(len(impl)) + 18
	}
	p(`<text x="20" y="60" fill="#444">ratio &lt; 1: better than client-go; for rates (adds/s) the inverse ratio, client-go / impl. Log scale.</text>`)

	// Row groups: alternating shading and the label.
	y := float64(topY)
	for i, r := range rs {
		h := float64(len(r.bars)*(barH+barGap) - barGap + 2*groupPad)
		if i%2 == 0 {
			p(`<rect x="0" y="%.0f" width="%d" height="%.0f" fill="#f3f5f8"/>`, y, width, h)
		}
		p(`<text x="%d" y="%.1f" text-anchor="end">%s</text>`, labelW, y+h/2+4, esc(r.label))
		y += h
	}

	// Grid and axis: a line and a label per decade, lighter lines at 2 and
	// 5 times it.
	line := func(v float64, stroke string, sw float64) {
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="%.1f"/>`, x(v), topY-4, x(v), plotB+4, stroke, sw)
	}
	for e := loE; e <= hiE; e++ {
		v := math.Pow(10, e)
		line(v, "#aaa", 1)
		p(`<text x="%.1f" y="%d" text-anchor="middle">%s×</text>`, x(v), plotB+18, strconv.FormatFloat(v, 'g', -1, 64))
		if e < hiE {
			line(2*v, "#ddd", 1)
			line(5*v, "#ddd", 1)
		}
	}

	// Bars from 1 to the ratio, each with its value at the far end.
	y = float64(topY)
	for _, r := range rs {
		by := y + groupPad
		for _, b := range r.bars {
			x0, x1 := x(1), x(b.ratio)
			p(`<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s"><title>%s %s: %s</title></rect>`,
				min(x0, x1), by, math.Abs(x1-x0), barH, color[b.impl], esc(r.label), esc(b.impl), ratioText(b.ratio))
			anchor, tx := "start", x1+4
			if b.ratio < 1 {
				anchor, tx = "end", x1-4
			}
			p(`<text x="%.1f" y="%.0f" text-anchor="%s" font-size="11">%s</text>`, tx, by+barH-2, anchor, ratioText(b.ratio))
			by += barH + barGap
		}
		y += float64(len(r.bars)*(barH+barGap) - barGap + 2*groupPad)
	}
	line(1, "#000", 1.5)
	p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#444">median of impl / median of client-go (for rates: client-go / impl), log scale</text>`, x(1), plotB+40)
	p(`</svg>`)
	_, err := io.WriteString(w, s.String())
	return err
}

// run is main without the process: it parses args, reads the results file
// and writes the chart.
func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	out := fs.String("o", "", "write the SVG to this file instead of standard output")
	cpu := fs.Int("cpu", 2, "use the rows of this GOMAXPROCS value")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: chart [-cpu N] [-o chart.svg] results/bench-XXX.txt")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("want one results file, got %d arguments", fs.NArg())
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := parse(f, *cpu)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	rs := rows(res)
	if len(rs) == 0 {
		return fmt.Errorf("%s: no workload with client-go and another implementation at GOMAXPROCS=%d", fs.Arg(0), *cpu)
	}
	commit := res.commit
	if commit == "" {
		commit = "unknown"
	}
	runs := res.runs() + " runs"
	if runs == "1 runs" {
		runs = "1 run"
	}
	title := fmt.Sprintf("actorq and controller-runtime vs client-go (GOMAXPROCS=%d, medians of %s, commit %s)", *cpu, runs, commit)
	var svg bytes.Buffer
	if err := render(&svg, title, res.impls, rs); err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(svg.Bytes())
		return err
	}
	return os.WriteFile(*out, svg.Bytes(), 0o644)
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}
