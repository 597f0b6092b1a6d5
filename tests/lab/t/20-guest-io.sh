# A PV guest with a file-backed disk: both xenbus sides reach Connected (4),
# the guest reads 64 MiB from its disk with O_DIRECT, and dom0's blkback
# counters grow by at least 64 MiB / 512 = 131072 sectors.
. /lab/lib/testlib.sh
img=/scratch/t20.img
dd if=/dev/urandom of=$img bs=1M count=80 status=none
devid=51712	# xvda
stat=/sys/bus/xen-backend/devices/vbd-DOMID-$devid/statistics

lab-guest start t20 --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--paused --run 'dd if=/dev/xvda of=/dev/null bs=1M count=64 iflag=direct 2>&1; cat /sys/block/xvda/size'
domid=$(xl domid t20)
check "guest created" test -n "$domid"
stat=${stat/DOMID/$domid}
# Paused: blkback has probed (InitWait) but blkfront has not run yet, so the
# counters start from zero before any guest I/O.
check "backend in InitWait while paused" wait_for 30 2 bstate "$domid" $devid
rd0=$(cat $stat/rd_sect)
xl unpause t20
check "backend Connected" wait_for 60 4 bstate "$domid" $devid
check "frontend Connected" wait_for 60 4 fstate "$domid" $devid
out=$(lab-guest wait t20 --timeout 120)
rc=$?
echo "$out" | sed 's/^/# guest: /'
expect_eq "guest commands succeeded" 0 "$rc"
check "guest dd read 64 x 1 MiB" sh -c "echo '$out' | grep -q '^64+0 records out'"
check "guest sees 80 MiB disk (163840 sectors)" sh -c "echo '$out' | grep -qx 163840"
rd1=$(cat $stat/rd_sect)
delta=$((rd1 - rd0))
echo "# rd_sect $rd0 -> $rd1 (+$delta)"
check "blkback rd_sect grew by >= 131072 sectors" test "$delta" -ge 131072
lab-guest stop t20
rm -f $img
finish
