#!/usr/bin/env bash
# run.sh runs the side-by-side benchmarks and prints benchstat tables with
# each implementation's ratio to client-go, and for PipelinePrio and
# Controller also to controller-runtime's priority queue.
#
#   ./run.sh                          # full run: COUNT=6 rounds
#   COUNT=2 BENCHTIME=100ms BURST=20000x ./run.sh  # quick look
#   BENCH=Pipeline CPU=2 ./run.sh     # one benchmark, GOMAXPROCS=2 only
#
# Environment:
#   COUNT      rounds (samples per benchmark and GOMAXPROCS), default 6
#   BURST      -benchtime of the burst workloads, Pipeline, PipelinePrio,
#              PipelineFair, PipelineFairPQ, PipelineRated and Controller,
#              default 200000x: every run of every implementation moves a
#              burst of 200,000 items
#   BENCHTIME  -benchtime of the other workloads, default 1s
#   KEYS_SEEN  distinct keys of MemoryKeysSeen (its -keys-seen flag),
#              default 1000000
#   BENCH      -bench regexp, default . (all); its first element picks the
#              workloads (top-level benchmarks), the rest is passed on
#   CPU        -cpu list (GOMAXPROCS values), default 1,2 (MemoryKeysSeen
#              and RateChurnMemory run at the first only)
#
# The test binary is built once, so every round measures the same code even
# if the tree changes meanwhile, and run COUNT times with -count=1: each
# round runs every benchmark and implementation once, so the samples of the
# three implementations interleave and a slow spell of the machine hits all
# of them alike. (go test -count=N would run the N samples of one
# sub-benchmark back to back.)
#
# Raw output goes to results/bench-<UTC time>-<commit>.txt; its header
# records the commit and any uncommitted changes to actor/, ratelimit/ or
# adapter/ when the binary was built (a fingerprint and the files).
# .gitignore ignores new files in results/: the raw file of a run that
# bench/RESULTS.md cites is committed with git add -f, and only such files
# are kept in the repository.
set -euo pipefail
cd "$(dirname "$0")"

