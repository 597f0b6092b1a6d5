# lab-timeout: 900
# Concurrent attaches to one guest.  Each round starts
# two `xvbd attach G --file` of two different images at once: afterwards
# either both disks are there and Connected with distinct vdevs, or one
# attach succeeded and the other exited 1 with one line and left nothing
# (no backend directory, no loop device on its image); never both failed.
# Checked against xenstore (backend and frontend), the loop devices and
# the guest's own /sys/block.  Then xvbd attach racing `xl block-attach`
# of another image at the vdev xvbd picks (xvdb): the xl disk survives.
# Before the fix both attaches picked xvdb and the loser's cleanup removed
# the winner's disk (3 of 3 rounds: both failed, loops left bound).
# Then two tunes of one device at once: one after the other, never mixed.
# lab-tier: all
. /lab/lib/testlib.sh
G=t73
rounds=3
rm -f /scratch/t73-*.img

# The guest prints its block devices whenever they change (and once at
# the start, none yet): its own view.
lab-guest start $G --run 'old=none; while :; do b=$(ls /sys/block | grep "^xvd" | tr "\n" " "); [ "$b" = "$old" ] || echo "blocks: [$b]"; old=$b; sleep 1; done'
domid=$(xl domid $G)
check "guest running" test -n "$domid"
check "guest reports its block devices" \
	wait_for 300 yes sh -c "lab-guest console $G | grep -q '^blocks: ' && echo yes"

# guest_blocks: the guest's latest "blocks: [...]" line.
guest_blocks() { lab-guest console $G | grep '^blocks: ' | tail -n 1; }

# be_of FILE: the backend devid whose params is FILE (xenstore), or "".
be_of() {
	local d
	for d in $(xs_list /local/domain/0/backend/vbd/$domid); do
		[ "$(xenstore-read /local/domain/0/backend/vbd/$domid/$d/params 2>/dev/null)" = "$1" ] &&
			{ echo "$d"; return; }
	done
}

# vdev_of DEVID: xvdb for 51728 (xvd, 16 minors a disk).
vdev_of() { printf 'xvd%b' "\\$(printf '%03o' $((97 + ($1 - 51712) / 16)))"; }

# one_line ERR: one line that starts "xvbd: attach: ".
one_line() { [[ $1 == "xvbd: attach: "* && $1 != *$'\n'* ]]; }

# check_outcome WHAT RC_A ERR_A FILE_A RC_B ERR_B FILE_B: see the top.
# Sets attached (the vdevs of the disks that are there).
check_outcome() {
	local what=$1 i rc err f d n=0 vdevs= want loops lo back ok_f
	shift
	attached=
	for i in 0 1; do
		rc=${1}; err=${2}; f=${3}; shift 3
		d=$(be_of "$f")
		if [ "$rc" = 0 ]; then
			n=$((n + 1))
			if [ -n "$d" ]; then
				expect_eq "$what: $f: backend and frontend Connected" \
					"$d=4/4" "$(vbd_states $domid $d)"
				expect_eq "$what: $f: one loop device" 1 \
					"$(losetup_of "$f" | wc -l)"
				attached+=" $(vdev_of $d)"
			else
				fail "$what: $f: attach exited 0 but no backend has it"
			fi
		else
			expect_eq "$what: $f: the failed attach exited 1" 1 "$rc"
			check "$what: $f: one line 'xvbd: attach: ...' ($err)" \
				one_line "$err"
			expect_eq "$what: $f: no backend left" "" "$d"
			expect_eq "$what: $f: no loop device left" "" "$(losetup_of "$f")"
		fi
	done
	check "$what: not both failed" test $n -gt 0
	# The guest sees exactly the attached disks (it polls once a second).
	want="blocks: [$(for d in $attached; do echo $d; done | sort | tr '\n' ' ')]"
	wait_for 60 "$want" guest_blocks
	expect_eq "$what: the guest's /sys/block" "$want" "$(guest_blocks)"
	# No loop device bound to an image that no backend has.
	while read -r lo back; do
		[ -n "$lo" ] || continue
		ok_f=$(be_of "${back% (deleted)}")
		[ -n "$ok_f" ] || fail "$what: $lo bound to $back, which is not attached"
	done <<<"$(loop_devices)"
}

# detach_all: detach what the round left, check nothing remains.
detach_all() {
	local v
	for v in $attached; do
		timeout 300 xvbd -q detach $G $v || fail "detach $v"
	done
	check_no_vbds $domid
}

