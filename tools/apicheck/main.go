// Command apicheck keeps actorq's stability promise: it compares the
// exported API of every published module with the checked-in record in
// api/, and fails when they differ in a way the record and CHANGELOG.md
// do not say.
//
//	cd tools && go run ./apicheck        # check (CI runs this)
//	cd tools && go run ./apicheck -w     # rewrite api/next.txt from the code
//
// The record is the Go project's, kept per release:
//
//   - api/vX.Y.Z.txt is the whole API of release vX.Y.Z, one feature per
//     line (see feature). scripts/release.sh writes it from the newest
//     record and api/next.txt, and empties api/next.txt.
//   - api/next.txt is what changed since the newest of them: "+ " and a
//     feature added, "- " and a feature removed (a changed feature is one
//     of each).
//
// The check fails when
//
//   - api/next.txt is not exactly the difference between the newest
//     release record and the code (-w rewrites it: the diff then shows
//     the change for review);
//   - a feature removed or changed was stable in the last release: an
//     incompatible change to a stable name, which no v0 or v1 release may
//     make (only features marked experimental may change);
//   - a feature added, removed or changed is not named in CHANGELOG.md's
//     Unreleased section: a method or field as Type.Name (`Queue.Add`),
//     anything else as package.Name (`actor.New`).
//
// Every module with a go.mod under the repository is published, except
// those in unpublished: their packages are no API.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// unpublished are the module directories whose API is promised to no one.
var unpublished = map[string]string{
	"bench": "benchmarks of actorq against client-go and controller-runtime, not imported by users",
	"tools": "this command",
}

func main() {
	root := flag.String("root", "..", "the repository's root")
	write := flag.Bool("w", false, "rewrite api/next.txt from the code instead of checking it")
	flag.Parse()
	problems, err := run(*root, *write)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicheck:", err)
		os.Exit(2)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		os.Exit(1)
	}
}

// run checks the repository at root, or with write rewrites its
// api/next.txt first, and returns what is wrong.
func run(root string, write bool) ([]string, error) {
	dirs, err := modules(root)
	if err != nil {
		return nil, err
	}
	var current []feature
	for _, dir := range dirs {
		fs, err := load(dir)
		if err != nil {
			return nil, err
		}
		current = append(current, fs...)
	}
	sort.Strings(current)
	base, version, err := lastRelease(filepath.Join(root, "api"))
	if err != nil {
		return nil, err
	}
	return checkChanges(root, version, diff(base, current), write)
}

// checkChanges checks want, the changes the code makes since the release
// version, against api/next.txt (rewritten first, with write) and
// CHANGELOG.md under root.
func checkChanges(root, version string, want []string, write bool) ([]string, error) {
	nextPath := filepath.Join(root, "api", "next.txt")
	if write {
		if err := writeNext(nextPath, version, want); err != nil {
			return nil, err
		}
	}
	next, err := readLines(nextPath)
	if err != nil {
		return nil, err
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return nil, err
	}
	return check(version, want, next, unreleased(string(changelog))), nil
}

// check returns what is wrong with next, the changes recorded since the
// release version, given want, the changes the code makes, and the text
// of CHANGELOG.md's Unreleased section.
func check(version string, want, next []string, changelog string) []string {
	var problems []string
	if !equal(want, next) {
		problems = append(problems, fmt.Sprintf("api/next.txt does not record the API's changes since %s (run `cd tools && go run ./apicheck -w`, then add a CHANGELOG.md line for each):", version))
		for _, l := range missing(want, next) {
			problems = append(problems, "\tnot recorded: "+l)
		}
		for _, l := range missing(next, want) {
			problems = append(problems, "\trecorded, not in the code: "+l)
		}
		return problems
	}
	named := map[string]bool{}
	for _, l := range next {
		f := l[2:]
		if l[0] == '-' && !strings.HasSuffix(f, experimentalMark) {
			problems = append(problems, fmt.Sprintf("incompatible change to a stable name, released in %s (only a feature marked Experimental may change or go): %s", version, f))
		}
		name := nameOf(f)
		if !named[name] && !mentions(changelog, name) {
			problems = append(problems, fmt.Sprintf("CHANGELOG.md's Unreleased section does not name `%s`, which changed: %s", name, l))
		}
		named[name] = true
	}
	return problems
}

// modules returns the directories of the published modules under root.
func modules(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			if _, skip := unpublished[filepath.ToSlash(rel)]; skip {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	return dirs, err
}
