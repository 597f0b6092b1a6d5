# tests/cli-vocab.sh - sourced by tests/cli-ab-text.sh: one name per
# quantity.  Every metric --metric takes and lists, every metric a
# comparison (two levels or a sweep) names in JSON, every number of
# `ab show --json` (its run, summary, window, interference, accounting
# and latency; `ab show --latency`'s), of `ab list --json` and
# of `ab export` (JSON, and the CSV header) is under a name of the one
# table, as `xvbd --json help metrics` prints it (src/base/vocab.c); an
# old name of a metric is read with one warning naming the new one.
# (stats' JSON, CSV and Prometheus names: tests/unit/test_vocab.c.)
# Uses case_, $xvbd, $sv, said, passed and failed.

vocab=$("$xvbd" -q --json help metrics)
names=$(jq -r '.[].name' <<<"$vocab")
metrics=$(jq -r '.[] | select(.metric) | .name' <<<"$vocab")

# vocab_ok WHAT KEYS: each of KEYS (a line each) a name of the table.
vocab_ok() {
	local what=$1 keys=$2 k bad=
	while read -r k; do
		[ -n "$k" ] || continue
		grep -qxF -- "$k" <<<"$names" || bad="$bad $k"
	done <<<"$keys"
	[ -n "$keys" ] || bad=" (nothing read)"
	said "$what: every name from the table" "${bad:+not in it:$bad}" "$keys"
}

# --metric: takes each metric by its name, and lists the same names
bad=
for m in $metrics; do
	"$xvbd" -q ab compare ring1 ring8 --dir "$sv" --metric "$m" \
		>/dev/null 2>&1 || bad="$bad $m"
done
listed=$("$xvbd" -q ab compare ring1 ring8 --dir "$sv" --metric bogus 2>&1 |
	sed -n 's/.*unknown metric (\(.*\))$/\1/p' | tr -d ' ' | tr , '\n')
[ "$(sort <<<"$listed")" = "$(sort <<<"$metrics")" ] ||
	bad="$bad (the list of an unknown one differs)"
said "--metric: takes the table's $(wc -w <<<"$metrics") metrics by name, lists them" \
	"${bad:+refused or differs:$bad}" "$listed"
# an old name: read, with one line naming the new one; -q: none
err=$("$xvbd" ab compare ring1 ring8 --dir "$sv" --metric read-mbs 2>&1 >/dev/null)
out=$("$xvbd" -q ab compare ring1 ring8 --dir "$sv" --metric read-mbs 2>&1)
why=
[ "$err" = "xvbd: ab compare: warning: --metric read-mbs: now called read_mb_per_s; the old name is still read" ] ||
	why="stderr: $err"
[[ $out == *"read_mb_per_s MB/s "* && $out != *"warning: --metric"* ]] ||
	why="$why; with -q: $out"
said "--metric read-mbs: read as read_mb_per_s, one warning (none with -q)" \
	"$why" "$err"
err=$("$xvbd" ab compare ring1 ring8 --dir "$sv" --metric busy_seconds,guest-cpu \
	2>&1 >/dev/null)
why=
[ "$(grep -c 'warning: --metric .*: now called \(busy_s\|guest_cpu_pct\);' \
	<<<"$err")" = 2 ] || why="not two warnings"
said "--metric busy_seconds,guest-cpu: a warning each" "$why" "$err"
case_ 2 "ab compare: --metric: \"queue_depth\": unknown metric (read_iops" \
	ab compare ring1 ring8 --dir "$sv" --metric queue_depth

# compare's and a sweep's JSON: the metrics by their names
vocab_ok "ab compare --json's metrics" "$("$xvbd" -q --json ab compare ring1 \
	ring8 --dir "$sv" | jq -r '.metrics[].metric')"
vocab_ok "a sweep's JSON metrics" "$("$xvbd" -q --json ab compare ring1 ring8 \
	order2 --dir "$sv" | jq -r '.metrics[].metric, .geomean.metrics[],
	.comparisons[].metrics[].metric' |
	sort -u)"
# show: every number of the document (its run, summary, window,
# interference, accounting and latency objects), by the key it is under;
# no kebab-case key
show=$("$xvbd" -q --json ab show ring1-20240501T120000-0000 --dir "$sv")
# numkeys: the key each number of a JSON document is under (an array's
# element: its array's key)
numkeys() {
	jq -r '[paths(type == "number") | map(select(type == "string")) |
		last] | unique | .[]' | grep -vxF workload_status
}
vocab_ok "ab show --json's numbers" "$(numkeys <<<"$show")"
# a run with others' CPU, foreign device I/O and latency: each object
svr=$abdir/vocab-rich
mkdir -m 700 "$svr"
ab_rec "$svr" rich 0 1500 host.cpus=4 others=60 foreign=300 lat=5
ab_rec "$svr" rich 1 1510 host.cpus=4 others=60 foreign=300 lat=5
rich=$("$xvbd" -q --json ab show rich-20240501T120000-0000 --dir "$svr")
why=
for o in interference accounting latency; do
	[ "$(jq -r ".$o | type" <<<"$rich")" = object ] || why="$why no $o;"
done
said "ab show --json of a rich run: interference, accounting, latency" \
	"$why" "$rich"
vocab_ok "ab show --json's numbers, all objects" "$(numkeys <<<"$rich")"
vocab_ok "ab show --latency --json's numbers" "$("$xvbd" -q --json ab show \
	--latency rich --dir "$svr" | numkeys)"
keb=$(jq -r '[paths | last | select(type == "string")] | .[]' \
	<<<"$(jq 'del(.fingerprint)' <<<"$show")" | grep -- - | sort -u)
said "ab show --json: no kebab-case key" "$keb" "$keb"
# list: the numbers by the table, the facts an object as export's
list=$("$xvbd" -q --json ab list ring1 --dir "$sv")
vocab_ok "ab list --json's numbers" "$(jq -r '.[0] | to_entries[] |
	select(.value | type == "number") | .key' <<<"$list")"
why=
[ "$(jq -r '.[0].facts | type' <<<"$list")" = object ] &&
	[ "$(jq -r '.[0].facts["dom0.clocksource"]' <<<"$list")" = xen ] ||
	why="facts not the record's object"
said "ab list --json: facts an object, as ab export's" "$why" "$list"
# export: JSON and the CSV header, what identifies a run aside
ids='id label started domain vdevs mode workload workload_status complete'
vocab_ok "ab export --json's numbers" "$("$xvbd" -q --json ab export ring1 \
	--dir "$sv" | jq -r '.[0] | to_entries[] |
	select(.value | type == "number" or type == "null") | .key' |
	grep -vxF workload_status)"
vocab_ok "ab export's CSV header" "$("$xvbd" -q ab export ring1 --dir "$sv" |
	head -n 1 | tr , '\n' | grep -v '^fp\.' |
	grep -vxF "$(tr ' ' '\n' <<<"$ids")")"
# each quantity once: no busy_seconds beside busy_s
hdr=$("$xvbd" -q ab export ring1 --dir "$sv" | head -n 1)
dup=$(tr , '\n' <<<"$hdr" | sort | uniq -d)
said "ab export's CSV header: each name once" "$dup" "$hdr"
