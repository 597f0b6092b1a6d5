# xvbd ab record: one run = one record, checked against what
# xvbd does not control.
#  - --run: a guest reads 64 MiB and writes 16 MiB of xvda with O_DIRECT
#    once dom0 writes "GO" to its other disk (xvdb, not recorded: its
#    polling does not touch xvda), so the record's baseline comes before
#    the I/O.  The record's rd_sect/wr_sect deltas equal the guest's own
#    /sys/block/xvda/stat deltas and dd's byte counts; the file is valid
#    JSON, 0600 in a 0700 directory xvbd made;
#  - the fingerprint against xl, xenstore and sysfs read here: vCPUs,
#    memory, Xen version, host CPUs, target, size, backend kind, loop dio,
#    ring pages, clock source, a blkback parameter;
#  - SIGINT: the record is written, incomplete, exit 1; no progress line
#    on a pipe.  kill -9: no record, no temporary, other records intact;
#  - --until-shutdown: a guest that reads and powers itself off (busybox
#    `poweroff -f`); the record ends complete with the guest's I/O;
#  - bad input: one error line, exit 2 or 1, nothing written.
# lab-timeout: 900
. /lab/lib/testlib.sh
img=/scratch/t75.img
img2=/scratch/t75b.img
trig=/scratch/t75-go.img
trig2=/scratch/t75b-go.img
top=/tmp/t75-ab
store=$top/store
xl destroy t75 2>/dev/null
xl destroy t75b 2>/dev/null
rm -rf $top $img $img2 $trig $trig2
truncate -s 100M $img
truncate -s 64M $img2
truncate -s 1M $trig $trig2
# xvbd's own hotplug program: Xen's bash block script for two file disks
# ran into libxl's 40 s timeout on a loaded host.
disk() { echo "format=raw,vdev=$1,access=rw,script=xvbd-block,target=$2"; }
json_ok() { jq -e . "$1" >/dev/null; }
jq_true() { jq -e "$@" >/dev/null; }

# The guest's side: wait for "GO" on xvdb, then the I/O between two
# readings of its own counters.
wait_go='while ! dd if=/dev/xvdb bs=4096 count=1 iflag=direct 2>/dev/null |
	grep -q GO; do sleep 0.2; done'
go() { printf 'GO%4094s' x | dd of="$1" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null; }

# recording PID DOMID: prints 1 once xvbd has the VBD's blkback counter
# files open: the stats layer opens them right before the baseline.
recording() {
	if ls -l /proc/$1/fd 2>/dev/null | grep -q "vbd-$2-51712/statistics/"; then
		echo 1
	else
		echo 0
	fi
}
no_cr() { ! grep -q $'\r' "$1"; }

# field N of a "STATn ..." line of the guest's output
stat_field() { sed -n "s/^$1 //p" <<<"$2" | awk -v n="$3" '{ print $n }'; }

phase "guest t75 boots"
lab-guest start t75 --disk "$(disk xvda $img)" --disk "$(disk xvdb $trig)" --run "$wait_go
echo \"STAT1 \$(cat /sys/block/xvda/stat)\"
dd if=/dev/xvda of=/dev/null bs=1M count=64 iflag=direct 2>&1
dd if=/dev/zero of=/dev/xvda bs=1M count=16 oflag=direct 2>&1
echo \"STAT2 \$(cat /sys/block/xvda/stat)\""
domid=$(xl domid t75)
check "guest t75 created" test -n "$domid"
check "xvda connected" wait_for 120 4 fstate "$domid" 51712
check "xvdb connected" wait_for 120 4 fstate "$domid" 51728

phase "ab record --run"
xvbd ab record base --domain t75 --vdev xvda --interval 0.5 --dir $store \
	--json --run "printf 'GO%4094s' x | dd of=$trig bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null; lab-guest wait t75 --timeout 300" \
	>$top.out 2>$top.err
