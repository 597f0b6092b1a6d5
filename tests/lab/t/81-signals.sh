# lab-timeout: 900
# lab-leaks: check
# Signals outside the paused window: SIGINT, SIGTERM
# and a terminal's Ctrl-C (SIGINT to the whole process group) at the steps
# of attach, the hotplug script, start, tune, detach and defaults --reload
# leave a clean host, checked against what xvbd does not control: the
# xenstore directories, dom0's mounts and loop devices (sysfs), the files
# in /scratch, xl list, /sys/module.  The stop points are XVBD_TEST_STOP_AT
# (tests/lab/README.md): the process stops itself there (SIGSTOP), the test
# sends the signal, then SIGCONT.  Before the fix every case left debris:
# the created image, a share mounted for no disk, a loop device bound with
# no disk, a paused half-built domain, dom0 without xen_blkback, xvbd
# killed by SIGPIPE (8 passed, 22 failed with the fix's mechanisms taken
# out and its stop points kept).
. /lab/lib/testlib.sh
# Job control: every background job is its own process group (pgid = its
# pid), as a terminal's foreground job is, and keeps SIGINT (a script's
# background jobs otherwise start with it ignored).
set -m
G=t81
S=t81s
new=/scratch/t81-new.img
img=/scratch/t81-b.img
xl destroy $G 2>/dev/null
xl destroy $S 2>/dev/null
rm -f /scratch/t81-*.img /tmp/t81.*
STOP_ERR=/tmp/t81.err
truncate -s 64M $img

# finished WHAT PID ERRFILE: exits 1 and says it was interrupted.
finished() {
	local rc
	reap $2
	rc=$?
	sed 's/^/# stderr: /' $3
	expect_eq "$1: exits 1" 1 "$rc"
	check "$1: says it was interrupted" grep -q 'interrupted' $3
}
# go_on SIGNAL WHAT [group]: SIGNAL to $pid (to its process group, as a
# terminal's Ctrl-C, with "group"), on it goes, and how it finished.
go_on() {
	local to=$pid
	[ "${3:-}" = group ] && to=-$pid
	kill -$1 $to
	kill -CONT $to
	finished "$2" $pid $STOP_ERR
}

phase "defaults --reload: SIGTERM between modprobe -r and the reload"
# (before any guest: --reload wants no VBD attached)
order=$(cat /sys/module/xen_blkback/parameters/max_ring_page_order)
if stop_at defaults-unloaded defaults --reload max_ring_page_order=$order; then
	check "stopped with xen_blkback unloaded" test ! -d /sys/module/xen_blkback/parameters
	go_on TERM "defaults --reload, SIGTERM"
fi
check "xen_blkback is loaded afterwards" blkback_loaded
blkback_loaded || modprobe xen-blkback

guest_with_share $G nfs 'while :; do sleep 5; done'
share_dir=/srv/nfs/export/t81
mkdir -p $share_dir
rm -f $share_dir/disk.img
dom0_state $domid /scratch /run/xvbd/shares
BASE=$T_STATE

phase "attach --file NEW --prealloc: Ctrl-C once the image is made"
if stop_at attach-prepared attach $G --file $new --size 64M --prealloc; then
	check "the image exists at the stop" test -f $new
	go_on INT "attach --prealloc, Ctrl-C" group
fi
check "no image left" test ! -e $new
same_state "attach --prealloc, Ctrl-C"

phase "attach: Ctrl-C to the group while xvbd-block has bound the loop"
if block_stopped attach $G --file $img; then
	echo "# xvbd-block $blk stopped ($(member_of $pid xvbd-block >/dev/null && echo "in xvbd's group" || echo "in another group")): $(loop_devices | tr '\n' ' ')"
	check "a loop device is bound to the image at the stop" \
		grep -q " $img\$" <(loop_devices)
	kill -INT -$pid		# the terminal's Ctrl-C: xvbd and the script
	kill -CONT $blk
	finished "attach, Ctrl-C during the hotplug script" $pid $STOP_ERR
else
	fail "xvbd-block did not stop at block-bound (is it installed?)"
	reap $pid
fi
check "the image stays (not this call's)" test -f $img
same_state "attach, Ctrl-C during the hotplug script"

phase "attach --phy: Ctrl-C once libxl's add is done"
if stop_at attach-added attach $G --phy /dev/vdb1 --vdev xvdb; then
	check "the disk is there at the stop" test -n "$(bstate $domid 51728)"
	go_on INT "attach --phy, Ctrl-C after the add" group
