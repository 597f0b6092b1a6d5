# xvbd stats --latency: each VBD's backing device's requests, timed in
# dom0's kernel (block request events in a tracefs instance of its own,
# paired by xvbd), against what the kernel and the
# lab's throttle say on their own.  One guest, three phy VBDs: xvdb on
# /dev/vdb1 and xvdc on /dev/vdb2 (two partitions of one disk, told apart
# by their sector ranges), xvdd on the throttled /dev/vdc (reads at 1
# MiB/s: QEMU's throttle).
#  1. the slow disk: the guest's 64 KiB O_DIRECT reads at queue depth 1.
#     QEMU's throttle is a leaky bucket: it spaces the reads' starts
#     62.5 ms apart, and a read's time in the device is that less the
#     time it spends outside it (blkfront, blkback, the guest: ~20 ms
#     under TCG), so the reference is the same reads timed by the
#     kernel's own event stream (a tracefs instance of the test's,
#     its text, issue to completion paired by sector): the same
#     count of reads, the same maximum within 1 %; every interval's
#     p50 below 62.5 ms + 15 % and max >= p99.9 >= p99 >= p50 > 0;
#     every interval's p50 after the first (the throttle's allowance
#     and the guest's probes of the new disk) within 15 % of the
#     service time the throttle implies, 62.5 ms less the median time
#     outside the
#     device, when the stream's own reads took that (a loaded host
#     stretches the time outside, the bucket leaks between reads and
#     the throttle implies nothing: said, not checked); the
#     stats started before the guest existed (its VBDs came later) and
#     ended on SIGINT with nothing left in tracefs;
#  2. completions: reads and writes that dom0 runs on both partitions at
#     once, pinned to its two CPUs, between two quiet moments: the d2c
#     counts of xvdb and xvdc summed over the intervals equal the
#     partitions' own completed I/Os (/sys/class/block/vdb[12]/stat),
#     each its own partition's, not the disk's; no request came out
#     negative (backwards 0, no latency of more than 10 s);
#  3. two xvbd processes at once: a --prometheus one beside the --json
#     one, each counting all (its _count equals the stat's delta), and
#     its file's histograms cumulative with _sum and _count (the file is
#     an artefact: tests/promtool.sh checks it with promtool);
#  4. kill -9 of stats --latency: its instance stays (and no synthetic
#     event: it makes none), the next xvbd command names it with the
#     command that removes it, which does;
#  5. without tracefs: "unavailable" with the reason, the other columns
#     there, exit 0;
#  6. i2c: not timed (null) on vdc, whose queue the test gives no
#     scheduler; on vdb, given mq-deadline, it counts every request the
#     partitions' stat counts.
# testlib's finish checks that nothing of xvbd's is left in tracefs.
# lab-timeout: 300
. /lab/lib/testlib.sh
T=/sys/kernel/tracing
slow=/tmp/t88-slow.jsonl
json=/tmp/t88.jsonl
prom=/tmp/t88.prom

check "tracefs mounted in dom0" grep -q " $T tracefs " /proc/mounts
# i2c is timed where the queue has an I/O scheduler: vdc without one
# (phase 1), vdb with mq-deadline (phase 2); put back at the end.
sched_of() { sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$1/queue/scheduler; }
vdb_sched=$(sched_of vdb) vdc_sched=$(sched_of vdc)
echo none >/sys/block/vdc/queue/scheduler
check "vdb can take mq-deadline" sh -c \
	'echo mq-deadline >/sys/block/vdb/queue/scheduler'
echo "# schedulers: vdb $vdb_sched -> $(sched_of vdb), vdc $vdc_sched -> $(sched_of vdc)"

phase "slow disk: stats before the guest, 64 KiB reads at QD1"
# The reference: vdc's requests as events, in an instance of the test's.
R=$T/instances/t88-raw
vdc_kdev=$(awk -F: '{ print $1 * 1048576 + $2 }' /sys/class/block/vdc/dev)
mkdir $R
echo mono >$R/trace_clock
for e in block_rq_issue block_rq_complete; do
	echo "dev == $vdc_kdev" >$R/events/block/$e/filter
	echo 1 >$R/events/block/$e/enable
done
xvbd stats --latency --json -d 1 >$slow 2>/tmp/t88-slow.err &
stats=$!
# One disk at creation, two hot-attached: three block scripts at once
# outlast libxl's hotplug timeout on a loaded host.
lab-guest start t88 --disk "phy:/dev/vdc,xvdd,r" --paused \
	--run 'while [ ! -b /dev/xvdc ]; do sleep 0.2; done; sleep 1
		dd if=/dev/xvdd of=/dev/null bs=64k count=56 iflag=direct \
		2>&1 | tail -n 1; echo SLOW-DONE'
