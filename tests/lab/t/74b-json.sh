# lab-timeout: 1200
# lab-leaks: check
# Every command's --json, once: the output parses with jq, has
# every field its page's JSON OUTPUT section documents with the documented
# type (tests/man.sh checks that the page names each field the sources
# print; this checks the output itself), and at least one value per
# command equals what a source xvbd does not control says: xenstore-read,
# xl, sysfs, losetup, the files.  Commands: list, show, attach (and -N),
# tune (and -N), defaults (and -N with a parameter), stats, pv (domain,
# file, -N off), detach (and -N), start (and -N), ab record, ab list,
# ab show, ab compare, ab export, ab plot, ab rm, ab run -N (the plan; a
# real ab run's is checked by t/76, t/78 (hot) and t/79 (fresh guests)).
# fields is /lab/lib/testlib.sh's.
. /lab/lib/testlib.sh
G=t74j S=t74k
dir=/scratch/t74j
store=$dir/ab
BE=/local/domain/0/backend/vbd

# json_of WHAT XVBD_ARGS...: xvbd's stdout into J; ok if it exits 0 and parses
json_of() {
	local what=$1 rc
	shift
	J=$(xvbd "$@" 2>/tmp/t74j.err)
	rc=$?
	echo "# xvbd $*: ${J:0:600}"
	[ $rc = 0 ] || sed 's/^/#   stderr: /' /tmp/t74j.err
	expect_eq "$what: exit 0, output parses with jq" "0 0" \
		"$rc $(jq -e . >/dev/null 2>&1 <<<"$J"; echo $?)"
}
state_name() {
	case $1 in 1) echo Initialising ;; 2) echo InitWait ;; 3) echo Initialised ;;
	4) echo Connected ;; 5) echo Closing ;; 6) echo Closed ;; *) echo "?$1" ;; esac
}
rd_req_sysfs() { cat "/sys/bus/xen-backend/devices/vbd-$1-$2/statistics/rd_req"; }

phase "set-up: guest $G with xvda"
lab-guest stop $G >/dev/null 2>&1; lab-guest stop $S >/dev/null 2>&1
rm -rf $dir
mkdir -p $dir
truncate -s 16M $dir/xvda.img $dir/s.img
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=$dir/xvda.img" \
	--run 'dd if=/dev/xvda of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null; echo read
(while :; do dd if=/dev/xvda of=/dev/null bs=4k count=8 iflag=direct; sleep 0.5; done) >/dev/null 2>&1 &'
expect_eq "guest: read its disk" read "$(lab-guest wait $G --timeout 300)"
domid=$(xl domid $G)

VBD_LIST="domid:number domain:string vdev:string devid:number backend_type:string
	target:string size_bytes:number? mode:string dom0_cache:string?
	backend_state:string frontend_state:string ring_pages:number?
	queues:number? indirect_segments_offered:number? persistent:boolean?"
phase "list"
json_of "list --json" --json list $G
fields "list --json: xvda" "$(jq -c '.[0]' <<<"$J")" "$VBD_LIST"
expect_eq "list --json: devids = xenstore's" "$(xs_list $BE/$domid | sort -n | tr '\n' ' ')" \
	"$(jq -r '.[].devid' <<<"$J" | sort -n | tr '\n' ' ')"
expect_eq "list --json: size_bytes = blkback's sectors x 512" \
	$(( $(xenstore-read $BE/$domid/51712/sectors) * 512 )) "$(jq '.[0].size_bytes' <<<"$J")"

phase "show"
json_of "show --json" --json show $G xvda
fields "show --json" "$J" "domid:number domain:string vdev:string devid:number
	backend_path:string frontend_path:string backend_type:string dom0_cache:string?
	backend_state:string frontend_state:string size_bytes:number? backend:object
	frontend:object negotiated:array warnings:array"
fields "show --json: negotiated[0]" "$(jq -c '.negotiated[0]' <<<"$J")" \
	"key:string offer:number? choice:number? effective:number?"
expect_eq "show --json: backend_path, backend.state = xenstore's" \
	"$BE/$domid/51712 $(xenstore-read $BE/$domid/51712/state)" \
	"$(jq -r '"\(.backend_path) \(.backend.state)"' <<<"$J")"
expect_eq "show --json: frontend ring-ref = xenstore's" \
	"$(xenstore-read /local/domain/$domid/device/vbd/51712/ring-ref)" \
	"$(jq -r '.frontend["ring-ref"]' <<<"$J")"

phase "attach -N, attach"
json_of "-N attach --json" -N --json attach $G --file $dir/dry.img --size 8M
fields "-N attach --json: the plan" "$(jq -c '.[0]' <<<"$J")" "domain:string vdev:string
	devid:number kind:string target:string access:string size_bytes:number?
	script:string cache:string overrides:string? action:string"
