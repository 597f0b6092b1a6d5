# lab-timeout: 900
# lab-leaks: check
# SIGKILL at each step: no handler runs, so what
# a killed attach (--file, --phy, --share), xvbd-block, start, tune,
# detach or defaults --reload leaves must be named by xvbd's next run,
# with the command that removes it (the journals, /run/xvbd/journal).
# Each case stops the command at a step (XVBD_TEST_STOP_AT, or a state
# seen from outside), kills it with SIGKILL, and checks:
#   - what is left, against the host (xenstore, /proc/mounts, the loop
#     devices, /scratch, xl list, /sys/module), not against xvbd;
#   - `xvbd list` (the next run) names it with a remedy, one warning each;
#   - that remedy, run as printed, leaves dom0 as it was before the case,
#     and the run after it says nothing;
#   - a step that changes nothing (tune, detach before the removal, attach
#     before the add) or finishes by itself (attach after libxl's add)
#     leaves nothing half done, and nothing is named;
#   - a loop device that a killed xvbd-block bound and never published is
#     freed by the remove of its disk (its journal names it).
# On the code before the journal (83cee67) nothing was named: 24 passed,
# 28 failed (this script before its --phy cases).
. /lab/lib/testlib.sh
set -m
G=t82
S=t82s
new=/scratch/t82-new.img
img=/scratch/t82-b.img
xl destroy $G 2>/dev/null
xl destroy $S 2>/dev/null
rm -f /scratch/t82-*.img /tmp/t82.*
truncate -s 64M $img
STOP_ERR=/tmp/t82.err
NEXT=/tmp/t82.next

# killed WHAT: SIGKILL to $pid; it is gone with status 137.
killed() {
	local rc
	kill -KILL $pid
	reap $pid
	rc=$?
	expect_eq "$1: killed (137)" 137 "$rc"
}
# next_run: `xvbd list`, its stderr in $NEXT (shown).
next_run() {
	xvbd list >/dev/null 2>$NEXT
	sed 's/^/# next run: /' $NEXT
}
# names WHAT PATTERN: the next run warned with PATTERN, gave a remedy;
# the remedy (the hint's text after "with: ", up to a parenthesis) is run.
names() {
	local cmd
	next_run
	check "$1: the next run names it" grep -q "warning: .*$2" $NEXT
	cmd=$(grep -A1 "warning: .*$2" $NEXT | sed -n 's/^xvbd: hint: .* with: \([^(]*\).*/\1/p' | head -1)
	check "$1: with the command that removes it" test -n "$cmd"
	[ -n "$cmd" ] || return
	echo "# remedy: $cmd"
	check "$1: the remedy works ($cmd)" sh -c "$cmd"
}
# quiet_next WHAT: the next run names nothing.
quiet_next() {
	next_run
	check "$1: the next run names nothing" test ! -s $NEXT
}
dom_state() { xl list "$1" 2>/dev/null | awk 'NR == 2 { print $5 }'; }

phase "defaults --reload: SIGKILL between modprobe -r and the reload"
order=$(cat /sys/module/xen_blkback/parameters/max_ring_page_order)
if stop_at defaults-unloaded defaults --reload max_ring_page_order=$order; then
	killed "defaults --reload"
	check "xen_blkback is unloaded" test ! -d /sys/module/xen_blkback
	names "defaults --reload" "unloaded xen_blkback"
fi
check "xen_blkback is loaded again" blkback_loaded
blkback_loaded || modprobe xen-blkback
quiet_next "after modprobe"

guest_with_share $G nfs 'while :; do sleep 5; done'
share_dir=/srv/nfs/export/t82
mkdir -p $share_dir
rm -f $share_dir/disk.img
dom0_state $domid /scratch /run/xvbd/shares
BASE=$T_STATE

phase "attach --file NEW --prealloc: SIGKILL once the image is made"
if stop_at attach-prepared attach $G --file $new --size 64M --prealloc; then
	killed "attach --prealloc"
	check "the image is left" test -f $new
	names "attach --prealloc" "created $new, which no guest uses"
fi
same_state "attach --prealloc, SIGKILL, remedy"
quiet_next "attach --prealloc"

phase "attach --share: SIGKILL once the share is mounted and the image made"
if stop_at attach-prepared attach $G \
	--share nfs://127.0.0.1$share_dir/disk.img --size 8M; then
	killed "attach --share"
	check "the share is left mounted" grep -q " /run/xvbd/shares/" /proc/mounts
	check "its image is left" test -f $share_dir/disk.img
	# The image first: the order in which they are undone.
	names "attach --share (image)" "created /run/xvbd/shares/.*/disk.img"
	names "attach --share (mount)" "mounted /run/xvbd/shares/"
fi
check "no image on the share" test ! -e $share_dir/disk.img
same_state "attach --share, SIGKILL, remedies (no mount, no record)"
quiet_next "attach --share"

phase "attach --phy: SIGKILL before the add, and after it"
if stop_at attach-prepared attach $G --phy /dev/vdb1; then
	killed "attach --phy, before the add"
	quiet_next "attach --phy, before the add"
fi
same_state "attach --phy, SIGKILL before the add"
if stop_at attach-added attach $G --phy /dev/vdb1 --vdev xvdc; then
	killed "attach --phy, after the add"
	# libxl's add was done: the disk connects on its own.
	check "the added disk connects" wait_for 120 4 bstate $domid 51744
	quiet_next "attach --phy, after the add"
	xvbd -q detach $G xvdc >/dev/null || fail "detach xvdc"
