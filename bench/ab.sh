#!/usr/bin/env bash
# ab.sh compares the library at two commits on one benchmark that both
# commits' bench modules have, BenchmarkPipeline's impl=actorq and
# impl=clientgo rows by default: it builds the bench test binary at each
# commit and runs the two binaries in alternation, so that a slow spell of
# the machine hits both alike, then prints benchstat OLD NEW and each
# commit's ratios to client-go. client-go's rows run the same code in both
# binaries: their difference is the noise of the machine (and of the
# harness, if it changed).
#
#   ./ab.sh 9d5cb14               # OLD against HEAD: ROUNDS=6 rounds
#   ./ab.sh HEAD~5 HEAD           # any two revisions git rev-parse knows
#   ROUNDS=2 BURST=2000x ./ab.sh HEAD~5   # quick look
#
# Environment:
#   ROUNDS     rounds, default 6; each runs both binaries once, the older
#              first in odd rounds, the newer first in even ones
#   BURST      -benchtime, default 200000x (bursts of 200,000 items)
#   CPU        -cpu list (GOMAXPROCS values), default 1: the time per item
#              at GOMAXPROCS=1 is the CPU the whole pipeline spends on it
#   BENCH      -bench regexp, default the rows of actorq (through the
#              client-go adapter, or actor.New where an old bench module
#              had no adapter rows) and client-go in BenchmarkPipeline
#
# Each commit is checked out with git worktree add into a temporary
# directory, removed on exit, so the caller's tree and branch are left
# as they are. The bench module builds the library of its own commit
# (its go.mod replaces the library with ../), so the binary of a commit
# measures that commit's library with that commit's harness: compare
# rows whose harness did not change between the two.
#
# Raw output goes to results/ab-<UTC time>-<old>-<new>/<commit>.txt, one
# file per commit (ignored by git, as run.sh's results are).
set -euo pipefail
cd "$(dirname "$0")"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 OLD [NEW]   (NEW defaults to HEAD)" >&2
	exit 2
fi
ROUNDS=${ROUNDS:-6}
BURST=${BURST:-200000x}
CPU=${CPU:-1}
BENCH=${BENCH:-'^BenchmarkPipeline$//^impl=(clientgo|actorq)$'}

PATH=$PATH:$(go env GOPATH)/bin
if ! command -v benchstat >/dev/null; then
	echo "installing benchstat" >&2
	go install golang.org/x/perf/cmd/benchstat@latest
fi

old=$(git rev-parse --short "$1^{commit}")
new=$(git rev-parse --short "${2:-HEAD}^{commit}")
if [ "$old" = "$new" ]; then
	echo "ab.sh: $1 and ${2:-HEAD} are the same commit, $old" >&2
	exit 2
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=results/ab-$stamp-$old-$new
mkdir -p "$out"

tmp=$(mktemp -d)
cleanup() {
	for rev in "$old" "$new"; do
		[ -d "$tmp/$rev" ] && git worktree remove --force "$tmp/$rev"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

for rev in "$old" "$new"; do
	echo "building the bench test binary of $rev" >&2
	git worktree add --detach --quiet "$tmp/$rev" "$rev"
	(cd "$tmp/$rev/bench" && go test -c -o "$tmp/$rev.test" .)
	{
		echo "commit: $rev"
		echo "goversion: $(go env GOVERSION)"
		echo "# $(git log -1 --format='%h %cd %s' --date=short "$rev" | cut -c1-120)"
		echo "# ROUNDS=$ROUNDS BURST=$BURST CPU=$CPU BENCH=$BENCH"
	} >"$out/$rev.txt"
done
git worktree remove --force "$tmp/$old"
git worktree remove --force "$tmp/$new"

for rev in "$old" "$new"; do
	if ! "$tmp/$rev.test" -test.list="${BENCH%%/*}" | grep -q '^Benchmark'; then
		echo "ab.sh: no benchmark of $rev matches BENCH=$BENCH" >&2
		exit 1
	fi
done

elapsed() { printf '%dm%02ds' $((SECONDS / 60)) $((SECONDS % 60)); }
SECONDS=0
for i in $(seq "$ROUNDS"); do
	order="$old $new"
	[ $((i % 2)) -eq 1 ] || order="$new $old"
	for rev in $order; do
		printf '\rround %d/%d  %-8s  elapsed %s ' "$i" "$ROUNDS" "$rev" "$(elapsed)" >&2
		echo "# round $i/$ROUNDS, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/$rev.txt"
		"$tmp/$rev.test" -test.run='^$' -test.bench="$BENCH" -test.benchmem \
			-test.count=1 -test.cpu="$CPU" -test.benchtime="$BURST" |
			grep -v -e '^PASS$' -e '^ok ' >>"$out/$rev.txt"
	done
done
printf '\rdone: %d rounds in %s%-20s\n' "$ROUNDS" "$(elapsed)" "" >&2

echo "raw results: bench/$out/{$old,$new}.txt"
echo
# Columns are the commits (the commit: line of each raw file); only sec/op and allocs/item are shown (the raw
# files have B/op and allocs/op too). Rows ending in -N ran at GOMAXPROCS=N,
# the others at 1.
cd "$out"
filter='.unit:(sec/op OR allocs/item)'
echo "## $old vs $new"
benchstat -col commit -filter "$filter" "$old.txt" "$new.txt" | grep -vE '^[a-z-]+: '
for rev in "$old" "$new"; do
	echo
	echo "## $rev, against client-go"
	benchstat -col /impl -filter "$filter" "$rev.txt" | grep -vE '^[a-z-]+: '
done
