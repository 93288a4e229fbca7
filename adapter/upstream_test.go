package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/actorq/actorq/adapter/internal/upstream"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestClientGoSuite runs client-go's own util/workqueue tests against the
// adapter, one subtest per upstream test, so that
//
//	go test -run 'TestClientGoSuite/TestQueueDrainageUsingShutDownWithDrain'
//
// runs and reports that one test.
//
// The tests are taken from the module cache at test time, from the
// client-go version the adapter requires, and never copied into this
// repository. They are rewritten (see clientGoFiles) into a temporary
// module with the adapter's requirements, go.sum and replace directives,
// plus one that points the adapter at this directory, and built there
// once with "go test -c" (with -race when this test binary has it). Each
// upstream test then runs in a process of its own, with its own
// -test.timeout, in parallel subtests, so that a test that hangs ends in a
// timeout panic with its goroutines dumped and leaves the others their
// results. Its output goes through go tool test2json, as with go test
// -json. A subtest fails with the upstream test's output if that test
// failed, panicked, timed out, or did not report a result.
//
// Any change in client-go's test files that the rewriting does not expect
// (a new file, a new test in a left-out file, a listed name that is gone)
// fails the whole suite: a new client-go version must be looked at, not
// half-run in silence.
//
// The suite needs the go command and, when the module cache is cold, the
// module proxy. It is skipped only under -short.
func TestClientGoSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds client-go's workqueue tests in a temporary module and runs them; skipped under -short")
	}

	ctx := upstream.Context(t) // shared by the build and every run
	s, err := buildClientGoSuite(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client-go %s: %d tests built from %s (race detector: %v)", s.version, len(s.tests), s.src, s.race)
	for _, f := range s.leftOut {
		t.Logf("left out: %s", f)
	}

	for _, name := range s.tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s.run(ctx, t, name)
		})
	}
}

// TestClientGoSuiteRejectsChanges checks that the rewriting fails, rather
// than running less, when client-go's test files change in ways
// clientGoFiles does not cover. It edits copies of the files in a
// temporary directory and builds nothing.
func TestClientGoSuiteRejectsChanges(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to find client-go's tests: %v", err)
	}
	adapterDir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	s := &clientGoSuite{goTool: goTool}
	version, src, err := s.locateClientGo(t.Context(), adapterDir)
	if err != nil {
		t.Fatal(err)
	}
	const adapterPath = "github.com/actorq/actorq/adapter"
	if tests, _, err := generateClientGoTests(src, t.TempDir(), adapterPath, version); err != nil || len(tests) == 0 {
		t.Fatalf("generateClientGoTests(client-go's own files) = %d tests, %v; want tests and no error", len(tests), err)
	}

	for _, tc := range []struct {
		name, file string
		edit       func(string) string // nil removes the file
		want       string
	}{
		{"NewFile", "new_test.go", func(string) string { return "package workqueue\n" }, "new_test.go"},
		{"FileGone", "rate_limiting_queue_test.go", nil, "has no rate_limiting_queue_test.go"},
		{"TestInLeftOutFile", "metrics_test.go",
			func(s string) string { return s + "\nfunc TestNew(t *testing.T) {}\n" }, "TestNew"},
		{"SubstitutedFuncGone", "delaying_queue_test.go",
			func(s string) string { return strings.ReplaceAll(s, "waitForWaitingQueueToFill", "waitForIt") }, "no function waitForWaitingQueueToFill"},
		{"ImportGone", "queue_test.go",
			func(s string) string {
				return strings.Replace(s, `"k8s.io/client-go/util/workqueue"`, `"k8s.io/client-go/util/workqueue/v2"`, 1)
			}, "workqueue/v2"},
		{"Example", "queue_test.go",
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
			_, _, err = generateClientGoTests(dir, t.TempDir(), adapterPath, version)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("generateClientGoTests = %v; want an error naming %q", err, tc.want)
			}
		})
	}
}

// clientGoFile says what TestClientGoSuite does with one of client-go's
// util/workqueue test files. Every *_test.go file of that directory must
// have an entry in clientGoFiles.
type clientGoFile struct {
	// leftOut, if not empty, names every test the file declares: the file
	// is not built, and reason says why. A test the file declares and
	// leftOut does not name, or the other way round, fails the suite.
	leftOut []string
	reason  string

	// substitute maps the name of a top-level function of the file to the
	// block that replaces its body, with the reason in a comment inside
	// the block. Nothing else in the file changes, apart from its imports.
	substitute map[string]string
}

