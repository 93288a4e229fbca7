package priorityqueue_test

import (
	"bytes"
	"fmt"
	"github.com/actorq/actorq/adapter/internal/upstream"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// crFile says what TestControllerRuntimeSuite does with one of
// controller-runtime's priorityqueue test files. Every *_test.go file of
// that directory must have an entry in crFiles, and every name an entry
// gives must be in the file.
type crFile struct {
	// leftOut maps top-level declarations removed from the file (a
	// function by name, a method as "(*recv).name", a type as "type name",
	// a variable as "var name type") to the reason.
	leftOut map[string]string
	// leftOutSpecs maps the text of ginkgo It specs removed from the
	// file's Describe block to the reason.
	leftOutSpecs map[string]string
	// replace maps the name of a top-level function to the declaration
	// that replaces it, whole, with the reason in its doc comment.
	replace map[string]string
	// internal maps selectors on controller-runtime's internal metrics
	// package, which a package outside controller-runtime cannot import,
	// to the local names the generated package declares for them.
	internal map[string]string
}

// crInternalMetrics is controller-runtime's internal metrics package.
const crInternalMetrics = "sigs.k8s.io/controller-runtime/pkg/internal/metrics"

// Reasons shared by several entries of crFiles.
const (
	usesTick = "replaces the queue's unexported tick function (q.tick) to check the durations it waits for; " +
		"the ordering it checks is covered by pqcompat's DelayedHighPriorityOvertakes, EarliestReadyTimeWins " +
		"and RateLimitedAndAfter on both implementations"
	usesItem = "tests controller-runtime's unexported item type (its clone method)"
)

// crFiles covers controller-runtime v0.25's priorityqueue tests.
var crFiles = map[string]crFile{
	"priorityqueue_suite_test.go": {},
	"metrics_test.go": {
		internal: map[string]string{"metrics.DepthMetricWithPriority": "depthMetricWithPriority"},
		leftOut: map[string]string{
			"var _ metrics.MetricsProviderWithPriority": "asserts that the fake provider implements controller-runtime's " +
				"internal interface, which cannot be named outside controller-runtime; the adapter finds the method " +
				"NewDepthMetricWithPriority by reflection, and the fake's NewDepthMetric panics if it is not found",
		},
	},
	"priorityqueue_test.go": {
		leftOutSpecs: map[string]string{
			"de-duplicates items": "reads the queue's unexported lockedLock and locked set; pqcompat's Dedup " +
				"checks de-duplication on both implementations",
			"Get from priority queue might get stuck when the priority queue is shut down": "asserts " +
				"controller-runtime's Get after ShutDown, which returns shutdown although an item is ready: " +
				"intended difference 2 (the adapter hands out the ready item first); pqcompat's " +
				"DiffGetAfterShutDown asserts both sides",
		},
		leftOut: map[string]string{
			"TestItemIsOnlyReturnedAfterAfterHasPassed":                          usesTick,
			"TestHighPriorityItemThatBecameReadyIsReturnedBeforeLowPriorityItem": usesTick,
			"TestMultipleItemsWithAfterAreReturnedInCorrectOrder":                usesTick,
			"TestWhenAddingMultipleItemsWithRatelimitTrueTheyDontAffectEachOther": "replaces the queue's unexported " +
				"rateLimiter and tick; " + usesTick[strings.Index(usesTick, "the ordering"):],
			"TestItemCloneCopiesAllFields":                 usesItem,
			"TestItemCloneDoesNotShareMemoryWithOriginal":  usesItem,
			"newItemFiller":                                "a helper of the two item tests",
			"type btreeInteractionValidator":               "wraps the queue's unexported btrees (newQueue's validators)",
			"(*btreeInteractionValidator).ReplaceOrInsert": "a method of btreeInteractionValidator",
			"(*btreeInteractionValidator).Delete":          "a method of btreeInteractionValidator",
		},
		replace: map[string]string{
			"newQueue": `// newQueue is substituted by actorq's TestControllerRuntimeSuite:
// controller-runtime's wraps the queue's unexported btrees in validators
// and checks its unexported tick durations, which the adapter does not
// have. The queue is made the same way otherwise.
func newQueue(opts ...Opt[string]) (PriorityQueue[string], *fakeMetricsProvider) {
	metrics := newFakeMetricsProvider()
	q := New("test", append([]Opt[string]{func(o *Opts[string]) {
		o.MetricProvider = metrics
	}}, opts...)...)
	return q, metrics
}`,
			"newQueueWithTimeForwarder": `// newQueueWithTimeForwarder is substituted by actorq's
// TestControllerRuntimeSuite: controller-runtime's replaces the queue's
// unexported clock and ticker. Its callers all run in a testing/synctest
// bubble, whose fake clock the adapter's queue reads, so forwarding the
// queue's time is sleeping in the bubble.
func newQueueWithTimeForwarder() (_ PriorityQueue[string], _ *fakeMetricsProvider, forwardQueueTime func(time.Duration)) {
	q, m := newQueue()
	return q, m, time.Sleep
}`,
		},
	},
}

// crAdapterFile is the generated package's one non-test file: it gives the
// package this package's names.
const crAdapterFile = `// Code generated by actorq's TestControllerRuntimeSuite. DO NOT EDIT.

// Package priorityqueue holds controller-runtime's priorityqueue tests,
// run against %[1]s: the names the tests use are that package's.
package priorityqueue

import pq %[2]q

type (
	AddOpts                     = pq.AddOpts
	Opts[T comparable]          = pq.Opts[T]
	Opt[T comparable]           = pq.Opt[T]
	PriorityQueue[T comparable] = pq.PriorityQueue[T]
)

func New[T comparable](name string, o ...Opt[T]) PriorityQueue[T] { return pq.New(name, o...) }

// depthMetricWithPriority stands for controller-runtime's internal
// metrics.DepthMetricWithPriority, which a package outside
// controller-runtime cannot import.
type depthMetricWithPriority interface {
	Inc(priority int)
	Dec(priority int)
}
`

// generateCRTests writes controller-runtime's test files from src into
// dir, rewritten as crFiles says, with the package file that makes the
// names of the package at pkgPath the generated package's, and returns the
// tests and specs to run and a description of those left out.
func generateCRTests(src, dir, pkgPath, version string) (tests []crTest, leftOut []string, err error) {
	paths, err := filepath.Glob(filepath.Join(src, "*_test.go"))
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	for name := range crFiles {
		if !slices.Contains(names, name) {
			return nil, nil, fmt.Errorf("controller-runtime %s has no %s in %s: update crFiles", version, name, src)
		}
	}
	sort.Strings(names)
	var specs []string
	ginkgoRunner := ""
	for _, name := range names {
		spec, ok := crFiles[name]
		if !ok {
			return nil, nil, fmt.Errorf("controller-runtime %s has a test file %s that crFiles does not cover: decide whether it can run against the adapter", version, name)
		}
		text, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return nil, nil, err
		}
		gen, res, err := rewriteCRTest(name, text, spec)
		if err != nil {
			return nil, nil, fmt.Errorf("controller-runtime %s's %s: %v", version, name, err)
		}
		header := fmt.Sprintf("// Code generated by actorq's TestControllerRuntimeSuite from sigs.k8s.io/controller-runtime@%s/pkg/controller/priorityqueue/%s. DO NOT EDIT.\n\n", version, name)
		if err := os.WriteFile(filepath.Join(dir, name), append([]byte(header), gen...), 0o644); err != nil {
			return nil, nil, err
		}
		for _, fn := range res.tests {
			if fn == res.ginkgoRunner {
				continue
			}
			tests = append(tests, crTest{fn: fn})
		}
		specs = append(specs, res.specs...)
		if res.ginkgoRunner != "" {
			if ginkgoRunner != "" {
				return nil, nil, fmt.Errorf("controller-runtime %s: two tests run ginkgo specs, %s and %s", version, ginkgoRunner, res.ginkgoRunner)
			}
			ginkgoRunner = res.ginkgoRunner
		}
		for _, k := range slices.Sorted(maps.Keys(spec.leftOut)) {
			leftOut = append(leftOut, fmt.Sprintf("%s: %s: %s", name, k, spec.leftOut[k]))
		}
		for _, k := range slices.Sorted(maps.Keys(spec.leftOutSpecs)) {
			leftOut = append(leftOut, fmt.Sprintf("%s: spec %q: %s", name, k, spec.leftOutSpecs[k]))
		}
	}
	if len(specs) > 0 && ginkgoRunner == "" {
		return nil, nil, fmt.Errorf("controller-runtime %s: ginkgo specs but no test that runs them", version)
	}
	for _, s := range specs {
		tests = append(tests, crTest{fn: ginkgoRunner, spec: s})
	}
	if len(tests) == 0 {
		return nil, nil, fmt.Errorf("controller-runtime %s: no tests found in %s", version, src)
	}
	pkg := fmt.Sprintf(crAdapterFile, pkgPath, pkgPath)
	return tests, leftOut, os.WriteFile(filepath.Join(dir, "adapter.go"), []byte(pkg), 0o644)
}

