# bench/attach-8.sh [ROUNDS]: 8 file-backed disks hot-attached to one
# running PV guest, until all 8 backends and frontends are Connected:
#   xl      8 sequential `xl block-attach` (what one would script by hand)
#   xvbd    one `xvbd attach G --spec S1 ... --spec S8` (libxl async adds,
#           raw files get xvbd's C hotplug script xvbd-block)
#   xvbd+block  the same with script=block in every spec: Xen's bash block
#           script, to show what the concurrency alone gives
# ROUNDS rounds (default 2), the order rotated each round so that neither
# side always runs first; fresh images for every run, everything detached
# (and checked for leftover loop devices) in between.  Prints each time,
# the ratio xl/xvbd per round and over the sums; the last line is the goal
# (xl/xvbd >= 3 over the sums), met or missed (exit 1).
# Run: tests/lab/run --timeout 2400 bench/attach-8.sh [ROUNDS]
set -u
. /lab/lib/testlib.sh
G=bench8
N=8
letters=(b c d e f g h i)

# busybox date has no %N: dom0's uptime has centiseconds.
now_ms() { local up; read -r up _ </proc/uptime; echo $(( ${up%.*} * 1000 + 10#${up#*.} * 10 )); }
devid() { echo $(( 51712 + 16 * $1 )); }	# xvdb = index 1

all_connected() {
	local domid=$1 i
	for ((i = 1; i <= N; i++)); do
		[ "$(fstate "$domid" "$(devid $i)")" = 4 ] || return 1
		[ "$(bstate "$domid" "$(devid $i)")" = 4 ] || return 1
	done
}

all_gone() {
	local domid=$1 i
	for ((i = 1; i <= N; i++)); do
		xenstore-exists "/local/domain/0/backend/vbd/$domid/$(devid $i)" && return 1
		xenstore-exists "/local/domain/$domid/device/vbd/$(devid $i)" && return 1
	done
	return 0
}

wait_until() {	# SECONDS cmd...
	local secs=$1 i; shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

images() {	# RUN: fresh images for one run
	local i
	rm -f /scratch/bench8-*.img
	# (retried: dom0's busybox now and then crashes under TCG)
	for ((i = 1; i <= N; i++)); do
		f=/scratch/bench8-$1-$i.img
		truncate -s 64M "$f" || truncate -s 64M "$f"
		[ -f "$f" ] || { echo "# cannot create $f"; exit 1; }
	done
}

detach_all() {
	local i
	for ((i = 0; i < N; i++)); do
		xl block-detach $G "xvd${letters[i]}" >/dev/null 2>&1
	done
	wait_until 120 all_gone "$domid" || { echo "# detach did not finish"; exit 1; }
	[ -z "$(losetup -a)" ] || { echo "# loop devices left:"; losetup -a; }
}

xl destroy $G >/dev/null 2>&1
trap 'xl destroy $G >/dev/null 2>&1; rm -f /scratch/bench8-*.img' EXIT
lab-guest start $G >/dev/null || exit 1
lab-guest wait $G --timeout 300 >/dev/null || exit 1	# blkfront loaded
domid=$(xl domid $G)

run_xl() {	# TAG
	local i
	images "$1" >&2
	t0=$(now_ms)
	for ((i = 0; i < N; i++)); do
		xl block-attach $G "format=raw,vdev=xvd${letters[i]},access=rw,target=/scratch/bench8-$1-$((i + 1)).img" >&2 ||
			{ echo "# xl block-attach failed" >&2; exit 1; }
	done
	wait_until 600 all_connected "$domid" || { echo "# xl: not all Connected" >&2; exit 1; }
	echo $(( $(now_ms) - t0 ))
}

run_xvbd() {	# TAG [SPEC_SUFFIX]
	local i specs=()
	images "$1" >&2
	for ((i = 0; i < N; i++)); do
		specs+=(--spec "format=raw,vdev=xvd${letters[i]},access=rw${2:-},target=/scratch/bench8-$1-$((i + 1)).img")
	done
	t0=$(now_ms)
	xvbd -q attach $G "${specs[@]}" --timeout 600 >/dev/null ||
		{ echo "# xvbd attach failed" >&2; exit 1; }
	wait_until 600 all_connected "$domid" || { echo "# xvbd: not all Connected" >&2; exit 1; }
	echo $(( $(now_ms) - t0 ))
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

rounds=${1:-2}
sum_xl=0 sum_x=0 sum_xb=0
for ((r = 1; r <= rounds; r++)); do
	order=(xl xvbd xvbd+block)
	case $((r % 3)) in
	0) order=(xvbd+block xl xvbd) ;;
	2) order=(xvbd xvbd+block xl) ;;
	esac
	for kind in "${order[@]}"; do
		case $kind in
		xl) ms=$(run_xl "xl$r") || exit 1; xl_ms=$ms; sum_xl=$((sum_xl + ms)) ;;
		xvbd) ms=$(run_xvbd "x$r") || exit 1; x_ms=$ms; sum_x=$((sum_x + ms)) ;;
		xvbd+block) ms=$(run_xvbd "xb$r" ",script=block") || exit 1; xb_ms=$ms; sum_xb=$((sum_xb + ms)) ;;
		esac
		echo "round $r: $kind x$N: $ms ms"
		detach_all
	done
	echo "round $r: ratio xl/xvbd $(ratio $xl_ms $x_ms), xl/xvbd+block $(ratio $xl_ms $xb_ms)"
done
echo "total over $rounds rounds: xl $sum_xl ms, xvbd $sum_x ms, xvbd+block $sum_xb ms"
echo "ratio xl/xvbd: $(ratio $sum_xl $sum_x)"
echo "ratio xl/xvbd+block: $(ratio $sum_xl $sum_xb)"
lab-guest stop $G >/dev/null
rm -f /scratch/bench8-*.img
# The goal (bench/README.md): xvbd at least 3x faster than xl over the
# sums.  The last line says whether it was met; missed: exit 1.
if awk -v a="$sum_xl" -v b="$sum_x" 'BEGIN { exit !(b > 0 && a / b >= 3) }'; then
	echo "goal met: xl/xvbd $(ratio $sum_xl $sum_x) >= 3"
else
	echo "goal MISSED: xl/xvbd $(ratio $sum_xl $sum_x) < 3"
	exit 1
fi
