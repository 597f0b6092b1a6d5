# xvbd attach/detach on a running PV guest: a file-backed disk (image
# created by --file --size), a partition (--phy) and an image on an NFS
# share that xvbd mounts from the kernel nfsd in dom0 (--share nfs://).
# In the guest each disk has the right size and survives a write-then-read
# check; dom0 finds the guest's data in the backing store.  Detach leaves
# no xenstore directory, loop device or share mount behind.  Then bad
# input: one-line error, non-zero exit, nothing left behind.
. /lab/lib/testlib.sh
G=t60
img=/scratch/t60-file.img
share_dir=/srv/nfs/export/t60
nfs_url=nfs://127.0.0.1$share_dir/disk.img
rm -f $img
# The NFS server (layer extraction is slow under TCG) starts while the
# guest boots.
lab-share start nfs >/tmp/t60-nfs.log 2>&1 &
nfs_pid=$!

# The guest waits for three hot-attached disks, then per disk prints its
# size in sectors, writes 1 MiB of random data at 1 MiB, reads it back
# with O_DIRECT and prints the md5 when both match.
lab-guest start $G --run '
i=0
for d in xvdb xvdc xvdd; do
	while [ ! -b /dev/$d ] && [ $i -lt 3000 ]; do sleep 0.2; i=$((i + 1)); done
done
for d in xvdb xvdc xvdd; do
	echo "size $d $(cat /sys/block/$d/size)"
	dd if=/dev/urandom of=/tmp/p bs=64k count=16 2>/dev/null
	dd if=/tmp/p of=/dev/$d bs=64k seek=16 oflag=direct conv=fsync 2>/dev/null
	dd if=/dev/$d of=/tmp/r bs=64k skip=16 count=16 iflag=direct 2>/dev/null
	if cmp /tmp/p /tmp/r >/dev/null; then
		set -- $(md5sum /tmp/p)
		echo "md5 $d $1"
	fi
done'
domid=$(xl domid $G)
check "guest running" test -n "$domid"
wait $nfs_pid
check "nfs server up" lab-share status nfs || cat /tmp/t60-nfs.log
mkdir -p $share_dir
rm -f $share_dir/disk.img

out=$(xvbd attach $G --file $img --size 64M --vdev xvdb)
check "attach --file (created, 64 MiB)" test -f $img
echo "$out" | sed 's/^/# /'
expect_eq "image is 64 MiB" 67108864 "$(stat -c %s $img)"
check "attach --phy /dev/vdb1" xvbd attach $G --phy /dev/vdb1 --vdev xvdc
out=$(xvbd --json attach $G --share $nfs_url --size 32M --vdev xvdd)
expect_eq "attach --share nfs:// exit status" 0 $?
echo "# $out"
check "attach --share nfs:// (created)" \
	sh -c "echo '$out' | jq -e '.[0].vdev == \"xvdd\" and .[0].created'"
mnt=$(awk -v s="127.0.0.1:$share_dir" '$1 == s {print $2}' /proc/mounts)
check "share mounted by xvbd under /run/xvbd/shares" \
	sh -c "case '$mnt' in /run/xvbd/shares/*) true;; *) false;; esac"
check "image created on the NFS server" test -f $share_dir/disk.img
for v in 51728 51744 51760; do
	expect_eq "backend $v Connected" 4 "$(bstate $domid $v)"
	expect_eq "frontend $v Connected" 4 "$(fstate $domid $v)"
done