// clientGoFiles covers client-go v0.37's util/workqueue tests.
//
// queue_test.go is client-go's external test package: its import of
// client-go's workqueue becomes an import of the adapter under the same
// name. The other files are client-go's internal tests, package workqueue;
// they are built as they are, in a package named workqueue that
// dot-imports the adapter, so that they see the adapter's exported names
// where they used client-go's and fail to compile if they use anything
// unexported. Internal and external files are built together, as
// client-go builds them.
var clientGoFiles = map[string]clientGoFile{
	"queue_test.go":                 {},
	"default_rate_limiters_test.go": {},
	"parallelizer_test.go":          {},

	// The four delaying tests use only the exported API, except their
	// helper waitForWaitingQueueToFill, which polls the length of
	// client-go's unexported channel delayingType.waitingForAddCh until
	// the waiting loop has taken the AddAfter requests made so far. The
	// adapter's equivalent is one Len call: Len returns only once the
	// queue's goroutine has applied every earlier call of its caller,
	// AddAfter included (ARCHITECTURE.md, "Three layers"). That one body is
	// substituted; the tests run as written.
	"delaying_queue_test.go": {substitute: map[string]string{
		"waitForWaitingQueueToFill": `{
	// Substituted by actorq's TestClientGoSuite for client-go's poll of
	// its unexported waitingForAddCh: Len returns once the queue's
	// goroutine has applied this goroutine's earlier AddAfter calls.
	q.Len()
	return nil
}`,
	}},

	"metrics_test.go": {
		leftOut: []string{"TestMetricShutdown", "TestMetrics"},
		reason: "both build their queue with client-go's unexported newQueue or newQueueWithConfig, " +
			"to pass an unexported queueMetrics (TestMetricShutdown counts calls of its internal " +
			"updateUnfinishedWork) and a 1 ms update period instead of the exported constructors' 500 ms; " +
			"compattest checks the metrics' values on client-go and the adapter alike",
	},
	"rate_limiting_queue_test.go": {
		leftOut: []string{"TestRateLimitingQueue"},
		reason: "builds client-go's unexported delayingType by hand and reads each delay off its " +
			"unexported waitingForAddCh; the limiters' delays are checked by default_rate_limiters_test.go " +
			"here, and AddRateLimited, NumRequeues and Forget by compattest on both implementations",
	},
}

// clientGoSuite is client-go's workqueue tests, generated and built.
type clientGoSuite struct {
	version string   // client-go's module version
	src     string   // client-go's util/workqueue directory in the module cache
	race    bool     // whether the tests were built with -race
	tests   []string // the upstream tests built, in file and declaration order
	leftOut []string // "file: tests: reason", for the log
	dir     string   // the temporary module
	bin     string   // the test binary
	goTool  string   // the go command
}

// genPackage is the import path of the generated package.
const genPackage = "upstream.invalid/workqueue"

// buildClientGoSuite generates client-go's tests into a module in dir and
// builds them.
func buildClientGoSuite(ctx context.Context, dir string) (*clientGoSuite, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build client-go's tests: %v", err)
	}
	adapterDir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	s := &clientGoSuite{dir: dir, goTool: goTool, race: upstream.RaceEnabled()}

	if s.version, s.src, err = s.locateClientGo(ctx, adapterDir); err != nil {
		return nil, err
	}
	adapterPath, err := writeModule(ctx, s, adapterDir, dir)
	if err != nil {
		return nil, err
	}
	s.tests, s.leftOut, err = generateClientGoTests(s.src, dir, adapterPath, s.version)
	if err != nil {
		return nil, err
	}

	s.bin = filepath.Join(dir, "workqueue.test")
	if runtime.GOOS == "windows" {
		s.bin += ".exe"
	}
	args := []string{"test", "-c", "-mod=mod", "-o", s.bin}
	if s.race {
		args = append(args, "-race")
	}
	if _, err := s.goCmd(ctx, dir, append(args, ".")...); err != nil {
		return nil, fmt.Errorf("building client-go's tests against the adapter: %v", err)
	}

	// The binary must hold exactly the tests found in the sources.
	cmd := exec.CommandContext(ctx, s.bin, "-test.list", "^Test")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the built tests: %v", err)
	}
	built := strings.Fields(string(out))
	if !slices.Equal(slices.Sorted(slices.Values(built)), slices.Sorted(slices.Values(s.tests))) {
		return nil, fmt.Errorf("the test binary lists %v; the sources declare %v", built, s.tests)
	}
	return s, nil
}

// locateClientGo returns the version of client-go the adapter in
// adapterDir builds with, and its util/workqueue directory in the module
// cache.
func (s *clientGoSuite) locateClientGo(ctx context.Context, adapterDir string) (version, src string, err error) {
	out, err := s.goCmd(ctx, adapterDir, "list", "-m", "-json", "k8s.io/client-go")
	if err != nil {
		return "", "", err
	}
	var cg struct{ Version, Dir string }
	if err := json.Unmarshal(out, &cg); err != nil {
		return "", "", fmt.Errorf("go list -m -json k8s.io/client-go: %v\n%s", err, out)
	}
	if cg.Dir == "" {
		return "", "", fmt.Errorf("client-go %s is not in the module cache (run go mod download in %s)", cg.Version, adapterDir)
	}
	return cg.Version, filepath.Join(cg.Dir, "util", "workqueue"), nil
}

// goCmd runs the go command in dir (see upstream.Go.Run).
func (s *clientGoSuite) goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return upstream.Go{Tool: s.goTool}.Run(ctx, dir, args...)
}

// run runs the upstream test name in a process of its own and reports its
// result on t.
func (s *clientGoSuite) run(ctx context.Context, t *testing.T, name string) {
	upstream.Suite{Go: upstream.Go{Tool: s.goTool}, Bin: s.bin, Dir: s.dir, Pkg: genPackage, Upstream: "client-go"}.
		Run(ctx, t, name, name, nil, upstream.PerTest, nil)
}
