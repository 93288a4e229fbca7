package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// libAPI is the record of testdata/repo: its lib module, without the
// internal package, the command and the unpublished bench module.
var libAPI = []string{
	"pkg example.com/lib, const A Kind = 0",
	"pkg example.com/lib, const B Kind = 1",
	"pkg example.com/lib, const Max untyped int = 10",
	"pkg example.com/lib, func New[T comparable](string, ...func(*Queue[T])) *Queue[T]",
	"pkg example.com/lib, func Pair(func(a int) string) (int, error)",
	"pkg example.com/lib, method (*Queue[T]) Add(T)",
	"pkg example.com/lib, method (Queue[T]) Len() int",
	"pkg example.com/lib, type Alias = time.Duration",
	"pkg example.com/lib, type Clock interface { Now, unexported methods }",
	"pkg example.com/lib, type Clock interface, Now() time.Time",
	"pkg example.com/lib, type Generic[T comparable] = Queue[T]",
	"pkg example.com/lib, type Kind uint8",
	"pkg example.com/lib, type Queue[T comparable] struct",
	"pkg example.com/lib, type Queue[T comparable] struct, Limit int // experimental",
	"pkg example.com/lib, type Queue[T comparable] struct, Name string",
	"pkg example.com/lib, type Queue[T comparable] struct, embedded time.Duration",
	"pkg example.com/lib, type Snap struct // experimental",
	"pkg example.com/lib, type Snap struct, N int // experimental",
	"pkg example.com/lib, var ErrX error",
	"pkg example.com/lib/sub, func F() // experimental",
}

// repo copies testdata/repo into a temporary directory, with a release
// record of v0.1.0 made from libAPI and the changelog given.
func repo(t *testing.T, changelog string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/repo")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "api", "v0.1.0.txt"), "# v0.1.0\n"+strings.Join(libAPI, "\n")+"\n")
	write(t, filepath.Join(root, "api", "next.txt"), "")
	write(t, filepath.Join(root, "CHANGELOG.md"), changelog)
	return root
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
}

// replace replaces old by new in the file at path, which must hold old.
func replace(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not hold %q", path, old)
	}
	write(t, path, strings.Replace(string(b), old, new, 1))
}

func TestLoad(t *testing.T) {
	got, err := load("testdata/repo/lib")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, libAPI) {
		t.Errorf("load() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(libAPI, "\n"))
	}
	for _, f := range got {
		if name := nameOf(f); name == "" || strings.ContainsAny(name, " ([") {
			t.Errorf("nameOf(%q) = %q; want a name", f, name)
		}
	}
}

func TestNameOf(t *testing.T) {
	for f, want := range map[string]string{
		"pkg example.com/lib, const Max untyped int = 10":                                  "lib.Max",
		"pkg example.com/lib, var ErrX error":                                              "lib.ErrX",
		"pkg example.com/lib, func New[T comparable](string) *Queue[T]":                    "lib.New",
		"pkg example.com/lib, method (*Queue[T]) Add(T)":                                   "Queue.Add",
		"pkg example.com/lib, method (Queue[T]) Len() int":                                 "Queue.Len",
		"pkg example.com/lib, type Queue[T comparable] struct":                             "lib.Queue",
		"pkg example.com/lib, type Queue[T comparable] struct, Limit int // experimental":  "Queue.Limit",
		"pkg example.com/lib, type Queue[T comparable] struct, embedded time.Duration":     "Queue.Duration",
		"pkg example.com/lib, type Queue[T comparable] struct, embedded *Inner":            "Queue.Inner",
		"pkg example.com/lib, type Clock interface { Now, unexported methods }":            "lib.Clock",
		"pkg example.com/lib, type Clock interface, Now() time.Time":                       "Clock.Now",
		"pkg example.com/lib, type Alias = time.Duration":                                  "lib.Alias",
		"pkg example.com/lib/sub, func F() // experimental":                                "sub.F",
		"pkg example.com/lib, type Generic[T comparable] = example.com/x.Queue[T]":         "lib.Generic",
		"pkg example.com/lib, type Opts struct, Hook func(a example.com/x.T, b int) error": "Opts.Hook",
	} {
		if got := nameOf(f); got != want {
			t.Errorf("nameOf(%q) = %q; want %q", f, got, want)
		}
	}
}

func TestMentions(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"- `Queue.Add` takes a context.", "Queue.Add", true},
		{"- `actor.Queue.Add` takes a context.", "Queue.Add", true},
		{"- Queue.Add, at last.", "Queue.Add", true},
		{"- `Queue.AddAfter` waits less.", "Queue.Add", false},
		{"- `MyQueue.Add` is new.", "Queue.Add", false},
		{"- `actor.New` takes options.", "actor.New", true},
		{"- `New` takes options.", "actor.New", false},
		{"- `actor.NewFoo` is new.", "actor.New", false},
	} {
		if got := mentions(c.text, c.name); got != c.want {
			t.Errorf("mentions(%q, %q) = %v; want %v", c.text, c.name, got, c.want)
		}
	}
}

