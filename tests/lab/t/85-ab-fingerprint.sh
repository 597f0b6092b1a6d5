# ab compare names what differs between two records and says why a
# change did not take effect; each fact is checked against its own
# source (blkback's and blkfront's xenstore directories, xl's view of the
# guest, stat and sysfs of the backing device):
#  1. ring order offered 0 against 2 to a guest whose blkfront allows
#     only order 0 (Linux's default): blkback's directory holds each
#     offer, blkfront wrote one ring both times; compare names the offer,
#     says the frontend refused it and names
#     xen_blkfront.max_ring_page_order.  The same on a guest booted with
#     xen_blkfront.max_ring_page_order=2: blkfront wrote ring-page-order
#     2, compare has the one variable (the offer, the ring pages following
#     it) and no warning;
#  2. the two guests' records at the same offer: the guests' blkfront
#     parameter named on its own line, the command line as xl has it;
#  3. an image on the throttled disk (/slow) against one on /scratch: the
#     backing devices named, each the device stat finds under the image,
#     block sizes and scheduler as sysfs has them;
#  4. interference: a run while the other guest spins a vCPU is flagged
#     by ab show with the other domains' CPU that xl's own CPU time for
#     that guest gives (a quiet run is not); a run while dom0 reads the
#     VBD's partition itself is flagged with the sectors the partition's
#     own stat counted; ab compare names both.
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
GA=t85a GB=t85b
top=/tmp/t85
store=$top/store
BE=/local/domain/0/backend/vbd
B=51728		# xvdb
rm -rf $top /scratch/t85*.img
mkdir -p $top $store
truncate -s 16M /scratch/t85.img /scratch/t85a.img /scratch/t85b.img
truncate -s 1M /scratch/t85ta.img /scratch/t85tb.img
check "the slow disk is mounted on /slow" abg_mount_slow
truncate -s 16M /slow/t85.img

for g in $GA $GB; do
	[ -n "$(xl domid $g 2>/dev/null)" ] && lab-guest stop $g >/dev/null 2>&1
done
phase "two guests: blkfront's default, and max_ring_page_order=2"
# Both with a trigger disk (xvdt): the guests differ only in blkfront's
# parameter.  Each spins a vCPU once BURN is on its trigger (phase 4);
# till then a dd a second (a process costs ~0.1 s under TCG: a faster
# poll would itself be interference).
burner='(while [ "$(dd if=/dev/xvdt bs=512 count=1 iflag=direct 2>/dev/null | tr -dc A-Z)" != BURN ]; do sleep 1; done; while :; do :; done) >/dev/null 2>&1 &'
lab-guest start $GA --disk "format=raw,vdev=xvdt,access=rw,target=/scratch/t85ta.img" \
	--run "$burner" >/dev/null
lab-guest start $GB --disk "format=raw,vdev=xvdt,access=rw,target=/scratch/t85tb.img" \
	--extra "xen_blkfront.max_ring_page_order=2" --run "$burner" >/dev/null
check "$GA up" lab-guest wait $GA --timeout 300
check "$GB up" lab-guest wait $GB --timeout 300
da=$(xl domid $GA); db=$(xl domid $GB)

