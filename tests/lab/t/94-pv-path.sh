# The guest's latency against its device's: one guest with fio
# (abguest.sh, abg_hot_fio_start) reads a phy VBD (xvdb: /dev/vdb1) with
# 64k O_DIRECT reads at queue depth 1 in each run of a hot A/B recorded
# with --latency, fio's JSON+ read back as the run's results.  Checked
# against what xvbd does not control:
#  - each run's d2c read count equals the partition's own completed
#    reads (/sys/class/block/vdb1/stat) over the run, within the reads in
#    flight at its edges: the device side is those requests;
#  - fio's own p50 and p99 (its JSON's clat percentiles) are at least the
#    device's: a request cannot complete in the guest before the device
#    served it;
#  - ab show ID's pv_path puts fio's own p50/p99 beside the device's,
#    their difference as the time in the PV path and its share of the
#    guest's, and says so in a line; ab show --latency LABEL the same
#    over the label's runs.
# lab-tier: all
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t94
top=/tmp/t94
store=$top/store
trig=/scratch/t94-trig.img
xl destroy $name 2>/dev/null
rm -rf $top
mkdir -p $top/fio
rm -f $trig
truncate -s 1M $trig

phase "a guest with fio"
check "the guest is up (UP on its trigger)" abg_hot_fio_start $name $trig ||
	{ finish; exit 1; }
spec="format=raw,vdev=xvdb,access=ro,target=/dev/vdb1"
echo "GO --name=qd1 --rw=read --bs=64k --direct=1 --ioengine=psync --size=16M --runtime=3 --time_based" >$top/fio/args
# The go command between two looks at the partition's completed reads.
cat >$top/go.sh <<EOS
#!/bin/sh
s0=\$(awk '{ print \$1 }' /sys/class/block/vdb1/stat)
$(abg_hot_fio_go_cmd $trig $top/fio)
rc=\$?
s1=\$(awk '{ print \$1 }' /sys/class/block/vdb1/stat)
echo "\$XVBD_AB_LABEL \$s0 \$s1" >>$top/runs.log
exit \$rc
EOS
chmod +x $top/go.sh

phase "hot A/B with fio and --latency on a phy VBD, 1+1 runs"
t0=$SECONDS
xvbd ab run one two --domain $name --disk-a "$spec" --disk-b "$spec" \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$top/go.sh" --latency \
	--runs 1 --dir $store --json >$top/ab.json 2>$top/ab.err
rc=$?
echo "# experiment: $((SECONDS - t0)) s"
expect_eq "ab run --latency with fio exits 0" 0 $rc
[ $rc = 0 ] || sed 's/^/# /' $top/ab.err | tail -30
sed 's/^/# stat: /' $top/runs.log

for l in one two; do
	rec=$(ls $store/$l-*.json)
	id=$(jq -r .id $rec)
	xvbd ab show $id --dir $store --json >$top/show-$l.json
	# for a failure's log: the record's latency state and notes
	jq -c '[.latency.vbds[] | {vdev, state, backwards}], .notes' $rec | sed 's/^/# record: /'
	# the record's d2c reads, its device p50/p99 (ns); fio's own (ns)
	set -- $(jq -rs '[(.[0].latency.vbds[] | select(.vdev == "xvdb") |
		 .d2c.read.count), (.[1].latency.vbds[] | select(.vdev == "xvdb"
		 and .kind == "d2c" and .direction == "read") | .p50_ns, .p99_ns)] |
		map(tostring) | join(" ")' $rec $top/show-$l.json)
	count=$1 dev50=$2 dev99=$3
	set -- $(jq -r '.jobs[0].read.clat_ns.percentile |
		[.["50.000000"], .["99.000000"]] | map(tostring) | join(" ")' \
		$top/fio/$l-1.json)
	fio50=$1 fio99=$2
	stat=$(awk -v l=$l '$1 == l { print $3 - $2 }' $top/runs.log)
	echo "# $l: d2c reads $count, partition $stat; p50 fio $fio50 device $dev50 ns; p99 fio $fio99 device $dev99 ns"
	check "$l: d2c reads ($count) = the partition's completed reads ($stat)" \
		awk -v a="$count" -v b="$stat" 'BEGIN { exit !(b > 0 && a >= b - 2 && a <= b + 2) }'
	check "$l: fio's own p50 ($fio50 ns) >= the device's ($dev50 ns)" \
		awk -v g="$fio50" -v d="$dev50" 'BEGIN { exit !(d > 0 && g >= d) }'
	check "$l: fio's own p99 ($fio99 ns) >= the device's ($dev99 ns)" \
		awk -v g="$fio99" -v d="$dev99" 'BEGIN { exit !(d > 0 && g >= d) }'
	# pv_path: fio's own figures (3 decimals of ms), the device's, the
	# difference and its share.
	got=$(jq -r '.pv_path.read | [.runs, .p50.guest_ms, .p50.device_ms,
		.p50.pv_path_ms, .p99.guest_ms, .p99.device_ms, .p99.pv_path_ms,
		.p99.pv_path_pct] | map(tostring) | join(" ")' $top/show-$l.json)
	echo "# $l pv_path: $got"
	check "$l: pv_path is fio's own p50/p99 beside the device's, the difference and its share" \
		awk -v g="$got" -v f50="$fio50" -v f99="$fio99" -v d50="$dev50" -v d99="$dev99" '
		function near(a, b) { return a - b < 0.0011 && b - a < 0.0011 }
		BEGIN { split(g, v, " ")
			exit !(v[1] == 1 && near(v[2], f50 / 1e6) && near(v[3], d50 / 1e6) &&
			       near(v[4], v[2] - v[3]) && near(v[5], f99 / 1e6) &&
			       near(v[6], d99 / 1e6) && near(v[7], v[5] - v[6]) &&
			       v[8] >= 0 && v[8] <= 100 &&
			       (v[8] - 100 * v[7] / v[5]) ^ 2 < 0.01) }'
	check "$l: the line says it" sh -c \
		"jq -r '.pv_path.lines[]' $top/show-$l.json | grep -q '^read p99: guest .* ms, device .* ms on xvdb: .* ms (.* %) in the PV path'"
done
xvbd ab show --latency one --dir $store >$top/label.txt
sed 's/^/# /' $top/label.txt
check "ab show --latency LABEL: the split over its runs" \
	grep -q "read p50: guest .* in the PV path" $top/label.txt

lab-guest stop $name
rm -f $trig
finish
