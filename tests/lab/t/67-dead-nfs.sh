# A dead NFS server must not hang unrelated commands.
# A guest has a disk on an NFS share (hard mount, xvbd's default) and a
# local one; then the server stops answering (nfsd stopped: the client
# retries for ever).  xvbd list and show of both disks finish promptly
# and still call the share's disk file-via-loop; a local image is
# attached and detached meanwhile.  Then the server comes back and the
# share's disk is detached.
# The journal report of killed commands meanwhile: an attach killed after
# creating its image on the share is named with the server up, said to be
# on a share that does not answer with it gone (no command blocks on it),
# named again once it is back; the same for an image that attach --file
# created on the admin's own NFS mount of the server; a stale "guest -1
# NAME" entry is not a running guest of that name, and a stale loop entry
# is not a loop device another backend publishes.
# lab-tier: all
. /lab/lib/testlib.sh
G=t67
dir=/srv/nfs/export/t67
url=nfs://127.0.0.1$dir
umount /mnt/t67-own 2>/dev/null
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

# An attach of an image on the share killed (SIGKILL: no handler runs)
# before libxl's add: its image is debris the next command must name.
# Then the server dies: no command may hang on it.
need_test_hooks
STOP_ERR=/tmp/t67-stop.err
set -m
if stop_at attach-prepared attach $G --share $url/killed.img --size 8M --prealloc --vdev xvde; then
	kill -KILL $pid; reap $pid
fi
set +m
check "the killed attach's image is on the server" test -f $dir/killed.img
# The same on the admin's own mount of the server (not one attach made):
# attach --file creates the image there.  actimeo=0: every stat asks the
# server, as any does once the attribute cache has aged.
own=/mnt/t67-own
ownj=/tmp/t67-own-journal
mkdir -p $dir/own $own $ownj
check "the admin's own NFS mount" mount -t nfs -o vers=3,proto=tcp,nolock,actimeo=0 127.0.0.1:$dir/own $own
set -m
if stop_at attach-prepared attach $G --file $own/own.img --size 8M --vdev xvdf; then
	kill -KILL $pid; reap $pid
fi
set +m
ownpid=$pid
check "the killed attach's image on the admin's mount is on the server" test -f $dir/own/own.img
out=$(timeout 60 xvbd list 2>&1 >/dev/null)
echo "$out" | sed 's/^/# list: /'
check "with the server up, list names the image made before the add" \
	grep -q "it created $mnt/killed.img, which no guest uses" <<<"$out"
check "... and the one on the admin's own mount" \
	grep -q "it created $own/own.img, which no guest uses" <<<"$out"
# Aside while the other commands run (each would wait its 5 s bound for
# it too), back for the lists that look at it.
own_aside() { mv /run/xvbd/journal/$ownpid.* $ownj/; }
own_back() { mv $ownj/$ownpid.* /run/xvbd/journal/; }
own_aside

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
# The report of the killed attaches: no stat of their images in the
# command itself (a bounded thread's, left at its limit), whether on
# a share attach mounted or on the admin's own mount.
# Each image is given its 5 s: a list here took 16 s with one, 33 s
# with both on a loaded host (a hung one never ends).
own_back
SECONDS_0=$SECONDS
err=$(timeout 60 xvbd list 2>&1 >/dev/null)
rc=$?
echo "$err" | sed 's/^/# list: /'
echo "# timeout 60 xvbd list: rc=$rc, $((SECONDS - SECONDS_0)) s"
expect_eq "timeout 60 xvbd list finishes (killed attaches' images on the dead server)" 0 $rc
check "... saying that the share does not answer" grep -q "killed.img, on a share that does not answer" <<<"$err"
check "... and that the admin's own mount does not" grep -q "$own/own.img, on a share that does not answer" <<<"$err"
own_aside

phase "an unrelated attach and detach meanwhile"
check "attach --file xvdd" timeout 180 xvbd -q attach $G --file /scratch/t67-b.img --vdev xvdd
check "detach xvdd" timeout 180 xvbd -q detach $G xvdd
check "detach xvdc" timeout 180 xvbd -q detach $G xvdc

phase "the server comes back"
lab-share start nfs >/dev/null 2>&1
wait $probe
own_back
out=$(timeout 60 xvbd list 2>&1 >/dev/null)
check "the server back: the image made before the add is named again" \
	grep -q "it created $mnt/killed.img, which no guest uses" <<<"$out"
check "... and the one on the admin's own mount" \
	grep -q "it created $own/own.img, which no guest uses" <<<"$out"
rm -f $mnt/killed.img $own/own.img
umount $own
out=$(timeout 60 xvbd list 2>&1 >/dev/null)
expect_eq "removed: nothing named, no journal left" ":" "$out:$(ls /run/xvbd/journal 2>/dev/null)"

phase "stale journal entries are not another's guest or loop device"
# A dead ab run that noted its guest's name before xl create (-1): the
# running, unpaused guest of that name started by someone else is not
# its guest.  And a dead xvbd-block that noted loop N for a backend that
# is gone, while loop N (same image) is another backend's published
# device: not debris to free.
deadpid=$(sh -c 'echo $$')
lacks() { ! grep -q "$1" <<<"$2"; }	# lacks PATTERN TEXT
mkdir -p /run/xvbd/journal
printf 'xvbd ab-run 1\n+guest -1 %s\n' $G >/run/xvbd/journal/$deadpid.1
be=/local/domain/0/backend/vbd/$domid/51728	# xvdb
node=$(xenstore-read $be/node 2>/dev/null)
loopnr=${node#/dev/loop}
backing=$(cat /sys/block/loop$loopnr/loop/backing_file 2>/dev/null)
set -- $(stat -L -c '%D %i' "$backing" 2>/dev/null)
fdev=$((0x${1:-0})) fino=${2:-0}
printf 'xvbd xvbd-block 1\n+loop %u %x:%x:%s /local/domain/0/backend/vbd/%u/51999\n' \
	$loopnr $((fdev >> 8)) $((fdev & 0xff)) $fino $domid >/run/xvbd/journal/$((deadpid + 1)).1
echo "# xvdb: $node -> $backing ($fdev:$fino)"
check "xvdb is on a loop device" test -n "$loopnr" -a -n "$backing"
out=$(timeout 60 xvbd list 2>&1 >/dev/null)
echo "$out" | sed 's/^/# list: /'
check "a running guest of the name is not named as the dead ab run's" \
	lacks 'started by an ab run that died' "$out"
check "a loop device another backend publishes is not named for losetup -d" \
	lacks 'losetup -d' "$out"
expect_eq "both stale journals forgotten" "" "$(ls /run/xvbd/journal 2>/dev/null)"
rm -f /run/xvbd/journal/$deadpid.1 /run/xvbd/journal/$((deadpid + 1)).1
check "detach xvdb (share)" timeout 300 xvbd -q detach $G xvdb
expect_eq "share unmounted" "" "$(share_mount 127.0.0.1:$dir)"
check_no_vbds $domid
lab-guest stop $G
rm -rf $dir /scratch/t67-*.img $ownj
finish