check "-N attach: no image created" test ! -e $dir/dry.img
json_of "attach --json" --json attach $G --file $dir/x.img --size 32M
fields "attach --json" "$(jq -c '.[0]' <<<"$J")" "domain:string vdev:string devid:number
	kind:string target:string access:string size_bytes:number? created:boolean
	share:string? backend_state:string frontend_state:string? overrides:string?"
xd=$(jq -r '.[0].devid' <<<"$J")
expect_eq "attach --json: devid $xd, its backend state = xenstore's" \
	"$(state_name "$(xenstore-read $BE/$domid/$xd/state)")" "$(jq -r '.[0].backend_state' <<<"$J")"
expect_eq "attach --json: size_bytes = the image's size" "$(stat -c %s $dir/x.img)" \
	"$(jq '.[0].size_bytes' <<<"$J")"
xv=$(jq -r '.[0].vdev' <<<"$J")

phase "tune -N, tune"
json_of "tune --json" --json tune $G $xv discard=0
fields "tune --json" "$J" "domain:string domid:number overrides:array"
fields "tune --json: overrides[0]" "$(jq -c '.overrides[0]' <<<"$J")" "vdev:string key:string
	xs_key:string value:number before:number? chosen:number? result:string why:string?"
expect_eq "tune --json: domid = xl's, value = xenstore's discard-enable" \
	"$domid $(xenstore-read $BE/$domid/$xd/discard-enable)" \
	"$(jq -r '"\(.domid) \(.overrides[0].value)"' <<<"$J")"
json_of "-N tune --json" -N --json tune $G $xv discard=1
fields "-N tune --json" "$J" "domain:string domid:number writes:array"
fields "-N tune --json: writes[0]" "$(jq -c '.writes[0]' <<<"$J")" "vdev:string path:string value:string"
expect_eq "-N tune --json: the path it would write; xenstore still 0" \
	"$BE/$domid/$xd/discard-enable 0" \
	"$(jq -r '.writes[0].path' <<<"$J") $(xenstore-read $BE/$domid/$xd/discard-enable)"

phase "defaults, -N defaults PARAM"
json_of "defaults --json" --json defaults
fields "defaults --json" "$J" "module:string parameters:array attached:array"
fields "defaults --json: parameters[0]" "$(jq -c '.parameters[0]' <<<"$J")" \
	"param:string value:string change:string meaning:string"
expect_eq "defaults --json: max_buffer_pages = sysfs's" \
	"$(cat /sys/module/xen_blkback/parameters/max_buffer_pages)" \
	"$(jq -r '.parameters[] | select(.param == "max_buffer_pages") | .value' <<<"$J")"
mbp=$(cat /sys/module/xen_blkback/parameters/max_buffer_pages)
json_of "-N defaults PARAM --json" -N --json defaults max_buffer_pages=$((mbp + 1))
fields "-N defaults PARAM --json" "$J" "module:string changes:array"
fields "-N defaults: changes[0]" "$(jq -c '.changes[0]' <<<"$J")" \
	"param:string before:string requested:string now:string how:string"
expect_eq "-N defaults: before = sysfs's, sysfs unchanged" "$mbp $mbp" \
	"$(jq -r '.changes[0].before' <<<"$J") $(cat /sys/module/xen_blkback/parameters/max_buffer_pages)"

phase "stats"
json_of "stats --json" --json stats $G -d 1 -n 1
fields "stats --json: the sample" "$J" "time:string seq:number interval_s:number?
	domains:array vbds:array"
fields "stats --json: domains[0]" "$(jq -c '.domains[0]' <<<"$J")" "domid:number domain:string
	vcpus:number mem_bytes:number? cpu_ns:number cpu_pct:number? cpu_interval:string"
fields "stats --json: vbds[0]" "$(jq -c '.vbds[0]' <<<"$J")" "domid:number domain:string
	vdev:string devid:number rd_req:number wr_req:number rd_sect:number wr_sect:number
	f_req:number ds_req:number oo_req:number interval:string reset:boolean
	read_iops:number? write_iops:number? read_mb_per_s:number? write_mb_per_s:number?
	flush_iops:number? discard_iops:number? oo_req_per_s:number? backing:string?
	read_lat_ms:number? write_lat_ms:number? queue_depth:number?"
x=$(jq '.vbds[] | select(.vdev == "xvda") | .rd_req' <<<"$J")
s=$(rd_req_sysfs $domid 51712)
check "stats --json: xvda rd_req ($x) <= sysfs now ($s), > 0" test "$x" -le "$s" -a "$x" -gt 0
expect_eq "stats --json: vcpus = xl list's" \
	"$(xl list $G | awk 'NR == 2 { print $4 }')" "$(jq '.domains[0].vcpus' <<<"$J")"

