package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/semver"
)

// lastRelease returns the lines of the newest release record in dir
// (api/vX.Y.Z.txt) and its version.
func lastRelease(dir string) ([]string, string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "v*.txt"))
	if err != nil {
		return nil, "", err
	}
	newest := ""
	for _, f := range files {
		v := strings.TrimSuffix(filepath.Base(f), ".txt")
		if semver.IsValid(v) && (newest == "" || semver.Compare(v, newest) > 0) {
			newest = v
		}
	}
	if newest == "" {
		return nil, "", fmt.Errorf("no release record (vX.Y.Z.txt) in %s", dir)
	}
	lines, err := readLines(filepath.Join(dir, newest+".txt"))
	return lines, newest, err
}

// readLines returns the lines of a record file, without blank lines and
// comments (lines that begin with #).
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		if l := s.Text(); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines, s.Err()
}

// writeNext writes the changes since the release version to path.
func writeNext(path, version string, changes []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The API's changes since %s: \"+ \" a feature added, \"- \" one removed.\n", version)
	b.WriteString("# Written by `cd tools && go run ./apicheck -w`; each name needs a line in CHANGELOG.md's Unreleased section.\n")
	for _, l := range changes {
		b.WriteString(l + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o666)
}

// diff returns the changes from the sorted features old to the sorted
// features new: "- " lines for the features only old has, then "+ " lines
// for those only new has, each in order.
func diff(old, new []string) []string {
	var out []string
	for _, l := range missing(old, new) {
		out = append(out, "- "+l)
	}
	for _, l := range missing(new, old) {
		out = append(out, "+ "+l)
	}
	return out
}

// missing returns the lines of a that b does not have, in a's order.
func missing(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, l := range b {
		in[l] = true
	}
	var out []string
	for _, l := range a {
		if !in[l] {
			out = append(out, l)
		}
	}
	return out
}

func equal(a, b []string) bool { return slices.Equal(a, b) }

// unreleased returns the Unreleased section of a Keep a Changelog file:
// the text after the heading "## [Unreleased]" up to the next "## "
// heading.
func unreleased(changelog string) string {
	_, rest, ok := strings.Cut(changelog, "\n## [Unreleased]")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// nameOf returns the name a CHANGELOG line must give for a feature: the
// package's last path element and the name (actor.New), or for a field or
// method the type and the member (Queue.Add).
func nameOf(f feature) string {
	f = strings.TrimSuffix(f, experimentalMark)
	path, decl, _ := strings.Cut(strings.TrimPrefix(f, "pkg "), ", ")
	pkg := path[strings.LastIndex(path, "/")+1:]
	kind, rest, _ := strings.Cut(decl, " ")
	switch kind {
	case "method": // method (*Queue[T]) Add(T)
		recv, m, _ := strings.Cut(strings.TrimPrefix(rest, "("), ") ")
		return baseName(strings.TrimPrefix(recv, "*")) + "." + baseName(m)
	case "type":
		// type Config[T comparable] struct, Name string
		// type Clock interface, Now() time.Time
		name := baseName(rest)
		if head, member, ok := strings.Cut(rest, " struct, "); ok && !strings.Contains(head, "{") {
			member = strings.TrimLeft(strings.TrimPrefix(member, "embedded "), "*")
			if i := strings.LastIndex(baseName(member), "."); i >= 0 {
				member = member[i+1:] // an embedded type of another package
			}
			return name + "." + baseName(member)
		}
		if head, member, ok := strings.Cut(rest, " interface, "); ok && !strings.Contains(head, "{") {
			return name + "." + baseName(member)
		}
		return pkg + "." + name
	}
	return pkg + "." + baseName(rest) // const, var, func
}

// baseName returns the identifier s begins with.
func baseName(s string) string {
	if i := strings.IndexAny(s, "[( ="); i >= 0 {
		return s[:i]
	}
	return s
}

// mentions reports whether text names name, as a whole word: `Queue.Add`
// or `actor.Queue.Add` names Queue.Add, and Queue.AddAfter does not.
func mentions(text, name string) bool {
	re := regexp.MustCompile(`(^|[^\w.])(\w+\.)?` + regexp.QuoteMeta(name) + `($|[^\w])`)
	return re.MatchString(text)
}
