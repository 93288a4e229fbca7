#!/usr/bin/env bash
# release-check.sh proves that a module outside this repository can install
# the released modules, as a user would:
#
#   1. It clones the committed HEAD into a temporary directory and runs
#      scripts/release.sh there twice: the next release (v0.1.0, the first,
#      prepared in CHANGELOG.md and api/, if nothing is tagged yet; else
#      the next minor release), whose requirements the nested go.mod files
#      may already name, and the patch release after it, which must edit
#      and commit them; before each, it commits a CHANGELOG.md line if the
#      release has no section yet. It checks that each release dated its
#      CHANGELOG.md section and recorded its API (api/vX.Y.Z.txt), and that
#      release.sh refuses a malformed version, an existing tag, an empty
#      Unreleased section, a dirty tree and a patch release that changes
#      the API.
#   2. It builds a GOPROXY directory from the clone's tags, with a throwaway
#      Go program using golang.org/x/mod/zip (module zips as the go command
#      makes them: <module>@<version>/..., nested modules' directories left
#      out of the library's zip), and checks that each zip holds
#      <module>@<version>/LICENSE, the repository's LICENSE: the library's
#      from its root, each nested module's copied from the repository root
#      as the go command copies it for a module that has none of its own
#      (cmd/go/internal/modfetch/coderepo.go; zip.CreateFromVCS does the
#      same).
#   3. In another temporary directory it creates a user module that imports
#      github.com/actorq/actorq/adapter and .../actor, resolves them with
#      go get github.com/actorq/actorq/adapter@<the second version>, as a
#      user would, then vets, builds and runs it. The actorq modules come
#      from the file proxy only (the downloaded zips are compared with the
#      ones it built); client-go and the rest come from the local module
#      cache or the usual proxy. Then go mod download of every module at
#      that version must show the repository's LICENSE in its directory.
#
# Everything runs with a temporary GOMODCACHE, so the test versions never
# reach the real module cache (where they would shadow a real release of
# the same version); the real cache's download directory serves as a
# proxy, so a warm cache spares downloading client-go (the checksum
# database is still consulted). The temporary directories are removed at
# the end; the repository and its tags are not touched. No argument; run
# from anywhere. It takes about 20s with warm caches and 2-3 minutes with
# empty ones.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export PATH="/usr/local/go/bin:$PATH"
start=$SECONDS

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

realcache=$(go env GOMODCACHE)/cache/download
upstream=$(go env GOPROXY)
# -trimpath: without it, a package's build cache key holds its directory,
# which is in the temporary GOMODCACHE, so no run could reuse another's.
export GOMODCACHE=$tmp/modcache GOFLAGS="-modcacherw -trimpath" GOWORK=off GOTOOLCHAIN=local
export GOPRIVATE= GONOPROXY= GONOSUMDB=github.com/actorq
proxy=$tmp/proxy
export GOPROXY="file://$proxy,file://$realcache,$upstream"

echo "-- clone $(git log -1 --format='%h %s' HEAD) ($((SECONDS - start))s)"
clone=$tmp/repo
git -c advice.detachedHead=false clone -q --no-hardlinks "$repo" "$clone"
[ "$(git -C "$clone" rev-parse HEAD)" = "$(git rev-parse HEAD)" ] || { echo "the clone is not at HEAD"; exit 1; }
git -C "$clone" config user.name "actorq release check"
git -C "$clone" config user.email "release-check@actorq.invalid"