gout=$(lab-guest wait $G --timeout 300)
expect_eq "guest commands succeeded" 0 "$?"
echo "$gout" | sed 's/^/# guest: /'
expect_eq "guest: xvdb is 64 MiB" "size xvdb 131072" "$(echo "$gout" | grep '^size xvdb')"
expect_eq "guest: xvdc is 512 MiB" "size xvdc 1048576" "$(echo "$gout" | grep '^size xvdc')"
expect_eq "guest: xvdd is 32 MiB" "size xvdd 65536" "$(echo "$gout" | grep '^size xvdd')"
# dom0 reads the same MiB from each backing store.
# O_DIRECT where the file system has it (not the NFS server's tmpfs).
backing() {
	local flag=iflag=direct
	case $1 in /srv/*) flag= ;; esac
	dd if="$1" bs=64k skip=16 count=16 $flag 2>/dev/null | md5sum | cut -d' ' -f1
}
for pair in xvdb:$img xvdc:/dev/vdb1 xvdd:$share_dir/disk.img; do
	d=${pair%%:*} f=${pair#*:}
	g=$(echo "$gout" | sed -n "s/^md5 $d //p")
	check "$d: guest write-then-read ok" test -n "$g"
	expect_eq "$d: guest's data in $f" "$g" "$(backing "$f")"
done

# Acceptance 4 while the disks are attached (vdev in use needs one).
# One snapshot per case, compared with a baseline taken once; a mismatch
# is re-checked once (dom0's busybox now and then crashed under TCG).
snapshot() { snapshot_once; }
snapshot_once() {
	{
		xenstore-ls -f /local/domain/0/backend/vbd 2>/dev/null | cut -d' ' -f1
		xenstore-ls -f /local/domain/$domid/device/vbd 2>/dev/null | cut -d' ' -f1
		grep -v ' /proc/' /proc/mounts
		losetup -a
		ls -lA /scratch $share_dir /srv/nfs/ro /run/xvbd/shares 2>&1
	} | sort
}
mkdir -p /srv/nfs/ro/t60
truncate -s 8M /srv/nfs/ro/t60/ro.img
truncate -s 16M /scratch/t60-16m.img
base=
bad() {	# WHAT EXPECTED-TEXT xvbd-args...
	local what=$1 want=$2 before after err rc
	shift 2
	[ -n "$base" ] || base=$(snapshot)
	before=$base
	err=$(xvbd -q "$@" 2>&1 >/dev/null)
	rc=$?
	after=$(snapshot)
	[ "$before" = "$after" ] || after=$(snapshot)
	echo "# $what: rc=$rc: $err"
	if [ $rc -ne 0 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
		echo "$err" | grep -q -- "$want" && [ "$before" = "$after" ]; then
		ok "bad input: $what"
	else
		fail "bad input: $what (rc=$rc, err='$err')"
		diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
	fi
}
bad "missing file without --size" "does not exist" \
	attach $G --file /scratch/t60-missing.img
bad "--size smaller than the image" "refusing to shrink" \
	attach $G --file /scratch/t60-16m.img --size 8M
bad "vdev in use" "already in use" \
	attach $G --file /scratch/t60-16m.img --vdev xvdb
bad "vdev in use (disk spec)" "already in use" \
	attach $G "format=raw,vdev=xvdc,access=rw,target=/scratch/t60-16m.img"
bad "comma in an nfs URL" "comma" \
	attach $G --share nfs://h/exp,uid=0 --size 8M
bad "password in an smb URL" "credentials" \
	attach $G --share smb://user:pass@h/s/img
bad "unreachable server" "mount 192.0.2.1" \
	attach $G --share nfs://192.0.2.1/srv/nfs/export/x.img --size 8M
bad "read-only share with access=rw" "not writable" \
	attach $G --share nfs://127.0.0.1/srv/nfs/ro/t60/ro.img
bad "read-only share: no image created" "cannot create" \
	attach $G --share nfs://127.0.0.1/srv/nfs/ro/t60/new.img --size 8M
bad "device mounted in dom0" "mounted in dom0" \
	attach $G --phy /dev/vda
bad "partition already attached" "already attached" \
	attach $G --phy /dev/vdb1
bad "shell metacharacters in a path" "not allowed" \
	attach $G --file '/scratch/$(reboot).img' --size 8M
bad "'..' in a path" '".."' \
	attach $G --file /scratch/../etc/x.img --size 8M
bad "target with .. in a disk spec" '".."' \
	attach $G "format=raw,vdev=xvdz,target=/scratch/../etc/passwd"

# Detach: everything goes, the last disk on the share unmounts it.
check "detach xvdb" xvbd detach $G xvdb
check "detach xvdc" xvbd detach $G xvdc
check "share still mounted while xvdd uses it" grep -q " $mnt " /proc/mounts
out=$(xvbd --json detach $G xvdd)
check "detach xvdd reports the unmount" \
	sh -c "echo '$out' | jq -e '.share_unmounted'"
check "share unmounted" sh -c "! grep -q ' $mnt ' /proc/mounts"
check "mount directory removed" test ! -e "$mnt"
check "no backend directories left" \
	sh -c "! xenstore-exists /local/domain/0/backend/vbd/$domid"
check "no frontend directories left" \
	sh -c "[ -z \"\$(xenstore-list /local/domain/$domid/device/vbd 2>/dev/null)\" ]"
expect_eq "no loop device left" "" "$(losetup -a)"

# Batch: two specs in one call, vdev=auto.
truncate -s 8M /scratch/t60-b1.img /scratch/t60-b2.img
out=$(xvbd --json attach $G --spec format=raw,vdev=auto,access=rw,target=/scratch/t60-b1.img \
	--spec format=raw,vdev=auto,access=rw,target=/scratch/t60-b2.img)
check "batch of two, both Connected" \
	sh -c "echo '$out' | jq -e 'length == 2 and all(.[]; .frontend_state == \"Connected\")'"
expect_eq "batch vdevs" "xvda xvdb" "$(echo "$out" | jq -r '[.[].vdev] | join(" ")')"
check "detach --force" xvbd detach --force $G xvda
check "detach" xvbd detach $G xvdb
expect_eq "no loop device left after batch" "" "$(losetup -a)"

lab-guest stop $G
rm -f $img /scratch/t60-*.img
rm -rf $share_dir /srv/nfs/ro/t60
finish