// crResult is what rewriteCRTest found in a file: the tests it keeps, the
// full texts of the ginkgo specs it keeps, and the test that runs the
// specs, if the file has it.
type crResult struct {
	tests        []string
	specs        []string
	ginkgoRunner string
}

// rewriteCRTest returns the source text of a controller-runtime test
// file, rewritten as spec says, and what it holds. Every other byte is
// controller-runtime's, except for imports left unused, which are removed.
func rewriteCRTest(name string, text []byte, spec crFile) ([]byte, crResult, error) {
	var res crResult
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, text, parser.ParseComments)
	if err != nil {
		return nil, res, err
	}
	if f.Name.Name != "priorityqueue" {
		return nil, res, fmt.Errorf("package %s; want priorityqueue", f.Name.Name)
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	src := func(n ast.Node) string { return string(text[off(n.Pos()):off(n.End())]) }
	var edits []edit
	seen := map[string]bool{}

	for _, d := range f.Decls {
		key := declKey(d, src)
		start := d.Pos()
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Doc != nil {
			start = fn.Doc.Pos()
		}
		if gd, ok := d.(*ast.GenDecl); ok && gd.Doc != nil {
			start = gd.Doc.Pos()
		}
		if _, ok := spec.leftOut[key]; ok {
			seen[key] = true
			edits = append(edits, edit{off(start), off(d.End()), ""})
			continue
		}
		if repl, ok := spec.replace[key]; ok {
			seen["replace "+key] = true
			edits = append(edits, edit{off(start), off(d.End()), repl})
			continue
		}
		fn, ok := d.(*ast.FuncDecl)
		if ok && fn.Recv == nil && upstream.IsTestFunc(fn.Name.Name, "Test") {
			res.tests = append(res.tests, fn.Name.Name)
			if callsFunc(fn.Body, "RunSpecs") {
				res.ginkgoRunner = fn.Name.Name
			}
		}
		if ok && fn.Recv == nil && (upstream.IsTestFunc(fn.Name.Name, "Fuzz") || upstream.IsTestFunc(fn.Name.Name, "Example")) {
			return nil, res, fmt.Errorf("declares %s, which the harness does not know how to run", fn.Name.Name)
		}
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			specs, es, err := describe(gd, spec.leftOutSpecs, seen, fset, f.Comments, off)
			if err != nil {
				return nil, res, err
			}
			res.specs = append(res.specs, specs...)
			edits = append(edits, es...)
		}
	}
	for k := range spec.leftOut {
		if !seen[k] {
			return nil, res, fmt.Errorf("has no declaration %q to leave out: update crFiles", k)
		}
	}
	for k := range spec.leftOutSpecs {
		if !seen["spec "+k] {
			return nil, res, fmt.Errorf("has no spec %q to leave out: update crFiles", k)
		}
	}
	for k := range spec.replace {
		if !seen["replace "+k] {
			return nil, res, fmt.Errorf("has no function %s to substitute: update crFiles", k)
		}
	}

	// Selectors on controller-runtime's internal package become local names.
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if local, ok := spec.internal[src(sel)]; ok {
				seen["internal "+src(sel)] = true
				edits = append(edits, edit{off(sel.Pos()), off(sel.End()), local})
			}
		}
		return true
	})
	for k := range spec.internal {
		if !seen["internal "+k] {
			return nil, res, fmt.Errorf("has no selector %s to rewrite: update crFiles", k)
		}
	}

	out, err := apply(text, edits)
	if err != nil {
		return nil, res, err
	}
	out, err = dropUnusedImports(name, out)
	if err != nil {
		return nil, res, err
	}
	if bytes.Contains(out, []byte(strconv.Quote(crInternalMetrics))) {
		return nil, res, fmt.Errorf("still imports %s after the rewriting: update crFiles", crInternalMetrics)
	}
	return out, res, nil
}

