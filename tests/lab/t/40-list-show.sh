# xvbd list / show against a PV guest with two disks, checked key by key
# against xenstore-ls -f in the same run; --json parsed by jq and compared
# with the text; bad input gives one-line errors, exit 1/2, no writes.
. /lab/lib/testlib.sh
dd if=/dev/zero of=/scratch/t40a.img bs=1M count=0 seek=64 status=none
dd if=/dev/zero of=/scratch/t40b.img bs=1M count=0 seek=32 status=none
# Guest blkfront allows order 2: ring pages 4 instead of the default 1.
lab-guest start t40 --vcpus 2 --extra xen_blkfront.max_ring_page_order=2 \
	--disk "format=raw,vdev=xvda,access=rw,target=/scratch/t40a.img" \
	--disk "format=raw,vdev=xvdb,access=ro,target=/scratch/t40b.img" \
	--run 'cat /sys/block/xvda/size /sys/block/xvdb/size' >/dev/null
lab-guest wait t40 --timeout 180 >/dev/null
expect_eq "guest t40 booted and read its disks" 0 "$?"
domid=$(xl domid t40)
check "guest t40 exists" test -n "$domid"
be=/local/domain/0/backend/vbd/$domid
fe=/local/domain/$domid/device/vbd

xs() { xenstore-read "$1" 2>/dev/null; }
state_name() {
	case $1 in 1) echo Initialising ;; 2) echo InitWait ;; 3) echo Initialised ;;
	4) echo Connected ;; 5) echo Closing ;; 6) echo Closed ;; *) echo "?$1" ;; esac
}

