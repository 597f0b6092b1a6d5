# ab run --latency: an A/B where only the tail moves.  One guest stays up
# (abguest.sh's hot guest); each run attaches the same disk under test
# (xvdb: phy /dev/vdb1) and records the guest's O_DIRECT read of it with
# the backing device's latency.  During B's runs, dom0 reads the other
# partition of the same disk (/dev/vdb2) in short bursts with pauses
# between: a few of the guest's requests queue behind a burst, most do
# not.  Checked against what xvbd does not control:
#  - every run's d2c read count equals the partition's own completed
#    reads (/sys/class/block/vdb1/stat) over the run, within the reads
#    in flight at its edges: the record's latency is the run's requests;
#  - ab compare names read_p99_ms worse (B's tail, the bursts), whatever it
#    says of the mean (read_lat_ms), which it prints;
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
check "the guest is up (UP on its trigger)" abg_hot_start $name $mib $trig ||
	{ finish; exit 1; }
domid=$(xl domid $name)

# B's runs: bursts on the other partition while the guest reads; the
# partition's completed reads before and after every run into the log.
cat >$top/go.sh <<EOS
#!/bin/sh
log=$top/runs.log
s0=\$(awk '{ print \$1 }' /sys/class/block/vdb1/stat)
if [ "\$XVBD_AB_LABEL" = burst ]; then
	( i=0; while [ \$i -lt 40 ]; do
		dd if=/dev/vdb2 of=/dev/null bs=1M count=1 skip=\$((i * 4)) \\
			iflag=direct 2>/dev/null; sleep 0.15; i=\$((i + 1)); done ) &
	h=\$!
fi
$(abg_hot_go_cmd $trig)
rc=\$?
[ -n "\${h:-}" ] && kill \$h 2>/dev/null && wait \$h 2>/dev/null
s1=\$(awk '{ print \$1 }' /sys/class/block/vdb1/stat)
echo "\$XVBD_AB_LABEL \$s0 \$s1" >>\$log
exit \$rc
EOS
chmod +x $top/go.sh
spec="format=raw,vdev=xvdb,access=ro,target=/dev/vdb1"

phase "hot A/B with --latency: calm vs burst, $pairs+$pairs runs"
t0=$SECONDS
xvbd ab run calm burst --domain $name --disk-a "$spec" --disk-b "$spec" \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$top/go.sh" --latency \
	--interval 0.1 --runs $pairs --metric read_p99_ms --dir $store \
	--json >$top/ab.json 2>$top/ab.err
rc=$?
echo "# experiment: $((SECONDS - t0)) s"
sed 's/^/# /' $top/ab.err $top/runs.log
expect_eq "ab run --latency exits 0" 0 $rc
expect_eq "every record has latency" $((2 * pairs)) \
	"$(jq -r 'select(.latency) | .id' $store/*.json | wc -l)"
# Each run: its d2c reads against the partition's own count over the
# run (the go command's two looks bracket the guest's read; the record
# spans its slots: within the guest's requests in flight, 1 here).
jq -r '"\(.label) \(.latency.vbds[0].d2c.read.count)"' $store/*.json |
	sort >$top/counts
awk '{ print $1, $3 - $2 }' $top/runs.log | sort >$top/stat
sed 's/^/# record: /' $top/counts
sed 's/^/# stat: /' $top/stat
check "each label's d2c reads = the partition's completed reads" \
	awk 'NR == FNR { r[$1] += $2; next } { s[$1] += $2 }
	END { for (l in s) if (r[l] < s[l] - 8 || r[l] > s[l] + 8) exit 1
	      exit !length(s) }' $top/counts $top/stat
expect_eq "read_p99_ms: B worse" worse \
	"$(jq -r '.comparison.metrics[] | select(.metric == "read_p99_ms") |
		.verdict' $top/ab.json)"
xvbd ab compare calm burst --dir $store >$top/cmp.txt 2>&1
sed 's/^/# compare: /' $top/cmp.txt
check "compare prints the mean (read_lat_ms) and p50 too" \
	sh -c "grep -q '^ *read_lat_ms ' $top/cmp.txt && grep -q '^ *read_p50_ms ' $top/cmp.txt"
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
rm -f $trig
finish
