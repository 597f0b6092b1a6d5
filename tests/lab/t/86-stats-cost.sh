# What a disk costs dom0 (xvbd stats): blkback's ring threads' CPU time
# per VBD and the request size against the negotiated ceiling, each
# checked against what xvbd does not control:
#  - a guest reading continuously: the VBD's backend_cpu_pct from `xvbd
#    --json stats` equals (10 %) the growth rate of its ring threads'
#    /proc/<pid>/schedstat, found and read by this test itself, over the
#    stats run; the rings xvbd names are those threads;
#  - a second, idle guest's disk: < 1 %, and its backend_cpu_ns is its
#    own thread's schedstat time (not the first guest's);
#  - O_DIRECT reads of 4 KiB: 4 KiB/req (1 %); of 1056 KiB (24 x 44) on a disk
#    attached with the backend's indirect-segments offer at 0: 44 KiB/req,
#    the ceiling (11 x 4 KiB) at 100 %; with indirect descriptors offered
#    the size is larger (blkfront's own limit: 32 segments by default);
#  - advise: names indirect segments (with the command that tests them)
#    for the disk at the 44 KiB ceiling, not for the one with indirect
#    descriptors; names dom0's page cache for the buffered file disk
#    (its loop device's dio, read here); says "no I/O sampled" for the
#    idle guest; its JSON has the fields man xvbd-advise documents;
#  - ab record of the two disks' 1 MiB reads (indirect off, on):
#    ab compare's read_kib_per_req and backend_us_per_req per side equal
#    what this test recomputes from the records' raw counters;
#  - CSV and Prometheus carry the same fields.
# lab-timeout: 1500
. /lab/lib/testlib.sh
A=t88; B=t88i
rm -rf /tmp/t88ab
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
  R1MB) dd if=/dev/xvdb of=/dev/null bs=1056k count=16 iflag=direct 2>/dev/null;;
  *) sleep 0.2;;
  esac
done'
lab-guest start $B \
	--disk "format=raw,vdev=xvda,access=rw,script=xvbd-block,target=$imgi" --run 'true'
check "idle guest up" lab-guest wait $B --timeout 900
da=$(xl domid $A); db=$(xl domid $B)
check "reading guest connected" wait_for 600 4 fstate "$da" 51712

