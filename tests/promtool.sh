#!/bin/bash
# tests/promtool.sh [BUILD]: stats --latency's Prometheus textfile
# against Prometheus' own checker, `promtool check metrics` (Debian's
# prometheus package): the file the renderer writes for a sample with
# latency histograms (BUILD's test_stats_lat, default build-san), and
# the one the lab brought back from a real run when there is one
# (build/lab/artefacts/88-latency.sh/stats.prom).  A copy with a metric
# that breaks its family must fail: the checker checks.
# Ends with "promtool: N passed, N failed" (skipped without promtool).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-san}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

if ! command -v promtool >/dev/null; then
	echo "promtool: skipped: no promtool (apt-get install prometheus)"
	echo "promtool: 0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$build/tests/unit/test_stats_lat
if [ -x "$bin" ] && XVBD_TEST_PROM_OUT=$tmp/unit.prom "$bin" >/dev/null 2>&1 &&
	[ -s "$tmp/unit.prom" ]; then
	ok "test_stats_lat wrote a textfile"
	if out=$(promtool check metrics <"$tmp/unit.prom" 2>&1) && [ -z "$out" ]
	then
		ok "promtool: the renderer's histograms"
	else
		not_ok "promtool: the renderer's histograms: $out"
	fi
	sed '0,/_seconds_count{/s/_seconds_count{/_secondz_count{/' \
		"$tmp/unit.prom" >"$tmp/bad.prom"
	if promtool check metrics <"$tmp/bad.prom" >/dev/null 2>&1; then
		not_ok "promtool accepted a broken family"
	else
		ok "promtool refuses a broken family"
	fi
else
	not_ok "$bin did not write a textfile (make SANITIZE=1 unit-bins)"
fi
lab=$top/build/lab/artefacts/88-latency.sh/stats.prom
if [ -s "$lab" ]; then
	if out=$(promtool check metrics <"$lab" 2>&1) && [ -z "$out" ]; then
		ok "promtool: the lab's file ($(grep -c _bucket "$lab") buckets)"
	else
		not_ok "promtool: the lab's file: $out"
	fi
fi
echo "promtool: $passed passed, $failed failed"
[ $failed = 0 ]