expect_eq "ab record --run exits 0" 0 $?
sed 's/^/# stderr: /' $top.err
sed 's/^/# stdout: /' $top.out
guest_out=$(cat $top.err)
check "the report is JSON" json_ok $top.out
rec=$(jq -r .path $top.out)
id=$(jq -r .id $top.out)
check "record file $rec exists" test -f "$rec"
expect_eq "record is named by its id" "$store/$id.json" "$rec"
check "record file is valid JSON" json_ok "$rec"
expect_eq "record file mode 0600" 600 "$(stat -c %a "$rec")"
expect_eq "store directory mode 0700 (made by xvbd)" 700 "$(stat -c %a $store)"
expect_eq "parent made 0700 too" 700 "$(stat -c %a $top)"
expect_eq "format, version, label, mode, complete" \
	"xvbd-ab-record 1 base run true 0" \
	"$(jq -r '"\(.format) \(.version) \(.label) \(.mode) \(.complete) \(.workload_status)"' "$rec")"
expect_eq "vdevs" '["xvda"]' "$(jq -c .vdevs "$rec")"
check "samples every 0.5 s: at least 4" \
	test "$(jq '.samples | length' "$rec")" -ge 4
check "sample times strictly increase from 0" jq_true '
	.samples | (.[0].t_ns == 0) and
	([range(1; length) as $i | .[$i].t_ns > .[$i - 1].t_ns] | all)' "$rec"
check "only raw counters: no rates in the record" jq_true '[del(.fingerprint) |
	paths | .[-1] | strings | select(test("per_s|rate|pct"))] | length == 0' "$rec"

# The record against the guest's own counters and dd's byte counts.
rd_rec=$(jq '.samples[-1].vbds[0].rd_sect - .samples[0].vbds[0].rd_sect' "$rec")
wr_rec=$(jq '.samples[-1].vbds[0].wr_sect - .samples[0].vbds[0].wr_sect' "$rec")
rd_guest=$(( $(stat_field STAT2 "$guest_out" 3) - $(stat_field STAT1 "$guest_out" 3) ))
wr_guest=$(( $(stat_field STAT2 "$guest_out" 7) - $(stat_field STAT1 "$guest_out" 7) ))
echo "# sectors read/written: record $rd_rec/$wr_rec, guest $rd_guest/$wr_guest"
expect_eq "read sectors = the guest's own /sys/block/xvda/stat" "$rd_guest" "$rd_rec"
expect_eq "written sectors = the guest's own stat" "$wr_guest" "$wr_rec"
expect_eq "read bytes = dd's 64 MiB" 67108864 "$((rd_rec * 512))"
expect_eq "written bytes = dd's 16 MiB" 16777216 "$((wr_rec * 512))"
check "dd read its 64 blocks of 1 MiB" grep -q '^64+0 records out' $top.err
check "dd wrote its 16 blocks of 1 MiB" grep -q '^16+0 records out' $top.err
expect_eq "the report's totals are the record's" "$((rd_rec * 512)) $((wr_rec * 512))" \
	"$(jq -r '.vbds[0] | "\(.read_bytes) \(.write_bytes)"' $top.out)"
check "no reset in the run" jq_true '[.samples[].vbds[].reset] | any | not' "$rec"

phase "a recording without --run leaves stdin alone"
# Only --run's output is read: a script feeding the next command on
# the same stdin must find its lines still there (the recorder once took
# fd 0 for its pipe, read stdin to the end and closed it).
printf 'line 1\nline 2\n' >$top.stdin
mkdir -p $top.sstore
rest=$( (xvbd ab record stdin --domain t75 --duration 1 --dir $top.sstore >/dev/null 2>$top.serr; cat) <$top.stdin)
sed 's/^/# /' $top.serr
expect_eq "stdin's two lines left for the next command" "line 1 line 2" "$(echo $rest)"

phase "the fingerprint against xl, xenstore, sysfs"
fp() { jq -r --arg k "$1" '.fingerprint[$k] // "MISSING"' "$rec"; }
be=/local/domain/0/backend/vbd/$domid/51712
fe=/local/domain/$domid/device/vbd/51712
read -r _ _ gmem gvcpus _ < <(xl list t75 | tail -n 1)
read -r _ _ dmem dvcpus _ < <(xl list Domain-0 | tail -n 1)
expect_eq "guest.vcpus = xl list" "$gvcpus" "$(fp guest.vcpus)"
expect_eq "dom0.vcpus = xl list" "$dvcpus" "$(fp dom0.vcpus)"
expect_eq "guest.mem_bytes = xl list's MiB" "$gmem" "$(( $(fp guest.mem_bytes) >> 20 ))"
expect_eq "dom0.mem_bytes = xl list's MiB" "$dmem" "$(( $(fp dom0.mem_bytes) >> 20 ))"
expect_eq "guest.type" pv "$(fp guest.type)"
expect_eq "xen.version = xl info" "$(xl info xen_version)" "$(fp xen.version)"
expect_eq "host.cpus = xl info" "$(xl info nr_cpus)" "$(fp host.cpus)"
expect_eq "dom0.kernel = uname" "$(uname -r) $(uname -v)" "$(fp dom0.kernel)"
expect_eq "dom0.clocksource = sysfs" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
	"$(fp dom0.clocksource)"
