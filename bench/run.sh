#!/usr/bin/env bash
# run.sh runs the side-by-side benchmarks and prints benchstat tables with
# each implementation's ratio to client-go.
#
#   ./run.sh                          # full run: COUNT=6 rounds, 1s per benchmark
#   COUNT=2 BENCHTIME=100ms ./run.sh  # quick look, a couple of minutes
#   BENCH=Pipeline CPU=2 ./run.sh     # one benchmark, GOMAXPROCS=2 only
#
# Environment:
#   COUNT      rounds (samples per benchmark and GOMAXPROCS), default 6
#   BENCHTIME  -benchtime per benchmark, default 1s
#   BENCH      -bench regexp, default . (all); its first element picks the
#              workloads (top-level benchmarks), the rest is passed on
#   CPU        -cpu list (GOMAXPROCS values), default 1,2
#
# The test binary is built once, so every round measures the same code even
# if the tree changes meanwhile, and run COUNT times with -count=1: each
# round runs every benchmark and implementation once, so the samples of the
# three implementations interleave and a slow spell of the machine hits all
# of them alike. (go test -count=N would run the N samples of one
# sub-benchmark back to back.)
#
# Raw output goes to results/bench-<UTC time>-<commit>.txt; its header
# records the commit and any uncommitted changes to actor/ or ratelimit/
# when the binary was built (a fingerprint and the files).
# .gitignore ignores new files in results/: the raw file of a run that
# bench/RESULTS.md cites is committed with git add -f, and only such files
# are kept in the repository.
set -euo pipefail
cd "$(dirname "$0")"

COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-1s}
BENCH=${BENCH:-.}
CPU=${CPU:-1,2}

PATH=$PATH:$(go env GOPATH)/bin
if ! command -v benchstat >/dev/null; then
	echo "installing benchstat" >&2
	go install golang.org/x/perf/cmd/benchstat@latest
fi

commit=$(git -C .. log -1 --format=%h 2>/dev/null || echo unknown)
# Uncommitted changes to the library the binary is built from: the files,
# and a fingerprint of their contents, so two runs can be told apart.
lib="actor ratelimit"
changed=$(git -C .. status --porcelain -- $lib 2>/dev/null | awk '{print $2}' | paste -sd, -)
changes=none
if [ -n "$changed" ]; then
	changes=$({
		git -C .. diff HEAD -- $lib
		git -C .. ls-files -o --exclude-standard -- $lib | while read -r f; do
			echo "$f"
			cat "../$f"
		done
	} | sha1sum | cut -c1-10)" ($changed)"
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p results
out=results/bench-$stamp-$commit.txt

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" .

{
	echo "commit: $commit"
	echo "uncommitted-library-changes: $changes"
	echo "goversion: $(go env GOVERSION)"
	echo "# started $(date -u '+%Y-%m-%d %H:%M:%S UTC'), COUNT=$COUNT BENCHTIME=$BENCHTIME BENCH=$BENCH CPU=$CPU, load: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out"

# Each round runs every benchmark (workload) once, in its own process, so
# that the progress line can say which one is running.
top=${BENCH%%/*}
sub=
[ "$top" = "$BENCH" ] || sub=/${BENCH#*/}
mapfile -t names < <("$tmp/bench.test" -test.list="$top" | grep '^Benchmark')
if [ ${#names[@]} -eq 0 ]; then
	echo "no benchmark matches BENCH=$BENCH" >&2
	exit 1
fi
elapsed() { printf '%dm%02ds' $((SECONDS / 60)) $((SECONDS % 60)); }
SECONDS=0
for i in $(seq "$COUNT"); do
	echo "# round $i/$COUNT, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
	for j in "${!names[@]}"; do
		name=${names[$j]}
		printf '\rround %d/%d  workload %d/%d %-22s  elapsed %s ' \
			"$i" "$COUNT" $((j + 1)) ${#names[@]} "${name#Benchmark}" "$(elapsed)" >&2
		"$tmp/bench.test" -test.run='^$' -test.bench="^$name\$$sub" -test.benchmem \
			-test.count=1 -test.cpu="$CPU" -test.benchtime="$BENCHTIME" |
			grep -v -e '^PASS$' -e '^ok ' >>"$out"
	done
done
printf '\rdone: %d rounds of %d workloads in %s%-30s\n' "$COUNT" ${#names[@]} "$(elapsed)" "" >&2
echo "# finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

echo "raw results: bench/$out (ignored by git: git add -f it if bench/RESULTS.md cites it)"
echo
# One benchstat call per benchmark; columns are the implementations, and
# the actorq and crpq columns show the change from clientgo (-: less or
# faster, +: more or slower; ~: no significant difference at p < 0.05 over
# the COUNT samples). Rows ending in -2 ran at GOMAXPROCS=2, the others at 1.
# Units that mean nothing for a benchmark are left out here but kept in
# the raw file: the pipelines' allocs/op (truncated; allocs/item is
# exact), Latency's and the Memory benchmarks' B/op and allocs/op (a whole
# paced run or 1M-item fill and drain, harness included).
grep -E '^[a-z-]+: ' "$out" | sort -u
for name in Pipeline PipelinePrio PipelineFair DedupStorm DedupStormWork AddAfterStorm AddWithOptsBatch Latency Memory MemoryPrio; do
	grep -q "^Benchmark$name/" "$out" || continue
	echo
	echo "## $name"
	benchstat -col /impl \
		-filter ".name:$name -(.name:(Pipeline OR PipelinePrio OR PipelineFair) AND .unit:allocs/op) -(.name:(Latency OR Memory OR MemoryPrio) AND .unit:(B/op OR allocs/op))" \
		"$out" | grep -vE '^[a-z-]+: '
done
if grep -q '^BenchmarkActorMetrics/' "$out"; then
	echo
	echo "## ActorMetrics (actorq alone, metrics off vs on)"
	benchstat -col /metrics -filter '.name:ActorMetrics' "$out" | grep -vE '^[a-z-]+: '
fi

# The chart of the ratios at GOMAXPROCS=2 (or the first CPU value), next to
# the raw file; a full run also updates bench/chart.svg, which the README
# shows.
cpu=2
case ",$CPU," in *,2,*) ;; *) cpu=${CPU%%,*} ;; esac
go run ./chart -cpu "$cpu" -o "${out%.txt}.svg" "$out"
echo "chart: bench/${out%.txt}.svg" >&2
if [ "$BENCH" = . ] && [ "$cpu" = 2 ]; then
	cp "${out%.txt}.svg" chart.svg
	echo "chart: bench/chart.svg updated" >&2
fi
