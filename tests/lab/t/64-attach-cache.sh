# xvbd attach --cache host|none.
# A running guest reads the same 64 MiB of a file-backed disk twice with
# O_DIRECT (its own cache out of the way), dom0's caches dropped before
# the first read; the read-sector count of the disk under /scratch
# (/sys/dev/block/M:m/stat) is sampled before, between and after:
#  - host: the first read reaches the disk (>= 64 MiB), the second is
#    served by dom0's page cache (< 1 MiB more);
#  - none: both reads reach the disk (>= 64 MiB each).
# xvbd list (text and JSON) and show report the mode, and it matches the
# loop device's own /sys/block/loopN/loop/dio; a partition reads n/a.
# Refused, with dom0 unchanged: --cache with --phy, an image on tmpfs (no
# O_DIRECT), also one this call would have created; xvbd-block-direct
# itself refuses a tmpfs file that xl block-attach hands it, and frees its
# loop device.  -N shows the mode.  (Bad values and the other refusals are
# tests/cli.sh's and test_cache's: every xvbd call costs seconds here.)
#
# The guest takes its reads from dom0 over its console: dom0 writes
# "read VDEV TAG" into the console's pty, the guest answers "DONE TAG RC".
. /lab/lib/testlib.sh
G=t64
B=51728	# xvdb: --cache host
C=51744	# xvdc: --cache none
host_img=/scratch/t64-host.img
none_img=/scratch/t64-none.img
shm_img=/dev/shm/t64.img
MIB64_SECTORS=131072
direct=/etc/xen/scripts/xvbd-block-direct
be() { xenstore-read "/local/domain/0/backend/vbd/$domid/$1/$2" 2>/dev/null; }
conlog=/var/log/xen/console/guest-$G.log

# A guest left over from an interrupted run would keep the name taken.
[ -n "$(xl domid $G 2>/dev/null)" ] && lab-guest stop $G >/dev/null 2>&1
rm -f /scratch/t64-*.img $shm_img /dev/shm/t64-*.img
# Written, not sparse: a hole is read without touching the disk.
for img in $host_img $none_img; do
	dd if=/dev/zero of=$img bs=1M count=64 conv=fsync status=none
done
truncate -s 8M $shm_img

# The disk under /scratch, whose read count must show dom0's cache.
devnum=$(stat -c '%Hd:%Ld' $host_img)
stat_file=/sys/dev/block/$devnum/stat
disk=$(basename "$(readlink -f /sys/dev/block/$devnum)")
echo "# /scratch is on $disk ($devnum)"
check "the disk under /scratch has a stat file" test -r $stat_file
rd_sectors() { local s; read -r -a s <$stat_file; echo "${s[2]}"; }

phase "guest with a partition, reads on request"
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=/dev/vdb1" \
	--run '
while read -r op dev tag; do
	case $op in
	read)
		i=0
		while [ ! -b /dev/$dev ] && [ $i -lt 600 ]; do
			sleep 1; i=$((i + 1))
		done
		dd if=/dev/$dev of=/dev/null bs=1M count=64 iflag=direct 2>/dev/null
		echo "DONE $tag $?" ;;
	quit) break ;;
	esac
done' >/dev/null
domid=$(xl domid $G)
check "guest running" test -n "$domid"
tty=$(xenstore-read /local/domain/$domid/console/tty)
check "guest console pty $tty" test -c "$tty"

# guest_read VDEV TAG: the guest reads 64 MiB of VDEV; 0 when it answered
# with dd's success.
guest_read() {
	local i
	printf 'read %s %s\n' "$1" "$2" >"$tty"
	for ((i = 0; i < 1500; i++)); do
		if grep -q "^DONE $2 " $conlog; then
			grep -q "^DONE $2 0" $conlog
			return
		fi
		sleep 0.2
	done
	return 1
}

# While the guest boots: what needs no blkfront.
phase "bad input"
check "xvbd-block-direct installed" test -x $direct
bad_input_setup $domid /scratch /dev/shm
err=$(xvbd -q attach $G --phy /dev/vdb2 --cache none 2>&1 >/dev/null)
expect_eq "--cache with --phy: usage error" \
	"2 xvbd: attach: --size, --prealloc and --cache are for image files, not --phy" \
	"$? ${err%%$'\n'*}"
bad_input "--cache none on tmpfs" 1 "cannot do direct I/O" \
	attach $G --file $shm_img --cache none
bad_input "--cache none, new image on tmpfs (removed again)" 1 \
	"cannot do direct I/O" attach $G --file /dev/shm/t64-new.img --size 8M \
	--cache none

phase "-N plans"
out=$(xvbd -N --json attach $G --file $none_img --cache none)
expect_eq "-N --cache none: script and mode" "0 $direct none" \
	"$? $(jq -r '.[0] | "\(.script) \(.cache)"' <<<"$out")"
