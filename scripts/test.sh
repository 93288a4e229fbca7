#!/usr/bin/env bash
# Runs every module's tests with the race detector: the library module at
# the root and each nested module (adapter, bench, exporter, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for mod in $(find . -name go.mod -not -path '*/testdata/*' -printf '%h\n' | sort); do
	echo "== go test -race ./... in $mod"
	(cd "$mod" && go test -race -count=1 ./...) || status=1
done
exit $status
