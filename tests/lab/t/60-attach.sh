# xvbd attach/detach on a running PV guest: a file-backed disk (image
# created by --file --size), a partition (--phy) and an image on an NFS
# share that xvbd mounts from the kernel nfsd in dom0 (--share nfs://).
# In the guest each disk has the right size and survives a write-then-read
# check; dom0 finds the guest's data in the backing store.  Bad input: exit
# 1 or 2, one-line error, nothing left behind.  Detach leaves no xenstore
# directory, loop device or share mount behind.  (A batch of disk specs and
# an smb:// URL with a password are in 62-attach-smb.)
. /lab/lib/testlib.sh
G=t60
img=/scratch/t60-file.img
share_dir=/srv/nfs/export/t60
ro_dir=/srv/nfs/ro/t60
nfs_url=nfs://127.0.0.1$share_dir/disk.img
rm -f /scratch/t60-*.img
truncate -s 16M /scratch/t60-16m.img

guest_with_share $G nfs "$(guest_rw_script xvdb xvdc xvdd)"
mkdir -p $share_dir $ro_dir
rm -f $share_dir/disk.img
truncate -s 8M $ro_dir/ro.img

# Bad input first, while the guest has no disk: every xvbd call lists the
# guest's disks through libxl, a few dozen xenstore requests per disk.
phase "bad input"
bad_input_setup $domid /scratch $share_dir $ro_dir /run/xvbd/shares
bad_input "missing file without --size" 1 "does not exist" \
	attach $G --file /scratch/t60-missing.img
bad_input "--size smaller than the image" 1 "refusing to shrink" \
	attach $G --file /scratch/t60-16m.img --size 8M
bad_input "comma in an nfs URL" 2 "comma" \
	attach $G --share nfs://h/exp,uid=0 --size 8M
# 192.0.2.1 (TEST-NET-1): dom0 has no route there, the mount fails at once.
bad_input "unreachable server" 1 "mount 192.0.2.1" \
	attach $G --share nfs://192.0.2.1/srv/nfs/export/x.img --size 8M
bad_input "read-only share with access=rw" 1 "not writable" \
	attach $G --share nfs://127.0.0.1$ro_dir/ro.img
bad_input "read-only share: no image created" 1 "cannot create" \
	attach $G --share nfs://127.0.0.1$ro_dir/new.img --size 8M
bad_input "device mounted in dom0" 1 "mounted in dom0" \
	attach $G --phy /dev/vda
bad_input "shell metacharacters in a path" 2 "not allowed" \
	attach $G --file '/scratch/$(reboot).img' --size 8M
bad_input "'..' in a path" 2 '".."' \
	attach $G --file /scratch/../etc/x.img --size 8M
bad_input "target with .. in a disk spec" 2 '".."' \
	attach $G "format=raw,vdev=xvdz,target=/scratch/../etc/passwd"

phase "dry run (-N): the plan, nothing done"
dry() {	# WHAT JQ_WANT JQ XVBD_ARGS...: xvbd -N --json, the plan checked
	local what=$1 want=$2 filter=$3 out rc
	shift 3
	out=$(xvbd -N --json "$@")
	rc=$?
	dom0_state "${T_BAD_ARGS[@]}"
	[ "$T_STATE" = "$T_BAD_BASE" ] || dom0_state "${T_BAD_ARGS[@]}"
	echo "# -N $what: rc=$rc: $out"
	expect_eq "-N $what: plan" "0 $want" "$rc $(jq -r ".[0] | $filter" <<<"$out")"
	check "-N $what: nothing created, mounted or added" \
		test "$T_STATE" = "$T_BAD_BASE"
}
dry "--file, new image" "xvda create the image (sparse), add /etc/xen/scripts/xvbd-block 16777216" \
	'"\(.vdev) \(.action) \(.script) \(.size_bytes)"' \
	attach $G --file /scratch/t60-dry.img --size 16M
dry "--file, existing image, --ring-order" "add ring-order=1 16777216" \
	'"\(.action) \(.overrides) \(.size_bytes)"' \
	attach $G --file /scratch/t60-16m.img --ring-order 1
dry "--share nfs://" "share true true" \
	'"\(.kind) \(.action | startswith("mount the share")) \(.target | startswith("/run/xvbd/shares/nfs-127.0.0.1-"))"' \
	attach $G --share $nfs_url --size 32M
dry "disk spec with script=block" "xvdz block" '"\(.vdev) \(.script)"' \
	attach $G "format=raw,vdev=xvdz,access=ro,script=block,target=/scratch/t60-16m.img"
err=$(xvbd -q -N attach $G --file /scratch/t60-missing.img 2>&1 >/dev/null)
expect_eq "-N still refuses bad input" "1 xvbd: attach:" "$? ${err:0:13}"

