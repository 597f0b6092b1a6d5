# dom0 is up: Xen 4.17 answers through xl, xenstored answers.
. /lab/lib/testlib.sh
info=$(xl info)
expect_eq "xl info: xen_major" 4 "$(echo "$info" | awk -F': ' '/^xen_major/ {print $2}')"
expect_eq "xl info: xen_minor" 17 "$(echo "$info" | awk -F': ' '/^xen_minor/ {print $2}')"
expect_eq "xenstored answers: dom0's name" Domain-0 "$(xenstore-read /local/domain/0/name)"
check "xl list shows Domain-0" sh -c 'xl list | grep -q "^Domain-0 *0 "'
check "blkback loaded" test -d /sys/module/xen_blkback
check "scratch disk mounted" sh -c 'grep -q " /scratch " /proc/mounts'
check "spare disk partitions" test -b /dev/vdb1 -a -b /dev/vdb2
# The lab has no path off the machine: no network interface but lo, and
# no network controller on dom0's PCI bus (QEMU started with -nic none).
ifaces=$(ls /sys/class/net)
check "sysfs lists network interfaces" test -n "$ifaces"
expect_eq "no network interface but lo" lo "$(echo $ifaces)"
nics=$(grep -l '^0x02' /sys/bus/pci/devices/*/class 2>/dev/null | wc -l)
expect_eq "no network controller (PCI class 02) on the bus" 0 "$nics"
finish
