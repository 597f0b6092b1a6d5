# Features that had no lab proof, each against a source xvbd
# does not control:
#  - start --json with per-VBD trusted=0 and direct-io-safe=1: the result
#    says applied, and xenstore holds both keys after the start;
#  - flush and discard counters: the guest issues writes with fsync
#    (flushes) and blkdiscard; blkback's f_req/ds_req, xvbd's JSON and the
#    guest's own /sys/block/xvda/stat (fields 12 and 16) agree, also for
#    reads and writes (requests and sectors; the guest counts each
#    fsync's flush as a write too);
#  - every counter column of --csv, --json and --prometheus lies between
#    two readings of blkback's sysfs statistics taken around the call,
#    while the guest reads, writes, flushes and discards at different
#    rates (a swapped column fails); text rates are bounded by the same
#    readings;
#  - latency and queue depth against the backing loop device's stat file
#    read around the call (same order of magnitude: the windows differ);
#    "backing" is that loop device's major:minor;
#  - the dom0 row of stats: vCPUs and memory as `xl list 0` says;
#  - tune --json and defaults --json against xenstore and sysfs;
#  - attach --no-wait --prealloc --queues 2: exits without waiting, the
#    image's blocks are allocated (not sparse), the frontend connects
#    with 2 queues in xenstore and 2 hardware queues in the guest.
# lab-timeout: 900
. /lab/lib/testlib.sh
G=t72
A=51712
img=/scratch/t72.img
pimg=/scratch/t72-p.img
rm -f $img $pimg
truncate -s 512M $img
stat_fields=(rd_req wr_req rd_sect wr_sect f_req ds_req oo_req)

# The guest: reads (1 MiB), writes (64 KiB, fsync: a flush each) and, every
# other round, 1 MiB discards (so a swap of the flush and discard counters
# shows) in a loop until xvdb appears (hot-attached below: the phases
# before it need I/O running, however slow the host; at most 900 s), its
# stat file before and after; then it reports xvdb's hardware queues.
guest_script='
a=$(cat /sys/block/xvda/stat)
end=$(( $(cut -d. -f1 /proc/uptime) + 900 ))
i=0 dfail=0
while [ ! -b /dev/xvdb ] && [ $(cut -d. -f1 /proc/uptime) -lt $end ]; do
	dd if=/dev/xvda of=/dev/null bs=1M count=16 skip=$((i % 16 * 16)) iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/xvda bs=64k count=4 seek=$((4096 + i % 256 * 4)) oflag=direct conv=fsync 2>/dev/null
	if [ $((i % 2)) = 0 ]; then
		blkdiscard -o $((402653184 + i % 64 * 1048576)) -l 1048576 /dev/xvda 2>/dev/null || dfail=$((dfail + 1))
	fi
	i=$((i + 1))
done
sync
sleep 2
b=$(cat /sys/block/xvda/stat)
echo "GSTAT0 $a"
echo "GSTAT1 $b"
echo "LOOPS $i DISCARD_FAILED $dfail"
n=0
while [ ! -b /dev/xvdb ] && [ $n -lt 600 ]; do sleep 1; n=$((n + 1)); done
echo "XVDB_SIZE $(cat /sys/block/xvdb/size)"
echo "XVDB_HWQ $(ls /sys/block/xvdb/mq | wc -l)"'

phase "start --json with trusted=0, direct-io-safe=1"
cfg=$(lab-guest prepare $G --vcpus 2 \
	--disk "format=raw,vdev=xvda,access=rw,target=$img" --run "$guest_script")
sj=$(xvbd --json start "$cfg" --timeout 600 --vbd xvda:trusted=0,direct-io-safe=1)
expect_eq "start exits 0" 0 "$?"
echo "# start: $sj"
check "start --json parses" sh -c 'jq -e . >/dev/null' <<<"$sj"
d=$(xl domid $G)
check "guest $G exists" test -n "$d"
be=/local/domain/0/backend/vbd/$d/$A
fe=/local/domain/$d/device/vbd/$A
# (toolstack keys are "written": read at connect, nothing to verify then)
expect_eq "start --json: trusted and direct-io-safe written or applied" 2 \
	"$(jq '[.. | objects | select(.key? == "trusted" or .key? == "direct-io-safe") | select(.result == "written" or .result == "applied")] | length' <<<"$sj")"
