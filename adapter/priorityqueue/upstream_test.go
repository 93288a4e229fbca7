package priorityqueue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/actorq/actorq/adapter/internal/upstream"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
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
	ctx := upstream.Context(t) // shared by the build and every run

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
			s.run(ctx, t, tc)
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
	s := &crSuite{dir: dir, goTool: goTool, race: upstream.RaceEnabled()}
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

// goCmd runs the go command in dir (see upstream.Go.Run).
func (s *crSuite) goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return upstream.Go{Tool: s.goTool}.Run(ctx, dir, args...)
}

// writeCRModule writes go.mod and go.sum into dir for a module that builds
// against the adapter module in moduleDir exactly as its own tests do
// (see upstream.Go.WriteModule), and returns the adapter module's path.
func writeCRModule(ctx context.Context, s *crSuite, moduleDir, dir string) (string, error) {
	return upstream.Go{Tool: s.goTool}.WriteModule(ctx, moduleDir, dir, crGenPackage, "TestControllerRuntimeSuite")
}

// run runs the upstream test or spec tc in a process of its own and
// reports its result on t. A spec runs its test function with a ginkgo
// focus, which must select exactly that spec.
func (s *crSuite) run(ctx context.Context, t *testing.T, tc crTest) {
	var extra []string
	var passed func(string) error
	if tc.spec != "" {
		// ginkgo matches the focus against the suite's description, a
		// space, and the spec's full text.
		extra = []string{"-ginkgo.focus= " + regexp.QuoteMeta(tc.spec) + "$", "-ginkgo.no-color"}
		passed = func(output string) error {
			if !strings.Contains(output, "Ran 1 of ") {
				return errors.New("the focus did not run exactly one spec")
			}
			return nil
		}
	}
	upstream.Suite{Go: upstream.Go{Tool: s.goTool}, Bin: s.bin, Dir: s.dir, Pkg: crGenPackage, Upstream: "controller-runtime"}.
		Run(ctx, t, tc.name(), tc.fn, extra, upstream.PerTest, passed)
}
