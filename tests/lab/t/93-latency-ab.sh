# ab run --latency: an A/B where only the tail moves.  One guest stays up
# with fio (abguest.sh's hot fio guest); each run attaches the same disk
# under test (xvdb: an image on the throttled slow disk, /slow, with
# --cache none, so every read reaches it through the loop device) and
# records fio's paced 4 KiB random reads (40 a second, 6 s) with the
# backing device's latency.  The slow disk's reads are throttled by QEMU
# (1 MiB/s) with a burst allowance of 100 KiB: fio's 160 KiB/s never fill
# it.  During B's runs dom0 reads 192 KiB of another file on the same
# disk every 1.5 s: each burst fills the allowance and the next ~90 ms of
# the guest's reads wait, a few percent of them; the rest do not.
# Checked against what xvbd does not control:
#  - every run's d2c read count equals the loop device's own completed
#    reads (its /sys/class/block/loopN/stat) over the run, within the
#    reads in flight at its edges: the record's latency is the run's
#    requests;
#  - fio's own p99 of each run is B's higher (the guest saw the tail);
#  - ab compare names read-p99 worse (B's tail, the bursts), and not
#    read-p50 (the body did not move); it prints the mean (read-lat);
#  - ab show --latency merges a label's runs: its request count is the
#    sum of the runs';
#  - ab plot draws both distributions.
# lab-tier: all
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t93
top=/tmp/t93
store=$top/store
trig=/scratch/t93-trig.img
img=/slow/t93.img
noise=/slow/t93-noise.img
pairs=4
xl destroy $name 2>/dev/null
rm -rf $top
mkdir -p $top/fio
rm -f $trig
truncate -s 1M $trig
check "the slow disk is mounted on /slow" abg_mount_slow
rm -f $img $noise
# Written, not allocated: an unwritten extent reads as zeros without
# reaching the disk.
dd if=/dev/urandom of=$img bs=1M count=32 conv=fsync status=none &&
	dd if=/dev/urandom of=$noise bs=1M count=8 conv=fsync status=none
check "the guest is up (UP on its trigger)" abg_hot_fio_start $name $trig ||
	{ finish; exit 1; }
domid=$(xl domid $name)
echo "GO --name=paced --rw=randread --bs=4k --direct=1 --ioengine=psync --size=32M --rate_iops=40 --runtime=6 --time_based" >$top/fio/args

# B's runs: a 192 KiB O_DIRECT read of the noise file every 1.5 s while
# the guest reads; the loop device's completed reads before and after
# every run into the log.
cat >$top/go.sh <<EOS
#!/bin/sh
log=$top/runs.log
l=\$(losetup -j $img | cut -d: -f1); l=\${l#/dev/}
s0=\$(awk '{ print \$1 }' /sys/class/block/\$l/stat)
if [ "\$XVBD_AB_LABEL" = burst ]; then
	( i=0; while [ \$i -lt 8 ]; do sleep 1.5
		dd if=$noise of=/dev/null bs=192k count=1 skip=\$i \\
			iflag=direct 2>/dev/null; i=\$((i + 1)); done ) &
	h=\$!
fi
$(abg_hot_fio_go_cmd $trig $top/fio)
rc=\$?
[ -n "\${h:-}" ] && kill \$h 2>/dev/null && wait \$h 2>/dev/null
s1=\$(awk '{ print \$1 }' /sys/class/block/\$l/stat)
echo "\$XVBD_AB_LABEL \$l \$s0 \$s1" >>\$log
exit \$rc
EOS
chmod +x $top/go.sh
spec="format=raw,vdev=xvdb,access=ro,target=$img"

phase "hot A/B with --latency: calm vs burst, $pairs+$pairs runs"
t0=$SECONDS
xvbd ab run calm burst --domain $name --disk-a "$spec" --disk-b "$spec" \
	--cache-a none --cache-b none \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$top/go.sh" --latency \
	--runs $pairs --metric read-p99 --dir $store \
	--json >$top/ab.json 2>$top/ab.err
rc=$?
echo "# experiment: $((SECONDS - t0)) s"
sed 's/^/# /' $top/ab.err $top/runs.log
expect_eq "ab run --latency exits 0" 0 $rc
expect_eq "every record has latency" $((2 * pairs)) \
	"$(jq -r 'select(.latency) | .id' $store/*.json | wc -l)"
# Each run: its d2c reads against the loop device's own count over the
# run (the go command's two looks bracket the guest's reads; the record
# spans its slots: within the guest's requests in flight, 1 here).
jq -r '"\(.label) \(.latency.vbds[] | select(.vdev == "xvdb") |
	.d2c.read.count)"' $store/*.json | sort >$top/counts
awk '{ print $1, $4 - $3 }' $top/runs.log | sort >$top/stat
sed 's/^/# record: /' $top/counts
sed 's/^/# stat: /' $top/stat
check "each label's d2c reads = the loop device's completed reads" \
	awk 'NR == FNR { r[$1] += $2; next } { s[$1] += $2 }
	END { for (l in s) if (r[l] < s[l] - 8 || r[l] > s[l] + 8) exit 1
	      exit !length(s) }' $top/counts $top/stat
# fio's own p99 of every run (ms), the guest's view of the same tail.
for f in $top/fio/calm-*.json $top/fio/burst-*.json; do
	echo "$(basename $f .json) $(jq '.jobs[0].read.clat_ns.percentile["99.000000"] / 1e6' $f)"
done >$top/fio99
sed 's/^/# fio p99 (ms): /' $top/fio99
check "fio's own p99: every burst run above every calm run" \
	awk '$1 ~ /^calm/ && $2 > c { c = $2 } $1 ~ /^burst/ && (b == "" || $2 < b) { b = $2 }
	END { exit !(NR == 2 * '$pairs' && b > c) }' $top/fio99
expect_eq "read-p99: B worse" worse \
	"$(jq -r '.comparison.metrics[] | select(.metric == "read-p99") |
		.verdict' $top/ab.json)"
check "read-p50 not named worse: the body did not move" \
	jq -e '.comparison.metrics[] | select(.metric == "read-p50") |
		.verdict != "worse"' $top/ab.json
xvbd ab compare calm burst --dir $store >$top/cmp.txt 2>&1
sed 's/^/# compare: /' $top/cmp.txt
check "compare prints the mean (read-lat) and p50 too" \
	sh -c "grep -q '^ *read-lat ' $top/cmp.txt && grep -q '^ *read-p50 ' $top/cmp.txt"
total=$(jq -s '[.[] | select(.label == "burst") |
	.latency.vbds[0].d2c.read.count] | add' $store/*.json)
expect_eq "ab show --latency: the label's runs merged" "$total" \
	"$(xvbd --json ab show --latency burst --dir $store |
		jq '.latency.vbds[] | select(.kind == "d2c" and
			.direction == "read") | .count')"
check "ab plot draws both distributions" sh -c \
	"xvbd ab plot calm burst -o $top/p.svg --dir $store >/dev/null &&
	 grep -q 'read service time (d2c)' $top/p.svg"
mkdir -p "$LAB_ARTEFACTS" && cp $top/p.svg $top/cmp.txt "$LAB_ARTEFACTS/"

lab-guest stop $name
check "nothing left of the disk under test (no loop over its image)" \
	sh -c "! losetup -a | grep -q t93"
rm -f $trig $img $noise
finish