// declKey names a top-level declaration as crFile.leftOut does.
func declKey(d ast.Decl, src func(ast.Node) string) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) == 1 {
			return "(" + src(d.Recv.List[0].Type) + ")." + d.Name.Name
		}
		return d.Name.Name
	case *ast.GenDecl:
		var parts []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				parts = append(parts, "type "+s.Name.Name)
			case *ast.ValueSpec:
				var names []string
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
				k := d.Tok.String() + " " + strings.Join(names, ", ")
				if s.Type != nil {
					k += " " + src(s.Type)
				}
				parts = append(parts, k)
			case *ast.ImportSpec:
				parts = append(parts, "import "+s.Path.Value)
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// describe finds the ginkgo specs of a "var _ = Describe(text, func() {
// It(...); ... })" declaration, returns the full texts of those kept and
// the edits that remove those left out (with the comment just above each),
// marking them in seen as "spec <text>". A Describe block holding anything
// but It specs is an error: the harness runs specs one by one.
func describe(gd *ast.GenDecl, leftOut map[string]string, seen map[string]bool, fset *token.FileSet, comments []*ast.CommentGroup, off func(token.Pos) int) ([]string, []edit, error) {
	var specs []string
	var edits []edit
	for _, s := range gd.Specs {
		vs, ok := s.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			continue
		}
		call, ok := vs.Values[0].(*ast.CallExpr)
		if !ok || !isCallTo(call, "Describe") {
			continue
		}
		container, ok := stringArg(call)
		if !ok || len(call.Args) != 2 {
			return nil, nil, fmt.Errorf("a Describe call the harness does not expect")
		}
		body, ok := call.Args[1].(*ast.FuncLit)
		if !ok {
			return nil, nil, fmt.Errorf("Describe(%q) without a function literal", container)
		}
		for _, st := range body.Body.List {
			es, ok := st.(*ast.ExprStmt)
			var it *ast.CallExpr
			if ok {
				it, _ = es.X.(*ast.CallExpr)
			}
			if it == nil || !isCallTo(it, "It") {
				return nil, nil, fmt.Errorf("Describe(%q) holds a statement other than It, which the harness does not expect", container)
			}
			text, ok := stringArg(it)
			if !ok {
				return nil, nil, fmt.Errorf("Describe(%q) holds an It without a literal text", container)
			}
			if _, ok := leftOut[text]; ok {
				seen["spec "+text] = true
				start := st.Pos()
				for _, c := range comments {
					if fset.Position(c.End()).Line == fset.Position(st.Pos()).Line-1 {
						start = c.Pos()
					}
				}
				edits = append(edits, edit{off(start), off(st.End()), ""})
				continue
			}
			specs = append(specs, container+" "+text)
		}
	}
	return specs, edits, nil
}

