# xvbd apply: a plan file makes a guest's disks so, and a second run
# changes nothing.  One guest, reused:
#  1. three disks (a new image with offers, the partition /dev/vdb1, an
#     image on an NFS share): changed, all Connected, the offers read
#     back from blkback's directory; the same plan again: changed false,
#     every action none, and xenstore (every key and value of the guest's
#     VBDs), loop devices, mounts and the images byte-identical;
#  2. the plan edited (discard turned on, the partition left out):
#     --check --diff names exactly those two and writes nothing; applied
#     with --prune exactly those two happen; a changed ring order is
#     needs_reattach with its command, nothing written;
#  3. bad plans: exit 2 or 1, one line naming the place in the plan,
#     dom0 as it was;
#  4. a plan whose second new disk cannot be created: the first attached
#     and reported beside the failure; after the fix, a re-run converges.
# lab-timeout: 1200
. /lab/lib/testlib.sh
G=t84
dir=/scratch/t84
tmp=/tmp/t84
nfs_dir=/srv/nfs/export/t84
BE=/local/domain/0/backend/vbd
B=51728 C=51744 D=51760 E=51776 F=51792	# xvdb .. xvdf

[ -n "$(xl domid $G 2>/dev/null)" ] && lab-guest stop $G >/dev/null 2>&1
rm -rf $dir $tmp
mkdir -p $dir $tmp
truncate -s 16M $dir/xvda.img

