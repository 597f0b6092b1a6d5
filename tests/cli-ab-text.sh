# tests/cli-ab-text.sh - sourced by tests/cli-ab.sh: what a reader of
# `ab compare` and `ab plot` sees.  The comparison: every line within 100
# columns, at most three lines before the table, each metric's row with
# its unit, the metrics without data left out of the table and named in
# one line below it.  The picture: every text inside the SVG's viewBox
# and clear of the others (tests/svg-fit.sh, from the SVG alone), a
# verdict and B/A % per metric, A visible under an identical B, "-o -"
# to stdout, a metric without data refused.  Uses ab_rec, ab_ok, case_,
# $xvbd, $abdir, passed and failed from cli.sh and cli-ab.sh.

# said WHAT WHY OUT: "ok - WHAT" when WHY is empty, else "not ok - WHAT:
# WHY" and OUT, counted.
said() {
	if [ -z "$2" ]; then
		echo "ok - $1"
		passed=$((passed + 1))
	else
		echo "not ok - $1: $2"
		printf '%s\n' "$3" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

# text_fits WHAT ARGS...: `xvbd ARGS` exits 0 and reads as said above.
text_fits() {
	local what=$1 out rc why=
	shift
	out=$("$xvbd" -q "$@" 2>&1)
	rc=$?
	if [ "$rc" != 0 ]; then
		why="exit $rc"
	elif printf '%s\n' "$out" | awk 'length($0) > 100 { bad = 1 }
		END { exit !bad }'; then
		why="a line longer than 100 columns"
	elif [ "$(printf '%s\n' "$out" | awk '/^metrics:/ { exit }
		{ n++ } END { print n + 0 }')" -gt 3 ]; then
		why="more than 3 lines before the table"
	elif [[ $out == *"unknown on both sides"* ||
		$out == *"none in any run"* ]]; then
		why="a row of a metric without data"
	elif ! printf '%s\n' "$out" | grep -Eq \
		'^  (read|write)_[a-z_]+ (IO/s|MB/s|ms|KiB) '; then
		why="no row with its unit"
	fi
	said "ab compare of $what: fits 100 columns" "$why" "$out"
}

# A store of our own (cli-ab.sh's has a record spoilt on purpose by now).
sv=$abdir/vocab
mkdir -m 700 "$sv"
ab_labels "$sv"

# The demo's records (tests/lab/demo.sh): a hot A/B of six ABBA pairs,
# "cached" (dom0's page cache) against "direct" (--cache none), --run
# records of a guest that only reads.
sd=$abdir/demo
mkdir -m 700 "$sd"
i=0
for r in 2100 1950 2230 2010 2080 1990; do
	ab_rec "$sd" cached "$i" "$r" mode=run \
		exp=ab-run-20240501T120000-d3m0 pair=$((i + 1)) \
		vbd.xvdb.dom0_cache=host vbd.xvdb.backend="file via loop"
	ab_rec "$sd" direct "$i" $((r / 5 + i)) mode=run \
		exp=ab-run-20240501T120000-d3m0 pair=$((i + 1)) \
		vbd.xvdb.dom0_cache=none vbd.xvdb.backend="file via loop"
	i=$((i + 1))
done
text_fits "the demo's records (as the demo asks)" ab compare cached direct \
	--dir "$sd" --metric read_mb_per_s,read_iops,run_s
text_fits "the demo's records" ab compare cached direct --dir "$sd"
text_fits "8 metrics" ab compare ring1 ring8 --dir "$sv" --metric \
	read_iops,write_iops,read_mb_per_s,write_mb_per_s,read_lat_ms,guest_cpu_pct,dom0_cpu_pct,busy_s
text_fits "8 metrics, Mann-Whitney U" ab compare ring1 ring8 --dir "$sv" \
	--test mwu --metric \
	read_iops,write_iops,read_mb_per_s,write_mb_per_s,read_lat_ms,guest_cpu_pct,dom0_cpu_pct,busy_s
text_fits "4 levels" ab compare ring1 ring8 order2 vcpus2 --dir "$sv"
# the metrics left out are named, the two kinds apart
ab_ok "no data: write_lat_ms, backend_cpu_pct, backend_us_per_req, write_kib_per_req; 0 in every run: write_iops, write_mb_per_s" \
	ab compare cached direct --dir "$sd"
ab_ok "0 in every run: write_iops, write_mb_per_s" \
	ab compare ring1 ring8 order2 --dir "$sv"
# -v: each of the three lines in full, and every verdict in words
ab_ok "cells: centre +- half its 95 % interval in % of it" \
	ab compare cached direct --dir "$sd" -v
ab_ok "read_mb_per_s: B slower by" ab compare cached direct --dir "$sd" -v

# The picture: every text inside it, on a line of its own.
# plot_fits WHAT SVG ARGS...: `xvbd ab plot ARGS -o SVG` exits 0 and
# tests/svg-fit.sh passes SVG.
plot_fits() {
	local what=$1 svg=$2 out why=
	shift 2
	if ! out=$("$xvbd" -q ab plot "$@" -o "$svg" 2>&1); then
		why="ab plot failed"
	elif ! out=$(sh "$(dirname "${BASH_SOURCE[0]}")/svg-fit.sh" "$svg" 2>&1); then
		why="a text outside or on another"
	fi
	said "ab plot of $what: every text inside, none on another" "$why" \
		"$out"
}
long=a-label-of-sixty-four-characters-the-longest-a-label-may-be-xyzw
sl=$abdir/long
mkdir -m 700 "$sl"
for i in 0 1 2; do
	ab_rec "$sl" "$long" "$i" $((1500 + i * 10))
	ab_rec "$sl" "${long%xyzw}bcde" "$((i + 3))" $((1700 + i * 10)) \
		vbd.xvdb.ring_pages=8
done
plot_fits "two labels" "$abdir/two.svg" ring1 ring8 --dir "$sv"
# with latency: the percentiles' rows and the distributions' curves
for i in 0 1 2; do
	ab_rec "$sv" lat1 "$i" $((1500 + i * 10)) lat=5
	ab_rec "$sv" lat2 "$((i + 3))" $((1600 + i * 10)) lat=50
done
plot_fits "two labels with latency" "$abdir/lat.svg" lat1 lat2 --dir "$sv"
plot_fits "two labels of 64 characters" "$abdir/long.svg" "$long" \
	"${long%xyzw}bcde" --dir "$sl"
plot_fits "4 levels" "$abdir/lv4.svg" ring1 ring8 order2 vcpus2 --dir "$sv"
plot_fits "8 levels (labels turned)" "$abdir/lv8.svg" ring1 ring8 order0 \
	order2 order2t vcpus2 big fio64k --dir "$sv"
# a verdict and B/A % per metric, as ab compare says them
why=
grep -q 'B/A +12.5 % +- 1.7 %: B faster (p=5.6e-07)' "$abdir/two.svg" &&
	grep -q '>+12.5% +-1.7 better<' "$abdir/lv4.svg" ||
	why="no verdict or B/A % in a panel"
said "ab plot: each metric's verdict and B/A %" "$why" ""
# A under an identical B: A's line wide, B's dashed over it
why=
grep -q 'stroke="#1f77b4" stroke-width="4"' "$abdir/two.svg" &&
	grep -q 'stroke="#d95f02" stroke-width="1.5" stroke-dasharray' \
		"$abdir/two.svg" &&
	grep -q 'no time series: one number per run' "$abdir/two.svg" ||
	why="A's and B's lines, or busy_s's panel"
said "ab plot: A drawn under a dashed B; busy_s says why it has no series" \
	"$why" ""
# -o -: the picture on stdout, alone
out=$("$xvbd" -q ab plot ring1 ring8 --dir "$sv" -o - --metric read_iops)
why=
[[ $out == '<?xml version="1.0" encoding="UTF-8"?>'*'</svg>' ]] ||
	why="not the SVG alone"
said "ab plot -o -: the SVG on stdout" "$why" "${out:0:200}"
case_ 2 "ab plot: --metric write_iops: no run of A or B has it above 0" \
	ab plot ring1 ring8 --dir "$sv" -o - --metric write_iops
case_ 2 "ab plot: --metric write_lat_ms: no run of the levels has it above 0" \
	ab plot ring1 ring8 order2 --dir "$sv" -o "$abdir/x.svg" \
	--metric read_iops,write_lat_ms
case_ 2 "ab plot: -o - writes the SVG on stdout: --json has no room there" \
	ab plot ring1 ring8 --dir "$sv" -o - --json

# one name per quantity, on the stores above
. "$(dirname "${BASH_SOURCE[0]}")/cli-vocab.sh"
