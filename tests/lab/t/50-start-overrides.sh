# xvbd start: per-VBD overrides written in the paused window, verified.
#
# Both guests allow order-4 rings themselves (xen_blkfront.max_ring_page_order=4
# on their command line) and blkback offers order 4 and 256 segments, so
# without an override the frontend would choose order 4 (lab notes, run b).
#   t50: xvda ring-order=2,indirect-segments=64 (guest allows 128 segments)
#        -> ring-page-order=2, ring-ref0..3, guest max_segments 64
#   t51: xvda ring-order=0,discard-enable=0,indirect-segments=64 --guest-limits
#        (guest keeps blkfront's 32-segment default)
#        -> a single ring-ref, no feature-discard, the guest's command line
#           gains max_indirect_segments=64 and max_segments is 64, not 32
# One disk per guest: under load the block hotplug script of a second file
# disk can run past libxl's timeout.
. /lab/lib/testlib.sh
A=51712	# xvda
truncate -s 64M /scratch/t50.img
truncate -s 64M /scratch/t51.img
fe() { xenstore-read "/local/domain/$1/device/vbd/$A/$2" 2>/dev/null; }
be() { xenstore-read "/local/domain/0/backend/vbd/$1/$A/$2" 2>/dev/null; }
has_fe() { xenstore-exists "/local/domain/$1/device/vbd/$A/$2" 2>/dev/null; }
not() { ! "$@"; }
domain_exists() { xl domid "$1" >/dev/null 2>&1; }
q='cat /proc/cmdline; cat /sys/block/xvda/queue/max_segments; cat /sys/block/xvda/queue/discard_max_bytes'

cfg=$(lab-guest prepare t50 \
	--disk "format=raw,vdev=xvda,access=rw,target=/scratch/t50.img" \
	--extra "xen_blkfront.max_ring_page_order=4 xen_blkfront.max_indirect_segments=128" \
	--run "$q")
out=$(xvbd -v start "$cfg" --timeout 600 \
	--vbd xvda:ring-order=2,indirect-segments=64)
expect_eq "t50: start exits 0" 0 $?
echo "$out" | sed 's/^/# /'
check "t50: start reports applied" grep -qx 'result: applied' <<<"$out"
check "t50: ring-order row: value 2, blkback's 4 before, chosen 2, applied" \
	grep -Eq '^ +xvda +ring-order +max-ring-page-order +2 +4 +2 +applied' <<<"$out"
d=$(xl domid t50)
expect_eq "t50: frontend ring-page-order" 2 "$(fe "$d" ring-page-order)"
check "t50: ring-ref0..3 published" has_fe "$d" ring-ref3
check "t50: no ring-ref4 (not order 4)" not has_fe "$d" ring-ref4
expect_eq "t50: backend offers 64 indirect segments" 64 \
	"$(be "$d" feature-max-indirect-segments)"
g=$(lab-guest wait t50 --timeout 300)
expect_eq "t50: guest commands" 0 $?
echo "$g" | sed 's/^/# guest: /'
expect_eq "t50: guest max_segments (own limit 128)" 64 "$(sed -n 2p <<<"$g")"
lab-guest stop t50

cfg=$(lab-guest prepare t51 \
	--disk "format=raw,vdev=xvda,access=rw,target=/scratch/t51.img" \
	--extra "xen_blkfront.max_ring_page_order=4" --run "$q")
vbd=xvda:ring-order=0,discard-enable=0,indirect-segments=64
plan=$(xvbd -N start "$cfg" --vbd $vbd --guest-limits)
echo "$plan" | sed 's/^/# -N: /'
check "-N shows the new extra=" \
	grep -q 'extra: .*max_ring_page_order=4 xen_blkfront.max_indirect_segments=64$' <<<"$plan"
check "-N lists the discard-enable write" \
	grep -Eq 'xvda +<backend of xvda>/discard-enable +0' <<<"$plan"
check "-N created nothing" not domain_exists t51
out=$(xvbd -v start "$cfg" --timeout 600 --vbd $vbd --guest-limits)
expect_eq "t51: start --guest-limits exits 0" 0 $?
echo "$out" | sed 's/^/# /'
check "t51: start reports applied" grep -qx 'result: applied' <<<"$out"
d=$(xl domid t51)
check "t51: a single ring-ref" has_fe "$d" ring-ref
check "t51: no ring-page-order" not has_fe "$d" ring-page-order
expect_eq "t51: discard-enable" 0 "$(be "$d" discard-enable)"
check "t51: feature-discard hidden" test "$(be "$d" feature-discard)" != 1
g=$(lab-guest wait t51 --timeout 300)
expect_eq "t51: guest commands" 0 $?
echo "$g" | sed 's/^/# guest: /'
check "t51: guest command line got xen_blkfront.max_indirect_segments=64" \
	grep -q 'xen_blkfront.max_indirect_segments=64' <<<"$g"
expect_eq "t51: guest max_segments (blkfront default 32)" 64 "$(sed -n 2p <<<"$g")"
expect_eq "t51: guest discard_max_bytes" 0 "$(sed -n 3p <<<"$g")"
check "t51: the config file itself is unchanged" \
	not grep -q max_indirect_segments "$cfg"
lab-guest stop t51
rm -f /scratch/t50.img /scratch/t51.img
finish