for r in $(seq 1 $rounds); do
	phase "round $r: two xvbd attach --file at once"
	a=/scratch/t73-$r-a.img b=/scratch/t73-$r-b.img
	truncate -s 16M $a $b
	timeout 300 xvbd -q attach $G --file $a 2>/tmp/t73-a.err &
	pa=$!
	timeout 300 xvbd -q attach $G --file $b 2>/tmp/t73-b.err &
	pb=$!
	wait $pa; ra=$?
	wait $pb; rb=$?
	ea=$(cat /tmp/t73-a.err) eb=$(cat /tmp/t73-b.err)
	echo "# round $r: a: rc=$ra $ea; b: rc=$rb $eb"
	check_outcome "round $r" "$ra" "$ea" $a "$rb" "$eb" $b
	echo "# round $r: attached:$attached"
	detach_all
done

phase "xvbd attach racing xl block-attach at xvdb"
a=/scratch/t73-x-a.img b=/scratch/t73-x-b.img
truncate -s 16M $a $b
timeout 300 xvbd -q attach $G --file $a 2>/tmp/t73-a.err &
pa=$!
timeout 300 xl block-attach $G "format=raw,vdev=xvdb,access=rw,target=$b" \
	>/tmp/t73-xl.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
ea=$(cat /tmp/t73-a.err)
echo "# xvbd: rc=$ra $ea; xl: rc=$rb $(tr '\n' ' ' </tmp/t73-xl.out)"
if [ $rb = 0 ]; then
	expect_eq "xl's disk survives: xvdb Connected with $b" \
		"51728=4/4 $b" "$(vbd_states $domid 51728) $(xenstore-read /local/domain/0/backend/vbd/$domid/51728/params 2>/dev/null)"
fi
d=$(be_of $a)
if [ $ra = 0 ]; then
	check "xvbd's disk is there" test -n "$d"
	[ -z "$d" ] || expect_eq "xvbd's disk Connected" "$d=4/4" "$(vbd_states $domid $d)"
else
	expect_eq "xvbd failed: no backend of its image" "" "$d"
	expect_eq "xvbd failed: no loop device on its image" "" "$(losetup_of $a)"
fi
check "not both failed" test $ra = 0 -o $rb = 0
attached=
for f in $a $b; do
	d=$(be_of $f)
	[ -z "$d" ] || attached+=" $(vdev_of $d)"
done
detach_all

# Two tunes of one device at once: both go
# through, one after the other (the domain lock): the second one's
# "before" is what the first one wrote, and xenstore holds the second
# one's values, never a mix of the two.
t=/scratch/t73-t.img
truncate -s 16M $t
timeout 300 xvbd -q attach $G --file $t --vdev xvdb >/dev/null || fail "attach for tune"
be=/local/domain/0/backend/vbd/$domid/51728
fe=/local/domain/$domid/device/vbd/51728	# trusted: blkfront's key
# pair JSON: "discard,trusted" of a tune's before or value fields.
pair() { jq -r "[(.overrides[] | select(.key == \"discard\") | .$2), (.overrides[] | select(.key == \"trusted\") | .$2)] | map(tostring) | join(\",\")" "$1"; }
for r in 1 2 3; do
	phase "round $r: two xvbd tune of xvdb at once"
	xvbd -q tune $G xvdb discard=1 trusted=0 >/dev/null || fail "tune to the start values"
	xvbd --json tune $G xvdb discard=0 trusted=0 >/tmp/t73-ta.json 2>/tmp/t73-ta.err &
	pa=$!
	xvbd --json tune $G xvdb discard=1 trusted=1 >/tmp/t73-tb.json 2>/tmp/t73-tb.err &
	pb=$!
	wait $pa; ra=$?
	wait $pb; rb=$?
	expect_eq "round $r: both tunes exit 0" "0 0" "$ra $rb"
	ba=$(pair /tmp/t73-ta.json before) bb=$(pair /tmp/t73-tb.json before)
	now="$(xenstore-read $be/discard-enable),$(xenstore-read $fe/trusted)"
	echo "# round $r: before a=$ba b=$bb; xenstore now $now"
	if [ "$ba" = "1,0" ] && [ "$bb" = "0,0" ]; then
		expect_eq "round $r: a then b: b's values stay" "1,1" "$now"
	elif [ "$bb" = "1,0" ] && [ "$ba" = "1,1" ]; then
		expect_eq "round $r: b then a: a's values stay" "0,0" "$now"
	else
		fail "round $r: one after the other (befores a=$ba b=$bb)"
	fi
done
timeout 300 xvbd -q detach $G xvdb || fail "detach xvdb"

phase "clean up"
lab-guest stop $G
expect_eq "no loop device left" "" "$(loop_devices)"
rm -f /scratch/t73-*.img /tmp/t73-*
finish
