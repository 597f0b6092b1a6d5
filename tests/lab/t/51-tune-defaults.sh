# xvbd tune and xvbd defaults, and every bad input of start/tune/defaults:
# a one-line error (with -q), a non-zero exit, and xenstore unchanged.
#
# Guest t52 is created paused (backend InitWait): `tune ring-order=1` is
# accepted in that window and the frontend then chooses order 1 although it
# allows 4.  Once Connected, negotiated keys are refused and a
# toolstack-owned key (discard-enable) is written.  With the guest gone,
# `defaults --reload max_ring_page_order=1` lowers blkback's offer and
# `start` refuses a ring order above it; the value is restored to 4.
. /lab/lib/testlib.sh
A=51712
img=/scratch/t52.img
truncate -s 64M $img
mp=/sys/module/xen_blkback/parameters
not() { ! "$@"; }
domain_exists() { xl domid "$1" >/dev/null 2>&1; }
# dom0's state a refused command must leave alone; 1 when a tool fails
# (a failed xenstore-ls printed nothing and passed before).
dump() {
	local l
	xs_tree /local/domain/0/backend /libxl || return 1
	if [ -n "${d:-}" ]; then xs_tree /local/domain/$d/device || return 1; fi
	l=$(crash_retry xl list) || return 1
	awk 'NR > 1 { print $1 }' <<<"$l"
	cat $mp/max_ring_page_order $mp/max_buffer_pages
}
# bad EXIT WHAT xvbd-args...: exit status, one stderr line, nothing changed
bad() {
	local want=$1 what=$2 before after err rc
	shift 2
	before=$(dump) || fail "$what: dom0 state read before"
	err=$(xvbd -q "$@" 2>&1 >/dev/null)
	rc=$?
	after=$(dump) || fail "$what: dom0 state read after"
	echo "# xvbd $*: $err"
	expect_eq "$what: exit $want" "$want" "$rc"
	expect_eq "$what: one error line" 1 "$(printf '%s\n' "$err" | grep -c .)"
	check "$what: nothing changed" test "$before" = "$after"
}
restore_order() {
	[ "$(cat $mp/max_ring_page_order)" = 4 ] ||
		xvbd defaults --reload max_ring_page_order=4 >/dev/null
}
trap restore_order EXIT

cfg=$(lab-guest prepare t52 --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--extra "xen_blkfront.max_ring_page_order=4" --run 'true')
bad 2 "start ring-order=5" start "$cfg" --vbd xvda:ring-order=5
bad 2 "start ring-order=-1" start "$cfg" --vbd xvda:ring-order=-1
bad 2 "start ring-order=abc" start "$cfg" --vbd xvda:ring-order=abc
bad 2 "start queues=0" start "$cfg" --vbd xvda:queues=0
bad 1 "start queues above max_queues" start "$cfg" \
	--vbd xvda:queues=$(($(cat $mp/max_queues) + 1))
bad 1 "start indirect-segments above blkback's 256" start "$cfg" \
	--vbd xvda:indirect-segments=257
bad 2 "start unknown key" start "$cfg" --vbd xvda:colour=blue
bad 2 "start persistent (dom0-wide only)" start "$cfg" --vbd xvda:persistent=0
bad 2 "start a vdev the config lacks" start "$cfg" --vbd xvdq:ring-order=1
bad 2 "start xvda twice" start "$cfg" --vbd xvda:ring-order=1 --vbd xvda:queues=1
bad 1 "tune: domain not running" tune t52 xvda discard=0
bad 2 "defaults: unknown parameter" defaults no_such_param=1
bad 2 "defaults: bad value" defaults max_ring_page_order=9
bad 1 "defaults: read-only without --reload/--persist" \
	defaults max_ring_page_order=2

# The memory warning (dry run: nothing is created).  Order 4 with 128
# segments pins 512 x 129 pages = 258 MiB: it hung a 256 MiB guest.
small=$(lab-guest prepare t52w --mem 256 --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--extra "xen_blkfront.max_ring_page_order=4 xen_blkfront.max_indirect_segments=128")
err=$(xvbd -N start "$small" --vbd xvda:queues=1 2>&1 >/dev/null)
echo "# $err"
check "warns: order 4 + 128 segments in a 256 MiB guest" \
	grep -q 'warning: xvda: rings need about 258 MiB of the guest.s 256 MiB' <<<"$err"
err=$(xvbd -N start "$small" --vbd xvda:ring-order=1 2>&1 >/dev/null)
expect_eq "no warning for order 1 (33 MiB)" "" "$err"

