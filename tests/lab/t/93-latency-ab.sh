# ab run --latency: an A/B where only the tail moves.  One guest stays up
# (abguest.sh's hot guest); each run attaches the disk under test as
# xvdb and records the guest's reads of it with the backing device's
# latency.  A: /dev/vdb1; B: the lab's throttled disk /dev/vdc (QEMU lets
# it read 1 MiB/s, with an allowance of a tenth of that), read at low
# load: runs of nineteen 4 KiB reads and one of 256 KiB, at QD1.  The
# 4 KiB reads fit in the allowance; the 256 KiB one does not, and waits
# for the bucket (about a quarter of a second), and so does the read
# after it: a tenth of B's requests.  Its median moves by a millisecond
# or two (0.4 to 1.9 ms once), its tail by 150 ms.  (Bursts of dom0's reads on the other
# partition during B's runs moved the tail too little against the
# emulation's own noise to be named.)  Checked against what xvbd does
# not control:
#  - every run's d2c read count equals the device's own completed reads
#    (/sys/class/block/DEV/stat) over the run, within the reads in
#    flight at its edges: the record's latency is the run's requests;
#  - ab compare names read_p99_ms worse (B's tail), whatever it says of
#    the mean (read_lat_ms) and p50, which it prints;
#  - ab show --latency merges a label's runs: its request count is the
#    sum of the runs';
#  - ab plot draws both distributions.
# lab-tier: all
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t93
top=/tmp/t93
store=$top/store
trig=/scratch/t93-trig.img
mib=4
pairs=4
xl destroy $name 2>/dev/null
rm -rf $top
mkdir -p $top
rm -f $trig
truncate -s 1M $trig
# The hot guest (abguest.sh's), its read at GO: eight runs of nineteen
# 4 KiB reads and a 256 KiB one, each at a new place of xvdb.
ABG_HOT_SCRIPT=$(abg_hot_guest $mib 'i=0
		while [ $i -lt 8 ]; do
			dd if=/dev/xvdb of=/dev/null bs=4k count=19 \
				skip=$((i * 128)) iflag=direct 2>/dev/null
			dd if=/dev/xvdb of=/dev/null bs=256k count=1 \
				skip=$((i * 2 + 1)) iflag=direct 2>/dev/null
			i=$((i + 1))
		done')
check "the guest is up (UP on its trigger)" abg_hot_start $name $mib $trig ||
	{ finish; exit 1; }
domid=$(xl domid $name)

# Each run: the device's completed reads before and after it, in the log.
cat >$top/go.sh <<EOS
#!/bin/sh
log=$top/runs.log
dev=vdb1
[ "\$XVBD_AB_LABEL" = throttled ] && dev=vdc
s0=\$(awk '{ print \$1 }' /sys/class/block/\$dev/stat)
$(abg_hot_go_cmd $trig)
rc=\$?
s1=\$(awk '{ print \$1 }' /sys/class/block/\$dev/stat)
echo "\$XVBD_AB_LABEL \$s0 \$s1" >>\$log
exit \$rc
EOS
chmod +x $top/go.sh
spec_a="format=raw,vdev=xvdb,access=ro,target=/dev/vdb1"
spec_b="format=raw,vdev=xvdb,access=ro,target=/dev/vdc"

phase "hot A/B with --latency: plain vs throttled, $pairs+$pairs runs"
t0=$SECONDS
xvbd ab run plain throttled --domain $name --disk-a "$spec_a" \
	--disk-b "$spec_b" \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$top/go.sh" --latency \
	--interval 0.1 --runs $pairs --metric read_p99_ms --dir $store \
	--json >$top/ab.json 2>$top/ab.err
rc=$?
echo "# experiment: $((SECONDS - t0)) s"
sed 's/^/# /' $top/ab.err $top/runs.log
expect_eq "ab run --latency exits 0" 0 $rc
expect_eq "every record has latency" $((2 * pairs)) \
	"$(jq -r 'select(.latency) | .id' $store/*.json | wc -l)"
# Each run: its d2c reads against the device's own count over the
# run (the go command's two looks bracket the guest's read; the record
# spans its slots: within the guest's requests in flight, 1 here).
jq -r '"\(.label) \(.latency.vbds[0].d2c.read.count)"' $store/*.json |
	sort >$top/counts
awk '{ print $1, $3 - $2 }' $top/runs.log | sort >$top/stat
sed 's/^/# record: /' $top/counts
sed 's/^/# stat: /' $top/stat
check "each label's d2c reads = the device's completed reads" \
	awk 'NR == FNR { r[$1] += $2; next } { s[$1] += $2 }
	END { for (l in s) if (r[l] < s[l] - 8 || r[l] > s[l] + 8) exit 1
	      exit !length(s) }' $top/counts $top/stat
expect_eq "read_p99_ms: B worse" worse \
	"$(jq -r '.comparison.metrics[] | select(.metric == "read_p99_ms") |
		.verdict' $top/ab.json)"
xvbd ab compare plain throttled --dir $store >$top/cmp.txt 2>&1
sed 's/^/# compare: /' $top/cmp.txt
check "compare prints the mean (read_lat_ms) and p50 too" \
	sh -c "grep -q '^ *read_lat_ms ' $top/cmp.txt && grep -q '^ *read_p50_ms ' $top/cmp.txt"
total=$(jq -s '[.[] | select(.label == "throttled") |
	.latency.vbds[0].d2c.read.count] | add' $store/*.json)
expect_eq "ab show --latency: the label's runs merged" "$total" \
	"$(xvbd --json ab show --latency throttled --dir $store |
		jq '.latency.vbds[] | select(.kind == "d2c" and
			.direction == "read") | .count')"
check "ab plot draws both distributions" sh -c \
	"xvbd ab plot plain throttled -o $top/p.svg --dir $store >/dev/null &&
	 grep -q 'read service time (d2c)' $top/p.svg"
mkdir -p "$LAB_ARTEFACTS" && cp $top/p.svg $top/cmp.txt "$LAB_ARTEFACTS/"

lab-guest stop $name
rm -f $trig
finish