out=$(xvbd -N --json attach $G --file $host_img)
expect_eq "-N default: xvbd-block, host" "0 /etc/xen/scripts/xvbd-block host" \
	"$? $(jq -r '.[0] | "\(.script) \(.cache)"' <<<"$out")"

check "guest booted" wait_for 300 1 sh -c "grep -c '^LAB-GUEST-BEGIN' $conlog"

# xvbd-block-direct's own check, without xvbd's: the loop it bound has no
# direct I/O on tmpfs, so it frees it and fails the hotplug.  (libxl
# leaves the failed device in xenstore: xl block-detach removes it.)
xl block-attach $G "format=raw,vdev=xvdd,access=rw,script=$direct,target=$shm_img" \
	>/tmp/t64.xl 2>&1
rc=$?
sed 's/^/# xl: /' /tmp/t64.xl
check "xl block-attach via xvbd-block-direct on tmpfs fails" test $rc != 0
check "xvbd-block-direct says why" grep -q "Direct I/O is not available for $shm_img" /tmp/t64.xl
expect_eq "no loop device for the tmpfs file" "" "$(losetup -n -O NAME -j $shm_img)"
xl block-detach $G xvdd >/dev/null 2>&1
dom0_state "${T_BAD_ARGS[@]}"
expect_eq "dom0 as before the bad input, after xl block-detach" "$T_BAD_BASE" "$T_STATE"

# one_mode MODE VDEV DEVID IMG: attach, check what xvbd reports against
# the loop device, then the two reads; sets s0 s1 s2.
one_mode() {
	local mode=$1 vdev=$2 devid=$3 img=$4 node loop dio want json
	phase "--cache $mode"
	check "attach --cache $mode" xvbd -q attach $G --file $img --vdev $vdev \
		--cache $mode
	node=$(be $devid node)
	loop=${node#/dev/}
	dio=$(cat /sys/block/$loop/loop/dio 2>/dev/null)
	want=$([ "$mode" = none ] && echo 1 || echo 0)
	echo "# $vdev: $node, loop/dio $dio, script $(be $devid script)"
	expect_eq "$mode: the loop's dio attribute" "$want" "$dio"
	# Text for one mode, JSON for the other: each call costs seconds.
	if [ "$mode" = host ]; then
		expect_eq "$mode: xvbd list (text) CACHE column" "$mode" \
			"$(xvbd list $G | awk -v v=$vdev 'NR == 1 {
				for (i = 1; i <= NF; i++) if ($i == "CACHE") c = i
				next } $3 == v { print $c }')"
		expect_eq "$mode: xvbd show" "$mode" \
			"$(xvbd show $G $vdev | awk '$1 == "dom0_cache:" { print $2 }')"
	else
		json=$(xvbd --json list $G)
		expect_eq "$mode: xvbd list --json dom0_cache" "$mode" \
			"$(jq -r ".[] | select(.vdev == \"$vdev\") | .dom0_cache" <<<"$json")"
		expect_eq "the partition reads n/a" "n/a" \
			"$(jq -r '.[] | select(.vdev == "xvda") | .dom0_cache' <<<"$json")"
		expect_eq "$mode: xvbd show --json" "$mode" \
			"$(xvbd --json show $G $vdev | jq -r .dom0_cache)"
	fi

	sync
	echo 3 >/proc/sys/vm/drop_caches
	s0=$(rd_sectors)
	check "$mode: guest's first read" guest_read $vdev $mode-1
	s1=$(rd_sectors)
	check "$mode: guest's second read" guest_read $vdev $mode-2
	s2=$(rd_sectors)
	echo "# $mode: $disk read sectors $s0 -> $s1 -> $s2:" \
		"first read +$((s1 - s0)), second +$((s2 - s1))"
	check "$mode: the first read reached $disk (+$((s1 - s0)) >= $MIB64_SECTORS)" \
		test $((s1 - s0)) -ge $MIB64_SECTORS
}

one_mode host xvdb $B $host_img
check "host: dom0's page cache served the second read (+$((s2 - s1)) < 2048 sectors)" \
	test $((s2 - s1)) -lt 2048
one_mode none xvdc $C $none_img
check "none: the second read reached $disk too (+$((s2 - s1)) >= $MIB64_SECTORS)" \
	test $((s2 - s1)) -ge $MIB64_SECTORS

phase "detach"
check "detach xvdb" xvbd -q detach $G xvdb
check "detach xvdc" xvbd -q detach $G xvdc
expect_eq "no loop device left" "" "$(loop_devices)"
printf 'quit\n' >"$tty"
lab-guest stop $G
rm -f /scratch/t64-*.img $shm_img /dev/shm/t64-*.img /tmp/t64.*
finish
