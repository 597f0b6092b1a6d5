# bench/attach-8.sh [JOBS...]: 8 file-backed disks hot-attached to one
# running PV guest, until all 8 frontends are Connected:
#   a) 8 sequential `xl block-attach` (what one would script by hand)
#   b) one `xvbd attach G --spec S1 ... --spec S8` (libxl async adds), once
#      with the default --jobs and once for each JOBS given (e.g. 4 8)
# Fresh images for every run (16 or more 64 MiB sparse files), all disks
# detached in between.  Prints the times and the ratio a/b.
# Run: tests/lab/run --timeout 1500 bench/attach-8.sh [JOBS...]
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

images xl
t0=$(now_ms)
for ((i = 0; i < N; i++)); do
	xl block-attach $G "format=raw,vdev=xvd${letters[i]},access=rw,target=/scratch/bench8-xl-$((i + 1)).img" ||
		{ echo "# xl block-attach failed"; exit 1; }
done
wait_until 600 all_connected "$domid" || { echo "# xl: not all Connected"; exit 1; }
xl_ms=$(( $(now_ms) - t0 ))
echo "xl block-attach x$N (sequential): $xl_ms ms"
detach_all

for jobs in default "$@"; do
	images "j$jobs"
	specs=()
	for ((i = 0; i < N; i++)); do
		specs+=(--spec "format=raw,vdev=xvd${letters[i]},access=rw,target=/scratch/bench8-j$jobs-$((i + 1)).img")
	done
	jobopt=()
	[ "$jobs" = default ] || jobopt=(--jobs "$jobs")
	t0=$(now_ms)
	xvbd -q attach $G "${specs[@]}" "${jobopt[@]}" --timeout 600 >/dev/null ||
		{ echo "# xvbd attach failed"; exit 1; }
	wait_until 600 all_connected "$domid" || { echo "# xvbd: not all Connected"; exit 1; }
	x_ms=$(( $(now_ms) - t0 ))
	echo "xvbd attach --spec x$N (--jobs $jobs): $x_ms ms"
	echo "ratio xl/xvbd (--jobs $jobs): $(awk -v a=$xl_ms -v b=$x_ms 'BEGIN { printf "%.2f", a / b }')"
	detach_all
done
lab-guest stop $G >/dev/null
rm -f /scratch/bench8-*.img
