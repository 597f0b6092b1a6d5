# A disk is detached by the handle its attach returned: what is at the
# vdev now, or any loop over the same file, is never taken for it.  One
# guest (its own disk xvdd: a read-only image it keeps reading):
#  - ab run --domain holds the guest's domain lock for the experiment: a
#    plain `xvbd attach G --file X` between runs (which picks the first
#    free vdev: the one under test) waits and is refused, nothing added;
#  - a foreign disk put at the vdev under test with xl block-attach
#    (no xvbd lock) before a run's attach, or between runs: that run's
#    attach fails, the experiment stops, the foreign disk stays attached
#    and Connected (xenstore, and its own loop device still bound);
#  - the guest's own read-only image attached again as the disk under
#    test: each run's clean-up counts only the loop device that run bound
#    (the guest's own stays), both runs complete; advise names the
#    buffered file disk and its command copies the image first (the copy
#    is what it attaches; the command as printed, shortened, works);
#  - a hot run whose disk lives on an NFS share (mounted noac: every stat
#    asks the server) whose server stops during the last run: the
#    clean-up detaches the disk and finishes, no stat of the dead share;
#  - xvbd-block killed between its bind and its publish, the loop device
#    then bound again to the same file by losetup (another user): the
#    remove leaves that binding alone (its diskseq is not the one the
#    killed add noted), and the next command does not name it.
# lab-tier: all
# lab-timeout: 1200
. /lab/lib/testlib.sh
set -m
need_test_hooks
G=t91
top=/tmp/t91
gold=/scratch/t91-gold.img
foreign=/scratch/t91-foreign.img
img=/scratch/t91-b.img
dir=/srv/nfs/export/t91
STOP_ERR=$top/stop.err
xl destroy $G 2>/dev/null
rm -rf $top /scratch/t91-*.img
mkdir -p $top
dd if=/dev/urandom of=$gold bs=1M count=8 status=none
truncate -s 8M $foreign $img
BE=/local/domain/0/backend/vbd
B=51728 C=51744 E=51776	# xvdb xvdc xvde

# The guest reads its own disk (xvdd): I/O for advise.  (Never a disk
# under test: one open in the guest when it is detached stays half
# removed there.)
guest_with_share $G nfs \
	"while :; do dd if=/dev/xvdd of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null; sleep 0.2; done" \
	--disk "format=raw,vdev=xvdd,access=ro,script=xvbd-block,target=$gold"
[ -n "$domid" ] || { finish; exit 1; }
gold_loop() { loop_devices | awk -v f=$gold '$2 == f { print $1 }' | sort | tr '\n' ' '; }
own_loop=$(gold_loop)
check "the guest's own disk has its loop ($own_loop)" test -n "$own_loop"
has_vbd() { xs_list $BE/$domid | grep -x "$1"; }	# has_vbd DEVID
loop_of() { loop_devices | grep -q " $1\$"; }		# loop_of FILE
# continued PID: SIGCONT to a stopped xvbd, then its exit status (at most
# 300 s: then what it waits on is shown, and it is killed).  It stops at
# its step again after a later run (ab-run-ended comes after every run,
# the last too): each such stop is continued as well.
continued() {
	local i t st
	kill -CONT $1
	for ((i = 0; i < 600; i++)); do
		[ -d /proc/$1 ] || break
		read -r _ _ st _ </proc/$1/stat 2>/dev/null
		[ "$st" = T ] && kill -CONT $1
		sleep 0.5
	done
	if [ -d /proc/$1 ]; then
		echo "# $1 still running after 300 s: its stderr, threads, the vdevs"
		sed 's/^/#   stderr: /' $STOP_ERR
		for t in /proc/$1/task/*; do
			echo "#   ${t##*/}: $(cat $t/wchan 2>/dev/null) $(tr '\n' ' ' <$t/stack 2>/dev/null | cut -c1-300)"
		done
		xenstore-ls -f $BE/$domid 2>/dev/null | grep -E '/(state|params|hotplug-status) ' | sed 's/^/#   /'
		lab-guest console $G 2>&1 | tail -15 | sed 's/^/#   guest: /'
		kill -KILL $1
	fi
	reap $1
}
spec_b="format=raw,vdev=xvdb,access=ro,target=$img"

