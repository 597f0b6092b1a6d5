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
#  - advise: names indirect segments (with the command that tests them)
#    for the disk at the 44 KiB ceiling, not for the one with indirect
#    descriptors; names dom0's page cache for the buffered file disk
#    (its loop device's dio, read here); says "no I/O sampled" for the
#    idle guest; its JSON has the fields man xvbd-advise documents;
#  - ab record of the two disks' 1 MiB reads (indirect off, on):
#    ab compare's read-kib-per-req and backend-us-per-req per side equal
#    what this test recomputes from the records' raw counters;
#  - CSV and Prometheus carry the same fields.
# lab-timeout: 1500
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
lab-guest start $B \
	--disk "format=raw,vdev=xvda,access=rw,script=xvbd-block,target=$imgi" --run 'true'
check "idle guest up" lab-guest wait $B --timeout 900
da=$(xl domid $A); db=$(xl domid $B)
check "reading guest connected" wait_for 600 4 fstate "$da" 51712

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
jqe() { jq -e "$1" <<<"$2" >/dev/null; }
rd_req() { cat /sys/bus/xen-backend/devices/vbd-$1-51712/statistics/rd_req; }

ta=$(threads "$da"); tb=$(threads "$db")
echo "# threads: $A: $ta; $B: $tb"
check "the test found each guest's ring thread" \
	test -n "$ta" -a -n "$tb"

phase "4 KiB O_DIRECT reads"
say R4K
r0=$(rd_req $da)
reading() { [ "$(rd_req "$da")" -gt $((r0 + 200)) ] && echo yes; }
check "guest reads" wait_for 120 yes reading
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
	jqe '.backend_us_per_req > 0' "$va"
xi=$(echo "$vb" | jq -r .backend_cpu_pct)
check "idle guest's disk < 1 % ($xi)" \
	awk -v x="$xi" 'BEGIN { exit !(x != "null" && x < 1) }'
expect_eq "idle disk's backend_cpu_ns is its own thread's time" \
	"$i1" "$(echo "$vb" | jq -r .backend_cpu_ns)"
check "... not the reading guest's" test "$i1" != "$c1"

phase "advise: the buffered file disk, the idle guest"
J=$(xvbd advise $A xvda -d 3 --json)
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
J=$(xvbd advise $A xvda -d 3 --json)
echo "# advise, indirect offered: $(jq -c '[.[0].findings[].finding]' <<<"$J")"
check "indirect offered: advise does not name the segment ceiling" \
	jqe '[.[0].findings[] | select(.finding == "segment-ceiling")] | length == 0' "$J"
xvbd ab record ind-on --domain $A --vdev xvda --duration 4 --interval 1 \
	--dir /tmp/t88ab >/dev/null
check "ab record ind-on" test $? = 0

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
	jqe '.rd_ceiling_pct >= 99 and .rd_ceiling_pct <= 101' "$vx"
J=$(xvbd advise $A xvdb -d 3 --json)
echo "# advise, indirect 0: $J"
f=$(jq -c '.[0].findings[] | select(.finding == "segment-ceiling")' <<<"$J")
check "indirect 0: advise names the segment ceiling" test -n "$f"
check "... with the hot ab run that tests indirect segments" \
	jqe '.command | test("^xvbd ab run .* --vbd-a [a-z]+:indirect-segments=0 --vbd-b [a-z]+:indirect-segments=256")' "$f"
check "... limited by the backend's offer" \
	jqe '.limited_by == "backend-offer"' "$f"
check "... evidence: 44 KiB per request" \
	jqe '.evidence[] | select(.name == "rd_kib_per_req") | .value >= 43.5 and .value <= 44.5' "$f"

phase "ab compare: indirect off vs on"
xvbd ab record ind-off --domain $A --vdev xvdb --duration 4 --interval 1 \
	--dir /tmp/t88ab >/dev/null
check "ab record ind-off" test $? = 0
C=$(xvbd ab compare ind-off ind-on --dir /tmp/t88ab --json)
for side in off on; do
	rec=$(ls /tmp/t88ab/ind-$side-*.json)
	# Recomputed from the raw counters: first and last sample.
	want=$(jq -r '.samples as $s | ($s[-1].vbds[0]) as $b | ($s[0].vbds[0]) as $a |
		"\(($b.rd_sect - $a.rd_sect) * 512 / 1024 / ($b.rd_req - $a.rd_req))
		 \(($b.backend_cpu_ns - $a.backend_cpu_ns) / 1000 /
		   (($b.rd_req + $b.wr_req + $b.f_req + $b.ds_req) -
		    ($a.rd_req + $a.wr_req + $a.f_req + $a.ds_req)))"' "$rec")
	read -r kib us <<<"$want"
	ab=$([ $side = off ] && echo a || echo b)
	got_kib=$(jq -r ".metrics[] | select(.metric == \"read-kib-per-req\") | .$ab" <<<"$C")
	got_us=$(jq -r ".metrics[] | select(.metric == \"backend-us-per-req\") | .$ab" <<<"$C")
	echo "# ind-$side: kib $got_kib (recomputed $kib), us/req $got_us (recomputed $us)"
	check "compare ind-$side read-kib-per-req = recomputed ($got_kib vs $kib)" \
		awk -v g="$got_kib" -v w="$kib" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "null" && d <= 0.05 + w * 0.001) }'
	check "compare ind-$side backend-us-per-req = recomputed ($got_us vs $us)" \
		awk -v g="$got_us" -v w="$us" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "null" && w > 0 && d <= 0.05 + w * 0.001) }'
done

phase "CSV and Prometheus"
xvbd stats $A -d 1 -n 2 --csv --prometheus /tmp/t88.prom >/tmp/t88.csv
check "CSV header has the cost columns" \
	sh -c "head -n1 /tmp/t88.csv | grep -q 'backend_cpu_pct,backend_us_per_req,rd_kib_per_req'"
check "Prometheus: backend CPU of $A's xvdb" \
	grep -q "xvbd_vbd_backend_cpu_seconds_total{domid=\"$da\".*vdev=\"xvdb\"" /tmp/t88.prom
check "Prometheus: request ceiling 44 KiB for xvdb" \
	grep -q "xvbd_vbd_request_ceiling_kib{.*vdev=\"xvdb\".*} 44" /tmp/t88.prom
say QUIT
lab-guest wait $A --timeout 120 >/dev/null
xl destroy $A; xl destroy $B
finish