expect_eq "xenstore: frontend trusted" 0 "$(xenstore-read $fe/trusted)"
expect_eq "xenstore: backend direct-io-safe" 1 "$(xenstore-read $be/direct-io-safe)"
expect_eq "start --json: domid as xl says" "$d" \
	"$(jq -r '[.. | objects | select(has("domid")) | .domid][0]' <<<"$sj")"

# blkback's counters (sysfs, read with bash builtins: no process)
sysdir=/sys/bus/xen-backend/devices/vbd-$d-$A/statistics
be_read() {	# into the array named $1: the seven counters
	local -n arr=$1
	local f v
	arr=()
	for f in "${stat_fields[@]}"; do
		read -r v <"$sysdir/$f" || return 1
		arr+=("$v")
	done
}
check "blkback statistics readable" be_read B0
loop=$(loop_devices | awk -v f=$img '$2 == f { print $1 }')
check "xvda's loop device" test -n "$loop"
read -r loopdev <"/sys/block/$loop/dev"

phase "counters of each format between two sysfs readings, during I/O"
# in_range NAME LO VALUE HI
in_range() {
	awk -v l="$2" -v v="$3" -v h="$4" 'BEGIN { exit !(v != "" && v + 0 >= l + 0 && v + 0 <= h + 0) }'
}
bracket() {	# FORMAT: one call, its counters against B0/B1
	local fmt=$1 out vals=() i name v
	be_read B0
	case $fmt in
	csv)
		out=$(xvbd stats $G -d 0.2 -n 1 --csv)
		mapfile -t vals < <(awk -F, -v want="${stat_fields[*]}" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["type"] == "vbd" && $c["devid"] == 51712 {
				n = split(want, w, " ")
				for (i = 1; i <= n; i++) print $c[w[i]] }' <<<"$out") ;;
	json)
		out=$(xvbd stats $G -d 0.2 -n 1 --json)
		mapfile -t vals < <(jq -r --arg f "${stat_fields[*]}" \
			'.vbds[] | select(.devid == 51712) as $v |
			($f | split(" "))[] | $v[.]' <<<"$out") ;;
	prometheus)
		rm -f /tmp/t72.prom
		xvbd stats $G -d 0.2 -n 1 --prometheus /tmp/t72.prom
		out=$(cat /tmp/t72.prom)
		for name in read_requests write_requests read_bytes \
			write_bytes flush_requests discard_requests \
			out_of_requests; do
			v=$(awk -v m="xvbd_vbd_${name}_total" '
				index($0, m "{") == 1 && /vdev="xvda"/ { print $NF }' \
				/tmp/t72.prom)
			case $name in *bytes) v=$((v / 512)) ;; esac
			vals+=("$v")
		done ;;
	esac
	be_read B1
	for i in "${!stat_fields[@]}"; do
		check "$fmt ${stat_fields[i]}: ${B0[i]} <= ${vals[i]:-none} <= ${B1[i]}" \
			in_range "${stat_fields[i]}" "${B0[i]}" "${vals[i]:-}" "${B1[i]}"
	done
	# I/O ran meanwhile (else the bounds prove little)
	check "$fmt: reads and writes ran during the call" \
		test "${B1[0]}" -gt "${B0[0]}" -a "${B1[1]}" -gt "${B0[1]}"
}
bracket csv
bracket json
bracket prometheus

# Text has rates, not counters: each rate x interval is at most what
# sysfs saw across the call (reads are ~16x the writes: a swapped read
# and write column exceeds the write bound).
# (the guest's I/O comes in bursts under TCG: up to 5 tries for a
# second that saw reads)
for try in 1 2 3 4 5; do
	be_read B0
	txt=$(xvbd stats $G -d 1 -n 1)
	be_read B1
	read -r trd twr trmb twmb tfl tds < <(awk '/ RD\/s / { for (i = 1; i <= NF; i++) c[$i] = i; next }
		c["RD/s"] && $3 == "xvda" { print $c["RD/s"], $c["WR/s"], $c["RD-MB/s"], $c["WR-MB/s"], $c["FLUSH/s"], $c["DISCARD/s"] }' <<<"$txt")
	awk -v r="$trmb" 'BEGIN { exit !(r + 0 > 0) }' && break
done
echo "$txt" | sed 's/^/# text: /'
echo "# text rates: rd $trd wr $twr rd-MB $trmb wr-MB $twmb flush $tfl discard $tds"
# (1 s interval; the bound allows 10 % for clock granularity)
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b * 1.1 + 0.5) }'; }
check "text RD/s <= sysfs reads across" le "$trd" $((B1[0] - B0[0]))
check "text WR/s <= sysfs writes across" le "$twr" $((B1[1] - B0[1]))
check "text RD-MB/s <= sysfs read MB across" le "$trmb" \
	"$(awk -v s=$((B1[2] - B0[2])) 'BEGIN { print s * 512 / 1e6 }')"
