#!/usr/bin/env bash
# release.sh VERSION tags the library and every nested module together.
#
#   ./scripts/release.sh v0.2.0
#
# Each nested module (adapter, bench, exporter, ...) requires the library,
# and may require another nested module, at a real version: their replace
# directives point at the work tree but serve work inside this repository
# only, since Go ignores a dependency's replace directives. So a release
# first sets every such requirement to VERSION (go mod edit -require),
# then
#
#   - dates the release in CHANGELOG.md: a section "## [X.Y.Z]" prepared
#     in advance (as v0.1.0's is) gets today's date, and the Unreleased
#     section must then be empty; otherwise what Unreleased holds becomes
#     the section "## [X.Y.Z] - date", under a new, empty Unreleased;
#   - records the API of the release in api/VERSION.txt: the newest
#     record with api/next.txt's changes applied (CI's tools/apicheck has
#     checked that they are the code's), and empties api/next.txt; a
#     record prepared in advance (as v0.1.0's is) stays as it is, and then
#     api/next.txt must be empty;
#
# and commits all that as "release VERSION". It tags that commit VERSION
# for the library and <dir>/VERSION for the module in <dir>, Go's
# convention for modules in subdirectories. A user who runs
#
#   go get github.com/actorq/actorq/adapter@VERSION
#
# then gets the library at VERSION too, never an older one. The tools
# module (tools/, this repository's own checks) is not released.
#
# It refuses a dirty tree, a VERSION that is not vMAJOR.MINOR.PATCH (or whose
# major version is 2 or more: that would need a /vN suffix on every module
# path), a VERSION any of whose tags exist, a release that CHANGELOG.md
# does not describe, and a patch release that changes the API. It pushes nothing; it prints the command that would.
# scripts/release-check.sh runs it in a throwaway clone and builds a user's
# module against the result.
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

dirs=$(find . -name go.mod -not -path '*/testdata/*' -not -path './tools/*' -printf '%h\n' | sed 's|^\./||' | sort)
grep -qx '\.' <<<"$dirs" || die "no go.mod at the repository root"

# tag DIR prints the tag of the module in DIR.
tag() { if [ "$1" = . ]; then echo "$version"; else echo "$1/$version"; fi; }
paths=""
for dir in $dirs; do
	t=$(tag "$dir")
	! git rev-parse -q --verify "refs/tags/$t" >/dev/null || die "tag $t exists already"
	paths="$paths $(modpath "$dir")"
done

# CHANGELOG.md must describe the release: a section prepared for it, with
# nothing left under Unreleased, or lines under Unreleased.
number=${version#v}
heading="^## \\[${number//./\\.}\\]" # ^## \[1\.2\.3\]
today=$(date -u +%Y-%m-%d)
unreleased=$(awk '/^## \[Unreleased\]/ { on = 1; next } /^## / { on = 0 } on && NF' CHANGELOG.md)
prepared=$(grep "$heading" CHANGELOG.md || true)
if [ -n "$prepared" ]; then
	[ -z "$unreleased" ] ||
		die "CHANGELOG.md has a section for $number and lines under Unreleased: move them into it first"
else
	[ -n "$unreleased" ] ||
		die "CHANGELOG.md's Unreleased section is empty: say what $version changes"
fi

# The API's record: api/next.txt holds "+ feature" and "- feature" lines
# since the newest api/vX.Y.Z.txt.
changes=$(grep -v '^#' api/next.txt | grep . || true)
last=$(ls api | sed -n 's/^\(v[0-9]*\.[0-9]*\.[0-9]*\)\.txt$/\1/p' | sort -V | tail -1)
[ -n "$last" ] || die "no release record api/vX.Y.Z.txt"
if [ -f "api/$version.txt" ]; then
	[ -z "$changes" ] || die "api/$version.txt is prepared, and api/next.txt has changes since"
elif [ -n "$changes" ] && [ "${version%.*}" = "${last%.*}" ]; then
	die "$version is a patch release of $last, and the API changed since (api/next.txt): make it a minor release"
fi

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

# Date the CHANGELOG's section of the release (checked above).
if [ -n "$prepared" ]; then
	sed -i "s/$heading.*\$/## [$number] - $today/" CHANGELOG.md
else
	sed -i "s/^## \[Unreleased\]\$/## [Unreleased]\n\n## [$number] - $today/" CHANGELOG.md
fi
echo "CHANGELOG.md: ## [$number] - $today"

# Record the release's API (checked above).
if [ ! -f "api/$version.txt" ]; then
	{
		echo "# The API of release $version: one feature per line, \" // experimental\" if it may still change."
		{
			grep -v '^#' "api/$last.txt" | grep -vxF -f <(echo "$changes" | sed -n 's/^- //p') || true
			echo "$changes" | sed -n 's/^+ //p'
		} | LC_ALL=C sort
	} >"api/$version.txt"
	printf '%s\n' "# The API's changes since $version: \"+ \" a feature added, \"- \" one removed." \
		"# Written by \`cd tools && go run ./apicheck -w\`; each name needs a line in CHANGELOG.md's Unreleased section." >api/next.txt
fi
echo "api/$version.txt: the API of $version"

git add -A -- CHANGELOG.md api $(git diff --name-only)
if git diff --cached --quiet; then
	echo "nothing to commit"
else
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