expect_eq "blkback.max_ring_page_order = sysfs" \
	"$(cat /sys/module/xen_blkback/parameters/max_ring_page_order)" \
	"$(fp blkback.max_ring_page_order)"
expect_eq "target = the backend's params" "$(xenstore-read $be/params)" \
	"$(fp vbd.xvda.target)"
expect_eq "size_bytes = sectors x 512 from xenstore" \
	"$(( $(xenstore-read $be/sectors) * 512 ))" "$(fp vbd.xvda.size_bytes)"
expect_eq "backend kind" "file via loop" "$(fp vbd.xvda.backend)"
node=$(xenstore-read $be/node)
dio=$(cat /sys/block/${node#/dev/}/loop/dio)
expect_eq "dom0_cache from $node's dio ($dio)" \
	"$([ "$dio" = 1 ] && echo none || echo host)" "$(fp vbd.xvda.dom0_cache)"
order=$(xenstore-read $fe/ring-page-order 2>/dev/null || echo 0)
expect_eq "ring_pages = 2^ring-page-order of the frontend" \
	"$((1 << order))" "$(fp vbd.xvda.ring_pages)"
expect_eq "path" pv "$(fp vbd.xvda.path)"
expect_eq "workload is the command" \
	"$(jq -r .workload "$rec")" "$(fp workload)"
check "no fact of the unrecorded xvdb" \
	test "$(jq '[.fingerprint | keys[] | select(startswith("vbd.xvdb"))] | length' "$rec")" = 0

phase "SIGINT: written, incomplete, exit 1"
xvbd ab record int --domain t75 --duration 120 --interval 0.2 --dir $store \
	>$top.int.out 2>$top.int.err &
pid=$!
check "recording started" wait_for 60 1 recording $pid $domid
sleep 1
kill -INT $pid
wait $pid
expect_eq "interrupted record exits 1" 1 $?
sed 's/^/# stderr: /' $top.int.err
check "says it was interrupted" grep -q "interrupted.*SIGINT" $top.int.err
check "no progress line on a pipe" no_cr $top.int.err
int_rec=$(ls $store/int-*.json 2>/dev/null)
check "interrupted record written" test -f "$int_rec"
expect_eq "marked incomplete" false "$(jq .complete "$int_rec")"
check "a note says why" jq_true '.notes | any(test("interrupted by SIGINT"))' "$int_rec"
check "the text report names it" grep -q "$(basename "$int_rec" .json)" $top.int.out

phase "kill -9: nothing written"
before=$(ls -A $store; md5sum $store/*.json)
xvbd ab record killed --domain t75 --duration 120 --interval 0.2 --dir $store \
	>/dev/null 2>&1 &
pid=$!
check "recording started" wait_for 60 1 recording $pid $domid
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
after=$(ls -A $store; md5sum $store/*.json)
expect_eq "no record, no temporary, the others unchanged" "$before" "$after"

phase "bad input"
# ab_bad WHAT RC TEXT ARGS...: exit RC, the first stderr line is the one
# error ("xvbd: ab record: ...TEXT..."), nothing more (-q: not even the
# hint where the help is), and nothing changed in dom0 or the store.
bad_input_setup "$domid" $store
ab_bad() {
	local what=$1 want_rc=$2 text=$3 err rc first rest
	shift 3
	err=$(xvbd -q ab record "$@" 2>&1 >/dev/null)
	rc=$?
	first=${err%%$'\n'*}
	rest=${err#"$first"}
	dom0_state "${T_BAD_ARGS[@]}"
	echo "# $what: rc=$rc: $first"
	if [ "$rc" = "$want_rc" ] && [[ $first == "xvbd: ab record: "*"$text"* ]] &&
		[ -z "$rest" ] &&
		[ "$T_STATE" = "$T_BAD_BASE" ]; then
		ok "bad input: $what"
	else
		fail "bad input: $what (want rc=$want_rc and '$text')"
		diff <(echo "$T_BAD_BASE") <(echo "$T_STATE") | sed 's/^/#   /'
	fi
}
touch $top/file
ab_bad "unknown domain" 1 "no such domain" x --domain nosuchdom --duration 1 --dir $store
ab_bad "label ../x" 2 'label "../x"' ../x --domain t75 --duration 1 --dir $store
ab_bad "no mode" 2 "how long" x --domain t75 --dir $store
ab_bad "two modes" 2 "exclude each other" x --domain t75 --duration 1 --until-shutdown --dir $store
ab_bad "--interval 0" 2 "--interval" x --domain t75 --duration 1 --interval 0 --dir $store
ab_bad "no --domain" 2 "--domain missing" x --duration 1 --dir $store
ab_bad "--dir is a file" 1 "not a directory" x --domain t75 --duration 1 --dir $top/file
ab_bad "a vdev the guest lacks" 1 "no such disk" x --domain t75 --vdev xvdc --duration 1 --dir $store
ab_bad "dom0" 2 "dom0" x --domain Domain-0 --duration 1 --dir $store
rm -f $top/file
lab-guest stop t75

phase "guest t75b: --until-shutdown, poweroff -f"
lab-guest start t75b --disk "$(disk xvda $img2)" --disk "$(disk xvdb $trig2)" --run "$wait_go
echo \"STAT1 \$(cat /sys/block/xvda/stat)\"
dd if=/dev/xvda of=/dev/null bs=1M count=32 iflag=direct 2>&1
echo \"STAT2 \$(cat /sys/block/xvda/stat)\"
sleep 1
poweroff -f"
domid=$(xl domid t75b)
check "guest t75b created" test -n "$domid"
check "xvda connected" wait_for 120 4 fstate "$domid" 51712
check "xvdb connected" wait_for 120 4 fstate "$domid" 51728
xvbd ab record shut --domain t75b --vdev xvda --interval 0.5 --dir $store \
	--until-shutdown --json >$top.shut.out 2>$top.shut.err &
pid=$!
check "recording started" wait_for 60 1 recording $pid $domid
sleep 1
go $trig2
wait $pid
expect_eq "ab record --until-shutdown exits 0" 0 $?
sed 's/^/# stderr: /' $top.shut.err
sed 's/^/# stdout: /' $top.shut.out
gone() { xl domid t75b >/dev/null 2>&1 && echo here || echo gone; }
check "the guest is gone" wait_for 60 gone gone
guest_out=$(lab-guest console t75b)
shut_rec=$(jq -r .path $top.shut.out)
check "record written" test -f "$shut_rec"
expect_eq "complete, mode" "true until-shutdown" \
	"$(jq -r '"\(.complete) \(.mode)"' "$shut_rec")"
check "a note says the guest shut down" \
	jq_true '.notes | any(test("shut down"))' "$shut_rec"
jq -r '.notes[]' "$shut_rec" | sed 's/^/# note: /'
rd_rec=$(jq '.samples[-1].vbds[0].rd_sect - .samples[0].vbds[0].rd_sect' "$shut_rec")
rd_guest=$(( $(stat_field STAT2 "$guest_out" 3) - $(stat_field STAT1 "$guest_out" 3) ))
expect_eq "read sectors = the guest's own stat ($rd_guest)" "$rd_guest" "$rd_rec"
expect_eq "read bytes = dd's 32 MiB" 33554432 "$((rd_rec * 512))"
# The guest's shutdown takes its backend through Closing and Closed: no
# reconnect, so no reset (a reset here once cost the record 24 sectors).
check "no reset in the record (the shutdown is not a reconnect)" \
	jq_true '[.samples[].vbds[].reset] | any | not' "$shut_rec"
expect_eq "the summary's read bytes = the raw counters'" "$((rd_rec * 512))" \
	"$(jq -r '.vbds[0].read_bytes' $top.shut.out)"
expect_eq "fingerprint taken while the guest ran" pv \
	"$(jq -r '.fingerprint["vbd.xvda.path"]' "$shut_rec")"

phase "the store"
expect_eq "three records, no temporary" 3 "$(ls -A $store | wc -l)"
check "every record is valid JSON" jq_true -s 'length == 3' $store/*.json

rm -rf $top $top.* $img $img2 $trig $trig2
finish