fi
same_state "attach --phy, SIGKILL after the add, detached"

phase "attach: SIGKILL to xvbd-block between the bind and the publish"
if block_stopped attach $G --file $img; then
	loop=$(loop_devices | awk -v f=$img '$2 == f { print $1 }')
	echo "# xvbd-block $blk stopped with $loop bound"
	kill -KILL $blk
	reap $pid
	echo "# attach: exit $?"
	sed 's/^/# stderr: /' $STOP_ERR
	check "no VBD of the image" test -z "$(xenstore-ls /local/domain/0/backend/vbd/$domid 2>/dev/null | grep "params = \"$img\"")"
	# attach's cleanup removed its half-added disk: xvbd-block remove
	# found no node, and the killed add's loop in its journal.
	expect_eq "$loop was freed by the remove" "" "$(loop_devices | grep " $img\$")"
	quiet_next "xvbd-block killed"
else
	fail "xvbd-block did not stop at block-bound (is it installed?)"
	reap $pid
fi
same_state "xvbd-block, SIGKILL"

phase "attach with overrides: SIGKILL while the guest is paused"
if stop_at attach-added attach $G --file $img --vdev xvdb --ring-order 1; then
	check "the guest is paused at the stop" sh -c "xl list $G | awk 'NR == 2 { exit \$5 !~ /p/ }'"
	killed "attach, paused window"
	check "the guest is left paused" sh -c "xl list $G | awk 'NR == 2 { exit \$5 !~ /p/ }'"
	names "attach, paused window" "left domain $G ($domid) paused"
	st=$(dom_state $G)
	check "the guest runs again (state $st)" test -n "$st" -a "${st/p/}" = "$st"
	check "its disk connects" wait_for 120 4 bstate $domid 51728
	quiet_next "attach, paused window"
fi

phase "tune: SIGKILL before the write"
before=$(xenstore-read /local/domain/0/backend/vbd/$domid/51728/discard-enable 2>&1)
if stop_at tune-planned tune $G xvdb discard=0; then
	killed "tune"
	expect_eq "tune wrote nothing" "$before" \
		"$(xenstore-read /local/domain/0/backend/vbd/$domid/51728/discard-enable 2>&1)"
	quiet_next "tune"
	check "the domain lock is free: a tune goes through" \
		xvbd -q tune $G xvdb discard=$([ "$before" = 0 ] && echo 1 || echo 0)
fi

phase "detach: SIGKILL before the removal"
if stop_at detach-found detach $G xvdb; then
	killed "detach, before the removal"
	expect_eq "the disk is still Connected" 4 "$(bstate $domid 51728)"
	quiet_next "detach, before the removal"
fi

phase "detach: SIGKILL during the removal"
# A paused guest's blkfront cannot answer the backend's Closing: libxl
# waits (up to its 10 s timeout), the removal begun (online 0).
xl pause $G
xvbd detach $G xvdb >/dev/null 2>$STOP_ERR &
pid=$!
wait_for 60 0 xenstore-read /local/domain/0/backend/vbd/$domid/51728/online
online=$(xenstore-read /local/domain/0/backend/vbd/$domid/51728/online 2>&1)
if [ "$online" = 0 ] && [ -d /proc/$pid ]; then
	killed "detach, during the removal"
	xl unpause $G
	check "the disk is half removed (backend there, online 0)" \
		test "$(xenstore-read /local/domain/0/backend/vbd/$domid/51728/online 2>&1)" = 0
	names "detach, during the removal" "removing xvdb of domain $G"
else
	fail "detach did not begin the removal while the guest was paused (online: $online)"
	reap $pid
	xl unpause $G
fi
same_state "detach, SIGKILL, remedy"
quiet_next "detach"
lab-guest stop $G

phase "start: SIGKILL in the paused window"
cfg=$(lab-guest prepare $S --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--run 'true')
if stop_at start-paused start "$cfg" --vbd xvda:ring-order=1 --timeout 600; then
	sid=$(xl domid $S)
	killed "start, paused window"
	check "the domain is left paused" sh -c "xl list $S | awk 'NR == 2 { exit \$5 !~ /p/ }'"
	names "start, paused window" "domain $S ($sid) is left paused"
	check "domain $S is gone" sh -c "! xl domid $S"
fi
xl destroy $S 2>/dev/null

phase "start: SIGKILL during xl create -p (xl finishes on its own)"
xvbd start "$cfg" --timeout 600 >/dev/null 2>$STOP_ERR &
pid=$!
xlpid=
for ((i = 0; i < 3000; i++)); do
	xlpid=$(child_of $pid xl) && break
	[ -d /proc/$pid ] || break
	sleep 0.05
done
if [ -n "$xlpid" ]; then
	killed "start, during xl create"
	while [ -d /proc/$xlpid ]; do sleep 0.1; done
	sid=$(xl domid $S 2>/dev/null)
	echo "# xl create left domain $S: ${sid:-none}"
	check "xl made the domain, paused" sh -c "xl list $S | awk 'NR == 2 { exit \$5 !~ /p/ }'"
	names "start, during xl create" "domain $S ($sid) is left paused"
	check "domain $S is gone" sh -c "! xl domid $S"
else
	fail "xl create was not seen"
	reap $pid
fi
xl destroy $S 2>/dev/null

phase "nothing left"
quiet_next "at the end"
expect_eq "no journal left" "" "$(ls /run/xvbd/journal 2>/dev/null)"
expect_eq "no loop device left" "" "$(loop_devices)"
rm -f $img /tmp/t82.*
finish
