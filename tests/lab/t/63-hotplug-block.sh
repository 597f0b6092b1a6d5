# xvbd-block, xvbd's hotplug script for raw image files.  xvbd attach --file names it in the backend's "script";
# the loop device it binds is the VBD's physical-device and is backed by
# the image; the guest reads and writes through it.  The same image
# attached again (rw, or ro while a rw use exists) is refused with nothing
# left behind, by xvbd and by xvbd-block itself; --access ro gives a read-only loop, and two read-only uses
# may share a file while a rw one may not join them.  xvbd detach and
# xl block-detach each free exactly their own loop device.  A spec naming
# script=block still gets Xen's script.
. /lab/lib/testlib.sh
G=t63hp
B=51728	# xvdb
C=51744	# xvdc
D=51760	# xvdd
E=51776	# xvde
img=/scratch/t63hp-a.img
ro_img=/scratch/t63hp-ro.img
xen_img=/scratch/t63hp-x.img
ours=/etc/xen/scripts/xvbd-block
not() { ! "$@"; }
be() { xenstore-read "/local/domain/0/backend/vbd/$d/$1/$2" 2>/dev/null; }
has_be() { xenstore-exists "/local/domain/0/backend/vbd/$d/$1" 2>/dev/null; }
has_fe() { xenstore-exists "/local/domain/$d/device/vbd/$1" 2>/dev/null; }
# (a failing losetup prints a line that matches no expectation: an empty
# answer is not "no loop device")
loops_of() {
	local l
	l=$(losetup_of "$1" 2>&1) || { echo "losetup failed: $l"; return 1; }
	[ -z "$l" ] || sort <<<"$l" | tr '\n' ' '
}
nloops_of() {
	local l
	l=$(losetup_of "$1" 2>&1) || { echo "losetup failed: $l"; return 1; }
	grep -c . <<<"$l"
}
md5_at() { dd if="$1" bs=1M skip="$2" count=4 2>/dev/null | md5sum | cut -d' ' -f1; }
# refused WHAT DEV SPEC: xvbd refuses the attach before libxl (the image
# is another disk's) and testlib's dom0_state (VBDs in xenstore, mounts,
# loop devices) is unchanged; xvbd-block's own check refuses it too when
# xl hands it the same disk: libxl says why and no loop device is bound.
refused() {
	local what=$1 dev=$2 spec=$3 before after rc loops i
	dom0_state $d
	before=$T_STATE
	xvbd attach $G --spec "$spec" --timeout 60 >/tmp/t63hp.out 2>/tmp/t63hp.err
	rc=$?
	dom0_state $d
	after=$T_STATE
	sed 's/^/# stderr: /' /tmp/t63hp.err
	expect_eq "$what: xvbd refuses it" 1 $rc
	check "$what: xvbd names the other use" \
		grep -q 'in use: already attached to domain' /tmp/t63hp.err
	check "$what: no backend left" not has_be $dev
	check "$what: no frontend left" not has_fe $dev
	check "$what: loop devices, mounts and VBDs unchanged" \
		test "$before" = "$after"
	# (target= ends an xl disk spec: the script goes before it)
	loops=$(loops_of "${spec##*target=}")
	xl block-attach $G "${spec/target=/script=$ours,target=}" \
		>/tmp/t63hp.out 2>/tmp/t63hp.err
	rc=$?
	sed 's/^/# xl: /' /tmp/t63hp.err
	check "$what: xl with xvbd-block: refused (exit non-zero)" test $rc != 0
	check "$what: libxl reports the sharing conflict" \
		grep -q 'loopback-mounted' /tmp/t63hp.err
	expect_eq "$what: xvbd-block bound no loop device" "$loops" \
		"$(loops_of "${spec##*target=}")"
	# xl leaves a refused disk's directories behind (xvbd attach
	# removes them): gone before the next step.
	timeout 60 xl block-detach $G $dev >/dev/null 2>&1
	for ((i = 0; i < 50; i++)); do
		has_be $dev || has_fe $dev || break
		sleep 0.2
	done
	if has_be $dev || has_fe $dev; then
		echo "# xl block-detach left $dev: removing it from xenstore"
		xenstore-rm /local/domain/0/backend/vbd/$d/$dev \
			/local/domain/$d/device/vbd/$dev /libxl/$d/device/vbd/$dev
	fi
}
# The loop device of a VBD must go away (a device still open is freed on
# its last close: allow a moment).
loop_gone() {	# NODE FILE
	local i l
	for ((i = 0; i < 150; i++)); do
		l=$(losetup_of "$2") || return 1
		grep -qx "$1" <<<"$l" || return 0
		sleep 0.2
	done
	return 1
}

check "xvbd-block installed in dom0" test -x $ours
rm -f $img $ro_img $xen_img
dd if=/dev/urandom of=$img bs=1M count=16 status=none
truncate -s 16M $ro_img
truncate -s 16M $xen_img

# The guest waits for xvdb, reads 4 MiB at 0 and writes 4 random MiB at 8.
lab-guest start $G --run '
i=0
while [ ! -b /dev/xvdb ] && [ $i -lt 1800 ]; do sleep 0.1; i=$((i + 1)); done
dd if=/dev/xvdb of=/tmp/r bs=1M count=4 iflag=direct 2>/dev/null
set -- $(md5sum /tmp/r)
echo "read $1"
dd if=/dev/urandom of=/tmp/w bs=1M count=4 2>/dev/null
set -- $(md5sum /tmp/w)
echo "wrote $1"
dd if=/tmp/w of=/dev/xvdb bs=1M seek=8 oflag=direct 2>/dev/null
echo "write rc $?"' >/dev/null
check "guest created" test $? = 0
d=$(xl domid $G)
for ((i = 0; i < 1500; i++)); do
	lab-guest console $G | grep -q '^LAB-GUEST-BEGIN' && break
	sleep 0.2
done
check "guest booted (blkfront loaded)" \
	sh -c "lab-guest console $G | grep -q '^LAB-GUEST-BEGIN'"

# 1. --file: xvbd-block's loop device.
out=$(xvbd -v attach $G --file $img --vdev xvdb 2>/tmp/t63hp.err)
expect_eq "attach --file exits 0" 0 $?
echo "$out" | sed 's/^/# /'
check "-v names xvbd-block" grep -q "xvdb: hotplug script $ours" /tmp/t63hp.err
expect_eq "backend script is xvbd-block" $ours "$(be $B script)"
node=$(be $B node)
echo "# node $node"
check "node is a loop device" sh -c "echo '$node' | grep -Eq '^/dev/loop[0-9]+$'"
loop=${node#/dev/}
expect_eq "physical-device is the loop's major:minor (hex)" \
	"$(stat -L -c %t:%T "$node")" "$(be $B physical-device)"
expect_eq "physical-device-path" "$node" "$(be $B physical-device-path)"
expect_eq "hotplug-status" connected "$(be $B hotplug-status)"
expect_eq "the loop's backing file is the image" $img \
	"$(cat /sys/block/$loop/loop/backing_file)"
expect_eq "the loop is writable" 0 "$(cat /sys/block/$loop/ro)"
expect_eq "one loop device for the image" "$node " "$(loops_of $img)"
expect_eq "backend Connected" 4 "$(bstate $d $B)"
expect_eq "frontend Connected" 4 "$(fstate $d $B)"

# 2. The guest reads and writes through it.
md5_read=$(md5_at $img 0)
gout=$(lab-guest wait $G --timeout 300)
expect_eq "guest commands succeeded" 0 $?
echo "$gout" | sed 's/^/# guest: /'
expect_eq "guest read the image's first 4 MiB" "read $md5_read" \
	"$(echo "$gout" | grep '^read ')"
expect_eq "guest write succeeded" "write rc 0" "$(echo "$gout" | grep '^write rc')"
expect_eq "dom0 sees the guest's 4 MiB at 8 MiB" \
	"$(echo "$gout" | sed -n 's/^wrote //p')" "$(md5_at $img 8)"

# 3. The same image again, same guest, other vdevs: refused.
refused "same image rw as xvdc" $C "format=raw,vdev=xvdc,access=rw,target=$img"
refused "same image ro as xvdc (a rw use exists)" $C \
	"format=raw,vdev=xvdc,access=ro,target=$img"
expect_eq "xvdb still Connected" 4 "$(bstate $d $B)"

# 4. Read-only: a read-only loop; two ro uses share the file; rw may not join.
xvbd attach $G --file $ro_img --vdev xvdc --access ro >/dev/null
expect_eq "attach --access ro exits 0" 0 $?
ro_node=$(be $C node)
expect_eq "ro: backend script is xvbd-block" $ours "$(be $C script)"
expect_eq "ro: backend mode r" r "$(be $C mode)"
check "ro: node is a loop device" test -b "$ro_node"
expect_eq "ro: the loop is read-only" 1 "$(cat /sys/block/${ro_node#/dev/}/ro)"
xvbd attach $G --spec "format=raw,vdev=xvdd,access=ro,target=$ro_img" >/dev/null
expect_eq "second ro use of the same file exits 0" 0 $?
ro_node2=$(be $D node)
expect_eq "two loop devices for the ro image" 2 "$(nloops_of $ro_img)"
expect_eq "the second is read-only too" 1 "$(cat /sys/block/${ro_node2#/dev/}/ro 2>/dev/null)"
refused "rw use of a file with ro uses" $E "format=raw,vdev=xvde,access=rw,target=$ro_img"

# 5. Detach frees exactly the detached disk's loop device.
xvbd detach $G xvdc >/dev/null
expect_eq "xvbd detach xvdc exits 0" 0 $?
check "xvdc's loop device freed" loop_gone "$ro_node" $ro_img
expect_eq "xvdd's loop device kept" "$ro_node2 " "$(loops_of $ro_img)"
xl block-detach $G xvdd
expect_eq "xl block-detach xvdd exits 0" 0 $?
check "xvdd's loop device freed (xl block-detach)" loop_gone "$ro_node2" $ro_img
check "no backend left for xvdd" not has_be $D
xvbd detach $G xvdb >/dev/null
expect_eq "xvbd detach xvdb exits 0" 0 $?
check "xvdb's loop device freed" loop_gone "$node" $img

# 6. A spec naming script=block: Xen's script, as asked.
xvbd -v attach $G --spec "format=raw,vdev=xvde,access=rw,script=block,target=$xen_img" \
	>/dev/null 2>/tmp/t63hp.err
expect_eq "attach with script=block exits 0" 0 $?
check "-v names the user's script" grep -q "xvde: hotplug script block" /tmp/t63hp.err
expect_eq "backend script is Xen's block" /etc/xen/scripts/block "$(be $E script)"
xen_node=$(be $E node)
expect_eq "block's loop is backed by the image" "$xen_node " "$(loops_of $xen_img)"
expect_eq "script=block: frontend Connected" 4 "$(fstate $d $E)"
xvbd detach $G xvde >/dev/null
expect_eq "detach xvde exits 0" 0 $?
check "block's loop device freed" loop_gone "$xen_node" $xen_img

check "no loop device left for the test's images" \
	test -z "$(loops_of $img)$(loops_of $ro_img)$(loops_of $xen_img)"
lab-guest stop $G
rm -f $img $ro_img $xen_img /tmp/t63hp.*
finish
