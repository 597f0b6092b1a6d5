# A guest whose kernel never gets to init (its ramdisk is garbage) must make
# `lab-guest wait` fail within its timeout with a clear message and the tail
# of the guest's console, not hang.
. /lab/lib/testlib.sh
head -c 65536 /dev/urandom >/tmp/garbage.img
start=$(date +%s)
lab-guest start t30 --ramdisk /tmp/garbage.img --run 'true' >/dev/null 2>&1
lab-guest wait t30 --timeout 90 >/tmp/t30.out 2>/tmp/t30.err
rc=$?
took=$(( $(date +%s) - start ))
sed 's/^/# /' /tmp/t30.err | head -n 8
check "wait fails" test $rc -ne 0
check "within its timeout (${took}s)" test $took -le 100
check "clear message" grep -q 'lab-guest: t30: guest is gone\|lab-guest: t30: no result' /tmp/t30.err
check "console tail shown" grep -q 'last 30 lines of guest console' /tmp/t30.err
# What this failure prints (a 6.1 kernel with a garbage initramfs): the
# unpacker refuses it, then no root file system.  "panic" or "init" alone
# matched almost any console tail.
check "console tail: the initramfs was refused" \
	grep -q 'Initramfs unpacking failed: ' /tmp/t30.err
check "console tail: the kernel's panic for want of a root file system" \
	grep -q 'Kernel panic - not syncing: VFS: Unable to mount root fs' /tmp/t30.err
xl destroy t30 >/dev/null 2>&1
finish
