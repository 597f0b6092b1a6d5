# lab-guest --fio: fio 3.33 runs in a PV guest (--mem 512, one raw disk),
# and its own JSON agrees with the guest's block layer and with blkback:
# fio's read bytes and I/Os equal the growth of the guest's
# /sys/block/xvda/stat over the job (psync, 4k: no merges), and
# blkback's rd_sect, counted from a paused start, equals the sectors the
# guest's block layer read since boot.  (The guest's loader came 0644
# from the fio layer, and every exec failed: "fio: Permission denied".)
. /lab/lib/testlib.sh
img=/scratch/t21.img
dd if=/dev/urandom of=$img bs=1M count=32 status=none
devid=51712	# xvda
# The guest's stat before and after: "B ..." and "A ...", fio's JSON
# between, on its console.
lab-guest start t21 --mem 512 --fio --paused \
	--disk "format=raw,vdev=xvda,access=rw,target=$img" --run '
fio --version
echo "B $(cat /sys/block/xvda/stat)"
fio --name=r --filename=/dev/xvda --rw=randread --bs=4k --size=8M \
	--direct=1 --ioengine=psync --output-format=json
rc=$?
echo "A $(cat /sys/block/xvda/stat)"
exit $rc'
domid=$(xl domid t21)
stat=/sys/bus/xen-backend/devices/vbd-$domid-$devid/statistics
check "backend in InitWait while paused" wait_for 30 2 bstate "$domid" $devid
rd0=$(cat $stat/rd_sect)
xl unpause t21
out=$(lab-guest wait t21 --timeout 240)
rc=$?
rd1=$(cat $stat/rd_sect)
expect_eq "fio ran in the guest (exit status)" 0 "$rc"
if [ "$rc" != 0 ]; then echo "$out" | tail -20 | sed 's/^/# guest: /'; fi
expect_eq "fio's version" fio-3.33 "$(echo "$out" | sed -n 1p)"
json=$(echo "$out" | sed -n '/^{/,/^}/p')
# One jq call: error, bytes, I/Os, the job's file.
read -r err bytes ios file < <(echo "$json" |
	jq -r '.jobs[0] | "\(.error) \(.read.io_bytes) \(.read.total_ios) \(.["job options"].filename)"')
expect_eq "fio: no error" 0 "$err"
expect_eq "fio read the job's 8 MiB" 8388608 "$bytes"
expect_eq "fio's I/Os: 8 MiB / 4 KiB" 2048 "$ios"
expect_eq "fio's file" /dev/xvda "$file"
# /sys/block/X/stat: field 1 reads completed, field 3 sectors read.
read -r _ bios _ bsec _ < <(echo "$out" | grep '^B ')
read -r _ aios _ asec _ < <(echo "$out" | grep '^A ')
echo "# guest stat: reads $bios -> $aios, sectors $bsec -> $asec; blkback rd_sect $rd0 -> $rd1"
expect_eq "guest block layer: fio's I/Os" "$ios" "$((aios - bios))"
expect_eq "guest block layer: fio's bytes" "$bytes" "$(((asec - bsec) * 512))"
expect_eq "blkback's rd_sect since the paused start: the guest's read sectors" \
	"$asec" "$((rd1 - rd0))"
lab-guest stop t21
rm -f $img
finish
