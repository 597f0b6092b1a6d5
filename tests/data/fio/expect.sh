#!/bin/bash
# tests/data/fio/expect.sh: what jq reads in each saved fio output, for
# tests/unit/test_wl_fio.c to compare xvbd's parser with (jq is the
# independent reader: the expectations are not xvbd's own output).
# Writes NAME.expect beside each NAME.json (fio's stdout, saved in the
# lab by tests/lab/fio-samples.sh) that holds a report:
#   PATH VALUE	one field per line, PATH as the test's lookup spells it
# The JSON is the last document of the output: fio's text and notes
# around it dropped (a document runs from a line "{" to a line "}": fio
# indents everything inside).
set -euo pipefail
cd "$(dirname "$0")"
prog='
def lat($p): to_entries[] | select(.key == "slat_ns" or .key == "clat_ns" or .key == "lat_ns") |
	.key as $k | .value |
	("\($p).\($k).min \(.min)", "\($p).\($k).max \(.max)", "\($p).\($k).mean \(.mean)",
	 "\($p).\($k).stddev \(.stddev)", "\($p).\($k).N \(.N)",
	 ((.percentile // {}) | to_entries[] | "\($p).\($k).pct.\(.key) \(.value)"));
"version \(."fio version")",
"timestamp_ms \(.timestamp_ms)",
"njobs \(.jobs | length)",
((."global options" // {}) | to_entries[] | "global.\(.key) \(.value)"),
(.jobs | to_entries[] | .key as $i | .value |
	"job\($i).name \(.jobname)", "job\($i).groupid \(.groupid)",
	"job\($i).error \(.error)", "job\($i).job_runtime \(.job_runtime)",
	"job\($i).elapsed \(.elapsed)",
	(."job options" | to_entries[] | "job\($i).opt.\(.key) \(.value)"),
	(to_entries[] | select(.key == "read" or .key == "write" or .key == "trim") |
		"job\($i).\(.key)" as $p | .value |
		"\($p).io_bytes \(.io_bytes)", "\($p).bw_bytes \(.bw_bytes)",
		"\($p).iops \(.iops)", "\($p).runtime \(.runtime)",
		"\($p).total_ios \(.total_ios)", "\($p).short_ios \(.short_ios)",
		"\($p).drop_ios \(.drop_ios)", lat($p))),
([.jobs[] | to_entries[] | select(.key == "read" or .key == "write" or .key == "trim") |
	.key as $d | .value | to_entries[] | select(.value | type == "object" and has("bins")) |
	.key as $k | .value.bins | to_entries[] | {k: "hist.\($d).\($k).\(.key)", v: .value}] |
	group_by(.k)[] | "\(.[0].k) \(map(.v) | add)"),
((.disk_util // []) | to_entries[] | .key as $i | .value |
	"disk\($i).name \(.name)", "disk\($i).read_ios \(.read_ios)",
	"disk\($i).write_ios \(.write_ios)", "disk\($i).util \(.util)")
'
for f in *.json; do
	n=${f%.json}
	awk '/^\{/ { on = 1 } on { print } /^\}/ { on = 0 }' "$f" |
		jq -s -r "last | $prog" >"$n.expect"
done
