# xvbd attach --phy refuses a device that shares blocks with a guest's
# disk, not only the identical device: the whole disk
# whose partition a guest uses, and a loop device that is another guest
# disk's backing.  Both refused with nothing left behind; a partition
# nobody uses still works.
# lab-tier: all
. /lab/lib/testlib.sh
G=t69
img=/scratch/t69.img
rm -f $img
truncate -s 16M $img

phase "guest with /dev/vdb1 as xvdb"
lab-guest start $G --disk "format=raw,vdev=xvdb,access=rw,target=/dev/vdb1" --run "true"
domid=$(xl domid $G)
check "guest running" test -n "$domid"
lab-guest wait $G --timeout 300 >/dev/null
check "attach --file (a loop device)" timeout 300 xvbd -q attach $G --file $img --vdev xvdc
loop=$(xenstore-read /local/domain/0/backend/vbd/$domid/51744/node)
echo "# xvdc is on $loop"

phase "overlapping devices"
bad_input_setup $domid /scratch
bad_input "the whole disk of a partition in use" 1 "already attached to domain $domid as xvdb" \
	attach $G --phy /dev/vdb --vdev xvdd
bad_input "the same partition" 1 "already attached to domain $domid as xvdb" \
	attach $G --phy /dev/vdb1 --vdev xvdd
bad_input "a loop device backing another disk" 1 "already attached to domain $domid as xvdc" \
	attach $G --phy "$loop" --vdev xvdd

phase "a partition nobody uses"
out=$(timeout 300 xvbd -N --json attach $G --phy /dev/vdb2 --vdev xvdd)
expect_eq "-N --phy /dev/vdb2 (the other partition): planned" "0 add" \
	"$? $(jq -r '.[0].action' <<<"$out")"

phase "clean up"
check "detach xvdc" timeout 300 xvbd -q detach $G xvdc
lab-guest stop $G
expect_eq "no loop device left" "" "$(loop_devices)"
rm -f $img
finish