domid=$(xl domid t88)
check "guest created" test -n "$domid"
check "xvdb on vdb1 attached" xl block-attach t88 "phy:/dev/vdb1,xvdb,w"
check "xvdc on vdb2 attached" xl block-attach t88 "phy:/dev/vdb2,xvdc,w"
xl unpause t88
out=$(lab-guest wait t88 --timeout 300)
expect_eq "guest read the slow disk" 0 $?
echo "$out" | sed 's/^/# guest: /'
sleep 2.2
check "stats --latency has its instance while it runs" \
	test -d $T/instances/xvbd-$stats
kill -INT $stats
wait $stats
expect_eq "stats --latency ended cleanly on SIGINT" 0 $?
expect_eq "... and removed its instance" "" "$(tracefs_left)"
check "no warnings" test ! -s /tmp/t88-slow.err
sed 's/^/# stderr: /' /tmp/t88-slow.err
# Per interval of xvdd with >= 8 reads: count p50 p99 p999 max (ns).
jq -r '.vbds[] | select(.vdev == "xvdd" and .latency.state == "ok") |
	.latency.d2c.read | select(.count >= 8) |
	"\(.count) \(.p50_ns) \(.p99_ns) \(.p999_ns) \(.max_ns)"' \
	$slow >/tmp/t88.slow
sed 's/^/# xvdd: /' /tmp/t88.slow
expect_eq "xvdd: i2c not timed (vdc's queue: none), every interval" null \
	"$(jq -r 'select(.vbds) | .vbds[] | select(.vdev == "xvdd" and
		.latency != null) | .latency.i2c | tojson' $slow | sort -u |
		tr '\n' ' ' | sed 's/ $//')"
n=$(wc -l </tmp/t88.slow)
check "the slow reads span >= 2 intervals of >= 8 reads" test "$n" -ge 2
# The stream's reads: sectors and issue to completion (ns), paired by
# sector.
for e in block_rq_issue block_rq_complete; do
	echo 0 >$R/events/block/$e/enable
done
awk '/block_rq_(issue|complete): / {
	for (i = 1; i <= NF; i++) if ($i ~ /^block_rq_/) break
	if ($(i + 2) !~ /^R/) next
	t = $(i - 1); sub(":", "", t); sec = ""; n = 0
	for (j = i; j < NF; j++) if ($j == "+") { sec = $(j - 1); n = $(j + 1) }
	if (sec == "") next
	if ($i ~ /issue/) is[sec] = t
	else if (sec in is) {
		printf "%s %.0f %s %s\n", n, (t - is[sec]) * 1e9, is[sec], t
		delete is[sec]
	}
}' $R/trace >/tmp/t88.raw
mkdir -p "$LAB_ARTEFACTS" && cp /tmp/t88.raw "$LAB_ARTEFACTS/slow-stream.txt"
rmdir $R
read -r raw_n raw_n64 raw_max < <(awk '{ n++; if ($1 == 128) k++
	if ($2 > m) m = $2 } END { print n + 0, k + 0, m + 0 }' /tmp/t88.raw)
# xvbd's: every interval of xvdd, its reads' count and maximum.
read -r x_n x_max < <(jq -s -r '[.[].vbds[] | select(.vdev == "xvdd") |
	.latency.d2c.read // empty] | "\([.[].count] | add // 0) " +
	"\([.[] | select(.count > 0) | .max_ns] | max // 0)"' $slow)
echo "# stream: $raw_n reads ($raw_n64 of 64 KiB), max $raw_max ns;" \
	"xvbd: $x_n reads, max $x_max ns"
check "the stream has the guest's 56 reads of 64 KiB" test "$raw_n64" -ge 56
expect_eq "xvbd counted the stream's reads of vdc" "$raw_n" "$x_n"
check "xvbd's maximum is the stream's, within 1 %" awk -v a="$x_max" \
	-v b="$raw_max" 'BEGIN { d = a - b; if (d < 0) d = -d
	exit !(b > 0 && d <= b / 100) }'
# What the throttle implies: at QD1 its leaky bucket starts a 64 KiB read
# 62.5 ms after the one before once the allowance is spent, so a read's
# time in the device is 62.5 ms less the time outside it since the last
# completion (the kernel's stream says how long).  That holds while the
# reads wait for the bucket: when the time outside is long (a loaded
# host), the bucket leaks between reads, its allowance (100 KiB) lets some
# through at once and the reads come out bimodal (p50 between 6 and 40 ms
# in two such runs).  So the throttle is the reference when the stream's
# own median read is within 5 % of what it implies; otherwise that is
# said, and not checked.
awk '$1 == 128 { if (pc != "") printf "%.3f %.3f\n", ($3 - pc) * 1e3,
	$2 / 1e6; pc = $4 }' /tmp/t88.raw >/tmp/t88.gaps
