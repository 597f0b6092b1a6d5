# xvbd attach --share smb://: Samba's smbd in dom0 (optional layer), the
# share mounted by xvbd with a 0600 credentials file (never a password in
# the URL or argv), an image created there and attached file-backed to a
# running guest, which sees its size and reads back what it wrote.  Two
# disks on one share reuse one mount; detaching the last unmounts it.
# Meanwhile a batch of two disk specs with vdev=auto gets the first free
# names.  Refused, each with nothing left behind: a read-only share with
# access=rw, smb:// without --credentials, a password in the URL.
. /lab/lib/testlib.sh
G=t62
cred=/run/lab-share/smb.cred
dir=/srv/smb/share/t62
url=smb://127.0.0.1/share/t62
truncate -s 8M /scratch/t62-b1.img /scratch/t62-b2.img

guest_with_share $G smb "$(guest_rw_script xvda xvdb)"
rm -rf $dir
mkdir -p $dir
chown labsmb $dir

phase "attach two images on one share"
out=$(xvbd --json attach $G --share $url/a.img --size 48M --credentials $cred)
echo "# $out"
expect_eq "attach --share smb://: vdev, created, frontend" "xvda true Connected" \
	"$(jq -r '.[0] | "\(.vdev) \(.created) \(.frontend_state)"' <<<"$out")"
mnt=$(share_mount //127.0.0.1/share)
check "share mounted under /run/xvbd/shares" \
	test "${mnt#/run/xvbd/shares/}" != "$mnt"
check "no password on the mount's options" \
	test -z "$(grep -F 'password=' /proc/mounts)"
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
expect_eq "batch of two: first free vdevs, frontends" "xvdc,xvdd Connected" \
	"$(jq -r '"\([.[].vdev] | join(",")) \([.[].frontend_state] | unique | join(","))"' <<<"$out")"

phase "guest write-then-read"
# Every disk is attached by now, so the guest needs seconds; the timeout
# only bounds a run in which an attach failed.
gout=$(lab-guest wait $G --timeout 120)
expect_eq "guest commands succeeded" 0 "$?"
echo "$gout" | sed 's/^/# guest: /'
check_guest_rw "$gout" xvda:98304:$dir/a.img xvdb:32768:$dir/b.img

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
rm -rf $dir /srv/smb/ro/t62.img /scratch/t62-b1.img /scratch/t62-b2.img
finish