# The ring threads, found by this test: kernel threads "<domid>.xvda-N".
threads() {
	local p c
	for p in /proc/[0-9]*; do
		# read, not $(cat): a fork per process took 15 s under TCG.
		read -r c 2>/dev/null <$p/comm || continue
		case "$c" in
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
jqe() { jq -e "$1" <<<"$2" >/dev/null; }
# near KIB WANT VBD-JSON SECONDS: KIB within 1 % of WANT plus two requests' worth:
# blkback's rd_req and rd_sect are two files read one after the other, so
# each end of an interval may count one request in one and not the other
# (at the 17 requests/s of a slowed guest, 4 KiB read as 4.1).
near() {
	awk -v k="$1" -v w="$2" -v r="$(jq -r ".read_iops * $4" <<<"$3")" \
		'BEGIN { t = w * (0.01 + (r > 0 ? 2 / r : 1)); d = k - w; if (d < 0) d = -d; exit !(k != "null" && d <= t) }'
}
rd_req() { cat /sys/bus/xen-backend/devices/vbd-$1-51712/statistics/rd_req; }
# Ready when blkback's own counters show the guest's new read size: one
# second's reads of DOMID's DEVID average between LO and HI KiB (a fixed
# sleep after `say` measured the previous phase's reads on a busy host;
# LO and HI leave room for the skew that near() below describes).
size_now() {
	local d=/sys/bus/xen-backend/devices/vbd-$1-$2/statistics r0 s0 r1 s1
	r0=$(cat $d/rd_req); s0=$(cat $d/rd_sect)
	sleep 1
	r1=$(cat $d/rd_req); s1=$(cat $d/rd_sect)
	awk -v r=$((r1 - r0)) -v s=$((s1 - s0)) -v lo=$3 -v hi=$4 \
		'BEGIN { k = r ? s / 2 / r : 0; if (r > 10 && k >= lo && k <= hi) print "yes" }'
}
reads_of() {	# reads_of WHAT DOMID DEVID LO HI
	check "guest reads $1" wait_for 30 yes size_now $2 $3 $4 $5
}

ta=$(threads "$da"); tb=$(threads "$db")
echo "# threads: $A: $ta; $B: $tb"
check "the test found each guest's ring thread" \
	test -n "$ta" -a -n "$tb"

phase "4 KiB O_DIRECT reads"
say R4K
reads_of "4 KiB" $da 51712 3.8 4.2
t0=$(now_ns); c0=$(run_ns "$ta"); i0=$(run_ns "$tb")
xvbd --json stats -d 3 -n 2 >/tmp/t88.json 2>/tmp/t88.err
t1=$(now_ns); c1=$(run_ns "$ta"); i1=$(run_ns "$tb")
check "stats ran without warnings" test ! -s /tmp/t88.err
last() { tail -n 1 /tmp/t88.json | jq -c ".vbds[] | select(.domid == $1 and .vdev == \"$2\")"; }
va=$(last "$da" xvda); vb=$(last "$db" xvda)
echo "# $A xvda: $va"
echo "# $B xvda: $vb"
ours=$(awk -v a=$c0 -v b=$c1 -v t0=$t0 -v t1=$t1 \
	'BEGIN { printf "%.3f", (b - a) * 100 / (t1 - t0) }')
xv=$(echo "$va" | jq -r .backend_cpu_pct)
n1=$(head -n 1 /tmp/t88.json | jq -r ".vbds[] | select(.domid == $da and .vdev == \"xvda\") | .backend_cpu_ns")
n2=$(echo "$va" | jq -r .backend_cpu_ns)
echo "# backend CPU: schedstat $ours % over the stats run, xvbd $xv % over its last 3 s; ns: $c0 <= $n1 <= $n2 <= $c1"
check "backend CPU of the reading disk is busy (> 1 %)" \
	awk -v x="$ours" 'BEGIN { exit !(x > 1) }'
# The threads' time, read by this test before and after the stats run,
# brackets each cumulative value xvbd printed; its % is that growth over
# the 3 s interval (the guest's rate varies between intervals, so the
# test's own rate over the whole run is not the same number).
check "xvbd's backend_cpu_ns lies between the test's schedstat reads" \
	awk -v a=$c0 -v x="$n1" -v y="$n2" -v b=$c1 \
	'BEGIN { exit !(x != "null" && a <= x && x <= y && y <= b) }'
check "xvbd's backend CPU % is that growth over 3 s (5 %) ($xv)" \
	awk -v x="$xv" -v a="$n1" -v b="$n2" \
	'BEGIN { o = (b - a) / 3e7; d = x - o; if (d < 0) d = -d; exit !(x != "null" && o > 0 && d <= 0.05 * o) }'
expect_eq "xvbd's rings are the test's threads" \
	"$(echo $ta | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
	"$(echo "$va" | jq -r '[.rings[].pid] | sort | map(tostring) | join(" ")') "
kib=$(echo "$va" | jq -r .read_kib_per_req)
check "4 KiB reads: 4 KiB/req ($kib)" near "$kib" 4 "$va" 3
check "us per request known" \
	jqe '.backend_us_per_req > 0' "$va"
xi=$(echo "$vb" | jq -r .backend_cpu_pct)
check "idle guest's disk < 1 % ($xi)" \
	awk -v x="$xi" 'BEGIN { exit !(x != "null" && x < 1) }'
ni=$(echo "$vb" | jq -r .backend_cpu_ns)
check "idle disk's backend_cpu_ns is its own thread's time ($i0 <= $ni <= $i1)" \
	awk -v a=$i0 -v x="$ni" -v b=$i1 'BEGIN { exit !(x != "null" && a <= x && x <= b) }'
check "... not the reading guest's" test "$i1" != "$c1"

phase "advise: the buffered file disk, the idle guest"
J=$(xvbd advise $A xvda -d 2 --json)
echo "# advise $A xvda: $J"
loop=$(xenstore-read /local/domain/0/backend/vbd/$da/51712/physical-device)
dio=$(cat /sys/dev/block/$((16#${loop%%:*})):$((16#${loop#*:}))/loop/dio)
expect_eq "xvda's loop device is buffered (loop/dio)" 0 "$dio"
check "advise names dom0's page cache for it" \
	jqe '.[0].findings | map(.finding) | index("dom0-page-cache")' "$J"
check "... with --cache-b none in its command" \
	jqe '.[0].findings[] | select(.finding == "dom0-page-cache") | .command | test("--cache-b none")' "$J"
check "4 KiB requests: no segment finding" \
	jqe '[.[0].findings[] | select(.finding | test("segment"))] | length == 0' "$J"
fields "advise --json: a VBD" "$(jq -c '.[0]' <<<"$J")" \
	"domain:string domid:number vdev:string interval_s:number requests:number note:string? findings:array"
fields "advise --json: a finding" "$(jq -c '.[0].findings[0]' <<<"$J")" \
	"finding:string limited_by:string change:string parameter:string evidence:array command:string"
fields "advise --json: evidence" "$(jq -c '.[0].findings[0].evidence[0]' <<<"$J")" \
	"name:string value:number unit:string"
for k in $(jq -r '.[0] | keys[]' <<<"$J") $(jq -r '.[0].findings[0] | keys[]' <<<"$J") \
	$(jq -r '.[0].findings[0].evidence[0] | keys[]' <<<"$J"); do
	sed -n '/^.SH JSON OUTPUT/,/^.SH /p' /lab/man/xvbd-advise.1 | grep -q "$k" ||
		fail "advise JSON field $k not in man xvbd-advise JSON OUTPUT"
done
J=$(xvbd advise $B -d 2 --json)
echo "# advise $B: $J"
expect_eq "idle guest: no I/O sampled" "no I/O sampled" "$(jq -r '.[0].note' <<<"$J")"
expect_eq "idle guest: no finding" 0 "$(jq -r '.[0].findings | length' <<<"$J")"

phase "1 MiB reads, indirect descriptors offered"
say R1M
reads_of "over 44 KiB" $da 51712 45 1024
xvbd --json stats $A -d 2 -n 2 >/tmp/t88.json
va=$(last "$da" xvda)
kib=$(echo "$va" | jq -r .read_kib_per_req)
echo "# indirect offered: $(echo "$va" | jq -c '{read_kib_per_req, ceiling_kib, ceiling_segments, read_ceiling_pct}')"
check "indirect offered: requests above 44 KiB ($kib)" \
	awk -v k="$kib" 'BEGIN { exit !(k > 44.5) }'
expect_eq "ceiling: the backend's offer" \
	"$(xenstore-read /local/domain/0/backend/vbd/$da/51712/feature-max-indirect-segments)" \
	"$(echo "$va" | jq -r .ceiling_segments)"
J=$(xvbd advise $A xvda -d 2 --json)
echo "# advise, indirect offered: $(jq -c '[.[0].findings[].finding]' <<<"$J")"
check "indirect offered: advise does not name the segment ceiling" \
	jqe '[.[0].findings[] | select(.finding == "segment-ceiling")] | length == 0' "$J"
xvbd ab record ind-on --domain $A --vdev xvda --duration 3 --interval 1 \
	--dir /tmp/t88ab >/dev/null
check "ab record ind-on" test $? = 0

phase "1056 KiB reads, indirect-segments offer 0"
say IDLE
check "attach xvdb with indirect-segments 0" \
	xvbd attach $A --file $imgb --vdev xvdb --indirect-segments 0
say R1MB
reads_of "44 KiB" $da 51728 42 46
xvbd --json stats $A -d 2 -n 2 >/tmp/t88.json
vx=$(last "$da" xvdb)
echo "# indirect 0: $vx"
kib=$(echo "$vx" | jq -r .read_kib_per_req)
check "indirect 0: 44 KiB/req ($kib)" near "$kib" 44 "$vx" 2
expect_eq "ceiling 44 KiB" 44 "$(echo "$vx" | jq -r .ceiling_kib)"
check "at 100 % of the ceiling" near "$(jq .read_ceiling_pct <<<"$vx")" 100 "$vx" 2
J=$(xvbd advise $A xvdb -d 2 --json)
echo "# advise, indirect 0: $J"
f=$(jq -c '.[0].findings[] | select(.finding == "segment-ceiling")' <<<"$J")
check "indirect 0: advise names the segment ceiling" test -n "$f"
# on a copy of the image (a hot A/B of the guest's own image is refused:
# its loop is the guest's), then the hot ab run
check "... with the hot ab run that tests indirect segments, on a copy" \
	jqe '.command | test("^cp --sparse=always [^ ]+ [^ ]+ && xvbd ab run .* --vbd-a [a-z]+:indirect-segments=0 --vbd-b [a-z]+:indirect-segments=256")' "$f"
check "... limited by the backend's offer" \
	jqe '.limited_by == "backend-offer"' "$f"
check "... evidence: 44 KiB per request" \
	jqe '.evidence[] | select(.name == "read_kib_per_req") | .value >= 43.5 and .value <= 44.5' "$f"

phase "ab compare: indirect off vs on"
xvbd ab record ind-off --domain $A --vdev xvdb --duration 3 --interval 1 \
	--dir /tmp/t88ab >/dev/null
check "ab record ind-off" test $? = 0
C=$(xvbd ab compare ind-off ind-on --dir /tmp/t88ab --json)
for side in off on; do
	rec=$(ls /tmp/t88ab/ind-$side-*.json)
	# Recomputed from the raw counters: first and last sample.
	want=$(jq -r '.samples as $s | ($s[-1].vbds[0]) as $b | ($s[0].vbds[0]) as $a |
		"\(($b.rd_sect - $a.rd_sect) * 512 / 1024 / ($b.rd_req - $a.rd_req)) \(($b.backend_cpu_ns - $a.backend_cpu_ns) / 1000 / (($b.rd_req + $b.wr_req + $b.f_req + $b.ds_req) - ($a.rd_req + $a.wr_req + $a.f_req + $a.ds_req)))"' "$rec")
	read -r kib us <<<"$want"
	ab=$([ $side = off ] && echo a || echo b)
	got_kib=$(jq -r ".metrics[] | select(.metric == \"read_kib_per_req\") | .$ab" <<<"$C")
	got_us=$(jq -r ".metrics[] | select(.metric == \"backend_us_per_req\") | .$ab" <<<"$C")
	echo "# ind-$side: kib $got_kib (recomputed $kib), us/req $got_us (recomputed $us)"
	check "compare ind-$side read_kib_per_req = recomputed ($got_kib vs $kib)" \
		awk -v g="$got_kib" -v w="$kib" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "null" && d <= 0.05 + w * 0.001) }'
	check "compare ind-$side backend_us_per_req = recomputed ($got_us vs $us)" \
		awk -v g="$got_us" -v w="$us" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "null" && w > 0 && d <= 0.05 + w * 0.001) }'
done

phase "CSV and Prometheus"
xvbd stats $A -d 1 -n 2 --csv >/tmp/t88.csv
xvbd stats $A -d 1 -n 2 --prometheus /tmp/t88.prom >/dev/null
check "CSV header has the cost columns" \
	sh -c "head -n1 /tmp/t88.csv | grep -q 'backend_cpu_pct,backend_us_per_req,read_kib_per_req'"
check "Prometheus: backend CPU of $A's xvdb" \
	grep -q "xvbd_vbd_backend_cpu_seconds_total{domid=\"$da\".*vdev=\"xvdb\"" /tmp/t88.prom
check "Prometheus: request ceiling 44 KiB for xvdb" \
	grep -q "xvbd_vbd_request_ceiling_kib{.*vdev=\"xvdb\".*} 44" /tmp/t88.prom
say QUIT
lab-guest wait $A --timeout 120 >/dev/null
xl destroy $A; xl destroy $B
finish
