# bench/ab-quick.sh: the demo's A/B (dom0's page cache: --cache host vs
# none, a fixed 8 MiB O_DIRECT read from the lab's slow disk, 3+3 runs in
# ABBA order), once with a fresh guest per run and once hot (one running
# guest, the disk under test attached and detached per run), side by
# side in one lab.
#
#   tests/lab/run --timeout 2400 bench/ab-quick.sh
#
# For each mode: its wall time (ab run's start to its end, dom0's clock),
# the guest's own I/O time (the sum over runs of the guest's uptime after
# its read minus before it, which the guest writes on its trigger disk),
# their ratio, and the B/A % of read MB/s from xvbd against the B/A % from
# the guest's own timings (means of 8 MiB / the guest's time per side).
# The rate error is the larger of the two modes' |xvbd % - guest %|.
# Last line: "ab-quick: hot wall/io R1, fresh wall/io R2, rate error E
# points (goal: R1 <= 2, E <= 5): met" (or "missed", exit 1).
set -u
. /lab/lib/abguest.sh
mib=8
img=/slow/bench-abq.img
trig=/scratch/bench-abq-go.img
top=/tmp/bench-abq
die() { echo "ab-quick: $*"; echo "ab-quick: not measured: missed"; exit 1; }
rm -rf $top
mkdir -p $top
xl destroy abq-hot 2>/dev/null
abg_mount_slow || die "cannot mount the slow disk"
dd if=/dev/urandom of=$img bs=1M count=$mib status=none || die "dd $img"
cs() { read -r up _ </proc/uptime; echo "${up%.*}${up#*.}"; }

# guest_stats LOG -> "io_s pct": the guest's I/O seconds over all runs and
# its B/A % of the mean rate (10 ms uptime steps: at least one).
guest_stats() {
	awk -v mib=$mib -v a="$2" '{ s = $3 - $2; if (s < 0.01) s = 0.01; io += s
		r = mib * 1.048576 / s; if ($1 == a) { ra += r; na++ } else { rb += r; nb++ } }
		END { printf "%.2f %.2f\n", io, (rb / nb - ra / na) / (ra / na) * 100 }' "$1"
}
xvbd_pct() { jq -r '.comparison.metrics[] | select(.metric == "read_mb_per_s") | .pct' "$1"; }

# Fresh-guest mode: one xl config per side (the hotplug program: a
# buffered or a direct-I/O loop), --ready waits for each guest's boot.
abg_prepare abq $img $trig xvbd-block 1 $mib $top/host.cfg || die "lab-guest prepare"
abg_prepare abq $img $trig xvbd-block-direct 1 $mib $top/direct.cfg || die "lab-guest prepare"
cat $img >/dev/null
t0=$(cs)
xvbd ab run cached $top/host.cfg direct $top/direct.cfg --vdev xvda \
	--ready "$(abg_ready_cmd $trig)" --run "$(abg_go_cmd $trig 0 $top/fresh.log)" \
	--interval 0.05 --runs 3 --metric read_mb_per_s --dir $top/fresh \
	--json >$top/fresh.json 2>$top/fresh.err || { cat $top/fresh.err; die "fresh-guest ab run failed"; }
fresh_wall=$(awk -v a=$t0 -v b=$(cs) 'BEGIN { printf "%.2f", (b - a) / 100 }')

# Hot mode: one guest, the disk under test as xvdb, its trigger as xvdc.
abg_hot_start abq-hot $mib $trig || die "the hot guest did not come up"
spec="format=raw,vdev=xvdb,access=ro,target=$img"
cat $img >/dev/null
t0=$(cs)
xvbd ab run cached direct --domain abq-hot --disk-a "$spec" --cache-a host \
	--disk-b "$spec" --cache-b none \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$(abg_hot_go_cmd $trig $top/hot.log)" \
	--interval 0.05 --runs 3 --metric read_mb_per_s --dir $top/hot \
	--json >$top/hot.json 2>$top/hot.err || { cat $top/hot.err; die "hot ab run failed"; }
hot_wall=$(awk -v a=$t0 -v b=$(cs) 'BEGIN { printf "%.2f", (b - a) / 100 }')
xl destroy abq-hot

read -r fresh_io fresh_gpct < <(guest_stats $top/fresh.log cached)
read -r hot_io hot_gpct < <(guest_stats $top/hot.log cached)
fresh_xpct=$(xvbd_pct $top/fresh.json)
hot_xpct=$(xvbd_pct $top/hot.json)
echo "# the guest's own times (label, uptime before and after its read, s):"
sed 's/^/#   fresh: /' $top/fresh.log
sed 's/^/#   hot:   /' $top/hot.log
printf '%-6s %10s %12s %8s %14s %14s %8s\n' mode "wall (s)" "guest io (s)" wall/io \
	"xvbd B/A %" "guest B/A %" "error"
row() {	# row MODE WALL IO XPCT GPCT
	awk -v m="$1" -v w="$2" -v io="$3" -v x="$4" -v g="$5" 'BEGIN {
		e = x - g; if (e < 0) e = -e
		printf "%-6s %10.1f %12.2f %8.2f %14.2f %14.2f %8.2f\n", m, w, io, w / io, x, g, e }'
}
row fresh "$fresh_wall" "$fresh_io" "$fresh_xpct" "$fresh_gpct"
row hot "$hot_wall" "$hot_io" "$hot_xpct" "$hot_gpct"
rm -rf $top $img $trig
umount /slow
awk -v fw="$fresh_wall" -v fio="$fresh_io" -v hw="$hot_wall" -v hio="$hot_io" \
	-v fx="$fresh_xpct" -v fg="$fresh_gpct" -v hx="$hot_xpct" -v hg="$hot_gpct" 'BEGIN {
	r1 = hw / hio; r2 = fw / fio
	e1 = fx - fg; if (e1 < 0) e1 = -e1
	e2 = hx - hg; if (e2 < 0) e2 = -e2
	e = e1 > e2 ? e1 : e2
	ok = r1 <= 2 && e <= 5
	printf "ab-quick: hot wall/io %.2f, fresh wall/io %.2f, rate error %.2f points (goal: R1 <= 2, E <= 5): %s\n",
		r1, r2, e, ok ? "met" : "missed"
	exit !ok }'