fi
same_state "attach --phy, Ctrl-C after the add (removed again)"

phase "attach --share: Ctrl-C once the share is mounted and the image made"
if stop_at attach-prepared attach $G \
	--share nfs://127.0.0.1$share_dir/disk.img --size 8M; then
	check "the share is mounted at the stop" grep -q " /run/xvbd/shares/" /proc/mounts
	check "its image exists at the stop" test -f $share_dir/disk.img
	go_on INT "attach --share, Ctrl-C" group
fi
check "no image left on the share" test ! -e $share_dir/disk.img
same_state "attach --share, Ctrl-C (no mount, no record)"

phase "attach with overrides, stderr into a pipe closed after one line"
xvbd -vv attach $G --file $img --vdev xvdb --ring-order 1 2>&1 >/dev/null | head -1 >/dev/null
rc=${PIPESTATUS[0]}
echo "# xvbd -vv attach ... 2>&1 | head -1: exit $rc"
check "not killed by SIGPIPE" test "$rc" -lt 128
st=$(xl list $G | awk 'NR == 2 { print $5 }')
check "guest not left paused (state $st)" test -n "$st" -a "${st/p/}" = "$st"
check "the disk is Connected" wait_for 120 4 bstate $domid 51728

phase "tune: SIGTERM before the write"
# (discard: a toolstack key, tunable on a connected device)
before=$(xenstore-read /local/domain/0/backend/vbd/$domid/51728/discard-enable 2>&1)
stop_at tune-planned tune $G xvdb discard=0 && go_on TERM "tune, SIGTERM"
expect_eq "tune wrote nothing" "$before" \
	"$(xenstore-read /local/domain/0/backend/vbd/$domid/51728/discard-enable 2>&1)"

phase "detach: SIGTERM before the removal"
stop_at detach-found detach $G xvdb && go_on TERM "detach, SIGTERM"
expect_eq "the disk is still there" 4 "$(bstate $domid 51728)"
xvbd -q detach $G xvdb >/dev/null
same_state "after the final detach"
lab-guest stop $G

# start_creating [OPTIONS]: xvbd start "$cfg" in the background ($pid),
# until its xl create has made domain $S (xl's pid in $xlpid; empty if
# start got past that before it was seen).
start_creating() {
	xvbd start "$cfg" --timeout 600 "$@" >/dev/null 2>$STOP_ERR &
	pid=$!
	xlpid=
	for ((i = 0; i < 3000; i++)); do
		xlpid=$(child_of $pid xl) && xl domid $S >/dev/null 2>&1 && break
		xlpid=
		[ -d /proc/$pid ] || break
		sleep 0.1
	done
}

phase "start: Ctrl-C to xvbd's group during xl create -p"
cfg=$(lab-guest prepare $S --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--run 'true')
start_creating --vbd xvda:ring-order=1
if [ -n "$xlpid" ]; then
	kill -INT -$pid		# xl is not in that group: it finishes
	reap $pid
	rc=$?
	sed 's/^/# stderr: /' $STOP_ERR
	expect_eq "start, Ctrl-C during xl create: exits 1" 1 "$rc"
	check "start, Ctrl-C during xl create: xl was not killed" \
		grep -q 'interrupted: guest t81s .* is running' $STOP_ERR
	st=$(xl list $S 2>/dev/null | awk 'NR == 2 { print $5 }')
	check "no half-built or paused domain (state '$st')" \
		test -n "$st" -a "${st/p/}" = "$st"
else
	echo "# xl create finished before the domain was seen: not exercised"
	reap $pid
fi
xl destroy $S 2>/dev/null

phase "start: xl itself killed during xl create -p"
start_creating
if [ -n "$xlpid" ] && kill -INT $xlpid; then
	reap $pid
	rc=$?
	sed 's/^/# stderr: /' $STOP_ERR
	expect_eq "start, xl killed: exits 1" 1 "$rc"
	if grep -q 'failed (exit status 130' $STOP_ERR; then
		check "start, xl killed: says the half-built domain was destroyed" \
			grep -q 'half-built .* was destroyed' $STOP_ERR
	else
		echo "# xl finished before the kill reached it"
	fi
	check "start, xl killed: no domain $S left" sh -c "! xl domid $S"
else
	echo "# xl create finished before the domain was seen: not exercised"
	reap $pid
fi
xl destroy $S 2>/dev/null
expect_eq "no loop device left" "" "$(loop_devices)"
rm -f $img /tmp/t81.*
finish
