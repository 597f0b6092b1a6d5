# What a disk costs dom0 (xvbd stats): blkback's ring threads' CPU time
# per VBD and the request size against the negotiated ceiling, each
# checked against what xvbd does not control:
#  - a guest reading continuously: the VBD's backend_cpu_pct from `xvbd
#    --json stats` equals (10 %) the growth rate of its ring threads'
#    /proc/<pid>/schedstat, found and read by this test itself, over the
#    stats run; the rings xvbd names are those threads;
#  - a second, idle guest's disk: < 1 %, and its backend_cpu_ns is its
#    own thread's schedstat time (not the first guest's);
#  - O_DIRECT reads of 4 KiB: 4 KiB/req (1 %); of 1 MiB on a disk
#    attached with the backend's indirect-segments offer at 0: 44 KiB/req,
#    the ceiling (11 x 4 KiB) at 100 %; with indirect descriptors offered
#    the size is larger (blkfront's own limit: 32 segments by default);
#  - CSV and Prometheus carry the same fields.
. /lab/lib/testlib.sh
A=t88; B=t88i
# xvbd-block (one process) for the files: Xen's bash block script can
# outrun libxl's timeout on a loaded host.
imga=/scratch/t88a.img; imgb=/scratch/t88b.img; trig=/scratch/t88t.img
imgi=/scratch/t88i.img
truncate -s 64M $imga $imgb $imgi
truncate -s 1M $trig
# The guest polls its trigger disk (xvdt) for what to read next.
say() { printf '%-16s' "$1" | dd of=$trig bs=16 count=1 conv=notrunc \
	2>/dev/null; }
say IDLE
lab-guest start $A --disk "format=raw,vdev=xvda,access=rw,script=xvbd-block,target=$imga" \
	--disk "format=raw,vdev=xvdt,access=rw,script=xvbd-block,target=$trig" --run '
while :; do
  c=$(dd if=/dev/xvdt bs=512 count=1 iflag=direct 2>/dev/null | tr -dc A-Z0-9)
  case "$c" in
  QUIT) echo BYE; exit 0;;
  R4K) dd if=/dev/xvda of=/dev/null bs=4k count=1024 iflag=direct 2>/dev/null;;
  R1M) dd if=/dev/xvda of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null;;
  R1MB) dd if=/dev/xvdb of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null;;
  *) sleep 0.2;;
  esac
done'
lab-guest start $B --mem 384 \
	--disk "format=raw,vdev=xvda,access=rw,script=xvbd-block,target=$imgi" --run 'true'
check "idle guest up" lab-guest wait $B --timeout 300
da=$(xl domid $A); db=$(xl domid $B)
check "reading guest connected" wait_for 120 1 \
	sh -c "test \"\$(fstate $da 51712)\" = 4"

# The ring threads, found by this test: kernel threads "<domid>.xvda-N".
threads() {
	local p
	for p in /proc/[0-9]*; do
		case "$(cat $p/comm 2>/dev/null)" in
		"$1".xvda-[0-9]*) echo "${p#/proc/}";;
		esac
	done
}
run_ns() {	# sum of the threads' first schedstat field
	local s=0 p v
	for p in $1; do
		read -r v _ <"/proc/$p/schedstat" || return 1
		s=$((s + v))
	done
	echo $s
}
now_ns() { date +%s%N; }
rd_req() { cat /sys/bus/xen-backend/devices/vbd-$1-51712/statistics/rd_req; }

ta=$(threads "$da"); tb=$(threads "$db")
echo "# threads: $A: $ta; $B: $tb"
check "the test found each guest's ring thread" \
	test -n "$ta" -a -n "$tb"

phase "4 KiB O_DIRECT reads"
say R4K
r0=$(rd_req $da)
check "guest reads" wait_for 60 1 sh -c "test \$(cat /sys/bus/xen-backend/devices/vbd-$da-51712/statistics/rd_req) -gt $((r0 + 200))"
t0=$(now_ns); c0=$(run_ns "$ta"); i0=$(run_ns "$tb")
xvbd --json stats -d 4 -n 2 >/tmp/t88.json 2>/tmp/t88.err
t1=$(now_ns); c1=$(run_ns "$ta"); i1=$(run_ns "$tb")
check "stats ran without warnings" test ! -s /tmp/t88.err
last() { tail -n 1 /tmp/t88.json | jq -c ".vbds[] | select(.domid == $1 and .vdev == \"$2\")"; }
va=$(last "$da" xvda); vb=$(last "$db" xvda)
echo "# $A xvda: $va"
echo "# $B xvda: $vb"
ours=$(awk -v a=$c0 -v b=$c1 -v t0=$t0 -v t1=$t1 \
	'BEGIN { printf "%.3f", (b - a) * 100 / (t1 - t0) }')