phase "between runs: the domain lock keeps xvbd attach off the vdev"
if stop_at ab-run-ended ab run l1 l2 --domain $G --disk-a "$spec_b" \
	--disk-b "$spec_b" --duration 1 --runs 1 --dir $top/store; then
	check "run 1's disk is gone" test -z "$(has_vbd $B)"
	out=$(timeout 60 xvbd attach $G --file $foreign --timeout 2 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# attach: /'
	expect_eq "xvbd attach meanwhile: refused (exit 1)" 1 $rc
	check "... by the experiment's lock" grep -q "held its lock" <<<"$out"
	check "nothing attached at xvdb" test -z "$(has_vbd $B)"
	continued $pid
	expect_eq "the experiment ends well (exit 0)" 0 $?
fi

# foreign STEP WHEN: an experiment stopped at STEP, a foreign disk put at
# xvdb with xl block-attach (no xvbd lock), the experiment continued: the
# run that follows fails to attach, and the foreign disk stays.
foreign() {
	phase "a foreign disk at the vdev $2"
	stop_at $1 ab run f1 f2 --domain $G --disk-a "$spec_b" \
		--disk-b "$spec_b" --duration 1 --runs 1 --dir $top/store || return
	xl block-attach $G "format=raw,vdev=xvdb,access=rw,target=$foreign"
	check "the foreign disk connects" wait_for 120 4 bstate $domid $B
	continued $pid
	rc=$?
	sed 's/^/# stderr: /' $STOP_ERR
	expect_eq "the run's attach fails: exit 1" 1 $rc
	check "it names the vdev in use" grep -q "xvdb: already in use" $STOP_ERR
	expect_eq "the foreign disk is still attached and Connected" "4 4" \
		"$(bstate $domid $B) $(fstate $domid $B)"
	expect_eq "... with its own target" $foreign "$(xenstore-read $BE/$domid/$B/params)"
	check "... and its loop device" loop_of $foreign
	xvbd list >/dev/null 2>$top/next.err
	check "the next command names nothing" test ! -s $top/next.err
	xl block-detach $G xvdb
	check "the foreign disk detached (by xl)" wait_for 60 "" has_vbd $B
}
foreign ab-run-attach "before a run's attach"
foreign ab-run-ended "between runs"

phase "the guest's own read-only image as the disk under test"
xvbd ab run o1 o2 --domain $G --disk-a "format=raw,vdev=xvdb,access=ro,target=$gold" \
	--disk-b "format=raw,vdev=xvdb,access=ro,target=$gold" --duration 1 \
	--runs 1 --dir $top/store >$top/own.out 2>$top/own.err
rc=$?
sed 's/^/# stderr: /' $top/own.err
expect_eq "both runs complete: exit 0" 0 $rc
expect_eq "2 records" 2 "$(ls $top/store/o[12]-*.json 2>/dev/null | wc -l)"
expect_eq "the guest's own loop device is the one left" "$own_loop" "$(gold_loop)"
expect_eq "its disk xvdd still Connected" "4 4" "$(bstate $domid 51760) $(fstate $domid 51760)"

phase "advise: a copy of the image, not the guest's own"
J=$(xvbd advise $G xvdd -d 2 --json)
cmd=$(jq -r '.[0].findings[] | select(.finding == "dom0-page-cache") | .command' <<<"$J")
echo "# advise: $cmd"
check "advise names dom0's page cache for xvdd" test -n "$cmd"
check "its command copies the image first" grep -q "^cp --sparse=always $gold /scratch/t91-gold-ab.img && xvbd ab run " <<<"$cmd"
attaches_copy() {
	grep -q "target=/scratch/t91-gold-ab.img " <<<"$cmd" &&
		! grep -q "target=$gold " <<<"$cmd"
}
check "and attaches the copy" attaches_copy
# As printed, with a shorter run and one pair; --sparse=always is GNU
# cp's (every Debian dom0 has it), the lab dom0's busybox cp has none.
short=$(sed -e 's/--duration 30/--duration 1 --runs 1 --dir \/tmp\/t89\/adv/' \
	-e 's/^cp --sparse=always /cp /' <<<"$cmd")
sh -c "$short" >$top/adv.out 2>$top/adv.err
rc=$?
sed 's/^/# stderr: /' $top/adv.err
expect_eq "advise's command (shortened) exits 0" 0 $rc
expect_eq "the guest's own loop device is the one left" "$own_loop" "$(gold_loop)"
rm -f /scratch/t91-gold-ab.img

phase "a hot run on an NFS share whose server dies in the last run"
mkdir -p $dir
rm -f $dir/*.img
check "attach xvde on the share (noac: every stat asks the server)" \
	timeout 300 xvbd -q attach $G --share nfs://127.0.0.1$dir/keep.img \
	--size 8M --vdev xvde --share-opts noac
mnt=$(share_mount 127.0.0.1:$dir)
check "the share is mounted" test -n "$mnt"
dd if=/dev/urandom of=$dir/hot.img bs=1M count=4 status=none
spec_c="format=raw,vdev=xvdc,access=ro,target=$mnt/hot.img"
t0=$SECONDS
share_cmd=$(command -v lab-share)
timeout -s KILL 240 xvbd ab run n1 n2 --domain $G --disk-a "$spec_c" \
	--disk-b "$spec_c" --runs 1 --dir $top/store \
	--run "sh -c '[ \$XVBD_AB_LABEL = n1 ] || $share_cmd stop nfs >/dev/null 2>&1; true'" \
	>$top/nfs.out 2>$top/nfs.err
rc=$?
took=$((SECONDS - t0))
sed 's/^/# stderr: /' $top/nfs.err
echo "# hot run with the server stopped in the last run: exit $rc, $took s"
server_gone() { ! lab-share status nfs >/dev/null 2>&1; }
check "the server is gone" server_gone
expect_eq "it finishes (exit 0, not killed at 240 s)" 0 $rc
check "the disk under test is gone (xenstore)" test -z "$(has_vbd $C)"
check "no loop device over hot.img" sh -c "! losetup -a | grep -q 'hot.img'"
lab-share start nfs >/dev/null 2>&1
check "the server is back" lab-share status nfs
[ -n "$(has_vbd $C)" ] && xvbd -q detach $G xvdc >/dev/null
check "detach xvde (the share unmounted)" timeout 120 xvbd -q detach $G xvde
check "no share mount left" test -z "$(share_mount 127.0.0.1:$dir)"

phase "xvbd-block killed before its publish, its loop bound again by losetup"
if block_stopped attach $G --file $img --vdev xvdf; then
	loop=/dev/$(loop_devices | awk -v f=$img '$2 == f { print $1 }')
	echo "# xvbd-block $blk stopped with $loop bound"
	losetup -d $loop
	losetup $loop $img
	seq=$(cat /sys/block/${loop#/dev/}/diskseq)
	echo "# $loop bound again by losetup: diskseq $seq"
	kill -KILL $blk
	reap $pid
	echo "# attach: exit $?"
	sed 's/^/# stderr: /' $STOP_ERR
	check "no VBD of the image" test -z "$(xenstore-ls $BE/$domid 2>/dev/null | grep "params = \"$img\"")"
	expect_eq "losetup's $loop is still bound to the image" "${loop#/dev/} $img" \
		"$(loop_devices | awk -v f=$img '$2 == f { print $1, $2 }')"
	expect_eq "... the same binding (diskseq $seq)" "$seq" \
		"$(cat /sys/block/${loop#/dev/}/diskseq)"
	xvbd list >/dev/null 2>$top/next2.err
	sed 's/^/# next: /' $top/next2.err
	check "the next command does not name it" sh -c "! grep -q '${loop}' $top/next2.err"
	losetup -d $loop
else
	fail "xvbd-block did not stop at block-bound (is it installed?)"
	reap $pid
fi

phase "clean up"
lab-guest stop $G >/dev/null 2>&1
rm -rf $top /scratch/t91-*.img $dir
finish
