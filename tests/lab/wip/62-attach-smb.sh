# xvbd attach --share smb://: Samba's smbd in dom0 (optional layer), the
# share mounted by xvbd with a 0600 credentials file (never a password in
# the URL or argv), an image created there and attached file-backed to a
# running guest, which sees its size and reads back what it wrote.  Two
# disks on one share reuse one mount; detaching the last unmounts it.  A
# read-only share refuses access=rw with nothing left behind.
. /lab/lib/testlib.sh
G=t62
cred=/run/lab-share/smb.cred
lab-share start smb >/tmp/t62-smb.log 2>&1 &
smb_pid=$!
lab-guest start $G --run '
i=0
for d in xvda xvdb; do
	while [ ! -b /dev/$d ] && [ $i -lt 3000 ]; do sleep 0.2; i=$((i + 1)); done
done
for d in xvda xvdb; do
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
wait $smb_pid
check "smb server up" lab-share status smb || cat /tmp/t62-smb.log
mkdir -p /srv/smb/share/t62
chown labsmb /srv/smb/share/t62
rm -f /srv/smb/share/t62/*.img

out=$(xvbd --json attach $G --share smb://127.0.0.1/share/t62/a.img --size 48M \
	--credentials $cred)
echo "# $out"
check "attach --share smb:// (xvda, created)" \
	sh -c "echo '$out' | jq -e '.[0].vdev == \"xvda\" and .[0].created and .[0].frontend_state == \"Connected\"'"
mnt=$(awk '$1 == "//127.0.0.1/share" {print $2}' /proc/mounts)
check "share mounted under /run/xvbd/shares" \
	sh -c "case '$mnt' in /run/xvbd/shares/*) true;; *) false;; esac"
check "no password on the mount's options" sh -c "! grep -q 'password=' /proc/mounts"
check "image created on the server" test -f /srv/smb/share/t62/a.img
check "second disk on the same share" \
	xvbd attach $G --share smb://127.0.0.1/share/t62/b.img --size 16M --credentials $cred
expect_eq "one mount for both" 1 "$(grep -c ' //127.0.0.1/share \| cifs ' /proc/mounts)"

gout=$(lab-guest wait $G --timeout 300)
expect_eq "guest commands succeeded" 0 "$?"
echo "$gout" | sed 's/^/# guest: /'
expect_eq "guest: xvda is 48 MiB" "size xvda 98304" "$(echo "$gout" | grep '^size xvda')"
expect_eq "guest: xvdb is 16 MiB" "size xvdb 32768" "$(echo "$gout" | grep '^size xvdb')"
for pair in xvda:a xvdb:b; do
	d=${pair%%:*} f=/srv/smb/share/t62/${pair#*:}.img
	g=$(echo "$gout" | sed -n "s/^md5 $d //p")
	check "$d: guest write-then-read ok" test -n "$g"
	expect_eq "$d: guest's data on the server" "$g" \
		"$(dd if=$f bs=64k skip=16 count=16 2>/dev/null | md5sum | cut -d' ' -f1)"
done

# Read-only share, access=rw: refused, nothing mounted or created.
truncate -s 8M /srv/smb/ro/t62.img
mounts0=$(grep -c cifs /proc/mounts)
err=$(xvbd -q attach $G --share smb://127.0.0.1/ro/t62.img --credentials $cred 2>&1)
rc=$?
echo "# $err"
check "read-only share with access=rw refused" test $rc -ne 0
expect_eq "one error line" 1 "$(echo "$err" | wc -l)"
expect_eq "no new mount" "$mounts0" "$(grep -c cifs /proc/mounts)"
err=$(xvbd -q attach $G --share smb://127.0.0.1/share/t62/c.img --size 8M 2>&1)
check "smb without --credentials refused" test $? = 2
check "no c.img created" test ! -e /srv/smb/share/t62/c.img

check "detach xvda" xvbd detach $G xvda
check "share still mounted for xvdb" grep -q " $mnt " /proc/mounts
check "detach xvdb" xvbd detach $G xvdb
check "share unmounted after the last detach" sh -c "! grep -q ' $mnt ' /proc/mounts"
check "no backend directories left" \
	sh -c "! xenstore-exists /local/domain/0/backend/vbd/$domid"
expect_eq "no loop device left" "" "$(losetup -a)"
lab-guest stop $G
rm -rf /srv/smb/share/t62 /srv/smb/ro/t62.img
finish