median() { sort -n | awk '{ v[++k] = $1 } END { printf "%.3f", k ? v[int((k + 1) / 2)] : 0 }'; }
gap_ms=$(cut -d' ' -f1 /tmp/t88.gaps | median)
dev_ms=$(cut -d' ' -f2 /tmp/t88.gaps | median)
ngaps=$(wc -l </tmp/t88.gaps)
implied_ms=$(awk -v g="$gap_ms" 'BEGIN { printf "%.3f", 62.5 - g }')
echo "# throttle: median time outside the device $gap_ms ms ($ngaps gaps)," \
	"implied service $implied_ms ms; the stream's median read $dev_ms ms"
if awk -v s="$dev_ms" -v i="$implied_ms" 'BEGIN { d = s - i; if (d < 0) d = -d
	exit !(i > 0 && d <= i * 0.05) }'; then
	# Not the first interval: the allowance's reads and the guest's
	# probes of the new disk (a few small reads) are in it, and with
	# 8 reads it can be their median (41 ms once).
	check "p50 within 15 % of the throttle's implied $implied_ms ms, every interval after the first" \
		awk -v i="$implied_ms" 'NR > 1 { d = $2 / 1e6 - i
		if (d < 0) d = -d; if (d > i * 0.15) bad = 1 }
		END { exit bad || NR < 3 }' /tmp/t88.slow
else
	echo "# the stream's reads did not wait for the throttle's bucket:" \
		"its implied service time is no reference this run (not checked)"
fi
# 65536 B at 1048576 B/s: starts 62.5 ms apart at QD1.
check "p50 below the throttle's 62.5 ms + 15 %, every interval" \
	awk '$2 > 71875000 { bad = 1 } END { exit bad }' /tmp/t88.slow
check "max >= p99.9 >= p99 >= p50 > 0" \
	awk '!($5 >= $4 && $4 >= $3 && $3 >= $2 && $2 > 0) { bad = 1 }
	END { exit bad }' /tmp/t88.slow

phase "completions against the partitions' stat, two xvbd at once"
stat_io() {	# completed reads + writes of a block device
	awk '{ print $1 + $5 }' /sys/class/block/$1/stat
}
xvbd stats --latency --json -d 1 >$json 2>/tmp/t88.err &
s1=$!
xvbd stats --latency --prometheus $prom -d 1 2>/tmp/t88-prom.err &
s2=$!
# Both past their baselines (a slot boundary: the JSON's first interval
# out, the Prometheus file written): quiet until then.
check "both started" wait_for 60 yes sh -c \
	"test -s $json -a -s $prom && echo yes"
a1=$(stat_io vdb1); a2=$(stat_io vdb2)
taskset -c 0 dd if=/dev/vdb1 of=/dev/null bs=4k count=1500 iflag=direct \
	2>/dev/null &
l1=$!
taskset -c 1 dd if=/dev/zero of=/dev/vdb2 bs=4k count=600 seek=20000 \
	oflag=direct 2>/dev/null &
l2=$!
taskset -c 1 dd if=/dev/vdb2 of=/dev/null bs=16k count=400 iflag=direct \
	2>/dev/null &
l3=$!
taskset -c 0 dd if=/dev/vdb1 of=/dev/null bs=64k count=200 skip=3000 \
	iflag=direct 2>/dev/null &
l4=$!
wait $l1 $l2 $l3 $l4
sleep 0.5
b1=$(stat_io vdb1); b2=$(stat_io vdb2)
# Every request before b is in a slot that ended and was read.
sleep 2.2
kill -INT $s1 $s2
wait $s1
expect_eq "stats --json ended cleanly" 0 $?
wait $s2
expect_eq "stats --prometheus ended cleanly" 0 $?
check "no warnings" test ! -s /tmp/t88.err -a ! -s /tmp/t88-prom.err
cat /tmp/t88.err /tmp/t88-prom.err | sed 's/^/# stderr: /'
# Sums over the intervals, one jq: VBD count backwards over10s states
# i2c-count
jq -s -r '[.[].vbds[] | select(.vdev == "xvdb" or .vdev == "xvdc")] |
	group_by(.vdev)[] | . as $g |
	"\($g[0].vdev) \([$g[].latency.d2c.read.count] | add)" +
	" \([$g[].latency.d2c.write.count] | add)" +
	" \([$g[].latency.backwards] | add)" +
	" \([$g[].latency.d2c[] | select(.count > 0) | .max_ns |
		select(. > 10000000000)] | length)" +
	" \([$g[].latency.state] | unique | join(","))" +
	" \([$g[].latency.i2c | .read.count + .write.count] | add)"' \
	$json >/tmp/t88.sum