# The paused window: tune a negotiated key before blkfront reads it.
lab-guest start t52 --paused --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--extra "xen_blkfront.max_ring_page_order=4" --run 'true'
d=$(xl domid t52)
check "t52 backend InitWait while paused" wait_for 120 2 bstate "$d" $A
bad 2 "tune ring-order=5 (paused)" tune t52 xvda ring-order=5
plan=$(xvbd -N tune t52 xvda ring-order=1)
check "-N tune prints the write" grep -Eq \
	"xvda +/local/domain/0/backend/vbd/$d/$A/max-ring-page-order +1" <<<"$plan"
expect_eq "-N tune wrote nothing" 4 \
	"$(xenstore-read /local/domain/0/backend/vbd/$d/$A/max-ring-page-order)"
out=$(xvbd tune t52 xvda ring-order=1)
expect_eq "tune ring-order=1 while paused: exit 0" 0 $?
echo "$out" | sed 's/^/# /'
check "tune reports written" grep -Eq '^ +xvda +ring-order .* written ' <<<"$out"
xl unpause t52
check "t52 frontend Connected" wait_for 300 4 fstate "$d" $A
expect_eq "t52 frontend chose ring-page-order 1 (allows 4)" 1 \
	"$(xenstore-read /local/domain/$d/device/vbd/$A/ring-page-order)"

# Connected: negotiated keys refused, toolstack keys written.
bad 1 "tune ring-order on a Connected device" tune t52 xvda ring-order=0
bad 1 "tune queues on a Connected device" tune t52 xvda queues=1
bad 2 "tune persistent" tune t52 xvda persistent=0
bad 2 "tune unknown key" tune t52 xvda colour=blue
bad 2 "tune bad vdev" tune t52 xvd1 discard=0
bad 1 "tune a disk the guest lacks" tune t52 xvdb discard=0
bad 1 "start: a domain of that name runs" start "$cfg" --vbd xvda:ring-order=1
bad 1 "defaults --reload with a VBD attached" \
	defaults --reload max_ring_page_order=1
err=$(xvbd defaults --reload max_ring_page_order=1 2>&1 >/dev/null)
check "--reload names the attached device" grep -q "t52 ($d) xvda" <<<"$err"
out=$(xvbd tune t52 xvda discard=0)
expect_eq "tune discard=0 on a Connected device: exit 0" 0 $?
echo "$out" | sed 's/^/# /'
expect_eq "discard-enable written" 0 \
	"$(xenstore-read /local/domain/0/backend/vbd/$d/$A/discard-enable)"
check "tune says when it takes effect" grep -q 'next connects' <<<"$out"
lab-guest stop t52
d=

# defaults: runtime write, --persist, --reload and start against it.
out=$(xvbd defaults)
check "defaults lists max_ring_page_order as reload-only" \
	grep -Eq '^ +max_ring_page_order +4 +reload or reboot' <<<"$out"
old=$(cat $mp/max_buffer_pages)
check "defaults max_buffer_pages=512" xvbd defaults max_buffer_pages=512
expect_eq "max_buffer_pages now" 512 "$(cat $mp/max_buffer_pages)"
xvbd defaults max_buffer_pages=$old >/dev/null
out=$(xvbd defaults --persist max_ring_page_order=3)
expect_eq "--persist exit" 0 $?
check "--persist wrote the modprobe.d line" grep -qx \
	'options xen_blkback max_ring_page_order=3' /etc/modprobe.d/xvbd-xen_blkback.conf
check "--persist says the next load" grep -q 'reboot' <<<"$out"
expect_eq "--persist left the running value" 4 "$(cat $mp/max_ring_page_order)"
rm -f /etc/modprobe.d/xvbd-xen_blkback.conf
for ((i = 0; i < 150; i++)); do
	ls /sys/bus/xen-backend/drivers/vbd | grep -q '^vbd-' || break
	sleep 0.2
done
check "-N defaults --reload" xvbd -N defaults --reload max_ring_page_order=1
expect_eq "-N reloaded nothing" 4 "$(cat $mp/max_ring_page_order)"
out=$(xvbd defaults --reload max_ring_page_order=1)
expect_eq "defaults --reload max_ring_page_order=1: exit 0" 0 $?
echo "$out" | sed 's/^/# /'
expect_eq "blkback max_ring_page_order now" 1 "$(cat $mp/max_ring_page_order)"
expect_eq "other values carried over the reload" "$old" "$(cat $mp/max_buffer_pages)"
bad 1 "start ring-order above the module's max" start "$cfg" --vbd xvda:ring-order=2
err=$(xvbd start "$cfg" --vbd xvda:ring-order=2 2>&1)
check "the error names xen_blkback.max_ring_page_order" \
	grep -q 'xen_blkback.max_ring_page_order' <<<"$err"
check "defaults --reload max_ring_page_order=4" \
	xvbd defaults --reload max_ring_page_order=4
expect_eq "blkback max_ring_page_order restored" 4 "$(cat $mp/max_ring_page_order)"
rm -f $img
finish