phase "pv: a domain, a file, -N off"
json_of "pv DOMAIN --json" --json pv $G
fields "pv DOMAIN --json" "$J" "domid:number domain:string type:string xen_platform_pci:boolean?
	xen_emul_unplug_never:boolean? uptime_s:number? settle_s:number vbds:array"
fields "pv DOMAIN --json: vbds[0]" "$(jq -c '.vbds[0]' <<<"$J")" "vdev:string devid:number
	backend_state:string? frontend_state:string? path:string evidence:string"
expect_eq "pv --json: domid = xl's, xvda's frontend state = xenstore's" \
	"$domid $(state_name "$(xenstore-read /local/domain/$domid/device/vbd/51712/state)")" \
	"$(jq -r '"\(.domid) \(.vbds[] | select(.vdev == "xvda") | .frontend_state)"' <<<"$J")"
cat >$dir/hvm.cfg <<'EOF'
name = "t74hvm"
type = "hvm"
memory = 1024
disk = [ 'format=raw, vdev=hda, access=rw, target=/scratch/t74j/xvda.img' ]
EOF
cp $dir/hvm.cfg $dir/hvm.orig
json_of "pv FILE --json" --json pv $dir/hvm.cfg
fields "pv FILE --json" "$J" "config:string name:string type:string xen_platform_pci:boolean?
	kernel_direct:boolean xen_emul_unplug_never:boolean? disk_path:string disks:array"
expect_eq "pv FILE --json: name, type = xl -N create's" \
	"$(xl -N create $dir/hvm.cfg 2>/dev/null | jq -r '"\(.c_info.name) \(.c_info.type)"')" \
	"$(jq -r '"\(.name) \(.type)"' <<<"$J")"
json_of "-N pv FILE off --json" -N --json pv $dir/hvm.cfg off
fields "-N pv FILE off --json" "$J" "config:string type:string action:string
	xen_platform_pci_before:boolean xen_platform_pci:boolean changed:boolean written:boolean diff:string"
check "-N pv off: the file untouched" cmp -s $dir/hvm.cfg $dir/hvm.orig
expect_eq "-N pv off: nothing written" false "$(jq -r .written <<<"$J")"

phase "detach -N, detach"
json_of "-N detach --json" -N --json detach $G $xv
DETACH="domain:string vdev:string devid:number target:string forced:boolean
	share_unmounted:boolean dry_run:boolean"
fields "-N detach --json" "$J" "$DETACH"
expect_eq "-N detach: the VBD still Connected (xenstore)" "$xd=4/4" "$(vbd_states $domid $xd)"
json_of "detach --json" --json detach $G $xv
fields "detach --json" "$J" "$DETACH"
expect_eq "detach --json: target; no VBD $xd in xenstore, no loop on it" \
	"$dir/x.img  " \
	"$(jq -r .target <<<"$J") $(xs_list $BE/$domid | grep -x "$xd") $(losetup_of $dir/x.img)"

phase "start -N, start"
cfg=$(lab-guest prepare $S --disk "format=raw,vdev=xvda,access=rw,target=$dir/s.img" \
	--extra "xen_blkfront.max_ring_page_order=4")
json_of "-N start --json" -N --json start "$cfg" --vbd xvda:ring-order=1
fields "-N start --json" "$J" "domain:string config:string create:string writes:array"
check "-N start: no guest $S" sh -c "! xl domid $S >/dev/null 2>&1"
json_of "start --json" --json start "$cfg" --vbd xvda:ring-order=1 --timeout 400
fields "start --json" "$J" "domain:string domid:number result:string overrides:array negotiated:array"
fields "start --json: overrides[0]" "$(jq -c '.overrides[0]' <<<"$J")" "vdev:string key:string
	xs_key:string value:number before:number? chosen:number? result:string why:string?"
fields "start --json: negotiated[0]" "$(jq -c '.negotiated[0]' <<<"$J")" \
	"vdev:string key:string offer:number? choice:number? effective:number?"
sd=$(xl domid $S 2>/dev/null)
expect_eq "start --json: domid = xl's, ring-page-order chosen = the frontend's in xenstore" \
	"$sd $(xenstore-read /local/domain/$sd/device/vbd/51712/ring-page-order)" \
	"$(jq -r '"\(.domid) \(.negotiated[] | select(.key == "ring-page-order") | .choice)"' <<<"$J")"
lab-guest stop $S >/dev/null 2>&1

phase "ab record, list, show, compare, export, plot, rm, run -N"
for l in x y x y; do
	s0=$(rd_req_sysfs $domid 51712)
	json_of "ab record $l --json" ab record $l --domain $G --duration 2 --interval 0.5 --dir $store --json
	s1=$(rd_req_sysfs $domid 51712)
