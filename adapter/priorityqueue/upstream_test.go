package priorityqueue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestControllerRuntimeSuite runs controller-runtime's own priorityqueue
// tests against this package, one subtest per upstream test, and one per
// spec of its ginkgo suite (TestControllerWorkqueue/<spec>), so that
//
//	go test -run 'TestControllerRuntimeSuite/TestFuzzPriorityQueue'
//
// runs and reports that one test.
//
// The tests are taken from the module cache at test time, from the
// controller-runtime version this module requires, and never copied into
// this repository. They are rewritten (see crFiles) into a temporary
// module, in a package named priorityqueue whose one non-test file makes
// this package's names its own (New, Opts, Opt, AddOpts, PriorityQueue are
// aliases or one-line forwards), and built there once with "go test -c"
// (with -race when this test binary has it). Each upstream test, and each
// ginkgo spec (run with -ginkgo.focus, checking that exactly one ran), then
// runs in a process of its own with its own -test.timeout, in parallel
// subtests. A subtest fails with the upstream output if the test failed,
// panicked, timed out, or did not report a result.
//
// Most of the upstream tests build their queue with controller-runtime's
// unexported newQueue or newQueueWithTimeForwarder; their bodies are
// substituted (see crFiles) with the same construction on this package,
// without the internal validators, and the time forwarder becomes a sleep
// in the test's synctest bubble. Tests and specs that read or replace the
// queue's internals, and the one spec that asserts an intended difference,
// are left out, each named with its reason. Any change in the upstream
// files that the rewriting does not expect fails the whole suite.
//
// The suite needs the go command and, when the module cache is cold, the
// module proxy. It is skipped under -short.
func TestControllerRuntimeSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-runtime's priorityqueue tests in a temporary module and runs them; skipped under -short")
	}
	const suiteTimeout, perTest = 5 * time.Minute, time.Minute
	deadline := time.Now().Add(suiteTimeout)
	if d, ok := t.Deadline(); ok && d.Add(-10*time.Second).Before(deadline) {
		deadline = d.Add(-10 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel) // not defer: the parallel subtests run after this function returns

	s, err := buildCRSuite(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("controller-runtime %s: %d tests and specs built from %s (race detector: %v)", s.version, len(s.tests), s.src, s.race)
	for _, l := range s.leftOut {
		t.Logf("left out: %s", l)
	}
	for _, tc := range s.tests {
		t.Run(tc.name(), func(t *testing.T) {
			t.Parallel()
			s.run(ctx, t, tc, perTest)
		})
	}
}

// crTest is one upstream test to run: a test function, or one spec of the
// ginkgo suite that the test function runs.
type crTest struct {
	fn   string // the test function
	spec string // the spec's full text, or "" for a plain test
}

func (c crTest) name() string {
	if c.spec == "" {
		return c.fn
	}
	return c.fn + "/" + c.spec
}

// run runs the upstream test tc in a process of its own and reports its
// result on t.
func (s *crSuite) run(ctx context.Context, t *testing.T, tc crTest, timeout time.Duration) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = time.Until(d)
	}
	if timeout <= 0 {
		t.Fatalf("controller-runtime's %s did not run: the suite's deadline has passed", tc.name())
	}
	args := []string{
		"-test.v=test2json",
		"-test.run=^" + regexp.QuoteMeta(tc.fn) + "$",
		"-test.count=1",
		"-test.timeout=" + timeout.String(),
		"-test.paniconexit0",
	}
	if tc.spec != "" {
		// ginkgo matches the focus against the suite's description, a
		// space, and the spec's full text.
		args = append(args, "-ginkgo.focus= "+regexp.QuoteMeta(tc.spec)+"$", "-ginkgo.no-color")
	}
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Dir = s.dir
	var raw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &raw, &raw
	cmd.WaitDelay = 10 * time.Second
	runErr := cmd.Run()

	result, output, err := s.parse(ctx, tc.fn, raw.Bytes())
	if err != nil {
		t.Fatalf("controller-runtime's %s (%v): %v\nraw output:\n%s", tc.name(), exitText(runErr), err, raw.Bytes())
	}
	if tc.spec != "" && result == "pass" && !strings.Contains(output, "Ran 1 of ") {
		t.Fatalf("controller-runtime's %s: the focus did not run exactly one spec:\n%s", tc.name(), output)
	}
	switch {
	case result == "pass" && runErr == nil:
	case result == "skip" && runErr == nil:
		t.Skipf("controller-runtime's %s skipped itself:\n%s", tc.name(), output)
	case result == "fail":
		t.Errorf("controller-runtime's %s failed against the adapter:\n%s", tc.name(), output)
	case ctx.Err() != nil:
		t.Errorf("controller-runtime's %s was killed at the suite's deadline (%v):\n%s", tc.name(), exitText(runErr), output)
	default:
		t.Errorf("controller-runtime's %s reported %q and its process ended with %s (a panic, a timeout after %v, or a crash):\n%s",
			tc.name(), result, exitText(runErr), timeout, output)
	}
}

