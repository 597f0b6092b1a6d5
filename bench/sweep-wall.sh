# bench/sweep-wall.sh [REPEATS [OTHER]]: what a hot sweep costs beyond
# its I/O.
# One running guest, 4 levels (base and same: a 2 MiB image on /scratch
# with dom0's page cache on; none: the same image, cache off; slow: a
# copy on the lab's throttled slow disk, cache off), 3 blocks in
# Williams order: `ab run base same none slow --domain G ...`, the
# experiment of tests/lab/t/95, REPEATS times (2) in one lab.  OTHER: a
# second xvbd binary (handed in with --with), run beside the one on PATH
# in each repeat, in alternating order, for a before/after in one run.
#
#   tests/lab/run --timeout 1800 bench/sweep-wall.sh
#   tests/lab/run --with /tmp/old/xvbd --timeout 2400 bench/sweep-wall.sh 3 xvbd
#
# The reference is what cannot be avoided: the guest's own I/O time (its
# uptime after each read minus before it, written on its trigger disk:
# /lab/lib/abguest.sh) plus one attach and one detach of the disk under
# test per run, timed on their own beforehand (`xvbd attach` then
# `xvbd detach`, 4 times, the median).  Per experiment: its wall time
# (dom0's clock), and where the rest went, from timestamps the --ready
# and --run commands write: the handshake (the lab's trigger disk, polled
# every 0.1 s by the guest and 0.05 s by dom0: GO to DONE less the
# guest's read) and the waits for the guest to see its new disk (the
# first --ready to the one that says READY).
# Last line: "sweep-wall: wall / (guest I/O + attach and detach) R (the
# median of REPEATS, the xvbd on PATH; goal <= 1.5): met" (or "missed",
# exit 1).
set -u
. /lab/lib/abguest.sh
REPEATS=${1:-2}
OTHER=${2:+$(cd "$(dirname "$0")" && pwd)/$2}
G=bsweep
top=/tmp/bench-sweep
fast=/scratch/bench-sweep.img
slow=/slow/bench-sweep.img
trig=/scratch/bench-sweep-trig.img
mib=2
die() { echo "sweep-wall: $*"; echo "sweep-wall: not measured: missed"; exit 1; }
now() { echo "$EPOCHREALTIME"; }
rm -rf $top
mkdir -p $top
xl destroy $G 2>/dev/null
abg_mount_slow || die "cannot mount the slow disk"
rm -f $fast $slow $trig
dd if=/dev/urandom of=$fast bs=1M count=$mib status=none || die "dd $fast"
cp $fast $slow
truncate -s 1M $trig
abg_hot_start $G $mib $trig || die "the guest did not come up"
abg_write_hot
# The lab's handshake commands, each call timestamped into $top/t.log.
cat >$top/ready.sh <<EOS
#!/bin/bash
echo "R \$XVBD_AB_LABEL \$EPOCHREALTIME" >>$top/t.log
$ABG_HOT_READY "\$1" || exit 1
echo "RY \$XVBD_AB_LABEL \$EPOCHREALTIME" >>$top/t.log
EOS
cat >$top/go.sh <<EOS
#!/bin/bash
echo "G0 \$XVBD_AB_LABEL \$EPOCHREALTIME" >>$top/t.log
$ABG_HOT_GO "\$1" "\$2"
r=\$?
echo "G1 \$XVBD_AB_LABEL \$EPOCHREALTIME" >>$top/t.log
exit \$r
EOS
chmod +x $top/ready.sh $top/go.sh
spec() { echo "format=raw,vdev=xvdb,access=ro,target=$1"; }

# One attach and detach on their own, 4 times: the median (ms).
for i in 1 2 3 4; do
	t0=$(now)
	xvbd -q attach $G --spec "$(spec $fast)" >/dev/null &&
		xvbd -q detach $G xvdb >/dev/null || die "attach/detach $i"
	awk -v a=$t0 -v b=$(now) 'BEGIN { printf "%.0f\n", (b - a) * 1000 }'