// isCallTo reports whether call calls the function name, unqualified (a
// dot-imported ginkgo function).
func isCallTo(call *ast.CallExpr, name string) bool {
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == name
}

// callsFunc reports whether n calls the unqualified function name.
func callsFunc(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && isCallTo(c, name) {
			found = true
		}
		return !found
	})
	return found
}

// stringArg returns call's first argument if it is a string literal.
func stringArg(call *ast.CallExpr) (string, bool) {
	if len(call.Args) == 0 {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// edit replaces text[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// apply applies edits to text, from the end of the text, so that the
// offsets of the earlier ones stay valid.
func apply(text []byte, edits []edit) ([]byte, error) {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := text
	for i, e := range edits {
		if i > 0 && e.end > edits[i-1].start {
			return nil, fmt.Errorf("overlapping edits at offsets %d and %d", e.start, edits[i-1].start)
		}
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	return out, nil
}

// versionSuffix matches a major version element of an import path.
var versionSuffix = regexp.MustCompile(`^v[0-9]+$`)

// dropUnusedImports removes the imports of text (a Go file) that no
// selector uses any more, and formats it. An import's name is its
// explicit name or its path's last element (before a major version
// suffix, as math/rand/v2 is rand); dot and blank imports stay.
func dropUnusedImports(name string, text []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, text, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("after the rewriting: %v", err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var edits []edit
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, err
		}
		n := path.Base(p)
		if versionSuffix.MatchString(n) {
			n = path.Base(path.Dir(p))
		}
		if imp.Name != nil {
			n = imp.Name.Name
		}
		if n == "." || n == "_" || used[n] {
			continue
		}
		start, end := fset.Position(imp.Pos()).Offset, fset.Position(imp.End()).Offset
		if imp.Doc == nil && imp.Comment == nil { // the whole line
			for start > 0 && (text[start-1] == '\t' || text[start-1] == ' ') {
				start--
			}
			if end < len(text) && text[end] == '\n' {
				end++
			}
		}
		edits = append(edits, edit{start, end, ""})
	}
	out, err := apply(text, edits)
	if err != nil {
		return nil, err
	}
	return format.Source(out)
}