// crSuite is controller-runtime's priorityqueue tests, generated and built.
type crSuite struct {
	version string   // controller-runtime's module version
	src     string   // its pkg/controller/priorityqueue directory in the module cache
	race    bool     // whether the tests were built with -race
	tests   []crTest // the upstream tests and specs built
	leftOut []string // "file: name: reason", for the log
	dir     string   // the temporary module
	bin     string   // the test binary
	goTool  string   // the go command
}

// crGenPackage is the import path of the generated package.
const crGenPackage = "upstream.invalid/priorityqueue"

// buildCRSuite generates controller-runtime's tests into a module in dir
// and builds them.
func buildCRSuite(ctx context.Context, dir string) (*crSuite, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build controller-runtime's tests: %v", err)
	}
	pkgDir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	moduleDir := filepath.Dir(pkgDir) // this package is at the adapter module's root + /priorityqueue
	s := &crSuite{dir: dir, goTool: goTool, race: raceEnabled()}
	if s.version, s.src, err = s.locate(ctx, moduleDir); err != nil {
		return nil, err
	}
	modulePath, err := writeCRModule(ctx, s, moduleDir, dir)
	if err != nil {
		return nil, err
	}
	s.tests, s.leftOut, err = generateCRTests(s.src, dir, modulePath+"/priorityqueue", s.version)
	if err != nil {
		return nil, err
	}

	s.bin = filepath.Join(dir, "priorityqueue.test")
	if runtime.GOOS == "windows" {
		s.bin += ".exe"
	}
	args := []string{"test", "-c", "-mod=mod", "-o", s.bin}
	if s.race {
		args = append(args, "-race")
	}
	if _, err := s.goCmd(ctx, dir, append(args, ".")...); err != nil {
		return nil, fmt.Errorf("building controller-runtime's tests against the adapter: %v", err)
	}

	// The binary must hold exactly the test functions found in the sources.
	cmd := exec.CommandContext(ctx, s.bin, "-test.list", "^Test")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the built tests: %v", err)
	}
	var want []string
	for _, tc := range s.tests {
		if !slices.Contains(want, tc.fn) {
			want = append(want, tc.fn)
		}
	}
	built := strings.Fields(string(out))
	if !slices.Equal(slices.Sorted(slices.Values(built)), slices.Sorted(slices.Values(want))) {
		return nil, fmt.Errorf("the test binary lists %v; the sources declare %v", built, want)
	}
	return s, nil
}

// locate returns the version of controller-runtime the module in
// moduleDir builds with, and its priorityqueue directory in the module
// cache.
func (s *crSuite) locate(ctx context.Context, moduleDir string) (version, src string, err error) {
	out, err := s.goCmd(ctx, moduleDir, "list", "-m", "-json", "sigs.k8s.io/controller-runtime")
	if err != nil {
		return "", "", err
	}
	var m struct{ Version, Dir string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", "", fmt.Errorf("go list -m -json sigs.k8s.io/controller-runtime: %v\n%s", err, out)
	}
	if m.Dir == "" {
		return "", "", fmt.Errorf("controller-runtime %s is not in the module cache (run go mod download in %s)", m.Version, moduleDir)
	}
	return m.Version, filepath.Join(m.Dir, "pkg", "controller", "priorityqueue"), nil
}

// parse turns a test process's output into events with go tool test2json
// and returns the final action reported for the test fn ("pass", "fail",
// "skip", or "" if there is none) and the output of the process, unframed.
func (s *crSuite) parse(ctx context.Context, fn string, raw []byte) (result, output string, err error) {
	cmd := exec.CommandContext(ctx, s.goTool, "tool", "test2json", "-t", "-p", crGenPackage)
	cmd.Stdin = bytes.NewReader(raw)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	events, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go tool test2json: %v\n%s", err, stderr.Bytes())
	}
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(events))
	for {
		var ev struct{ Action, Test, Output string }
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", "", fmt.Errorf("decoding test2json's events: %v", err)
		}
		b.WriteString(ev.Output)
		if ev.Test == fn && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip") {
			result = ev.Action
		}
	}
	return result, b.String(), nil
}

// goCmd runs the go command in dir and returns its standard output, or an
// error with its standard error.
func (s *crSuite) goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.goTool, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%v (the suite's deadline has passed)", err)
		}
		return nil, fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	return out, nil
}