check "text WR-MB/s <= sysfs write MB across" le "$twmb" \
	"$(awk -v s=$((B1[3] - B0[3])) 'BEGIN { print s * 512 / 1e6 }')"
check "text FLUSH/s <= sysfs flushes across" le "$tfl" $((B1[4] - B0[4]))
check "text DISCARD/s <= sysfs discards across" le "$tds" $((B1[5] - B0[5]))
check "text: reads moved more bytes than writes (RD-MB/s > WR-MB/s)" \
	awk -v r="$trmb" -v w="$twmb" 'BEGIN { exit !(r + 0 > w + 0) }'

phase "latency and queue depth against the loop device's stat"
read -r -a L0 <"/sys/block/$loop/stat"
t0=$EPOCHREALTIME
lj=$(xvbd stats $G -d 3 -n 1 --json)	# (3 s: most of the window)
t1=$EPOCHREALTIME
read -r -a L1 <"/sys/block/$loop/stat"
row=$(jq -c '.vbds[] | select(.devid == 51712)' <<<"$lj")
echo "# xvbd: $row"
expect_eq "backing = the loop device ($loop)" "$loopdev" "$(jq -r .backing <<<"$row")"
# stat fields: 0 rd_ios, 3 rd_ticks, 4 wr_ios, 7 wr_ticks, 10 time_in_queue
ref=$(awk -v r0="${L0[0]}" -v r1="${L1[0]}" -v rt0="${L0[3]}" -v rt1="${L1[3]}" \
	-v w0="${L0[4]}" -v w1="${L1[4]}" -v wt0="${L0[7]}" -v wt1="${L1[7]}" \
	-v q0="${L0[10]}" -v q1="${L1[10]}" -v t0="$t0" -v t1="$t1" 'BEGIN {
	# (parenthesised: a bare ">" among printf arguments redirects)
	printf "%.3f %.3f %.3f", (r1 > r0 ? (rt1 - rt0) / (r1 - r0) : -1),
		(w1 > w0 ? (wt1 - wt0) / (w1 - w0) : -1),
		(q1 - q0) / ((t1 - t0) * 1000) }')
read -r ref_rlat ref_wlat ref_qd <<<"$ref"
echo "# loop device across the call: rd latency $ref_rlat ms, wr latency $ref_wlat ms, queue depth $ref_qd"
# Within a factor of 8 (+ 1 ms / 0.5 for small values): the windows
# differ by xvbd's start-up and TCG's I/O comes in bursts, so only the
# magnitude is shared; a wrong unit or formula is off by 1000x.
near() { awk -v x="$1" -v r="$2" -v s="$3" 'BEGIN { exit !(x != "null" && x != "" && r >= 0 &&
	x + 0 <= r * 8 + s && x + 0 >= r / 8 - s) }'; }
check "read latency near the loop device's ($(jq -r .read_lat_ms <<<"$row") vs $ref_rlat ms)" \
	near "$(jq -r .read_lat_ms <<<"$row")" "$ref_rlat" 1
check "write latency near the loop device's ($(jq -r .write_lat_ms <<<"$row") vs $ref_wlat ms)" \
	near "$(jq -r .write_lat_ms <<<"$row")" "$ref_wlat" 1
check "queue depth near the loop device's ($(jq -r .queue_depth <<<"$row") vs $ref_qd)" \
	near "$(jq -r .queue_depth <<<"$row")" "$ref_qd" 0.5

phase "the dom0 row"
d0=$(xvbd stats -d 0.5 -n 1 --json | jq -c '.domains[] | select(.domid == 0)')
echo "# dom0: $d0"
xl0=$(xl list 0 | awk 'NR == 2 { print $3, $4 }')
read -r mem_mib vcpus <<<"$xl0"
expect_eq "dom0 row: name" Domain-0 "$(jq -r .domain <<<"$d0")"
expect_eq "dom0 row: vCPUs as xl list" "$vcpus" "$(jq -r .vcpus <<<"$d0")"
expect_eq "dom0 row: memory as xl list (MiB)" "$mem_mib" \
	"$(jq -r '.mem_bytes / 1048576 | floor' <<<"$d0")"