// TestRun changes testdata/repo as a contributor would, and checks what
// apicheck says of each change.
func TestRun(t *testing.T) {
	const empty = "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-11-28\n\n- `lib.Queue.Rename` was here\n"
	for _, c := range []struct {
		name      string
		changelog string
		change    func(t *testing.T, root string)
		want      []string // substrings of the problems, one each, in order; none: clean
		wantNext  []string // api/next.txt after -w
	}{{
		name:      "no change",
		changelog: empty,
		change:    func(*testing.T, string) {},
	}, {
		name:      "added, recorded and named",
		changelog: strings.Replace(empty, "## [Unreleased]\n", "## [Unreleased]\n\n- `Queue.Peek` returns the head.\n", 1),
		change: func(t *testing.T, root string) {
			replace(t, filepath.Join(root, "lib/lib.go"), "// Add adds.", "// Peek peeks.\nfunc (q *Queue[T]) Peek() T { var z T; return z }\n\n// Add adds.")
		},
		wantNext: []string{"+ pkg example.com/lib, method (*Queue[T]) Peek() T"},
	}, {
		name:      "added, recorded, not named in the changelog",
		changelog: empty,
		change: func(t *testing.T, root string) {
			replace(t, filepath.Join(root, "lib/lib.go"), "// Add adds.", "// Peek peeks.\nfunc (q *Queue[T]) Peek() T { var z T; return z }\n\n// Add adds.")
		},
		want:     []string{"does not name `Queue.Peek`"},
		wantNext: []string{"+ pkg example.com/lib, method (*Queue[T]) Peek() T"},
	}, {
		name:      "stable name renamed",
		changelog: strings.Replace(empty, "## [Unreleased]\n", "## [Unreleased]\n\n- `Queue.Append` replaces `Queue.Add`.\n", 1),
		change: func(t *testing.T, root string) {
			replace(t, filepath.Join(root, "lib/lib.go"), "func (q *Queue[T]) Add(", "func (q *Queue[T]) Append(")
		},
		want: []string{"incompatible change to a stable name, released in v0.1.0 (only a feature marked Experimental may change or go): pkg example.com/lib, method (*Queue[T]) Add(T)"},
		wantNext: []string{
			"- pkg example.com/lib, method (*Queue[T]) Add(T)",
			"+ pkg example.com/lib, method (*Queue[T]) Append(T)",
		},
	}, {
		name:      "experimental field changed and named",
		changelog: strings.Replace(empty, "## [Unreleased]\n", "## [Unreleased]\n\n- `Queue.Limit` is an int64.\n", 1),
		change: func(t *testing.T, root string) {
			replace(t, filepath.Join(root, "lib/lib.go"), "Limit  int", "Limit  int64")
		},
		wantNext: []string{
			"- pkg example.com/lib, type Queue[T comparable] struct, Limit int // experimental",
			"+ pkg example.com/lib, type Queue[T comparable] struct, Limit int64 // experimental",
		},
	}, {
		name:      "a method added to a stable interface",
		changelog: strings.Replace(empty, "## [Unreleased]\n", "## [Unreleased]\n\n- `Clock.Since` and `lib.Clock`.\n", 1),
		change: func(t *testing.T, root string) {
			replace(t, filepath.Join(root, "lib/lib.go"), "\tNow() time.Time\n", "\tNow() time.Time\n\tSince(time.Time) time.Duration\n")
		},
		want: []string{"incompatible change to a stable name"},
		wantNext: []string{
			"- pkg example.com/lib, type Clock interface { Now, unexported methods }",
			"+ pkg example.com/lib, type Clock interface { Now, Since, unexported methods }",
			"+ pkg example.com/lib, type Clock interface, Since(time.Time) time.Duration",
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			root := repo(t, c.changelog)
			c.change(t, root)
			if c.wantNext != nil { // unrecorded: the check names each line
				problems, err := run(root, false)
				if err != nil {
					t.Fatal(err)
				}
				if len(problems) != 1+len(c.wantNext) || !strings.Contains(problems[0], "does not record") {
					t.Fatalf("check before -w: %q; want the %d lines not recorded", problems, len(c.wantNext))
				}
			}
			problems, err := run(root, true)
			if err != nil {
				t.Fatal(err)
			}
			next, err := readLines(filepath.Join(root, "api", "next.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(next, c.wantNext) {
				t.Errorf("api/next.txt = %q; want %q", next, c.wantNext)
			}
			if len(problems) != len(c.want) {
				t.Fatalf("problems = %q; want %d: %q", problems, len(c.want), c.want)
			}
			for i, p := range problems {
				if !strings.Contains(p, c.want[i]) {
					t.Errorf("problem %d = %q; want it to say %q", i, p, c.want[i])
				}
			}
		})
	}
}