# rec GUEST LABEL IMG ORDER: attach IMG as xvdb with ring order ORDER
# offered, record 1 s, detach; echoes blkback's offer and blkfront's
# choice as xenstore had them ("offer/choice", choice "-" for one page).
rec() {
	local g=$1 label=$2 img=$3 order=$4 d offer choice
	d=$(xl domid $g)
	xvbd attach $g --file $img --vdev xvdb --ring-order $order >/dev/null 2>$top/err ||
		{ fail "attach $label"; sed 's/^/#   /' $top/err; return; }
	wait_for 60 4 fstate $d $B || fail "$label: xvdb Connected"
	offer=$(xenstore-read $BE/$d/$B/max-ring-page-order 2>/dev/null)
	choice=$(xenstore-read /local/domain/$d/device/vbd/$B/ring-page-order 2>/dev/null || echo -)
	xvbd ab record $label --domain $g --vdev xvdb --duration 1 --interval 0.5 \
		--dir $store >/dev/null 2>$top/err ||
		{ fail "ab record $label"; sed 's/^/#   /' $top/err; }
	xvbd detach $g xvdb >/dev/null 2>$top/err ||
		{ fail "detach $label"; sed 's/^/#   /' $top/err; }
	wait_for 60 "" bstate $d $B || fail "$label: xvdb gone"
	echo "$offer/$choice"
}
cmp_json() { xvbd -j ab compare "$1" "$2" --dir $store 2>$top/cmp.err; }
diffs() { jq -c '[.differences[] | {key, a, b, role, not_taken, refused_by, parameter}]' <<<"$1"; }
diff_keys() { jq -r '[.differences[].key] | sort | join(" ")' <<<"$1"; }

phase "1. ring order 0 vs 2, blkfront limited to order 0"
expect_eq "$GA: blkback offered 0, blkfront one page" 0/- "$(rec $GA a-o0 /scratch/t85a.img 0)"
expect_eq "$GA: blkback offered 2, blkfront one page" 2/- "$(rec $GA a-o2 /scratch/t85a.img 2)"
J=$(cmp_json a-o0 a-o2)
echo "# differences: $(diffs "$J")"
sed 's/^/# stderr: /' $top/cmp.err
expect_eq "the offer is the one difference not taken" \
	"vbd.xvdb.offer.ring_order 0 2 true frontend xen_blkfront.max_ring_page_order" \
	"$(jq -r '.differences[] | select(.not_taken) | "\(.key) \(.a) \(.b) \(.not_taken) \(.refused_by) \(.parameter)"' <<<"$J")"
check "the text says the change never took effect, and names the parameter" \
	sh -c "xvbd ab compare a-o0 a-o2 --dir $store 2>&1 | tr -s '\n ' ' ' | grep -q 'xen_blkfront.max_ring_page_order, refused it: the change never took effect'"
check "not \"no variable under test\"" \
	sh -c "! xvbd ab compare a-o0 a-o2 --dir $store 2>&1 | grep -qi 'no variable'"

phase "1. the same, blkfront allowing order 2"
expect_eq "$GB: blkback offered 0, blkfront one page" 0/- "$(rec $GB b-o0 /scratch/t85b.img 0)"
expect_eq "$GB: blkback offered 2, blkfront ring-page-order 2" 2/2 "$(rec $GB b-o2 /scratch/t85b.img 2)"
J=$(cmp_json b-o0 b-o2)
echo "# differences: $(diffs "$J")"
expect_eq "the variable under test is the offer" vbd.xvdb.offer.ring_order "$(jq -r .variable <<<"$J")"
expect_eq "no offer not taken" 0 "$(jq '[.differences[] | select(.not_taken)] | length' <<<"$J")"
expect_eq "no confounder" 0 "$(jq '[.differences[] | select(.role == "confounder")] | length' <<<"$J")"
expect_eq "the ring pages follow it: 1 -> 4" "1 4 vbd.xvdb.offer.ring_order" \
	"$(jq -r '.differences[] | select(.key == "vbd.xvdb.ring_pages") | "\(.a) \(.b) \(.follows)"' <<<"$J")"
echo "# warnings: $(jq -c .warnings <<<"$J")"
expect_eq "no warning about the offer or the fingerprint" "" \
	"$(jq -r '.warnings[]' <<<"$J" | grep -i 'offer\|ring\|took effect\|fingerprint\|variable')"

phase "2. two guests differing in a blkfront parameter"
J=$(cmp_json a-o0 b-o0)
echo "# differences: $(diffs "$J")"
expect_eq "blkfront's parameter named: A none, B 2" "null 2" \
	"$(jq -r '.differences[] | select(.key == "guest.blkfront.max_ring_page_order") | "\(.a) \(.b)"' <<<"$J")"
