# xvbd start holds SIGINT/SIGTERM from the paused create to the unpause: a Ctrl-C
# in the window must not leave a paused guest behind.  The overrides are
# written, the guest is unpaused and runs, xvbd says it was interrupted and
# exits 1 without verifying.
. /lab/lib/testlib.sh
A=51712
img=/scratch/t53.img
truncate -s 64M $img
cfg=$(lab-guest prepare t53 --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--extra "xen_blkfront.max_ring_page_order=4" --run 'true')
xvbd start "$cfg" --timeout 600 --vbd xvda:ring-order=1 >/tmp/t53.out 2>/tmp/t53.err &
pid=$!
# Interrupt (SIGTERM: a background job of a script ignores SIGINT) as soon
# as the domain exists (created paused, not yet tuned).
for ((i = 0; i < 3000; i++)); do
	xl domid t53 >/dev/null 2>&1 && break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
sed 's/^/# stderr: /' /tmp/t53.err
expect_eq "interrupted start exits 1" 1 "$rc"
check "says it was interrupted and the guest runs" \
	grep -q 'interrupted: guest t53 .* is running; overrides written' /tmp/t53.err
d=$(xl domid t53)
check "t53 still exists" test -n "$d"
state=$(xl list t53 | awk 'NR == 2 { print $5 }')
echo "# xl list state: $state"
# (a gone domain has no state: "" = "" passed before)
check "t53 is not paused" test -n "$state" -a "${state/p/}" = "$state"
check "t53 frontend Connected" wait_for 300 4 fstate "$d" $A
expect_eq "the override was still written and used" 1 \
	"$(xenstore-read /local/domain/$d/device/vbd/$A/ring-page-order)"
lab-guest stop t53
rm -f $img /tmp/t53.out /tmp/t53.err
finish