phase "attach --file, --phy, --share nfs://"
out=$(xvbd attach $G --file $img --size 64M --vdev xvdb)
expect_eq "attach --file exit status" 0 $?
echo "$out" | sed 's/^/# /'
check "attach --file (created, 64 MiB)" test -f $img
expect_eq "image is 64 MiB" 67108864 "$(stat -c %s $img)"
check "attach --phy /dev/vdb1" xvbd attach $G --phy /dev/vdb1 --vdev xvdc
out=$(xvbd --json attach $G --share $nfs_url --size 32M --vdev xvdd)
expect_eq "attach --share nfs:// exit status" 0 $?
echo "# $out"
expect_eq "attach --share nfs://: vdev, created, frontend" "xvdd true Connected" \
	"$(jq -r '.[0] | "\(.vdev) \(.created) \(.frontend_state)"' <<<"$out")"
mnt=$(share_mount 127.0.0.1:$share_dir)
check "share mounted by xvbd under /run/xvbd/shares" \
	test "${mnt#/run/xvbd/shares/}" != "$mnt"
check "image created on the NFS server" test -f $share_dir/disk.img
expect_eq "xenbus states (backend/frontend)" "51728=4/4 51744=4/4 51760=4/4" \
	"$(vbd_states $domid 51728 51744 51760)"

phase "bad input: in use"
bad_input_setup $domid /scratch $share_dir /run/xvbd/shares
bad_input "vdev in use" 1 "already in use" \
	attach $G --file /scratch/t60-16m.img --vdev xvdb
bad_input "vdev in use (disk spec)" 1 "already in use" \
	attach $G "format=raw,vdev=xvdc,access=rw,target=/scratch/t60-16m.img"
bad_input "partition already attached" 1 "already attached" \
	attach $G --phy /dev/vdb1

phase "guest write-then-read"
# Every disk is attached by now, so the guest needs seconds; the timeout
# only bounds a run in which an attach failed.
gout=$(lab-guest wait $G --timeout 120)
expect_eq "guest commands succeeded" 0 "$?"
echo "$gout" | sed 's/^/# guest: /'
check_guest_rw "$gout" xvdb:131072:$img xvdc:1048576:/dev/vdb1 \
	xvdd:65536:$share_dir/disk.img

# Detach -N: the plan of each detach (what goes, whether the share would
# be unmounted), and nothing removed: xenstore, loop devices, mounts and
# the xenbus states as they were.
phase "detach -N: the plan, nothing done"
dom0_state $domid /run/xvbd/shares
before="$T_STATE$(vbd_states $domid 51728 51744 51760)"
for d in xvdb:$img:false xvdc:/dev/vdb1:false xvdd:$mnt/disk.img:true; do
	IFS=: read -r v t u <<<"$d"
	out=$(xvbd -N --json detach $G $v)
	expect_eq "-N detach $v: exit 0, the disk, its target, the unmount" \
		"0 $v $t $u true" \
		"$? $(jq -r '"\(.vdev) \(.target) \(.share_unmounted) \(.dry_run)"' <<<"$out")"
done
out=$(xvbd -N detach $G xvdd)
expect_eq "-N detach (text): says dry run" 0 "$?"
echo "$out" | sed 's/^/# /'
dom0_state $domid /run/xvbd/shares
after="$T_STATE$(vbd_states $domid 51728 51744 51760)"
[ "$after" = "$before" ] || {
	dom0_state $domid /run/xvbd/shares
	after="$T_STATE$(vbd_states $domid 51728 51744 51760)"
}
expect_eq "-N detach: xenstore, loop devices, mounts, states unchanged" \
	"$before" "$after"
err=$(xvbd -q -N detach $G xvdz 2>&1 >/dev/null)
expect_eq "-N detach of a missing disk: exit 1, one line" \
	"1 xvbd: detach: vdev:" "$? ${err:0:19}"

# Detach: everything goes, the last disk on the share unmounts it.
phase "detach"
check "detach xvdb" xvbd -q detach $G xvdb
check "detach xvdc" xvbd -q detach $G xvdc
check "share still mounted while xvdd uses it" test -n "$(share_mount 127.0.0.1:$share_dir)"
out=$(xvbd --json detach $G xvdd)
expect_eq "detach xvdd reports the unmount" true "$(jq -r .share_unmounted <<<"$out")"
expect_eq "share unmounted" "" "$(share_mount 127.0.0.1:$share_dir)"
check "mount directory removed" test ! -e "$mnt"
check_no_vbds $domid

phase "clean up"
lab-guest stop $G
rm -f /scratch/t60-*.img
rm -rf $share_dir $ro_dir
finish