xv=$(echo "$va" | jq -r .backend_cpu_pct)
echo "# backend CPU: schedstat $ours %, xvbd $xv %"
check "backend CPU of the reading disk is busy (> 1 %)" \
	awk -v x="$ours" 'BEGIN { exit !(x > 1) }'
check "xvbd's backend CPU matches schedstat within 10 % ($xv vs $ours)" \
	awk -v x="$xv" -v o="$ours" \
	'BEGIN { d = x - o; if (d < 0) d = -d; exit !(x != "null" && d <= 0.1 * o) }'
expect_eq "xvbd's rings are the test's threads" \
	"$(echo $ta | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
	"$(echo "$va" | jq -r '[.rings[].pid] | sort | map(tostring) | join(" ")') "
kib=$(echo "$va" | jq -r .rd_kib_per_req)
check "4 KiB reads: 4 KiB/req within 1 % ($kib)" \
	awk -v k="$kib" 'BEGIN { exit !(k >= 3.96 && k <= 4.04) }'
check "us per request known" \
	sh -c "echo '$va' | jq -e '.backend_us_per_req > 0' >/dev/null"
xi=$(echo "$vb" | jq -r .backend_cpu_pct)
check "idle guest's disk < 1 % ($xi)" \
	awk -v x="$xi" 'BEGIN { exit !(x != "null" && x < 1) }'
expect_eq "idle disk's backend_cpu_ns is its own thread's time" \
	"$i1" "$(echo "$vb" | jq -r .backend_cpu_ns)"
check "... not the reading guest's" test "$i1" != "$c1"

phase "1 MiB reads, indirect descriptors offered"
say R1M
sleep 2
xvbd --json stats $A -d 3 -n 2 >/tmp/t88.json
va=$(last "$da" xvda)
kib=$(echo "$va" | jq -r .rd_kib_per_req)
echo "# indirect offered: $(echo "$va" | jq -c '{rd_kib_per_req, ceiling_kib, ceiling_segments, rd_ceiling_pct}')"
check "indirect offered: requests above 44 KiB ($kib)" \
	awk -v k="$kib" 'BEGIN { exit !(k > 44.5) }'
expect_eq "ceiling: the backend's offer" \
	"$(xenstore-read /local/domain/0/backend/vbd/$da/51712/feature-max-indirect-segments)" \
	"$(echo "$va" | jq -r .ceiling_segments)"

phase "1 MiB reads, indirect-segments offer 0"
say IDLE
check "attach xvdb with indirect-segments 0" \
	xvbd attach $A --file $imgb --vdev xvdb --indirect-segments 0
say R1MB
sleep 2
xvbd --json stats $A -d 3 -n 2 >/tmp/t88.json
vx=$(last "$da" xvdb)
echo "# indirect 0: $vx"
kib=$(echo "$vx" | jq -r .rd_kib_per_req)
check "indirect 0: 44 KiB/req within 1 % ($kib)" \
	awk -v k="$kib" 'BEGIN { exit !(k >= 43.56 && k <= 44.44) }'
expect_eq "ceiling 44 KiB" 44 "$(echo "$vx" | jq -r .ceiling_kib)"
check "at 100 % of the ceiling" \
	sh -c "echo '$vx' | jq -e '.rd_ceiling_pct >= 99 and .rd_ceiling_pct <= 101' >/dev/null"

phase "CSV and Prometheus"
xvbd stats $A -d 1 -n 2 --csv --prometheus /tmp/t88.prom >/tmp/t88.csv
check "CSV header has the cost columns" \
	sh -c "head -n1 /tmp/t88.csv | grep -q 'backend_cpu_pct,backend_us_per_req,rd_kib_per_req'"
check "Prometheus: per-ring CPU of $A" \
	grep -q "xvbd_vbd_ring_cpu_seconds_total{domid=\"$da\".*vdev=\"xvdb\".*ring=\"0\"}" /tmp/t88.prom
check "Prometheus: request ceiling 45056 bytes for xvdb" \
	grep -q "xvbd_vbd_request_ceiling_bytes{.*vdev=\"xvdb\".*} 45056" /tmp/t88.prom
say QUIT
lab-guest wait $A --timeout 120 >/dev/null
xl destroy $A; xl destroy $B
finish