done
fields "ab record --json" "$J" "id:string path:string label:string domain:string mode:string
	complete:boolean duration_s:number samples:number guest_cpu_s:number?
	dom0_cpu_s:number? vbds:array notes:array"
fields "ab record --json: vbds[0]" "$(jq -c '.vbds[0]' <<<"$J")" "vdev:string rd_req:number
	wr_req:number read_bytes:number? write_bytes:number? intervals_reset:number"
check "ab record --json: the run file is there" test -f "$(jq -r .path <<<"$J")"
# (the guest reads all the time: the record's count is some of sysfs's)
x=$(jq '.vbds[] | select(.vdev == "xvda") | .rd_req' <<<"$J")
check "ab record --json: xvda's rd_req ($x) in (0, sysfs's count around the record: $((s1 - s0))]" \
	test "$x" -gt 0 -a "$x" -le $((s1 - s0))
nruns=$(ls $store/*.json | grep -c .)
json_of "ab list --json" --json ab list --dir $store
fields "ab list --json: [0]" "$(jq -c '.[0]' <<<"$J")" "id:string label:string started:string
	duration_s:number? domain:string mode:string complete:boolean facts:object"
expect_eq "ab list --json: one per run file" "$nruns" "$(jq length <<<"$J")"
id=$(jq -r '.[0].id' <<<"$J")
json_of "ab show --json" --json ab show $id --dir $store
fields "ab show --json" "$J" "id:string label:string path:string started:string duration_s:number?
	domain:string vdevs:array mode:string workload:string? workload_status:number? interval_s:number?
	warmup_s:number? complete:boolean samples:number intervals:number intervals_reset:number
	intervals_flagged:number used_s:number? summary:object left_out:array fingerprint:object notes:array"
check "ab show --json: path is $id's file" test "$(jq -r .path <<<"$J")" -ef "$store/$id.json"
json_of "ab compare --json" ab compare x y --dir $store --json
fields "ab compare --json" "$J" "$AB_COMPARE_FIELDS"
fields "ab compare --json: metrics[0]" "$(jq -c '.metrics[0]' <<<"$J")" "$AB_METRIC_FIELDS"
expect_eq "ab compare --json: runs = run files of each label" \
	"$(ls $store/x-*.json | grep -c .) $(ls $store/y-*.json | grep -c .)" \
	"$(jq -r '"\(.runs_a) \(.runs_b)"' <<<"$J")"
json_of "ab export --json" --json ab export --dir $store
fields "ab export --json: [0]" "$(jq -c '.[0]' <<<"$J")" "id:string label:string started:string
	duration_s:number? domain:string vdevs:array mode:string workload:string? workload_status:number?
	complete:boolean intervals:number intervals_reset:number intervals_flagged:number used_s:number?
	read_iops:number? write_iops:number? read_mb_per_s:number? write_mb_per_s:number?
	read_lat_ms:number? write_lat_ms:number? guest_cpu_pct:number? dom0_cpu_pct:number? facts:object"
expect_eq "ab export --json: one per run file" "$nruns" "$(jq length <<<"$J")"
json_of "ab plot --json" --json ab plot x y -o $dir/p.svg --dir $store
fields "ab plot --json" "$J" "file:string a:string runs_a:number b:string runs_b:number"
check "ab plot --json: file is an SVG" grep -q '<svg' "$(jq -r .file <<<"$J")"
json_of "ab rm --json" --json ab rm x --dir $store
fields "ab rm --json: [0]" "$(jq -c '.[0]' <<<"$J")" "id:string label:string path:string action:string"
expect_eq "ab rm --json: x's run files gone, as many as it names" "0 2" \
	"$(ls $store/x-*.json 2>/dev/null | grep -c .) $(jq length <<<"$J")"
cfg_b=$(lab-guest prepare t74r --disk "format=raw,vdev=xvda,access=rw,target=$dir/s.img")
json_of "-N ab run --json" -N --json ab run a "$cfg_b" b "$cfg_b" --vbd-b xvda:ring-order=0 \
	--duration 5 --runs 2 --dir $store
fields "-N ab run --json: the plan" "$J" "a:object b:object order:string pairs:number"
fields "-N ab run --json: a" "$(jq -c .a <<<"$J")" "label:string config:string guest:string overrides:number"
expect_eq "-N ab run --json: guest = the config's name, no guest created" \
	"$(sed -n 's/^name *= *"\(.*\)"/\1/p' "$cfg_b") " \
	"$(jq -r .a.guest <<<"$J") $(xl domid t74r 2>/dev/null)"

phase "clean up"
lab-guest stop $G >/dev/null 2>&1
rm -rf $dir
finish