COUNT=${COUNT:-6}
BURST=${BURST:-200000x}
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
lib="actor ratelimit adapter"
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
	echo "# started $(date -u '+%Y-%m-%d %H:%M:%S UTC'), COUNT=$COUNT BURST=$BURST BENCHTIME=$BENCHTIME BENCH=$BENCH CPU=$CPU, load: $(cut -d' ' -f1-3 /proc/loadavg)"
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
# benchtime prints the -benchtime of the benchmark named $1: BURST for the
# burst workloads, BENCHTIME for the others.
benchtime() {
	case " Pipeline PipelinePrio PipelineFair PipelineFairPQ PipelineRated Controller " in
	*" ${1#Benchmark} "*) echo "$BURST" ;;
	*) echo "$BENCHTIME" ;;
	esac
}
# cpus prints the -cpu list of the benchmark named $1: CPU, but only its
# first value for MemoryKeysSeen and RateChurnMemory, whose figures are the
# heap a queue keeps, the same at any GOMAXPROCS.
cpus() {
	case "$1" in
	BenchmarkMemoryKeysSeen | BenchmarkRateChurnMemory) echo "${CPU%%,*}" ;;
	*) echo "$CPU" ;;
	esac
}
SECONDS=0
for i in $(seq "$COUNT"); do
	echo "# round $i/$COUNT, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
	for j in "${!names[@]}"; do
		name=${names[$j]}
		printf '\rround %d/%d  workload %d/%d %-22s  elapsed %s ' \
			"$i" "$COUNT" $((j + 1)) ${#names[@]} "${name#Benchmark}" "$(elapsed)" >&2
		"$tmp/bench.test" -test.run='^$' -test.bench="^$name\$$sub" -test.benchmem \
			-test.count=1 -test.cpu="$(cpus "$name")" -test.benchtime="$(benchtime "$name")" \
			${KEYS_SEEN:+-keys-seen="$KEYS_SEEN"} |
			grep -v -e '^PASS$' -e '^ok ' >>"$out"
	done
done
printf '\rdone: %d rounds of %d workloads in %s%-30s\n' "$COUNT" ${#names[@]} "$(elapsed)" "" >&2
echo "# finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

echo "raw results: bench/$out (ignored by git: git add -f it if bench/RESULTS.md cites it)"
echo
# One benchstat call per benchmark; columns are the implementations, and
# each column after clientgo shows the change from it (-: less or faster,
# +: more or slower; ~: no significant difference at p < 0.05 over the
# COUNT samples). Rows ending in -2 ran at GOMAXPROCS=2, the others at 1.
# Units that mean nothing for a benchmark are left out here but kept in
# the raw file: the pipelines' and Controller's allocs/op (truncated;
# allocs/item is exact), PipelineFairPQ's sec/op (its sec/item is the
# same figure), Latency's and the Memory benchmarks' B/op and allocs/op
# (a whole paced run or 1M-item fill and drain, harness included).
#
# table NAME COL prints the benchstat table of benchmark NAME with the
# columns COL.
table() {
	benchstat -col "$2" \
		-filter ".name:$1 -(.name:(Pipeline OR PipelinePrio OR PipelineFair OR PipelineFairPQ OR Controller) AND .unit:allocs/op) -(.name:PipelineFairPQ AND .unit:sec/op) -(.name:(Latency OR Memory OR MemoryPrio OR MemoryFair OR MemoryKeysSeen) AND .unit:(B/op OR allocs/op))" \
		"$out" | grep -vE '^[a-z-]+: '
}
grep -E '^[a-z-]+: ' "$out" | sort -u
for name in Pipeline PipelinePrio PipelineFair PipelineFairPQ Controller DedupStorm DedupStormWork AddAfterStorm AddWithOptsBatch Latency Memory MemoryPrio MemoryFair MemoryKeysSeen; do
	grep -q "^Benchmark$name/" "$out" || continue
	echo
	echo "## $name"
	table "$name" /impl
done
# The same for the workloads of controller-runtime's users, against its
# priority queue: actorq's adapter of it (actorqpq) and actorq itself.
for name in PipelinePrio Controller; do
	grep -q "^Benchmark$name/" "$out" || continue
	echo
	echo "## $name vs crpq"
	table "$name" '/impl@(crpq actorqpq actorq)'
done
# The cost of a fair hand-out against the keys ready: each key count's
# ratio to keys=100.
if grep -q '^BenchmarkFairHandOut/' "$out"; then
	echo
	echo "## FairHandOut (actorq alone, against keys=100)"
	benchstat -col /keys -filter '.name:FairHandOut .unit:sec/hand-out' "$out" | grep -vE '^[a-z-]+: '
fi
# Per-key rates (issue 49), actorq alone: the fair pipeline with a rate
# that never binds against none (rates=none), the hand-out with 100,000
# keys waiting for a token against 100, and the figures of rates that bind
# and of rated keys' memory as they are.
if grep -q '^BenchmarkPipelineRated/' "$out"; then
	echo
	echo "## PipelineRated (actorq alone, against rates=none)"
	benchstat -col /rates -filter '.name:PipelineRated .unit:(sec/item OR allocs/item)' "$out" | grep -vE '^[a-z-]+: '
fi
if grep -q '^BenchmarkRateHeld/' "$out"; then
	echo
	echo "## RateHeld (actorq alone, against keys=100)"
	benchstat -col /keys -filter '.name:RateHeld .unit:(sec/hand-out OR allocs/op)' "$out" | grep -vE '^[a-z-]+: '
fi
for name in RateBinding RateChurnMemory; do
	grep -q "^Benchmark$name/" "$out" || continue
	echo
	echo "## $name (actorq alone)"
	benchstat -filter ".name:$name -.unit:(sec/op OR B/op OR allocs/op)" "$out" | grep -vE '^[a-z-]+: '
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