// writeCRModule writes go.mod and go.sum into dir for a module that builds
// against the adapter module in moduleDir exactly as its own tests do: its
// requirements and go.sum, its replace directives with relative paths made
// absolute, and a replace directive for the adapter module itself. It
// returns the adapter module's path. The go command adds what the
// upstream tests import beyond that (ginkgo, gomega, gofuzz) from the
// module graph, with -mod=mod.
func writeCRModule(ctx context.Context, s *crSuite, moduleDir, dir string) (string, error) {
	out, err := s.goCmd(ctx, moduleDir, "mod", "edit", "-json")
	if err != nil {
		return "", err
	}
	type version struct{ Path, Version string }
	var m struct {
		Module    struct{ Path string }
		Go        string
		Toolchain string
		Require   []version
		Replace   []struct{ Old, New version }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod edit -json in %s: %v", moduleDir, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Generated by TestControllerRuntimeSuite from %s.\n\n", filepath.Join(moduleDir, "go.mod"))
	fmt.Fprintf(&b, "module %s\n\ngo %s\n", crGenPackage, m.Go)
	if m.Toolchain != "" {
		fmt.Fprintf(&b, "\ntoolchain %s\n", m.Toolchain)
	}
	b.WriteString("\nrequire (\n")
	fmt.Fprintf(&b, "\t%s v0.0.0-00010101000000-000000000000\n", strconv.Quote(m.Module.Path))
	for _, r := range m.Require {
		fmt.Fprintf(&b, "\t%s %s\n", strconv.Quote(r.Path), r.Version)
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "replace %s => %s\n", strconv.Quote(m.Module.Path), strconv.Quote(moduleDir))
	for _, r := range m.Replace {
		old, repl := strconv.Quote(r.Old.Path), strconv.Quote(r.New.Path)
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		if r.New.Version != "" {
			repl += " " + r.New.Version
		} else if !filepath.IsAbs(r.New.Path) {
			repl = strconv.Quote(filepath.Join(moduleDir, r.New.Path))
		}
		fmt.Fprintf(&b, "replace %s => %s\n", old, repl)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), b.Bytes(), 0o644); err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(moduleDir, "go.sum"))
	if err != nil {
		return "", err
	}
	return m.Module.Path, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// exitText describes how a process ended.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestControllerRuntimeSuiteRejectsChanges checks that the rewriting
// fails, rather than running less, when controller-runtime's test files
// change in ways crFiles does not cover. It edits copies of the files in a
// temporary directory and builds nothing.
func TestControllerRuntimeSuiteRejectsChanges(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to find controller-runtime's tests: %v", err)
	}
	pkgDir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	s := &crSuite{goTool: goTool}
	version, src, err := s.locate(t.Context(), filepath.Dir(pkgDir))
	if err != nil {
		t.Fatal(err)
	}
	const pkgPath = "github.com/actorq/actorq/adapter/priorityqueue"
	if tests, _, err := generateCRTests(src, t.TempDir(), pkgPath, version); err != nil || len(tests) == 0 {
		t.Fatalf("generateCRTests(controller-runtime's own files) = %d tests, %v; want tests and no error", len(tests), err)
	}

	for _, tc := range []struct {
		name, file string
		edit       func(string) string // nil removes the file
		want       string
	}{
		{"NewFile", "new_test.go", func(string) string { return "package priorityqueue\n" }, "new_test.go"},
		{"FileGone", "metrics_test.go", nil, "has no metrics_test.go"},
		{"LeftOutTestGone", "priorityqueue_test.go",
			func(s string) string {
				return strings.ReplaceAll(s, "TestItemCloneCopiesAllFields", "TestItemCloneCopies")
			}, "TestItemCloneCopiesAllFields"},
		{"LeftOutSpecGone", "priorityqueue_test.go",
			func(s string) string { return strings.ReplaceAll(s, `It("de-duplicates items"`, `It("dedups items"`) }, "de-duplicates items"},
		{"SubstitutedFuncGone", "priorityqueue_test.go",
			func(s string) string { return strings.ReplaceAll(s, "newQueueWithTimeForwarder", "newQueueWithClock") }, "newQueueWithTimeForwarder"},
		{"InternalSelectorGone", "metrics_test.go",
			func(s string) string {
				return strings.ReplaceAll(s, "metrics.DepthMetricWithPriority", "workqueue.GaugeMetric")
			}, "metrics.DepthMetricWithPriority"},
		{"NestedContainer", "priorityqueue_test.go",
			func(s string) string {
				return strings.Replace(s, `	It("returns an item", func() {`, `	Context("nested", func() {})
	It("returns an item", func() {`, 1)
			}, "other than It"},
		{"Example", "priorityqueue_test.go",
			func(s string) string { return s + "\nfunc ExampleNew() {}\n" }, "ExampleNew"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := filepath.Glob(filepath.Join(src, "*_test.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				text, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), text, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, tc.file)
			if tc.edit == nil {
				err = os.Remove(path)
			} else {
				text, _ := os.ReadFile(path)
				err = os.WriteFile(path, []byte(tc.edit(string(text))), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = generateCRTests(dir, t.TempDir(), pkgPath, version)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("generateCRTests = %v; want an error naming %q", err, tc.want)
			}
		})
	}
}
