# A dead NFS server must not hang unrelated commands.
# A guest has a disk on an NFS share (hard mount, xvbd's default) and a
# local one; then the server stops answering (nfsd stopped: the client
# retries for ever).  xvbd list and show of both disks finish promptly
# and still call the share's disk file-via-loop; a local image is
# attached and detached meanwhile.  Then the server comes back and the
# share's disk is detached.
. /lab/lib/testlib.sh
G=t67
dir=/srv/nfs/export/t67
url=nfs://127.0.0.1$dir
rm -rf $dir /scratch/t67-*.img
truncate -s 8M /scratch/t67-a.img /scratch/t67-b.img

guest_with_share $G nfs "true"
mkdir -p $dir
out=$(timeout 300 xvbd --json attach $G --share $url/disk.img --size 8M --vdev xvdb)
expect_eq "attach --share: exit, frontend" "0 Connected" \
	"$? $(jq -r '.[0].frontend_state' <<<"$out")"
check "attach --file xvdc" timeout 300 xvbd -q attach $G --file /scratch/t67-a.img --vdev xvdc
mnt=$(share_mount 127.0.0.1:$dir)
check "share mounted" test -n "$mnt"

phase "the server stops answering"
lab-share stop nfs
# Nothing on the mount answers now: a read in the background stays stuck.
# A direct read, as a stat can be answered from the client's attribute
# cache for a few seconds (a stat returned at once in one make check run:
# a flaky first try).
dd if="$mnt/disk.img" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &
probe=$!
sleep 5
check "a direct read of the image hangs (the server is really gone)" kill -0 $probe

phase "list and show with the server gone"
SECONDS_0=$SECONDS
out=$(timeout 60 xvbd --json list $G)
rc=$?
echo "# list: rc=$rc, $((SECONDS - SECONDS_0)) s"
expect_eq "list finishes (exit 0)" 0 $rc
expect_eq "list: both disks, kinds" "xvdb file-via-loop xvdc file-via-loop" \
	"$(jq -r '[.[] | "\(.vdev) \(.backend_type)"] | join(" ")' <<<"$out")"
out=$(timeout 60 xvbd --json show $G xvdb)
rc=$?
expect_eq "show xvdb finishes (exit 0), kind" "0 file-via-loop" \
	"$rc $(jq -r 'if type == "array" then .[0] else . end | .backend_type' <<<"$out")"
out=$(timeout 60 xvbd list)
expect_eq "list (text) finishes" 0 $?

phase "an unrelated attach and detach meanwhile"
check "attach --file xvdd" timeout 180 xvbd -q attach $G --file /scratch/t67-b.img --vdev xvdd
check "detach xvdd" timeout 180 xvbd -q detach $G xvdd
check "detach xvdc" timeout 180 xvbd -q detach $G xvdc

phase "the server comes back"
lab-share start nfs >/dev/null 2>&1
wait $probe
check "detach xvdb (share)" timeout 300 xvbd -q detach $G xvdb
expect_eq "share unmounted" "" "$(share_mount 127.0.0.1:$dir)"
check_no_vbds $domid
lab-guest stop $G
rm -rf $dir /scratch/t67-*.img
finish