# state: everything a no-op apply must leave byte-identical.
state() {
	xs_tree $BE/$domid /local/domain/$domid/device/vbd /libxl/$domid/device/vbd
	loop_devices
	grep -v ' /proc' /proc/mounts
	stat -c '%n %s %Y' $dir/*.img $nfs_dir/*.img 2>&1
}
bekey() { xenstore-read "$BE/$domid/$1/$2" 2>/dev/null; }
# apply_json OUT ARGS...: xvbd --json apply ARGS into OUT; its status
apply_json() {
	local out=$1
	shift
	xvbd --json apply "$@" >"$out" 2>$tmp/err
	local rc=$?
	sed 's/^/#   stderr: /' $tmp/err
	jq -c . "$out" 2>/dev/null | cut -c1-600 | sed 's/^/#   /'
	return $rc
}
actions() { jq -r '[.actions[] | "\(.vdev)=\(.action)/\(.status)"] | join(" ")' "$1"; }

# The NFS server starts once xl create has returned (its block scripts
# done): with the server unpacking and loading its modules beside the
# create, the guest's block script ran past libxl's 40 s (xvbd-block, one
# C process, for xvda: Xen's bash script timed out even alone on a host
# at load 18).  The guest's boot and the server's start overlap.
phase "guest, NFS server"
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,script=xvbd-block,target=$dir/xvda.img" \
	--run 'true' >/dev/null
domid=$(xl domid $G 2>/dev/null)
check "guest running" test -n "$domid"
[ -n "$domid" ] || { finish; exit 1; }
lab-share start nfs >$tmp/nfs.log 2>&1 &
nfs_pid=$!
lab-guest wait $G --timeout 600 >/dev/null
expect_eq "guest commands succeeded" 0 "$?"
wait $nfs_pid && ok "nfs server up" ||
	{ fail "nfs server up"; sed 's/^/# /' $tmp/nfs.log; }
mkdir -p $nfs_dir
rm -f $nfs_dir/*.img

plan1=$tmp/plan1.json
cat >$plan1 <<EOF
{"guest": "$G", "disks": [
 {"vdev": "xvda", "file": "$dir/xvda.img"},
 {"vdev": "xvdb", "file": "$dir/b.img", "size": "32M", "ring_order": 1,
  "queues": 1, "indirect_segments": 64, "discard": false},
 {"vdev": "xvdc", "phy": "/dev/vdb1"},
 {"vdev": "xvdd", "share": "nfs://127.0.0.1$nfs_dir/d.img", "size": "16M"}]}
EOF

phase "1. three disks"
apply_json $tmp/a1.json $plan1
expect_eq "apply: exit 0" 0 $?
expect_eq "apply: changed" true "$(jq .changed $tmp/a1.json)"
expect_eq "apply: xvda none, three attached" \
	"xvda=none/null xvdb=attach/done xvdc=attach/done xvdd=attach/done" \
	"$(actions $tmp/a1.json)"
expect_eq "xenstore: all Connected" "$B=4/4 $C=4/4 $D=4/4" "$(vbd_states $domid $B $C $D)"
expect_eq "xvdb: blkback's max-ring-page-order is the plan's" 1 "$(bekey $B max-ring-page-order)"
expect_eq "xvdb: multi-queue-max-queues" 1 "$(bekey $B multi-queue-max-queues)"
expect_eq "xvdb: feature-max-indirect-segments" 64 "$(bekey $B feature-max-indirect-segments)"
expect_eq "xvdb: discard-enable" 0 "$(bekey $B discard-enable)"
expect_eq "xvdb: the image, 32 MiB" 33554432 "$(stat -c %s $dir/b.img)"
expect_eq "xvdc: params /dev/vdb1" /dev/vdb1 "$(bekey $C params)"
check "xvdd: the share is mounted" test -n "$(share_mount 127.0.0.1:$nfs_dir)"
expect_eq "xvdd: the image on the server, 16 MiB" 16777216 "$(stat -c %s $nfs_dir/d.img)"

phase "1. the same plan again"
before=$(state) || { fail "state read"; before="ERROR before"; }
apply_json $tmp/a2.json $plan1
expect_eq "again: exit 0" 0 $?
expect_eq "again: changed false" false "$(jq .changed $tmp/a2.json)"
expect_eq "again: every action none" \
	"xvda=none/null xvdb=none/null xvdc=none/null xvdd=none/null" \
	"$(actions $tmp/a2.json)"
after=$(state) || fail "state read"
if [ -n "$before" ] && [ "$before" = "$after" ]; then
	ok "again: xenstore, loop devices, mounts, images byte-identical"
else
	fail "again: xenstore, loop devices, mounts, images byte-identical"
	diff <(echo "$before") <(echo "$after") | sed 's/^/#   /'
fi

phase "2. one offer changed, one disk left out"
plan2=$tmp/plan2.json
jq '.disks[1].discard = true | del(.disks[2])' $plan1 >$plan2
before=$(state) || { fail "state read"; before="ERROR before"; }
xvbd apply --check --diff $plan2 >$tmp/c2.txt 2>$tmp/err
expect_eq "--check --diff: exit 0" 0 $?
sed 's/^/#   /' $tmp/c2.txt
expect_eq "--check --diff: one diff line, discard" "xvdb discard: 0 -> 1" \
	"$(sed -n '/^diff:/,/^[a-z]*:/p' $tmp/c2.txt | sed -n 's/^ *- //p')"
apply_json $tmp/c2.json --check $plan2
expect_eq "--check --json: xvdb tune planned, xvdc not in plan" \
	"xvda=none/null xvdb=tune/planned xvdd=none/null xvdc=none/null" \
	"$(actions $tmp/c2.json)"
expect_eq "--check: xvdc in_plan false" false "$(jq '.actions[] | select(.vdev == "xvdc") | .in_plan' $tmp/c2.json)"
after=$(state) || fail "state read"
expect_eq "--check: nothing written" "$before" "$after"

apply_json $tmp/p2.json --prune $plan2
expect_eq "--prune: exit 0" 0 $?
expect_eq "--prune: xvdb tuned, xvdc detached, the rest none" \
	"xvda=none/null xvdb=tune/done xvdd=none/null xvdc=detach/done" \
	"$(actions $tmp/p2.json)"
expect_eq "--prune: discard-enable now 1" 1 "$(bekey $B discard-enable)"
check "--prune: xvdc gone from blkback's directory" test -z "$(xs_list $BE/$domid | grep -x $C)"
after2=$(state) || fail "state read"
# exactly those two: xvdb's discard-enable and xvdc's directories
strip() { grep -v -e "/$C" -e "$B/discard-enable"; }
expect_eq "--prune: nothing else changed" "$(strip <<<"$before")" "$(strip <<<"$after2")"
apply_json $tmp/p3.json --prune $plan2
expect_eq "--prune again: changed false" false "$(jq .changed $tmp/p3.json)"

plan3=$tmp/plan3.json
jq '.disks[1].ring_order = 0' $plan2 >$plan3
before=$(state) || { fail "state read"; before="ERROR before"; }
apply_json $tmp/r3.json $plan3
expect_eq "ring order changed: exit 0" 0 $?
expect_eq "ring order changed: needs_reattach, not a change" \
	"false xvdb=needs_reattach/null" \
	"$(jq -r '.changed' $tmp/r3.json) $(jq -r '[.actions[] | select(.vdev == "xvdb") | "\(.vdev)=\(.action)/\(.status)"] | join(" ")' $tmp/r3.json)"
expect_eq "needs_reattach: the command" "xvbd detach $domid xvdb && xvbd apply $plan3" \
	"$(jq -r '.actions[] | select(.vdev == "xvdb") | .command' $tmp/r3.json)"
after=$(state) || fail "state read"
expect_eq "needs_reattach: nothing written" "$before" "$after"

phase "3. bad plans"
bad=$tmp/bad
mkdir -p $bad
w() { printf '%s\n' "$2" >$bad/$1.json; }
ok_disk="{\"vdev\": \"xvde\", \"file\": \"$dir/e.img\", \"size\": \"8M\"}"
w unknown "{\"guest\": \"$G\", \"disks\": [$ok_disk, {\"vdev\": \"xvdf\", \"file\": \"$dir/f.img\", \"ring_ordr\": 2}]}"
w value "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"file\": \"$dir/e.img\", \"ring_order\": 9}]}"
w nosource "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"size\": \"8M\"}]}"
w twice "{\"guest\": \"$G\", \"disks\": [$ok_disk, {\"vdev\": \"xvde\", \"file\": \"$dir/f.img\"}]}"
w password "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"share\": \"smb://labsmb:pw@127.0.0.1/share/e.img\", \"credentials\": \"/run/lab-share/smb.cred\"}]}"
w noguest "{\"guest\": \"t84-nosuch\", \"disks\": [$ok_disk]}"
w notjson "{\"guest\": \"$G\", \"disks\": [$ok_disk"
w phycache "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"phy\": \"/dev/vdb2\", \"cache\": \"none\"}]}"
w target2 "{\"guest\": \"$G\", \"disks\": [$ok_disk, {\"vdev\": \"xvdf\", \"file\": \"$dir/e.img\"}]}"
w smbcred "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"share\": \"smb://127.0.0.1/share/e.img\"}]}"
w auto "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"auto\", \"file\": \"$dir/e.img\"}]}"
w toplevel "{\"guest\": \"$G\", \"disk\": [$ok_disk]}"
w size "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"file\": \"$dir/e.img\", \"size\": \"8Q\"}]}"
w discard "{\"guest\": \"$G\", \"disks\": [{\"vdev\": \"xvde\", \"file\": \"$dir/e.img\", \"discard\": \"sometimes\"}]}"
bad_input_setup $domid $dir /run/xvbd/shares
bad_input "unknown key" 2 "disks[1].ring_ordr: unknown key" apply $bad/unknown.json
bad_input "value out of range" 2 "disks[0].ring_order: ring-order=9" apply $bad/value.json
bad_input "no source" 2 "disks[0]: no source" apply $bad/nosource.json
bad_input "vdev twice" 2 "disks[1].vdev: xvde given twice" apply $bad/twice.json
bad_input "password in the URL" 2 "disks[0].share: user or password in the URL" apply $bad/password.json
bad_input "no such guest" 1 "guest: \"t84-nosuch\"" apply $bad/noguest.json
bad_input "not JSON" 2 "plan: not valid JSON" apply $bad/notjson.json
bad_input "cache with phy" 2 "disks[0]: size, prealloc and cache are for image files" apply $bad/phycache.json
bad_input "target twice" 2 "disks[1]: target $dir/e.img given twice" apply $bad/target2.json
bad_input "smb without credentials" 2 "disks[0].share: an smb:// share needs" apply $bad/smbcred.json
bad_input "vdev auto" 2 "disks[0].vdev: \"auto\"" apply $bad/auto.json
bad_input "unknown top-level key" 2 "plan.disk: unknown key" apply $bad/toplevel.json
bad_input "bad size" 2 "disks[0].size: \"8Q\": expected a size" apply $bad/size.json
bad_input "discard not a boolean" 2 "disks[0].discard: \"sometimes\": expected on or off" apply $bad/discard.json
bad_input "no plan file" 2 "$bad/none.json: No such file" apply $bad/none.json

phase "4. the second new disk fails"
plan4=$tmp/plan4.json
jq --arg e "$dir/e.img" --arg f "$dir/missing/f.img" \
	'.disks += [{"vdev": "xvde", "file": $e, "size": "8M"}, {"vdev": "xvdf", "file": $f, "size": "8M"}]' \
	$plan2 >$plan4
apply_json $tmp/f4.json $plan4
expect_eq "failure: exit 1" 1 $?
expect_eq "failure: xvde attached, xvdf failed" \
	"xvda=none/null xvdb=none/null xvdd=none/null xvde=attach/done xvdf=attach/failed" \
	"$(actions $tmp/f4.json)"
check "failure: stderr names what was done before it" \
	grep -q "done before it: xvde attach" $tmp/err
expect_eq "failure: xvde Connected, xvdf absent" "$E=4/4 $F=-/-" "$(vbd_states $domid $E $F)"
check "failure: no f.img anywhere" test ! -e $dir/missing/f.img
mkdir -p $dir/missing
apply_json $tmp/f5.json $plan4
expect_eq "after the fix: exit 0" 0 $?
expect_eq "after the fix: only xvdf attached" \
	"xvda=none/null xvdb=none/null xvdd=none/null xvde=none/null xvdf=attach/done" \
	"$(actions $tmp/f5.json)"
apply_json $tmp/f6.json $plan4
expect_eq "converged: changed false" false "$(jq .changed $tmp/f6.json)"

phase "clean up"
lab-guest stop $G >/dev/null 2>&1
for i in 1 2 3; do umount /run/xvbd/shares/* 2>/dev/null; done
finish
