# Guests are not trusted: from inside a guest
# (its image has the xenstore client), every write to a backend key of its
# own disk (what xvbd writes: overrides, hotplug keys; what libxl and
# blkback write) and to the toolstack's keys is refused by xenstored.
# Then the guest writes hostile values into its own frontend keys (huge
# and negative numbers, control and C1 bytes, a 2000-byte value, a
# "backend" pointing at another domain's device): xvbd list, show and
# stats, text and JSON, still exit 0, print valid JSON, put no raw control
# byte on the terminal, and keep using the toolstack's backend path.
. /lab/lib/testlib.sh
G=t68
img=/scratch/t68.img
rm -f $img
truncate -s 16M $img

# What xvbd writes (overrides, xvbd-block's keys) and what libxl and
# blkback write in the backend directory.
be_keys="max-ring-page-order multi-queue-max-queues feature-max-indirect-segments
discard-enable trusted params mode type script physical-device
physical-device-path node hotplug-status hotplug-error online removable
bootable state dev frontend frontend-id device-type feature-persistent
feature-flush-cache feature-discard sectors sector-size info
direct-io-safe newkey"
script=$(cat <<EOS
id=\$(xenstore-read domid)
be=/local/domain/0/backend/vbd/\$id/51728
fe=/local/domain/\$id/device/vbd/51728
try() { if xenstore-write "\$1" x 2>/dev/null; then echo "WROTE \$1"; else echo "denied \$1"; fi; }
for k in $(echo $be_keys); do try \$be/\$k; done
for p in /libxl/\$id/device/vbd/51728/params /libxl/\$id/device/vbd/51728/backend \
	/libxl/\$id/type /local/domain/\$id/name /local/domain/\$id/vm \
	/local/domain/0/backend/vbd/\$id/51744/params /local/domain/0/name \
	/vm/x /tool/x /local/domain/0/error/backend/vbd/\$id/51728/error; do
	try \$p
done
if xenstore-rm \$be 2>/dev/null; then echo "WROTE rm \$be"; else echo "denied rm \$be"; fi
if xenstore-rm \$be/params 2>/dev/null; then echo "WROTE rm \$be/params"; else echo "denied rm \$be/params"; fi
# xenstored's default entry size quota is 2048 bytes
big=\$(head -c 2000 /dev/zero | tr '\\0' A)
ok=0
fw() { if xenstore-write -- "\$fe/\$1" "\$2"; then ok=\$((ok + 1)); else echo "frontend write \$1 failed"; fi; }
fw ring-ref 99999999999999999999999
fw num-queues -1
fw ring-page-order 4294967296
fw event-channel "\$(printf 'x\033[2J\033]0;pwn\007y')"
fw protocol "\$big"
fw feature-persistent "\$(printf '1\n\2337m\377')"
fw backend /local/domain/0/backend/vbd/0/51712
fw backend-id 7
fw multi-queue-num-queues 18446744073709551617
[ \$ok = 9 ] && echo "hostile values written"
EOS
)
phase "guest with one disk, writing where it must not"
lab-guest start $G --disk "format=raw,vdev=xvdb,access=rw,target=$img" --run "$script"
domid=$(xl domid $G)
check "guest running" test -n "$domid"
gout=$(lab-guest wait $G --timeout 300)
echo "$gout" | grep -v '^denied' | sed 's/^/# guest: /'
n_keys=$(($(wc -w <<<"$be_keys") + 10 + 2))
expect_eq "every write refused ($n_keys tried)" "$n_keys 0" \
	"$(grep -c '^denied' <<<"$gout") $(grep -c '^WROTE' <<<"$gout")"
grep '^WROTE' <<<"$gout" | sed 's/^/# /'
check "the guest wrote its hostile frontend values" grep -q "hostile values written" <<<"$gout"
be=/local/domain/0/backend/vbd/$domid/51728
expect_eq "backend keys unchanged (params, state)" "$img 4" \
	"$(xenstore-read $be/params $be/state | tr '\n' ' ' | sed 's/ $//')"
expect_eq "the guest's backend key is in place" "/local/domain/0/backend/vbd/0/51712" \
	"$(xenstore-read /local/domain/$domid/device/vbd/51728/backend)"

# raw: nothing but printable ASCII, tabs and newlines reaches the terminal
raw() { LC_ALL=C tr -d '\n\t' <<<"$1" | LC_ALL=C grep -q '[^ -~]'; }
phase "list, show, stats with the hostile values"
for cmd in "list $G" "show $G xvdb" "stats $G -d 0.5 -n 2"; do
	out=$(timeout 120 xvbd $cmd 2>/tmp/t68.err)
	rc=$?
	echo "$out" | head -40 | sed "s/^/# $cmd: /"
	sed "s/^/# $cmd stderr: /" /tmp/t68.err
	expect_eq "$cmd: exit 0" 0 $rc
	check "$cmd: no raw control byte on the terminal" \
		eval '! raw "$out$(cat /tmp/t68.err)"'
	out=$(timeout 120 xvbd --json $cmd 2>/tmp/t68.err)
	rc=$?
	expect_eq "$cmd --json: exit 0" 0 $rc
	check "$cmd --json: valid JSON" eval 'jq -e . <<<"$out" >/dev/null'
	check "$cmd --json: no raw control byte" eval '! raw "$out"'
done
out=$(xvbd --json show $G xvdb)
expect_eq "show: the toolstack's backend path, not the guest's key" "$be" \
	"$(jq -r 'if type == "array" then .[0] else . end | .backend_path' <<<"$out")"
expect_eq "list: the disk's target is the backend's params" "$img" \
	"$(xvbd --json list $G | jq -r '.[0].target')"

phase "clean up"
lab-guest stop $G
rm -f $img
finish