check "dom0 row: CPU% within 0..100 x vCPUs" \
	awk -v c="$(jq -r .cpu_pct <<<"$d0")" -v n="$vcpus" 'BEGIN { exit !(c >= 0 && c <= 100 * n) }'

phase "tune --json, defaults --json"
tj=$(xvbd --json tune $G xvda discard=0)
expect_eq "tune exits 0" 0 "$?"
echo "# tune: $tj"
expect_eq "tune --json: discard written" "discard-enable 0" \
	"$(jq -r '[.. | objects | select(.key? == "discard")][0] | "\(.xs_key) \(.value)"' <<<"$tj")"
expect_eq "xenstore: discard-enable" 0 "$(xenstore-read $be/discard-enable)"
dj=$(xvbd --json defaults)
check "defaults --json parses" sh -c 'jq -e . >/dev/null' <<<"$dj"
bad=
for f in /sys/module/xen_blkback/parameters/*; do
	read -r v <"$f"
	got=$(jq -r --arg p "${f##*/}" '[.. | objects | select(.param? == $p)][0].value' <<<"$dj")
	[ "$got" = "$v" ] || bad+=" ${f##*/}($got, sysfs $v)"
done
expect_eq "defaults --json: every parameter as sysfs has it" "" "$bad"

phase "attach --no-wait --prealloc --queues 2"
t0=$SECONDS
aj=$(xvbd --json attach $G --file $pimg --size 32M --prealloc --queues 2 --no-wait)
expect_eq "attach --no-wait exits 0" 0 "$?"
echo "# attach: $aj ($((SECONDS - t0)) s)"
check "--prealloc: the image's blocks are allocated (not sparse)" \
	test $(( $(stat -c '%b * %B' $pimg) )) -ge $((32 << 20))
B=51728
check "xvdb frontend Connected (after xvbd returned)" wait_for 300 4 fstate "$d" $B
expect_eq "xenstore: xvdb multi-queue-num-queues" 2 \
	"$(xenstore-read /local/domain/$d/device/vbd/$B/multi-queue-num-queues)"
expect_eq "xenstore: xvdb backend offers 2 queues" 2 \
	"$(xenstore-read /local/domain/0/backend/vbd/$d/$B/multi-queue-max-queues)"

phase "the guest's own counts"
gout=$(lab-guest wait $G --timeout 600)
expect_eq "guest commands succeeded" 0 "$?"
echo "$gout" | sed 's/^/# guest: /'
be_read BE
fj=$(xvbd stats $G -d 0.2 -n 1 --json | jq -c '.vbds[] | select(.devid == 51712)')
read -r -a G1 < <(sed -n 's/^GSTAT1 //p' <<<"$gout")
# guest stat: 0 rd_ios 2 rd_sectors 4 wr_ios 6 wr_sectors 11 ds_ios 15 fl_ios
check "guest issued flushes" test "${G1[15]:-0}" -gt 0
check "guest issued discards" test "${G1[11]:-0}" -gt 0
expect_eq "discards refused in the guest" 0 "$(sed -n 's/.*DISCARD_FAILED //p' <<<"$gout")"
# Linux 6.1 sends an fsync's flush as an empty write with PREFLUSH: the
# guest counts it as a write and as a flush, blkfront sends only the
# flush (BLKIF_OP_FLUSH_DISKCACHE).  So blkback's writes are the guest's
# less its flushes.
gvals=("${G1[0]}" "$((G1[4] - G1[15]))" "${G1[2]}" "${G1[6]}" "${G1[15]}" "${G1[11]}")
for i in 0 1 2 3 4 5; do
	expect_eq "${stat_fields[i]}: blkback = guest's stat" "${gvals[i]}" "${BE[i]}"
	expect_eq "${stat_fields[i]}: xvbd --json = blkback" "${BE[i]}" \
		"$(jq -r --arg k "${stat_fields[i]}" '.[$k]' <<<"$fj")"
done
expect_eq "guest: xvdb has 32 MiB" 65536 "$(sed -n 's/^XVDB_SIZE //p' <<<"$gout")"
expect_eq "guest: xvdb has 2 hardware queues" 2 "$(sed -n 's/^XVDB_HWQ //p' <<<"$gout")"

phase "clean up"
xvbd -q detach $G xvdb
lab-guest stop $G
rm -f $img $pimg /tmp/t72.prom
finish