# next VERSION prints the patch release after VERSION, and minor the minor
# release after it.
next() {
	local v=${1#v}
	echo "v${v%.*}.$((${v##*.} + 1))"
}
minor() {
	local v=${1#v} major=${1#v}
	major=${major%%.*} v=${v#*.}
	echo "v$major.$((${v%%.*} + 1)).0"
}
last=$(git -C "$clone" tag --list --sort=-v:refname 'v*' | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | head -1 || true)
if [ -z "$last" ]; then
	first=v0.1.0 # prepared in CHANGELOG.md and api/v0.1.0.txt
else
	first=$(minor "$last") # a minor release may change the API
fi
second=$(next "$first")

# describe VERSION commits a line under CHANGELOG.md's Unreleased in the
# clone, unless the CHANGELOG has a section for VERSION already: a
# release must say what it changes.
describe() {
	grep -q "^## \[${1#v}\]" "$clone/CHANGELOG.md" && return
	sed -i "s/^## \[Unreleased\]\$/## [Unreleased]\n\n- The release check's $1./" "$clone/CHANGELOG.md"
	git -C "$clone" commit -qam "changelog: $1"
}

echo "-- release.sh $first and $second in the clone ($((SECONDS - start))s)"
describe "$first"
(cd "$clone" && ./scripts/release.sh "$first")
describe "$second"
(cd "$clone" && ./scripts/release.sh "$second")
for v in "$first" "$second"; do
	grep -q "^## \[${v#v}\] - $(date -u +%Y-%m-%d)\$" "$clone/CHANGELOG.md" ||
		{ echo "CHANGELOG.md has no dated section for $v"; exit 1; }
done
cmp <(grep -v '^#' "$clone/api/$first.txt") <(grep -v '^#' "$clone/api/$second.txt") ||
	{ echo "api/$second.txt is not api/$first.txt: the patch release changed no API"; exit 1; }
[ -z "$(grep -v '^#' "$clone/api/next.txt")" ] || { echo "api/next.txt is not empty after $second"; exit 1; }
echo "CHANGELOG.md dates $first and $second; api/$second.txt records the API"

# refuses WHAT ARGS... runs release.sh in the clone and fails unless it
# refuses, leaving the tags, HEAD and the work tree as they were.
refuses() {
	local what=$1 before after
	shift
	before=$(git -C "$clone" rev-parse HEAD; git -C "$clone" tag; git -C "$clone" status --porcelain)
	if (cd "$clone" && ./scripts/release.sh "$@") >"$tmp/refusal" 2>&1; then
		echo "release.sh $* did not refuse $what:"; cat "$tmp/refusal"; exit 1
	fi
	after=$(git -C "$clone" rev-parse HEAD; git -C "$clone" tag; git -C "$clone" status --porcelain)
	[ "$before" = "$after" ] || { echo "release.sh $* changed the clone while refusing $what"; exit 1; }
	echo "refuses $what: $(tail -1 "$tmp/refusal")"
}
refuses "a malformed version" "${second#v}"
refuses "a pre-release" "$second-rc.1"
refuses "an existing tag" "$second"
refuses "an empty Unreleased section" "$(next "$second")"
echo "junk" >"$clone/junk.txt"
refuses "a dirty tree" "$(next "$second")"
rm "$clone/junk.txt"
echo "+ pkg github.com/actorq/actorq/actor, func Extra()" >>"$clone/api/next.txt"
describe "$(next "$second")"
refuses "a patch release that changes the API" "$(next "$second")"
git -C "$clone" reset -q --hard "$second"

echo "-- file proxy from the clone's tags ($((SECONDS - start))s)"
mkdir "$tmp/mkproxy"
cat >"$tmp/mkproxy/main.go" <<'EOF'
// Command mkproxy REPO PROXY writes, under PROXY, a GOPROXY tree with every
// module version tagged in the git repository REPO: tag vX.Y.Z is the module
// whose go.mod is at the root, tag dir/vX.Y.Z the one in dir.
package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	log.SetFlags(0)
	repo, out := os.Args[1], os.Args[2]
	versions := map[string][]string{}
	for _, tag := range strings.Fields(git(repo, "tag", "--list")) {
		dir, version := path.Split(tag)
		dir = strings.TrimSuffix(dir, "/")
		if !semver.IsValid(version) {
			continue
		}
		gomod := []byte(git(repo, "show", tag+":"+path.Join(dir, "go.mod")))
		mod := module.Version{Path: modfile.ModulePath(gomod), Version: version}
		if mod.Path == "" {
			log.Fatalf("%s: no module path in go.mod", tag)
		}
		base := filepath.Join(out, must(module.EscapePath(mod.Path)), "@v", must(module.EscapeVersion(version)))
		check(os.MkdirAll(filepath.Dir(base), 0o777))
		check(os.WriteFile(base+".mod", gomod, 0o666))
		t := must(time.Parse(time.RFC3339, strings.TrimSpace(git(repo, "log", "-1", "--format=%cI", tag+"^{commit}"))))
		info := must(json.Marshal(struct {
			Version string
			Time    time.Time
		}{version, t.UTC()}))
		check(os.WriteFile(base+".info", info, 0o666))
		f := must(os.Create(base + ".zip"))
		check(modzip.CreateFromVCS(f, mod, repo, tag, dir))
		check(f.Close())
		z := must(zip.OpenReader(base + ".zip"))
		checkLicense(z, mod, func() string { return git(repo, "show", tag+":LICENSE") })
		fmt.Printf("%s@%s: %d files, LICENSE among them\n", mod.Path, version, len(z.File))
		z.Close()
		versions[mod.Path] = append(versions[mod.Path], version)
	}
	for p, vs := range versions {
		semver.Sort(vs)
		list := filepath.Join(out, must(module.EscapePath(p)), "@v", "list")
		check(os.WriteFile(list, []byte(strings.Join(vs, "\n")+"\n"), 0o666))
	}
}

// checkLicense fails unless the module zip z holds <module>@<version>/LICENSE
// with the text repoLicense returns, the repository's LICENSE.
func checkLicense(z *zip.ReadCloser, mod module.Version, repoLicense func() string) {
	name := mod.Path + "@" + mod.Version + "/LICENSE"
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		r := must(f.Open())
		got := must(io.ReadAll(r))
		check(r.Close())
		if string(got) != repoLicense() {
			log.Fatalf("%s in the zip differs from the repository's LICENSE", name)
		}
		return
	}
	log.Fatalf("the zip of %s@%s has no %s", mod.Path, mod.Version, name)
}

func git(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return string(must(cmd.Output()))
}

func must[T any](v T, err error) T {
	check(err)
	return v
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
EOF
(
	cd "$tmp/mkproxy"
	go mod init mkproxy 2>/dev/null
	go get golang.org/x/mod@v0.42.0
	go run . "$clone" "$proxy"
)

echo "-- a user's module: go get github.com/actorq/actorq/adapter@$second ($((SECONDS - start))s)"
user=$tmp/user
mkdir "$user"
cat >"$user/main.go" <<'EOF'
package main

import (
	"fmt"
	"time"

	"github.com/actorq/actorq/actor"
	workqueue "github.com/actorq/actorq/adapter"
)

func main() {
	rq := workqueue.NewTypedRateLimitingQueue(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second))
	rq.AddRateLimited("default/pod-a")
	item, shutdown := rq.Get()
	fmt.Printf("adapter: %s (shutdown %v, requeues %d)\n", item, shutdown, rq.NumRequeues(item))
	rq.Forget(item)
	rq.Done(item)
	rq.ShutDown()

	q := actor.New(actor.Config[string]{})
	q.Add("default/pod-b")
	item, shutdown = q.Get()
	fmt.Printf("actor: %s (shutdown %v)\n", item, shutdown)
	q.Done(item)
	q.ShutDown()
}
EOF
(
	cd "$user"
	go mod init example.com/user 2>/dev/null
	go get "github.com/actorq/actorq/adapter@$second"
	go list -m github.com/actorq/...
	got=$(go list -m -f '{{.Path}} {{.Version}} {{.Replace}}' github.com/actorq/actorq github.com/actorq/actorq/adapter)
	want="github.com/actorq/actorq $second <nil>
github.com/actorq/actorq/adapter $second <nil>"
	[ "$got" = "$want" ] || { printf 'go list -m = %s\nwant %s\n' "$got" "$want"; exit 1; }
	for m in github.com/actorq/actorq github.com/actorq/actorq/adapter; do
		cmp "$proxy/$m/@v/$second.zip" "$GOMODCACHE/cache/download/$m/@v/$second.zip"
	done
	echo "the actorq modules came from the file proxy"
	for gomod in $(cd "$clone" && find . -name go.mod -not -path '*/testdata/*' -not -path './tools/*' | sort); do
		m=$(awk '$1 == "module" { print $2; exit }' "$clone/$gomod")
		dir=$(go mod download -json "$m@$second" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
		[ -n "$dir" ] && cmp "$clone/LICENSE" "$dir/LICENSE" ||
			{ echo "go mod download $m@$second: no LICENSE like the repository's in '$dir'"; exit 1; }
		echo "go mod download $m@$second: LICENSE"
	done
	go vet .
	go build -o "$tmp/user-bin" .
	out=$("$tmp/user-bin")
	echo "$out"
	want="adapter: default/pod-a (shutdown false, requeues 1)
actor: default/pod-b (shutdown false)"
	[ "$out" = "$want" ] || { printf 'output:\n%s\nwant:\n%s\n' "$out" "$want"; exit 1; }
)
echo "-- release check passed in $((SECONDS - start))s"
