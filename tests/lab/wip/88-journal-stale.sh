# The journal report (every command that connects) against stale or
# hostile-looking entries of dead processes, without a guest:
#   - an ab run that died during xl create noted "guest -1 NAME": a
#     running, unpaused domain of that name (here Domain-0) is not its
#     guest, and no "xl destroy" is named for it;
#   - an xvbd-block that died noted loop N for its backend, and loop N
#     (the same file) is now another backend's published physical-device:
#     not named for "losetup -d";
#   - an attach that died after creating an image on an NFS share whose
#     server then stops answering: `timeout 30 xvbd list` finishes and
#     says the share does not answer; with the server back it names the
#     image with its remedy.
# Journals are written as the commands write them (journal.h), for a pid
# that is gone.
. /lab/lib/testlib.sh
J=/run/xvbd/journal
img=/scratch/t83.img
fake=/local/domain/0/backend/vbd/990/51712
rm -f $img
mkdir -p $J
dead() { sh -c 'echo $$'; }	# a pid no process has now
lacks() { ! grep -q "$1" <<<"$2"; }	# lacks PATTERN TEXT

phase "a name noted before xl create is not a running domain's"
p=$(dead)
printf 'xvbd ab-run 1\n+guest -1 Domain-0\n' >$J/$p.1
out=$(timeout 120 xvbd list 2>&1 >/dev/null)
echo "$out" | sed 's/^/# list: /'
check "Domain-0 (running, not paused) is not named as the dead ab run's guest" \
	lacks 'started by an ab run that died' "$out"
check "no xl destroy named" lacks 'xl destroy' "$out"
rm -f $J/$p.1

phase "a loop device another backend publishes is not named for losetup -d"
truncate -s 8M $img
loop=$(losetup -f --show $img)
nr=${loop#/dev/loop}
set -- $(stat -c '%D %i' $img)
fdev=$((0x$1)) fino=$2
xenstore-write $fake/physical-device "7:$(printf %x $nr)"
p=$(dead)
printf 'xvbd xvbd-block 1\n+loop %u %x:%x:%s /local/domain/0/backend/vbd/991/51712\n' \
	$nr $((fdev >> 8)) $((fdev & 0xff)) $fino >$J/$p.1
out=$(timeout 120 xvbd list 2>&1 >/dev/null)
echo "$out" | sed 's/^/# list: /'
check "loop$nr ($fake's physical-device) is not named for losetup -d" \
	lacks 'losetup -d' "$out"
expect_eq "... and the stale entry forgotten" "" "$(ls $J)"
xenstore-rm $fake
printf 'xvbd xvbd-block 1\n+loop %u %x:%x:%s /local/domain/0/backend/vbd/991/51712\n' \
	$nr $((fdev >> 8)) $((fdev & 0xff)) $fino >$J/$p.1
out=$(timeout 120 xvbd list 2>&1 >/dev/null)
echo "$out" | sed 's/^/# list: /'
check "once no backend publishes it, it is named with its remedy" \
	grep -q "losetup -d /dev/loop$nr" <<<"$out"
losetup -d $loop
rm -f $J/$p.1 $img
xenstore-rm /local/domain/0/backend/vbd/990 2>/dev/null

phase "an image on a share whose server stops answering"
lab-share start nfs >/tmp/t83-nfs.log 2>&1 || { fail "nfs server up"; sed 's/^/# /' /tmp/t83-nfs.log; }
mnt=/run/xvbd/shares/t83
mkdir -p $mnt /srv/nfs/export/t83
mount -t nfs -o hard,nosuid,nodev 127.0.0.1:/srv/nfs/export/t83 $mnt
check "share mounted" mountpoint -q $mnt
truncate -s 1M $mnt/killed.img
set -- $(stat -c '%D %i' $mnt/killed.img)
p=$(dead)
printf 'xvbd attach 1\n+image %x:%s %s\n' $((0x$1)) $2 $mnt/killed.img >$J/$p.1
out=$(timeout 120 xvbd list 2>&1 >/dev/null)
echo "$out" | sed 's/^/# list: /'
check "server up: the image no guest uses is named" \
	grep -q "it created $mnt/killed.img, which no guest uses" <<<"$out"
lab-share stop nfs
dd if=$mnt/killed.img of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &
probe=$!
sleep 5
check "a direct read of the image hangs (the server is really gone)" kill -0 $probe
SECONDS_0=$SECONDS
out=$(timeout 30 xvbd list 2>&1 >/dev/null)
rc=$?
echo "$out" | sed 's/^/# list: /'
echo "# timeout 30 xvbd list: rc=$rc, $((SECONDS - SECONDS_0)) s"
expect_eq "timeout 30 xvbd list finishes" 0 $rc
check "... saying the share does not answer" grep -q "killed.img, on a share that does not answer" <<<"$out"
expect_eq "the journal is kept for a later command" "$p.1" "$(ls $J)"
lab-share start nfs >/dev/null 2>&1
wait $probe
rm -f $mnt/killed.img $J/$p.1
umount $mnt && rmdir $mnt
rm -rf /srv/nfs/export/t83
lab-share stop nfs >/dev/null 2>&1
finish