sed 's/^/# sum: /' /tmp/t88.sum
read -r _ r1 w1 back1 big1 st1 q1 < <(grep '^xvdb ' /tmp/t88.sum)
read -r _ r2 w2 back2 big2 st2 q2 < <(grep '^xvdc ' /tmp/t88.sum)
echo "# vdb1 stat: $a1 -> $b1, vdb2 stat: $a2 -> $b2"
check "the load moved both partitions" test $((b1 - a1)) -gt 1000 -a \
	$((b2 - a2)) -gt 500
expect_eq "xvdb (vdb1): completions = the partition's stat" \
	$((b1 - a1)) $((r1 + w1))
expect_eq "xvdc (vdb2): completions = the partition's stat" \
	$((b2 - a2)) $((r2 + w2))
expect_eq "xvdc: its writes counted as writes" 600 "$w2"
expect_eq "no request came out negative (backwards)" "0 0" "$back1 $back2"
expect_eq "no latency over 10 s" "0 0" "$big1 $big2"
expect_eq "every interval complete" "ok ok" "$st1 $st2"
# Through mq-deadline every request is inserted before its issue.
expect_eq "i2c (vdb's queue: mq-deadline): every request, xvdb" \
	$((b1 - a1)) "$q1"
expect_eq "i2c (vdb's queue: mq-deadline): every request, xvdc" \
	$((b2 - a2)) "$q2"
# The Prometheus file: _count of d2c per VBD and direction.
pcount() {	# pcount VDEV DIRECTION
	awk -v v="vdev=\"$1\"" -v d="direction=\"$2\"" \
		'/^xvbd_vbd_backing_d2c_seconds_count/ && index($0, v) &&
		 index($0, d) { n += $2 } END { print n + 0 }' $prom
}
expect_eq "prometheus: xvdb's _count = the partition's stat" \
	$((b1 - a1)) $(($(pcount xvdb read) + $(pcount xvdb write)))
expect_eq "prometheus: xvdc's _count = the partition's stat" \
	$((b2 - a2)) $(($(pcount xvdc read) + $(pcount xvdc write)))
check "prometheus: +Inf bucket = _count (xvdb read)" sh -c "grep -q \
	'^xvbd_vbd_backing_d2c_seconds_bucket{.*vdev=\"xvdb\".*direction=\"read\",le=\"+Inf\"} $(pcount xvdb read)\$' $prom"
check "prometheus: i2c histograms for xvdb (timed)" \
	grep -q '^xvbd_vbd_backing_i2c_seconds_count{.*vdev="xvdb"' $prom
check "prometheus: buckets never decrease" awk '
	/_bucket\{/ { k = $0; sub(/,le=.*/, "", k)
		if (k == prev && $2 < last) bad = 1; prev = k; last = $2 }
	END { exit bad }' $prom
mkdir -p "$LAB_ARTEFACTS" && cp $prom "$LAB_ARTEFACTS/stats.prom"

phase "kill -9: the next command names what is left, its remedy works"
xvbd stats --latency -d 1 >/dev/null 2>&1 &
k=$!
check "its instance is up" wait_for 30 yes sh -c \
	"test -d $T/instances/xvbd-$k && echo yes"
sleep 0.5
kill -9 $k
wait $k 2>/dev/null
check "its instance outlived it" test -d $T/instances/xvbd-$k
check "no synthetic event of its" sh -c "! grep -q '^xvbd_$k' $T/synthetic_events"
xvbd list >/dev/null 2>/tmp/t88-list.err
sed 's/^/# list: /' /tmp/t88-list.err
check "xvbd list names the killed stats and its instance" grep -q \
	"xvbd stats (pid $k) was killed: its latency tracing is still on: tracefs instance $T/instances/xvbd-$k" \
	/tmp/t88-list.err
fix=$(sed -n 's/^xvbd: hint: remove it with: //p' /tmp/t88-list.err)
case $fix in
"rmdir $T/instances/xvbd-$k")
	ok "the remedy removes the instance" ;;
*)	fail "the remedy: $fix" ;;
esac
bash -c "$fix"
expect_eq "... and did" "" "$(tracefs_left)"
xvbd list >/dev/null 2>/tmp/t88-list2.err
check "the next command has nothing to say" test ! -s /tmp/t88-list2.err

phase "without tracefs: unavailable, the rest there"
umount $T
out=$(xvbd stats --latency --json -n 1 -d 0.5 2>/tmp/t88-un.err)
rc=$?
mount -t tracefs tracefs $T
expect_eq "exit 0" 0 $rc
expect_eq "says why" "tracefs is not mounted (mount -t tracefs nodev $T)" \
	"$(echo "$out" | jq -r .latency_unavailable)"
expect_eq "xvdb's other columns are there" "number" \
	"$(echo "$out" | jq -r '.vbds[] | select(.vdev == "xvdb") |
		.read_iops | type')"

lab-guest stop t88
echo "$vdb_sched" >/sys/block/vdb/queue/scheduler
echo "$vdc_sched" >/sys/block/vdc/queue/scheduler
finish
