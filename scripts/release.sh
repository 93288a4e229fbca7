#!/usr/bin/env bash
# release.sh VERSION tags the library and every nested module together.
#
#   ./scripts/release.sh v0.2.0
#
# Each nested module (adapter, bench, exporter, ...) requires the library,
# and may require another nested module, at a real version: their replace
# directives point at the work tree but serve work inside this repository
# only, since Go ignores a dependency's replace directives. So a release
# first sets every such requirement to VERSION (go mod edit -require) and
# commits that as "release VERSION" (no commit if they already say VERSION,
# as for the first release, v0.1.0), then tags that commit VERSION for the
# library and <dir>/VERSION for the module in <dir>, Go's convention for
# modules in subdirectories. A user who runs
#
#   go get github.com/actorq/actorq/adapter@VERSION
#
# then gets the library at VERSION too, never an older one.
#
# It refuses a dirty tree, a VERSION that is not vMAJOR.MINOR.PATCH (or whose
# major version is 2 or more: that would need a /vN suffix on every module
# path), and a VERSION any of whose tags exist. It pushes nothing; it prints
# the command that would. scripts/release-check.sh runs it in a throwaway
# clone and builds a user's module against the result.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "release.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 vMAJOR.MINOR.PATCH"
version=$1
[[ $version =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
	die "malformed version $version: want vMAJOR.MINOR.PATCH, such as v0.1.0"
[ "${BASH_REMATCH[1]}" -le 1 ] ||
	die "version $version: major version 2 and up needs a /v${BASH_REMATCH[1]} suffix on every module path"

[ -z "$(git status --porcelain)" ] ||
	die "the work tree is not clean (git status); commit or stash first"

# modpath DIR prints the path of the module whose go.mod is in DIR.
modpath() { awk '$1 == "module" { print $2; exit }' "$1/go.mod"; }
# requires DIR prints the module paths DIR/go.mod requires.
requires() {
	awk '$1 == "require" && $2 == "(" { block = 1; next }
	     block && $1 == ")" { block = 0; next }
	     block && $1 != "" && $1 !~ "^//" { print $1 }
	     !block && $1 == "require" { print $2 }' "$1/go.mod"
}

dirs=$(find . -name go.mod -not -path '*/testdata/*' -printf '%h\n' | sed 's|^\./||' | sort)
[ -n "$dirs" ] && echo "$dirs" | grep -qx '\.' || die "no go.mod at the repository root"

# tag DIR prints the tag of the module in DIR.
tag() { if [ "$1" = . ]; then echo "$version"; else echo "$1/$version"; fi; }
paths=""
for dir in $dirs; do
	t=$(tag "$dir")
	! git rev-parse -q --verify "refs/tags/$t" >/dev/null || die "tag $t exists already"
	paths="$paths $(modpath "$dir")"
done

for dir in $dirs; do
	[ "$dir" = . ] && continue
	for req in $(requires "$dir"); do
		for p in $paths; do
			if [ "$req" = "$p" ]; then
				(cd "$dir" && go mod edit -require="$p@$version")
				echo "$dir/go.mod: require $p $version"
			fi
		done
	done
done

if git diff --quiet; then
	echo "requirements already at $version: nothing to commit"
else
	git add -- $(git diff --name-only)
	git commit -q -m "release $version"
	echo "committed: $(git log -1 --format='%h %s')"
fi

tags=""
for dir in $dirs; do
	t=$(tag "$dir")
	git tag -a -m "$(modpath "$dir") $version" "$t"
	echo "tagged $t -> $(git rev-parse --short "$t^{commit}") ($(modpath "$dir"))"
	tags="$tags $t"
done
echo "nothing pushed; to publish: git push origin $(git symbolic-ref -q --short HEAD || git rev-parse HEAD)$tags"