done | sort -n >$top/cycles
cycle_ms=$(awk '{ v[NR] = $1 } END { printf "%.0f", (v[2] + v[3]) / 2 }' $top/cycles)
echo "# attach + detach alone: $(xargs <$top/cycles) ms, median $cycle_ms ms"
# The guest may have said READY to those: the first run must not take it.
sleep 1
abg_reset $trig
cat $fast >/dev/null	# base's image in dom0's page cache

printf '# %-5s %-3s %9s %11s %9s %11s %12s %6s\n' xvbd rep "wall (ms)" "guest io" \
	cycles handshake "ready wait" ratio
# sweep BIN NAME N: one experiment with BIN; its row, its ratio into
# $top/ratios.NAME.
sweep() {
	local bin=$1 name=$2 n=$3 t0 wall_ms runs io_ms hs_ms rw_ms ratio
	local metric=read_mb_per_s
	# An xvbd from before the names of quantities had one table (and
	# `xvbd help metrics`) knew this quantity only as read-mbs.
	"$bin" help metrics >/dev/null 2>&1 || metric=read-mbs
	: >$top/t.log
	: >$top/guest.log
	rm -rf $top/lv
	t0=$(now)
	"$bin" ab run base same none slow --domain $G --disk "$(spec $fast)" \
		--disk slow="$(spec $slow)" --cache base=host --cache same=host \
		--cache none --runs 3 --ready "$top/ready.sh $trig" \
		--run "$top/go.sh $trig $top/guest.log" --interval 0.05 \
		--metric $metric --dir $top/lv --json >$top/lv.json 2>$top/lv.err ||
		{ cat $top/lv.err; die "ab run failed ($name, repeat $n)"; }
	wall_ms=$(awk -v a=$t0 -v b=$(now) 'BEGIN { printf "%.0f", (b - a) * 1000 }')
	runs=$(wc -l <$top/guest.log)
	[ "$runs" = 12 ] || die "$runs runs, not 12 ($name, repeat $n)"
	io_ms=$(awk '{ s += ($3 - $2) * 1000 } END { printf "%.0f", s }' $top/guest.log)
	# Per run: GO to DONE less the guest's read; first --ready to READY
	# (the fingerprint may be taken in that wait).
	read -r hs_ms rw_ms < <(awk -v io=$io_ms '
		$1 == "G0" { g0 = $3 } $1 == "G1" { hs += $3 - g0 }
		$1 == "R" && !(r0) { r0 = $3 } $1 == "RY" { rw += $3 - r0; r0 = 0 }
		END { printf "%.0f %.0f\n", hs * 1000 - io, rw * 1000 }' $top/t.log)
	ratio=$(awk -v w=$wall_ms -v i=$io_ms -v c=$cycle_ms -v n=$runs \
		'BEGIN { printf "%.2f", w / (i + n * c) }')
	echo "$ratio" >>$top/ratios.$name
	printf '# %-5s %-3s %9s %11s %9s %11s %12s %6s\n' $name $n $wall_ms $io_ms \
		$((runs * cycle_ms)) $hs_ms $rw_ms $ratio
}
for ((n = 1; n <= REPEATS; n++)); do
	if [ -z "$OTHER" ]; then
		sweep xvbd this $n
	elif [ $((n % 2)) = 1 ]; then
		sweep xvbd this $n
		sweep "$OTHER" other $n
	else
		sweep "$OTHER" other $n
		sweep xvbd this $n
	fi
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END {
	printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
[ -z "$OTHER" ] || echo "# the other xvbd's median ratio: $(median $top/ratios.other)"
xl destroy $G
rm -rf $fast $slow $trig
umount /slow
awk -v m=$(median $top/ratios.this) -v n=$REPEATS 'BEGIN { ok = m <= 1.5
	printf "sweep-wall: wall / (guest I/O + attach and detach) %.2f (the median of %d, the xvbd on PATH; goal <= 1.5): %s\n",
		m, n, ok ? "met" : "missed"
	exit !ok }'
