# xvbd attach --share smb://: Samba's smbd in dom0 (optional layer), the
# share mounted by xvbd with a 0600 credentials file (never a password in
# the URL, argv or environment of anything xvbd runs, nor in its output or
# records), an image created there and attached file-backed to a
# running guest, which sees its size and reads back what it wrote.  Two
# disks on one share reuse one mount; detaching the last unmounts it.
# Meanwhile a batch of two disk specs with vdev=auto gets the first free
# names, Connected in xenstore, and the guest writes and reads them.
# Refused, each with nothing left behind: a read-only share with
# access=rw, smb:// without --credentials, a password in the URL.
. /lab/lib/testlib.sh
not() { ! "$@"; }
G=t62
cred=/run/lab-share/smb.cred
dir=/srv/smb/share/t62
url=smb://127.0.0.1/share/t62
truncate -s 8M /scratch/t62-b1.img /scratch/t62-b2.img

guest_with_share $G smb "$(guest_rw_script xvda xvdb xvdc xvdd)"
rm -rf $dir
mkdir -p $dir
chown labsmb $dir

phase "attach two images on one share"
# The password must not leak where others can read it: the argv and
# environment of every program xvbd runs (the mount helper's
# /proc/PID/cmdline and environ, readable while it runs: strace records
# each execve with both), xvbd's own output and messages, its records in
# /run/xvbd.  (/proc/mounts never shows a cifs password: checking it
# alone could not fail.)
pass=$(sed -n 's/^password=//p' $cred)
check "the credentials file has a password" test -n "$pass"
# (LeakSanitizer cannot run under ptrace: leaks are checked elsewhere)
ASAN_OPTIONS=detect_leaks=0 strace -f -v -s 4096 -e trace=execve \
	-o /tmp/t62.strace xvbd --json attach $G --share $url/a.img --size 48M --credentials $cred \
	>/tmp/t62.out 2>/tmp/t62.err
expect_eq "attach --share smb:// exit status" 0 $?
out=$(cat /tmp/t62.out)
echo "# $out"
sed 's/^/# stderr: /' /tmp/t62.err
expect_eq "attach --share smb://: vdev, created, frontend" "xvda true Connected" \
	"$(jq -r '.[0] | "\(.vdev) \(.created) \(.frontend_state)"' <<<"$out")"
check "the mount helper ran (seen by strace)" grep -q 'execve(.*mount' /tmp/t62.strace
grep 'execve(.*mount' /tmp/t62.strace | head -n 3 | cut -c1-300 | sed 's/^/# exec: /'
check "no password in any argv or environment xvbd's children had" \
	not grep -qF -- "$pass" /tmp/t62.strace
check "no password in xvbd's output or messages" \
	not grep -qF -- "$pass" /tmp/t62.out /tmp/t62.err
check "no password in xvbd's records under /run/xvbd" \
	not grep -rqF -- "$pass" /run/xvbd
check "no password in /proc/mounts" not grep -qF -- "$pass" /proc/mounts
mnt=$(share_mount //127.0.0.1/share)
check "share mounted under /run/xvbd/shares" \
	test "${mnt#/run/xvbd/shares/}" != "$mnt"
check "image created on the server" test -f $dir/a.img
check "second disk on the same share" \
	xvbd attach $G --share $url/b.img --size 16M --credentials $cred
expect_eq "one mount for both" "$mnt" "$(share_mount //127.0.0.1/share)"
expect_eq "xenbus states (backend/frontend)" "51712=4/4 51728=4/4" \
	"$(vbd_states $domid 51712 51728)"

# --jobs 1: the block hotplug script holds a lock for most of its run, so
# with two adds at once the second script's time counts from the start of
# the first; on a loaded host that crossed libxl's 40 s hotplug timeout.
phase "attach a batch: two disk specs, vdev=auto"
out=$(xvbd --json attach $G --jobs 1 \
	--spec format=raw,vdev=auto,access=rw,target=/scratch/t62-b1.img \
	--spec format=raw,vdev=auto,access=rw,target=/scratch/t62-b2.img)
expect_eq "batch of two: first free vdevs (xvbd's report)" "xvdc,xvdd" \
	"$(jq -r '[.[].vdev] | join(",")' <<<"$out")"
# Connected from xenstore, not from xvbd's own report; the guest writes
# and reads both below.
expect_eq "batch of two: xenbus states in xenstore" "51744=4/4 51760=4/4" \
	"$(vbd_states $domid 51744 51760)"

phase "guest write-then-read"
# Every disk is attached by now, so the guest needs seconds; the timeout
# only bounds a run in which an attach failed.
gout=$(lab-guest wait $G --timeout 120)
expect_eq "guest commands succeeded" 0 "$?"
echo "$gout" | sed 's/^/# guest: /'
check_guest_rw "$gout" xvda:98304:$dir/a.img xvdb:32768:$dir/b.img \
	xvdc:16384:/scratch/t62-b1.img xvdd:16384:/scratch/t62-b2.img

phase "bad input"
truncate -s 8M /srv/smb/ro/t62.img
bad_input_setup $domid $dir /srv/smb/ro /run/xvbd/shares
bad_input "read-only share with access=rw" 1 "not writable" \
	attach $G --share smb://127.0.0.1/ro/t62.img --credentials $cred
bad_input "smb:// without --credentials" 2 "--credentials" \
	attach $G --share $url/c.img --size 8M
bad_input "password in an smb URL" 2 "credentials" \
	attach $G --share smb://user:pass@127.0.0.1/share/t62/c.img --credentials $cred

phase "detach"
check "detach --force xvdc" xvbd -q detach --force $G xvdc
check "detach xvdd" xvbd -q detach $G xvdd
check "detach xvda" xvbd -q detach $G xvda
expect_eq "share still mounted for xvdb" "$mnt" "$(share_mount //127.0.0.1/share)"
check "detach xvdb" xvbd -q detach $G xvdb
expect_eq "share unmounted after the last detach" "" "$(share_mount //127.0.0.1/share)"
check "mount directory removed" test ! -e "$mnt"
check_no_vbds $domid

phase "clean up"
lab-guest stop $G
rm -rf $dir /srv/smb/ro/t62.img /scratch/t62-b1.img /scratch/t62-b2.img \
	/tmp/t62.strace /tmp/t62.out /tmp/t62.err
finish