xl_cmd() { xl list -l "$1" 2>/dev/null | jq -r '.[0].config.b_info.cmdline'; }
expect_eq "A's command line is xl's" "$(xl_cmd $GA)" \
	"$(jq -r '.fingerprint."guest.cmdline"' $store/a-o0-*.json)"
expect_eq "B's command line is xl's" "$(xl_cmd $GB)" \
	"$(jq -r '.fingerprint."guest.cmdline"' $store/b-o0-*.json)"

phase "3. an image on the throttled disk vs one on /scratch"
rec $GA slow /slow/t85.img 0 >/dev/null
rec $GA scratch /scratch/t85.img 0 >/dev/null
J=$(cmp_json slow scratch)
echo "# differences: $(diffs "$J")"
# The device under each image as stat has it, and its queue in sysfs.
devno() { printf '%d:%d' $((16#$(stat -c %t "$(df --output=source "$1" | tail -n1)"))) \
	$((16#$(stat -c %T "$(df --output=source "$1" | tail -n1)"))); }
ds=$(devno /slow/t85.img); dc=$(devno /scratch/t85.img)
echo "# devices: /slow $ds, /scratch $dc"
check "the two images are on different devices" test "$ds" != "$dc"
expect_eq "the device numbers named, as stat finds them" "$ds $dc" \
	"$(jq -r '.differences[] | select(.key == "vbd.xvdb.dev.number") | "\(.a) \(.b)"' <<<"$J")"
q() {	# the whole disk's queue attribute of device M:m
	local p=/sys/dev/block/$1
	[ -e $p/partition ] && p=$p/..
	cat $p/queue/$2
}
sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' <<<"$1"; }
for side in slow scratch; do
	dev=$([ $side = slow ] && echo $ds || echo $dc)
	r=$store/$side-*.json
	expect_eq "$side: logical block size as sysfs" "$(q $dev logical_block_size)" \
		"$(jq -r '.fingerprint."vbd.xvdb.dev.logical_block_size"' $r)"
	expect_eq "$side: rotational as sysfs" "$(q $dev rotational | sed 's/1/yes/; s/0/no/')" \
		"$(jq -r '.fingerprint."vbd.xvdb.dev.rotational"' $r)"
	expect_eq "$side: scheduler as sysfs" "$(sched "$(q $dev scheduler)")" \
		"$(jq -r '.fingerprint."vbd.xvdb.dev.scheduler"' $r)"
done
check "the backing device's difference in compare's text" sh -c "xvbd ab compare slow scratch --dir $store 2>&1 | grep -q 'vbd.xvdb.dev.number'"

phase "4. interference: another guest busy, dom0 reading the partition"
d=$(xl domid $GA)
xvbd attach $GA --phy /dev/vdb1 --vdev xvdb >/dev/null 2>$top/err ||
	{ fail "attach /dev/vdb1"; sed 's/^/#   /' $top/err; }
wait_for 60 4 fstate $d $B || fail "xvdb (/dev/vdb1) Connected"
show_json() { xvbd -j ab show --dir $store $(basename $store/$1-*.json .json); }
xvbd ab record quiet --domain $GA --vdev xvdb --interval 0.5 --dir $store \
	--run "sleep 2" >/dev/null 2>$top/err || { fail "ab record quiet"; sed 's/^/#   /' $top/err; }
S=$(show_json quiet)
echo "# quiet: $(jq -c .interference <<<"$S")"
expect_eq "quiet run: neither flag" "false false" \
	"$(jq -r '"\(.interference.cpu_flagged) \(.interference.device_flagged)"' <<<"$S")"
printf 'BURN%508s' x | dd of=/scratch/t85tb.img bs=512 count=1 conv=notrunc 2>/dev/null
cpu_of() { xl list "$1" | awk 'NR == 2 { print $6 }'; }
sleep 1.5; c0=$(cpu_of $GB); sleep 2; c1=$(cpu_of $GB)
check "$GB spins (xl: its CPU time grew $c0 -> $c1 s in 2 s)" \
	awk -v a=$c0 -v b=$c1 'BEGIN { exit !(b - a > 1.5) }'
t0=$EPOCHREALTIME c0=$(cpu_of $GB)
xvbd ab record busy --domain $GA --vdev xvdb --interval 0.5 --dir $store \
	--run "sleep 4" >/dev/null 2>$top/err || { fail "ab record busy"; sed 's/^/#   /' $top/err; }
t1=$EPOCHREALTIME c1=$(cpu_of $GB)
S=$(show_json busy)
echo "# busy: $(jq -c .interference <<<"$S")"
# xl's CPU time for the guest over a span that holds the record's window
# bounds what the window can hold: no more than all of it (xl counts in
# 0.1 s), no less than all of it but one vCPU's worth outside the window.
span=$(awk -v t0=$t0 -v t1=$t1 'BEGIN { printf "%.3f", t1 - t0 }')
win=$(jq -r .duration_s <<<"$S")
x_pct=$(jq -r .interference.others_window.cpu_pct <<<"$S")
x_s=$(awk -v p="$x_pct" -v w="$win" 'BEGIN { printf "%.2f", p * w / 100 }')
echo "# $GB by xl: $c0 -> $c1 s over ${span} s around the record; xvbd: $x_pct % of one CPU over its ${win} s window = $x_s s"
expect_eq "busy run: the CPU flag" true "$(jq -r .interference.cpu_flagged <<<"$S")"
check "busy run: other domains' CPU within xl's bounds ($x_s s)" \
	awk -v x="$x_s" -v a=$c0 -v b=$c1 -v span=$span -v w="$win" \
	'BEGIN { exit !(x <= b - a + 0.2 && x >= b - a - (span - w) - 0.2) }'
expect_eq "busy run: one other domain" 1 "$(jq -r .interference.other_domains <<<"$S")"
has_line() { jq -r "$1" <<<"$2" | grep -q "$3"; }
check "busy run: its flag line says so" has_line '.interference_flags[]' "$S" 'other domains used' 
printf 'IDLE%508s' x | dd of=/scratch/t85tb.img bs=512 count=1 conv=notrunc 2>/dev/null
xl destroy $GB	# the spinning guest: nothing stops it but this

sect() { awk '{ print $3 + $7 }' /sys/class/block/vdb1/stat; }
s0=$(sect)
xvbd ab record shared --domain $GA --vdev xvdb --interval 0.5 --dir $store \
	--run "dd if=/dev/vdb1 of=/dev/null bs=1M count=16 iflag=direct" >/dev/null 2>$top/err ||
	{ fail "ab record shared"; sed 's/^/#   /' $top/err; }
s1=$(sect)
S=$(show_json shared)
echo "# shared: $(jq -c .interference <<<"$S"); vdb1's stat: $((s1 - s0)) sectors"
expect_eq "dom0's reads: the device flag" true "$(jq -r .interference.device_flagged <<<"$S")"
f=$(jq -r .interference.foreign_sectors <<<"$S")
check "the foreign sectors are dom0's 16 MiB (32768 of vdb1's $((s1 - s0)); xvbd $f)" \
	awk -v f="$f" -v d=$((s1 - s0)) 'BEGIN { exit !(f != "null" && f >= 32768 && f <= d) }'
J=$(xvbd -j ab compare quiet busy --dir $store 2>/dev/null)
expect_eq "compare: the busy run flagged on side B" B \
	"$(jq -r '[.interference[].side] | unique | join(" ")' <<<"$J")"
J=$(xvbd -j ab compare quiet shared --dir $store 2>/dev/null)
check "compare: a warning names the foreign I/O" has_line '.warnings[]' "$J" "not this VBD"
xvbd detach $GA xvdb >/dev/null 2>&1

phase "clean up"
lab-guest stop $GA >/dev/null 2>&1
lab-guest stop $GB >/dev/null 2>&1
rm -f /slow/t85.img /scratch/t85*.img
umount /slow
finish
