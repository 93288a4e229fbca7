#!/usr/bin/env bash
# Runs every module's tests with the race detector: the library module at
# the root and each nested module (adapter, bench, exporter, ...); then the
# actor tests with the fast paths off, all and one at a time, and those
# that count allocations without the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for mod in $(find . -name go.mod -not -path '*/testdata/*' -printf '%h\n' | sort); do
	echo "== go test -race ./... in $mod"
	(cd "$mod" && go test -race -count=1 ./...) || status=1
done
# The actor tests again with every fast path of the transport off (the
# reference transport must keep every rule the fast paths keep), and with
# each one off alone (the build tags of the A/Bs): each must be right
# without the others.
echo "== ACTORQ_FASTPATHS=off go test -race ./actor/"
ACTORQ_FASTPATHS=off go test -race -count=1 ./actor/ || status=1
for tag in actorq_nolane actorq_nofilter; do
	echo "== go test -race -tags $tag ./actor/"
	go test -race -count=1 -tags "$tag" ./actor/ || status=1
done
# Allocation counts mean nothing under the race detector (its sync.Pool
# drops objects on purpose), so the tests that count them run without it;
# so do the tests over a million keys, which take a tenth of them under it.
echo "== go test -run Allocs ./actor/, -run AdaptiveForgets ./actor/internal/state (without -race)"
go test -count=1 -run 'Allocs' ./actor/ || status=1
go test -count=1 -run 'AdaptiveForgets' ./actor/internal/state || status=1
exit $status
