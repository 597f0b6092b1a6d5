# xvbd attach with negotiation overrides on a running guest: the guest's blkfront allows order-4 rings and blkback
# offers 4, so a plain hot-attach gets order 4 (its first disk shows it);
# `attach --ring-order 1` pauses the guest around the add, lowers the offer
# at InitWait, unpauses, and the new disk comes up with ring-page-order=1
# (ring-ref0..1).  The guest runs again afterwards also when the add fails
# in the paused window (hotplug script missing) and when xvbd is
# interrupted there.  Bad override values: one error line, non-zero exit,
# nothing changed, guest never paused.
. /lab/lib/testlib.sh
G=t53at
B=51728	# xvdb
C=51744	# xvdc
D=51760	# xvdd
img=/scratch/t53at-a.img
truncate -s 64M $img
rm -f /scratch/t53at-b.img /scratch/t53at-d.img
not() { ! "$@"; }
fe() { xenstore-read "/local/domain/$d/device/vbd/$1/$2" 2>/dev/null; }
has_fe() { xenstore-exists "/local/domain/$d/device/vbd/$1/$2" 2>/dev/null; }
running() {	# not paused: the state column of xl list has no p
	local s
	s=$(xl list $G | awk 'NR == 2 { print $5 }')
	[ -n "$s" ] && [ "${s/p/}" = "$s" ]
}
# dom0's VBD trees and loop devices; 1 when a tool fails (an empty
# answer from a failed xenstore-ls is not "nothing there").
dump() {
	xs_tree /local/domain/0/backend /libxl/$d /local/domain/$d/device &&
		crash_retry losetup -a
}

lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--extra "xen_blkfront.max_ring_page_order=4" --run 'true'
lab-guest wait $G --timeout 300 >/dev/null
check "guest booted" test $? = 0
d=$(xl domid $G)
expect_eq "control: xvda without override uses order 4" 4 \
	"$(fe 51712 ring-page-order)"

# 1. The hot-attach with --ring-order 1.
out=$(xvbd -v attach $G --file /scratch/t53at-b.img --size 32M --vdev xvdb \
	--ring-order 1 2>/tmp/t53at.err)
expect_eq "attach --ring-order 1 exits 0" 0 $?
echo "$out" | sed 's/^/# /'
sed 's/^/# stderr: /' /tmp/t53at.err
check "says it paused the guest" grep -q "domain $G paused" /tmp/t53at.err
check "says it unpaused the guest" grep -q "domain $G unpaused" /tmp/t53at.err
check "reports applied" grep -Eq "^$G +xvdb .* applied$" <<<"$out"
expect_eq "xvdb frontend ring-page-order" 1 "$(fe $B ring-page-order)"
check "xvdb ring-ref0 and ring-ref1" has_fe $B ring-ref1
check "xvdb no ring-ref2 (not order 4)" not has_fe $B ring-ref2
expect_eq "xvdb backend offer lowered to 1" 1 \
	"$(xenstore-read /local/domain/0/backend/vbd/$d/$B/max-ring-page-order)"
check "guest running afterwards" running
json=$(xvbd --json show $G xvdb)
check "show: negotiated ring order 1" \
	jq -e '.negotiated[] | select(.key == "ring-page-order") | .effective == 1' <<<"$json"

# 2. The add fails while the guest is paused: it is unpaused, nothing left.
before=$(dump)
xvbd attach $G --spec "format=raw,vdev=xvdc,access=rw,script=/etc/xen/scripts/no-such-script,target=/scratch/t53at-a.img" \
	--ring-order 1 --timeout 60 >/tmp/t53at.out 2>/tmp/t53at.err
rc=$?
sed 's/^/# stderr: /' /tmp/t53at.err
check "failed attach exits non-zero" test $rc != 0
check "failed attach: paused, then unpaused" \
	grep -q "domain $G unpaused" /tmp/t53at.err
check "guest running after the failed attach" running
check "no xvdc backend left" \
	not xenstore-exists /local/domain/0/backend/vbd/$d/$C
check "no xvdc frontend left" not has_fe $C state

# 3. Interrupted in the paused window (SIGTERM: a background job of a
#    script ignores SIGINT): unpaused, exit 1, says so.
xvbd attach $G --file /scratch/t53at-d.img --size 16M --vdev xvdd \
	--ring-order 0 >/tmp/t53at.out 2>/tmp/t53at.err &
pid=$!
for ((i = 0; i < 3000; i++)); do
	grep -q "paused while" /tmp/t53at.err && break
	sleep 0.05
done
kill -TERM $pid
wait $pid
rc=$?
sed 's/^/# stderr: /' /tmp/t53at.err
expect_eq "interrupted attach exits 1" 1 $rc
check "says it was interrupted, guest running" \
	grep -q "interrupted: domain $G is running" /tmp/t53at.err
check "guest running after the interrupt" running
check "xvdd frontend Connected anyway" wait_for 120 4 fstate $d $D
check "xvdd without ring-page-order (order 0 written)" \
	not has_fe $D ring-page-order
check "detach xvdd" xvbd -q detach $G xvdd
rm -f /scratch/t53at-d.img

# 4. Bad values: refused before anything happens.
max_queues=$(cat /sys/module/xen_blkback/parameters/max_queues)
bad() {
	local what=$1 before after err rc
	shift
	before=$(dump) || fail "$what: dom0 state read before"
	err=$(xvbd -q attach $G --file /scratch/t53at-d.img --size 16M "$@" 2>&1 >/dev/null)
	rc=$?
	after=$(dump) || fail "$what: dom0 state read after"
	echo "# xvbd attach ... $*: $err"
	check "$what: non-zero exit" test $rc != 0
	expect_eq "$what: one error line" 1 "$(printf '%s\n' "$err" | grep -c .)"
	check "$what: names xvbd attach" grep -q '^xvbd: attach: ' <<<"$err"
	check "$what: nothing changed" test "$before" = "$after"
	check "$what: no image created" not test -e /scratch/t53at-d.img
	check "$what: guest running" running
}
bad "--ring-order 5" --ring-order 5
bad "--ring-order -1" --ring-order -1
bad "--ring-order abc" --ring-order abc
bad "--queues 0" --queues 0
bad "--queues above max_queues ($max_queues)" --queues $((max_queues + 1))
bad "--discard maybe" --discard maybe
bad "--indirect-segments 300 (blkback offers 256)" --indirect-segments 300

lab-guest stop $G
rm -f $img /scratch/t53at-b.img /scratch/t53at-d.img /tmp/t53at.*
finish
