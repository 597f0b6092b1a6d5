# xvbd ab run and ab compare --fail-if-worse: the gate a pipeline fails
# on, on real runs of one hot guest (ab run --domain, 3 ABBA pairs each):
#  - ab run --fail-if-worse 20 itself: the A/A experiment exits 0, the
#    slow-disk one 3, its JSON's gate naming read_mb_per_s;
#  - A/A: one image on /scratch under two labels: the gate at 20 % exits
#    0 (every run's reads in blkback's counters);
#  - the same image size on the throttled slow disk against /scratch
#    (both --cache none): the gate exits 3 naming read_mb_per_s of "slow",
#    the guest's own timings show it at least 20 % slower, and the
#    comparison is still written to stdout;
#  - each record's block and position (the balanced order) agree with
#    the records' start times; nothing of the disk under test is left.
# lab-tier: all
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t87
top=/tmp/t87
store=$top/store
fast=/scratch/t87.img
slow=/slow/t87.img
trig=/scratch/t87-trig.img
mib=2
xl destroy $name 2>/dev/null
rm -rf $top
mkdir -p $top
check "the slow disk is mounted on /slow" abg_mount_slow
rm -f $fast $slow $trig
dd if=/dev/urandom of=$fast bs=1M count=$mib status=none
cp $fast $slow
truncate -s 1M $trig
check "the guest is up (UP on its trigger)" abg_hot_start $name $mib $trig ||
	{ finish; exit 1; }
domid=$(xl domid $name)
nothing_left() {	# no xvdb of the guest anywhere, no loop over the images
	[ -z "$(xenstore-ls /local/domain/0/backend/vbd/$domid/51728 2>/dev/null)" ] &&
	[ -z "$(xenstore-ls /local/domain/$domid/device/vbd/51728 2>/dev/null)" ] &&
	! losetup -a | grep -q "t87.img"
}
# hot LABEL_A SPEC_A LABEL_B SPEC_B: 3 pairs, both --cache none, the
# gate at 20 % on read_mb_per_s (ab run --fail-if-worse), the guest's own
# "LABEL T0 T1" per run into $top/guest.log, ab run's JSON in
# $top/run-LABEL_A.json.
hot() {
	xvbd ab run "$1" "$3" --domain $name --disk-a "$2" --cache-a none \
		--disk-b "$4" --cache-b none \
		--ready "$(abg_hot_ready_cmd $trig)" \
		--run "$(abg_hot_go_cmd $trig $top/guest.log)" \
		--interval 0.05 --runs 3 --metric read_mb_per_s --dir $store \
		--fail-if-worse 20 --json >$top/run-$1.json 2>$top/run-$1.err
}
# guest_pct A B: B's mean rate against A's in %, from the guest's timings.
guest_pct() {
	awk -v a="$1" -v b="$2" -v mib=$mib '{ s = $3 - $2; if (s < 0.01) s = 0.01
		r = mib * 1.048576 / s
		if ($1 == a) { x += r; nx++ } else if ($1 == b) { y += r; ny++ } }
		END { printf "%.1f", (y / ny - x / nx) / (x / nx) * 100 }' $top/guest.log
}
spec() { echo "format=raw,vdev=xvdb,access=ro,target=$1"; }

phase "A/A on /scratch, then /scratch against the slow disk"
t0=$SECONDS
hot same1 "$(spec $fast)" same2 "$(spec $fast)"
expect_eq "A/A: ab run same1 same2 --fail-if-worse 20 exits 0" 0 $?
hot fast "$(spec $fast)" slow "$(spec $slow)"
expect_eq "slow disk: ab run fast slow --fail-if-worse 20 exits 3" 3 $?
expect_eq "ab run's gate in its JSON: A/A passed, slow failed on read_mb_per_s" \
	"false 0 0|true 3 read_mb_per_s:worse" \
	"$(jq -r '.gate | "\(.failed) \(.exit) \(.failures)"' $top/run-same1.json)|$(jq -r '.gate | "\(.failed) \(.exit) \([.hits[] | select(.fails) | "\(.metric):\(.verdict)"] | join(","))"' $top/run-fast.json)"
check "ab run names slow's read_mb_per_s as failing the gate" \
	grep -q "ab run: gate: slow read_mb_per_s: .* against fast: worse by at least 20 % and proven at 95 %: fails the gate" \
	$top/run-fast.err
echo "# two hot experiments of 6 runs: $((SECONDS - t0)) s"
sed 's/^/# /' $top/run-*.err $top/guest.log
check "nothing of xvdb left (xenstore, loop)" nothing_left

phase "the gate"
xvbd ab compare same1 same2 --metric read_mb_per_s --fail-if-worse 20 \
	--dir $store >$top/aa.txt 2>$top/aa.err
expect_eq "A/A: the gate at 20 % exits 0" 0 $?
sed 's/^/# /' $top/aa.err
check "A/A: it says it passed" grep -q "gate: passed" $top/aa.err
# The guest's own timings of 2 MiB reads vary by +-30 % between runs
# here (the lab's first run: same2 +29 % against same1): no bound on
# them is a check.  That every run did its reads is (blkback's counters).
echo "# A/A: the guest's own timings: same2 against same1 $(guest_pct same1 same2) %"
check "every run read its $mib MiB ($((mib * 2048)) sectors, little else)" sh -c \
	"! jq '.samples[-1].vbds[0].rd_sect - .samples[0].vbds[0].rd_sect' $store/*.json |
		awk -v n=$((mib * 2048)) '\$1 < n || \$1 > n + 256' | grep -q ."
xvbd ab compare fast slow --metric read_mb_per_s --fail-if-worse 20 --json \
	--dir $store >$top/slow.json 2>$top/slow.err
expect_eq "slow disk: the gate at 20 % exits 3" 3 $?
sed 's/^/# /' $top/slow.err
check "it names slow's read_mb_per_s as failing" \
	grep -q "gate: slow read_mb_per_s: .* against fast: worse by at least 20 % and proven at 95 %: fails the gate" \
	$top/slow.err
sp=$(guest_pct fast slow)
xp=$(jq -r '.metrics[] | select(.metric == "read_mb_per_s") | .pct' $top/slow.json)
echo "# slow against fast: xvbd $xp %, the guest's own timings $sp %"
check "the guest's own timings: slow at least 20 % slower ($sp %)" \
	awk -v p="$sp" 'BEGIN { exit !(p <= -20) }'
expect_eq "the comparison is on stdout all the same" worse \
	"$(jq -r '.metrics[] | select(.metric == "read_mb_per_s") | .verdict' $top/slow.json)"

phase "the order recorded: block and position against the start times"
jq -r '"\(.experiment) \(.pair) \(.position) \(.started_unix_ns) \(.label)"' \
	$store/*.json | sort -k1,1 -k4,4n >$top/order.txt
sed 's/^/# /' $top/order.txt
# Within an experiment, by start time: blocks 1 1 2 2 3 3, positions
# 1 2 1 2 1 2, and the first of each block A, B, A (ABBA).
check "each experiment: blocks and positions in start-time order" awk '
	$1 != e { e = $1; n = 0 }
	{ n++; if ($2 != int((n + 1) / 2) || $3 != (n % 2 ? 1 : 2)) bad = 1 }
	END { exit bad }' $top/order.txt
expect_eq "the first runs of the blocks: A, B, A in each experiment" \
	"same1 same2 same1 fast slow fast" \
	"$(awk '$3 == 1 { printf "%s%s", s, $5; s = " " }' $top/order.txt)"
xl destroy $name 2>/dev/null
finish
