# A share's server (and a non-root user of dom0) must not decide which
# dom0 file a guest gets.  On
# the NFS export: a symbolic link to a dom0 image, a FIFO and a block
# device node.  Each is refused by xvbd attach --share, without hanging
# (every command under `timeout`), with nothing left behind (no VBD, no
# loop device, no mount, no record).  xvbd-block itself refuses the
# symbolic link when a disk spec names it under xvbd's mount point.  The
# share is mounted nosuid,nodev,noexec.  --file through a symbolic link in
# a directory other users can write to is refused; one in root's own
# directory still works.  A mount someone else made at xvbd's mount point
# is not adopted.  Without xvbd-block installed a share is refused (Xen's
# block script would open the image by path again).  A shares' lock held
# by someone else bounds attach's wait, and Ctrl-C ends it.
# lab-tier: all
. /lab/lib/testlib.sh
G=t66
dir=/srv/nfs/export/t66
fdir=/srv/nfs/export/t66f
url=nfs://127.0.0.1$dir
secret=/scratch/t66-secret.img
udir=/scratch/t66u
rm -rf $dir $fdir $udir /scratch/t66-*.img
truncate -s 8M $secret /scratch/t66-ok.img
ln -s /scratch/t66-ok.img /scratch/t66-rlink.img

guest_with_share $G nfs "true"
mkdir -p $dir $fdir
ln -s $secret $dir/link.img
mkfifo $dir/fifo.img
read -r maj min < <(stat -L -c '%t %T' /dev/vdb2)
mknod $dir/dev.img b $((16#$maj)) $((16#$min))
mkdir -p $udir
chmod 1777 $udir
ln -s $secret $udir/link.img
truncate -s 8M $udir/own.img

# refused WHAT RC TEXT XVBD_ARGS...: like testlib's bad_input, but under
# timeout (a FIFO must not block xvbd), and the loops of $secret counted.
refused() {
	local what=$1 want_rc=$2 text=$3 err rc v m
	shift 3
	err=$(timeout 120 xvbd -q "$@" 2>&1 >/dev/null)
	rc=$?
	dom0_state "${T_BAD_ARGS[@]}"
	[ "$T_STATE" = "$T_BAD_BASE" ] || dom0_state "${T_BAD_ARGS[@]}"
	echo "# $what: rc=$rc: $err"
	# libxl prints its own lines when a hotplug script refuses (MULTI=1)
	if [ "$rc" = "$want_rc" ] && { [ -n "$MULTI" ] || [[ $err != *$'\n'* ]]; } &&
		[[ $err == *"xvbd: $1: "* && $err == *"$text"* ]] &&
		[ "$T_STATE" = "$T_BAD_BASE" ]; then
		ok "refused: $what"
	else
		fail "refused: $what (want rc=$want_rc and one line with '$text', state unchanged)"
		diff <(echo "$T_BAD_BASE") <(echo "$T_STATE") | sed 's/^/#   /'
		# Whatever was attached goes, so the next check starts clean.
		for v in $(xenstore-list /local/domain/$domid/device/vbd 2>/dev/null); do
			[[ $T_BAD_BASE == *"/device/vbd/$v"* ]] ||
				xl block-detach $G $v >/dev/null 2>&1
		done
		for m in /run/xvbd/shares/*/; do
			[[ $T_BAD_BASE == *"mount "*" ${m%/} "* ]] && continue
			[ -d "$m" ] && umount "$m" 2>/dev/null
			rm -rf "${m%/}" "${m%/}.mount"
		done
	fi
}

phase "hostile entries on the share"
bad_input_setup $domid $dir /scratch /run/xvbd/shares
refused "symlink on the share to a dom0 image" 1 "symbolic link" \
	attach $G --share $url/link.img
refused "FIFO on the share" 1 "not a regular file" \
	attach $G --share $url/fifo.img
refused "block device node on the share" 1 "not a regular file" \
	attach $G --share $url/dev.img
refused "--file: symlink in a directory others can write to" 1 "symbolic link" \
	attach $G --file $udir/link.img
# Outside /dev xvbd takes no link at all, also in root's own directory
# (a link is re-pointable between the checks and the
# hotplug script; the user gives the real path).
refused "--file: symlink in root's own directory" 1 "symbolic link" \
	attach $G --file /scratch/t66-rlink.img

phase "a foreign mount at xvbd's mount point"
out=$(xvbd -N --json attach $G --share nfs://127.0.0.1$fdir/x.img --size 8M)
fmnt=$(jq -r '.[0].target' <<<"$out")
fmnt=${fmnt%/x.img}
mkdir -p $fmnt
check "mounted by hand at $fmnt" \
	timeout 60 mount -t nfs -o vers=3,proto=tcp,nolock 127.0.0.1:$fdir $fmnt
bad_input_setup $domid $dir /scratch /run/xvbd/shares
refused "a mount xvbd did not make" 1 "not mounted by xvbd" \
	attach $G --share nfs://127.0.0.1$fdir/x.img --size 8M
check "no record written for it" test ! -e $fmnt.mount
umount $fmnt
rmdir $fmnt

phase "without xvbd-block, no share"
# Xen's block script would open the image by path after xvbd's checks,
# following whatever the server put there since: refused before a mount.
mv /etc/xen/scripts/xvbd-block /etc/xen/scripts/.t66-away
bad_input_setup $domid $dir /scratch /run/xvbd/shares
refused "--share without xvbd-block" 1 "needs /etc/xen/scripts/xvbd-block" \
	attach $G --share $url/new.img --size 8M
err=$(timeout 120 xvbd -q -N attach $G --share $url/new.img --size 8M 2>&1 >/dev/null)
expect_eq "-N --share without xvbd-block: the plan says no" \
	"1 xvbd: attach: needs" "$? $(cut -d' ' -f1-2 <<<"$err") $(grep -o needs <<<"$err")"
mv /etc/xen/scripts/.t66-away /etc/xen/scripts/xvbd-block
expect_eq "no new.img on the export" "" "$(ls $dir/new.img 2>/dev/null)"

phase "a good image on the share"
out=$(timeout 300 xvbd --json attach $G --share $url/ok.img --size 8M --vdev xvdb)
expect_eq "attach --share (new image): exit, frontend" "0 Connected" \
	"$? $(jq -r '.[0].frontend_state' <<<"$out")"
mnt=$(share_mount 127.0.0.1:$dir)
opts=$(while read -r s p t o rest; do [ "$p" = "$mnt" ] && echo "$o"; done </proc/mounts)
echo "# mount options: $opts"
for o in nosuid nodev noexec; do
	check "share mounted $o" grep -qw $o <<<"$opts"
done

phase "xvbd-block refuses the symlink itself"
bad_input_setup $domid $dir /scratch /run/xvbd/shares
MULTI=1 refused "disk spec: xvbd-block and a symlink under the mount" 1 "symbolic link" \
	attach $G --timeout 60 \
	--spec "format=raw,vdev=xvdc,access=rw,script=/etc/xen/scripts/xvbd-block,target=$mnt/link.img"
check "xvbd-block said why in the hotplug log" \
	grep -q "link.img.*symbolic link" /var/log/xen/xen-hotplug.log
expect_eq "no loop device on $secret" "" "$(losetup -n -O NAME -j $secret)"

phase "the shares' lock held by someone else"
# flock(1)'s protocol, as another attach or detach holds it (a mount to a
# dead server can take minutes): attach waits at most its --timeout,
# Ctrl-C ends the wait of attach and detach at once, and nothing is left
# (before: a blocking flock that SIGINT did not end).
exec 9>>/run/xvbd/shares/.lock
check "this test holds /run/xvbd/shares/.lock" flock -n 9
bad_input_setup $domid $dir /scratch /run/xvbd/shares
refused "shares' lock held: attach --timeout 2" 1 "held its lock for 2 s" \
	attach $G --share $url/locked.img --size 8M --timeout 2 9>&-
t0=$SECONDS
err=$(timeout --preserve-status -k 30 -s INT 5 \
	xvbd -q attach $G --share $url/locked.img --size 8M 2>&1 >/dev/null 9>&-)
rc=$?
echo "# attach, SIGINT while waiting: rc=$rc after $((SECONDS - t0)) s: $err"
dom0_state "${T_BAD_ARGS[@]}"
expect_eq "attach: SIGINT ends the wait: exit 1, one line, 'interrupted'" \
	"1 1 interrupted" "$rc $(wc -l <<<"$err") $(grep -o interrupted <<<"$err")"
check "attach: ended within 15 s of the signal" test $((SECONDS - t0)) -lt 20
check "attach: nothing left (VBDs, mounts, loops, files)" \
	test "$T_STATE" = "$T_BAD_BASE"
expect_eq "no locked.img on the export" "" "$(ls $dir/locked.img 2>/dev/null)"
t0=$SECONDS
err=$(timeout --preserve-status -k 30 -s INT 5 \
	xvbd -q detach $G xvdb 2>&1 >/dev/null 9>&-)
rc=$?
echo "# detach, SIGINT while waiting: rc=$rc after $((SECONDS - t0)) s: $err"
dom0_state "${T_BAD_ARGS[@]}"
expect_eq "detach: SIGINT ends the wait: exit 1, one line, nothing removed" \
	"1 1 nothing removed" \
	"$rc $(wc -l <<<"$err") $(grep -o 'nothing removed' <<<"$err")"
check "detach: ended within 15 s of the signal" test $((SECONDS - t0)) -lt 20
check "detach: xvdb and its share still there" \
	test "$T_STATE" = "$T_BAD_BASE"
exec 9>&-

phase "clean up"
check "detach xvdb" timeout 300 xvbd -q detach $G xvdb
expect_eq "share unmounted" "" "$(share_mount 127.0.0.1:$dir)"
check_no_vbds $domid
lab-guest stop $G
rm -rf $dir $fdir $udir /scratch/t66-*.img
finish