# ---- list: JSON vs xenstore ----
json=$(xvbd --json list)
check "list --json parses" sh -c 'jq -e . >/dev/null' <<<"$json"
expect_eq "list: two VBDs of t40" 2 "$(jq "[.[] | select(.domain == \"t40\")] | length" <<<"$json")"
for devid in 51712 51728; do
	row=$(jq -c ".[] | select(.domain == \"t40\" and .devid == $devid)" <<<"$json")
	b=$be/$devid f=$fe/$devid
	expect_eq "list $devid: domid" "$domid" "$(jq -r .domid <<<"$row")"
	expect_eq "list $devid: target = params" "$(xs $b/params)" "$(jq -r .target <<<"$row")"
	expect_eq "list $devid: size = sectors x 512" "$(( $(xs $b/sectors) * 512 ))" "$(jq -r .size_bytes <<<"$row")"
	expect_eq "list $devid: mode" "$(xs $b/mode)" "$(jq -r .mode <<<"$row")"
	# physical-device is hex major:minor; Xen's block script's loop is buffered
	pd=$(xs $b/physical-device)
	dio=$(cat /sys/dev/block/$((16#${pd%%:*})):$((16#${pd#*:}))/loop/dio)
	expect_eq "list $devid: dom0_cache = the loop's dio ($dio)" \
		"$([ "$dio" = 1 ] && echo none || echo host)" "$(jq -r .dom0_cache <<<"$row")"
	expect_eq "list $devid: backend state" "$(state_name "$(xs $b/state)")" "$(jq -r .backend_state <<<"$row")"
	expect_eq "list $devid: frontend state" "$(state_name "$(xs $f/state)")" "$(jq -r .frontend_state <<<"$row")"
	expect_eq "list $devid: ring pages = 2^ring-page-order" "$(( 1 << $(xs $f/ring-page-order) ))" "$(jq -r .ring_pages <<<"$row")"
	expect_eq "list $devid: queues = multi-queue-num-queues" "$(xs $f/multi-queue-num-queues)" "$(jq -r .queues <<<"$row")"
	expect_eq "list $devid: indirect segments offered" "$(xs $b/feature-max-indirect-segments)" "$(jq -r .indirect_segments_offered <<<"$row")"
	p=false; [ "$(xs $b/feature-persistent)$(xs $f/feature-persistent)" = 11 ] && p=true
	expect_eq "list $devid: persistent" "$p" "$(jq -r .persistent <<<"$row")"
	expect_eq "list $devid: loop-backed file" file-via-loop "$(jq -r .backend_type <<<"$row")"
done
expect_eq "ring order really 2 (guest limit)" 2 "$(xs $fe/51712/ring-page-order)"
expect_eq "xvdb read-only" r "$(xs $be/51728/mode)"

# ---- list: text vs JSON, row by row ----
text=$(xvbd list t40)
echo "$text" | sed 's/^/# /'
expect_eq "list text: header + 2 rows" 3 "$(echo "$text" | wc -l)"
# (not a pipe into the loop: its checks must count in this shell)
while read -r dom id vdev devid type target size mode cache bst fst ring q ind pers; do
	row=$(jq -c ".[] | select(.devid == $devid)" <<<"$json")
	[ "$pers" = yes ] && pers=true || pers=false
	expect_eq "list text = json ($vdev)" \
		"$(jq -r '[.domain,.domid,.vdev,.backend_type,.target,.mode,.dom0_cache,.backend_state,.frontend_state,.ring_pages,.queues,.indirect_segments_offered,.persistent] | map(tostring) | join(" ")' <<<"$row")" \
		"$dom $id $vdev $type $target $mode $cache $bst $fst $ring $q $ind $pers"
done < <(echo "$text" | tail -n +2)
check "list text size column: 64M and 32M" sh -c "echo '$text' | grep -q ' 64M ' && echo '$text' | grep -q ' 32M '"

# ---- show: every key of both sides, as xenstore-ls -f has them ----
# xenstore-ls -f prints '/path/key = "value"'; directories (queue-N) have
# children and are not keys.
xs_keys() {
	xenstore-ls -f "$1" | sed -e "s|^$1/||" -e 's/ = "\(.*\)"$/=\1/' |
		awk -F= '{k[NR]=$1; line[NR]=$0} END {for (i = 1; i <= NR; i++) {
			dir = 0; for (j = 1; j <= NR; j++) if (index(k[j], k[i] "/") == 1) dir = 1;
			if (!dir) print line[i] }}' | sort
}
for vdev in xvda xvdb; do
	devid=$([ $vdev = xvda ] && echo 51712 || echo 51728)
	sj=$(xvbd --json show t40 $vdev)
	check "show $vdev --json parses" sh -c 'jq -e . >/dev/null' <<<"$sj"
	expect_eq "show $vdev: backend keys = xenstore-ls" "$(xs_keys $be/$devid)" \
		"$(jq -r '.backend | to_entries[] | "\(.key)=\(.value)"' <<<"$sj" | sort)"
	expect_eq "show $vdev: frontend keys = xenstore-ls" "$(xs_keys $fe/$devid)" \
		"$(jq -r '.frontend | to_entries[] | "\(.key)=\(.value)"' <<<"$sj" | sort)"
	expect_eq "show $vdev: ring order offer/choice/effective" "4 2 2" \
		"$(jq -r '.negotiated[] | select(.key == "ring-page-order") | "\(.offer) \(.choice) \(.effective)"' <<<"$sj")"
	expect_eq "show $vdev: no warnings on a healthy device" 0 "$(jq '.warnings | length' <<<"$sj")"
	st=$(xvbd show t40 $vdev)
	# Text shows the same values: every backend key's value appears on its line.
	bad=$(jq -r '.backend | to_entries[] | "\(.key) \(.value)"' <<<"$sj" | while read -r k v; do
		echo "$st" | grep -qE "^  $k: +$v( |$)" || echo "$k"; done)
	expect_eq "show $vdev: text has every backend key with its value" "" "$bad"
done

# ---- show warns about a device stuck before Connected ----
dd if=/dev/zero of=/scratch/t40c.img bs=1M count=0 seek=16 status=none
lab-guest start t40p --paused --disk "format=raw,vdev=xvda,access=rw,target=/scratch/t40c.img" >/tmp/t40p.log 2>&1
expect_eq "paused guest t40p created" 0 "$?"
sed 's/^/# t40p: /' /tmp/t40p.log | tail -n 5
wp=$(xvbd --json show t40p xvda | jq -r '.warnings[]')
echo "$wp" | sed 's/^/# warning: /'
check "show: paused guest's device is flagged as waiting for the frontend" \
	grep -qi 'InitWait' <<<"$wp"
xl destroy t40p

# ---- bad input ----
before=$(xs_tree /) || fail "xenstore read before the bad input"
bad_input() {	# WHAT EXPECTED_RC ARGS...
	local what=$1 want=$2 out err rc; shift 2
	out=$("$@" 2>/tmp/t40.err); rc=$?
	err=$(cat /tmp/t40.err)
	echo "# $what: $(head -n1 /tmp/t40.err)"
	expect_eq "$what: exit code" "$want" "$rc"
	check "$what: first stderr line is 'xvbd: CMD: ...'" grep -qE '^xvbd: (show|list): ' <<<"$(head -n1 /tmp/t40.err)"
	expect_eq "$what: nothing on stdout" "" "$out"
}
bad_input "unknown domain" 1 xvbd show nosuchdom xvda
bad_input "unknown vdev" 1 xvbd show t40 xvdz
bad_input "malformed vdev" 2 xvbd show t40 xvd-1
bad_input "domain given as a path" 2 xvbd show /local/domain/$domid xvda
bad_input "too many arguments" 2 xvbd show t40 xvda xvdb
bad_input "unknown domain in list" 1 xvbd list nosuchdom
bad_input "not root" 1 setpriv --reuid=65534 --regid=65534 --clear-groups xvbd list
after=$(xs_tree /) || fail "xenstore read after the bad input"
expect_eq "bad input wrote nothing to xenstore" "$before" "$after"

lab-guest stop t40
rm -f /scratch/t40[abc].img
finish
