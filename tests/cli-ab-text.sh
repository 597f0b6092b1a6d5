# tests/cli-ab-text.sh - sourced by tests/cli-ab.sh: what a reader of
# `ab compare` and `ab plot` sees.  The comparison: every line within 100
# columns, at most three lines before the table, each metric's row with
# its unit, the metrics without data left out of the table and named in
# one line below it.  The picture: every text inside the SVG's viewBox
# and clear of the others (tests/svg-fit.sh, from the SVG alone), a
# verdict and B/A % per metric, A visible under an identical B, "-o -"
# to stdout, a metric without data refused.  Uses ab_rec, ab_ok, case_,
# $xvbd, $abdir, passed and failed from cli.sh and cli-ab.sh.

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
		'^  (read|write)-[a-z-]+ (IO/s|MB/s|ms|KiB) '; then
		why="no row with its unit"
	fi
	if [ -z "$why" ]; then
		echo "ok - ab compare of $what: fits 100 columns"
		passed=$((passed + 1))
	else
		echo "not ok - ab compare of $what: $why:"
		printf '%s\n' "$out" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

# A store of our own (cli-ab.sh's has a record spoilt on purpose by now).
sv=$abdir/vocab
mkdir -m 700 "$sv"
i=0
for iops in 1510 1523 1498 1540 1529; do
	ab_rec "$sv" ring1 $i $iops
	ab_rec "$sv" ring8 $i $((iops + 190)) vbd.xvdb.ring_pages=8
	ab_rec "$sv" order0 $i $iops vbd.xvdb.offer.ring_order=0
	ab_rec "$sv" order2 $i $((iops + 3)) vbd.xvdb.offer.ring_order=2
	ab_rec "$sv" order2t $i $((iops + 190)) vbd.xvdb.offer.ring_order=2 \
		vbd.xvdb.ring_pages=4
	ab_rec "$sv" vcpus2 $i $((iops + 190)) vbd.xvdb.ring_pages=8 \
		guest.vcpus=2
	ab_rec "$sv" big $i $((iops + 190)) vbd.xvdb.ring_pages=8 \
		vbd.xvdb.size_bytes=7516192768
	ab_rec "$sv" fio64k $i $((iops + 190)) vbd.xvdb.ring_pages=8 \
		workload="fio 64k read"
	i=$((i + 1))
done

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
	--dir "$sd" --metric read-mbs,read-iops,seconds
text_fits "the demo's records" ab compare cached direct --dir "$sd"
text_fits "8 metrics" ab compare ring1 ring8 --dir "$sv" --metric \
	read-iops,write-iops,read-mbs,write-mbs,read-lat,guest-cpu,dom0-cpu,busy-seconds
text_fits "8 metrics, Mann-Whitney U" ab compare ring1 ring8 --dir "$sv" \
	--test mwu --metric \
	read-iops,write-iops,read-mbs,write-mbs,read-lat,guest-cpu,dom0-cpu,busy-seconds
text_fits "4 levels" ab compare ring1 ring8 order2 vcpus2 --dir "$sv"
# the metrics left out are named, the two kinds apart
ab_ok "no data: write-lat, backend-cpu, backend-us-per-req, write-kib-per-req; 0 in every run: write-iops, write-mbs" \
	ab compare cached direct --dir "$sd"
ab_ok "0 in every run: write-iops, write-mbs" \
	ab compare ring1 ring8 order2 --dir "$sv"
# -v: each of the three lines in full, and every verdict in words
ab_ok "cells: centre +- half its 95 % interval in % of it" \
	ab compare cached direct --dir "$sd" -v
ab_ok "read-mbs: B slower by" ab compare cached direct --dir "$sd" -v

