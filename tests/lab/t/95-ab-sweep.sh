# xvbd ab run over k levels on one running guest (hot), each run's disk
# under test (xvdb) attached with its level's settings and read back
# while it runs, from what xvbd does not control:
#  - -N: the plan of a 3-level experiment (LABEL... --disk LABEL=SPEC
#    --cache LABEL=MODE), 2 blocks of every level once, nothing attached;
#  - base, same, none, slow (dom0's page cache on for one image on
#    /scratch twice, off, and a copy on the throttled slow disk, cache
#    off), 3 blocks, from an experiment plan (--plan: three levels'
#    disks as apply's disk object, one a spec string; its -N plan is the
#    command line's): each run's loop device backs onto its level's image
#    with its level's direct-I/O flag (sysfs), the records' blocks and
#    positions agree with their start times, the verdict is the sweep's
#    table against base; ab compare of read_mb_per_s calls same "no
#    difference" and slow "worse"; the experiment's wall time is logged
#    against its runs' guest I/O (the guest's own uptimes) plus a timed
#    attach and detach each;
#  - --sweep ring-order=0,1,2 --until-confident --max-runs 3, on a guest
#    whose blkfront allows order 2: each run's offer (the backend's
#    max-ring-page-order) and the ring the frontend took (its
#    ring-page-order: none is order 0) are the level's, and each record's
#    fingerprint shows those ring pages; each level at a different
#    position in each block (Williams, from the start times); the
#    sequential stop over the 2 comparisons says each block on stderr;
#  - after each experiment: nothing of xvdb in xenstore, no loop over the
#    images.
# lab-tier: all
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t95
top=/tmp/t95
fast=/scratch/t95.img
slow=/slow/t95.img
trig=/scratch/t95-trig.img
mib=2
xl destroy $name 2>/dev/null
rm -rf $top
mkdir -p $top
check "the slow disk is mounted on /slow" abg_mount_slow
rm -f $fast $slow $trig
dd if=/dev/urandom of=$fast bs=1M count=$mib status=none
cp $fast $slow
truncate -s 1M $trig
# blkfront takes at most the order its parameter allows (default 0).
export ABG_HOT_EXTRA="--mem 256 --extra xen_blkfront.max_ring_page_order=2"
check "the guest is up (UP on its trigger)" abg_hot_start $name $mib $trig ||
	{ finish; exit 1; }
domid=$(xl domid $name)

# ready.sh TRIG LOG: at READY (xvdb connected in the guest) the disk under
# test as xenstore and sysfs have it, into LOG: label, the backend's ring
# offer, the frontend's ring-page-order (0 when it wrote none), the
# loop's backing file and dio flag; otherwise clear the last answer.
cat >$top/ready.sh <<'EOS'
#!/bin/sh
t=$1 log=$2
w=$(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 5)
if [ "$w" = READY ]; then
	be=/local/domain/0/backend/vbd/$XVBD_AB_DOMID/51728
	fe=/local/domain/$XVBD_AB_DOMID/device/vbd/51728
	ro=$(xenstore-read $be/max-ring-page-order 2>/dev/null || echo -)
	fo=$(xenstore-read $fe/ring-page-order 2>/dev/null || echo 0)
	pd=$(xenstore-read $be/physical-device 2>/dev/null)
	bf=- dio=-
	for l in /sys/block/loop*; do
		[ "$(cat $l/dev 2>/dev/null)" = "$((0x${pd%%:*})):$((0x${pd##*:}))" ] || continue
		bf=$(cat $l/loop/backing_file) dio=$(cat $l/loop/dio)
	done
	echo "$XVBD_AB_LABEL offer=$ro fe=$fo file=$bf dio=$dio" >>"$log"
	exit 0
fi
case "$w" in DONE*|UP*) dd if=/dev/zero of="$t" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null;; esac
exit 1
EOS
chmod +x $top/ready.sh
nothing_left() {	# no xvdb of the guest anywhere, no loop over the images
	[ -z "$(xenstore-ls /local/domain/0/backend/vbd/$domid/51728 2>/dev/null)" ] &&
	[ -z "$(xenstore-ls /local/domain/$domid/device/vbd/51728 2>/dev/null)" ] &&
	! losetup -a | grep -q "t95.img"
}
spec() { echo "format=raw,vdev=xvdb,access=ro,target=$1"; }
# hot STORE ARGS...: one experiment, read_mb_per_s deciding, JSON to STORE.json
hot() {
	local store=$1
	shift
	xvbd ab run "$@" --domain $name \
		--ready "$top/ready.sh $trig $store.log" \
		--run "$(abg_hot_go_cmd $trig $top/guest.log)" \
		--interval 0.05 --metric read_mb_per_s --dir $store --json \
		>$store.json 2>$store.err
}
# order STORE: "block position started label" of its records, by start
order() {
	jq -r '"\(.pair) \(.position) \(.started_unix_ns) \(.label)"' $1/*.json |
		sort -k3,3n
}
# blocks_agree FILE K: by start time, blocks 1 1 .. 2 2 .., positions
# 1..K in each, every label once per block.
blocks_agree() {
	awk -v k=$2 '{ n++; b = int((n - 1) / k) + 1; p = (n - 1) % k + 1
		if ($1 != b || $2 != p || seen[b, $4]++) bad = 1 }
		END { exit bad || n % k }' $1
}

phase "-N: the plan of three levels, nothing attached"
xvbd -N ab run base none slow --domain $name --disk "$(spec $fast)" \
	--disk slow="$(spec $slow)" --cache none --cache base=host \
	--duration 1 --runs 2 --json >$top/plan.json 2>$top/plan.err
expect_eq "-N exits 0" 0 $?
sed 's/^/# /' $top/plan.err
expect_eq "the plan's levels" "base none slow" "$(jq -r '[.levels[].label] | join(" ")' $top/plan.json)"
expect_eq "slow's disk is the slow copy" "$(spec $slow)" "$(jq -r '.levels[2].disk' $top/plan.json)"
expect_eq "base's cache host, the others' none" "host none none" \
	"$(jq -r '[.levels[].cache] | join(" ")' $top/plan.json)"
jq -r '.runs[] | "\(.block) \(.position) 0 \(.label)"' $top/plan.json >$top/plan.txt
check "6 runs, 2 blocks of every level once" blocks_agree $top/plan.txt 3
check "nothing attached by -N" nothing_left

phase "four levels: cache host twice, cache none, the slow disk; 3 blocks"
cat $fast >/dev/null	# base's image in dom0's page cache
# One attach and detach of the disk under test on its own, timed: the
# experiment's wall time against its runs' guest I/O plus that, 12 times.
t0=$(date +%s%N)
for i in 1 2; do
	xvbd -q attach $name --spec "$(spec $fast)" >/dev/null &&
		xvbd -q detach $name xvdb >/dev/null || fail "attach/detach $i"
done
cycle_ms=$(( ($(date +%s%N) - t0) / 2000000 ))
# The guest may have said READY to those: the first run must not take it.
sleep 1
dd if=/dev/zero of=$trig bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null
: >$top/guest.log
# The experiment from a plan: base, same and slow as apply's disk object,
# none as the spec string; its -N plan is the command line's.
jq -n --arg dom $name --arg fast $fast --arg slow $slow \
	--arg none "$(spec $fast)" --arg ready "$top/ready.sh $trig $top/lv.log" \
	--arg run "$(abg_hot_go_cmd $trig $top/guest.log)" '
	def obj(f; c): { vdev: "xvdb", file: f, access: "ro", cache: c };
	{ domain: $dom, levels: [
		{ label: "base", disk: obj($fast; "host") },
		{ label: "same", disk: obj($fast; "host") },
		{ label: "none", disk: $none, cache: "none" },
		{ label: "slow", disk: obj($slow; "none") } ],
	  ready: $ready, run: $run, interval: 0.05, metric: "read_mb_per_s",
	  runs: 3 }' >$top/lv-plan.json
xvbd -N ab run --plan $top/lv-plan.json --dir $top/lv --json >$top/lv-n1.json 2>&1
xvbd -N ab run base same none slow --domain $name --disk "$(spec $fast)" \
	--disk slow="$(spec $slow)" --cache base=host --cache same=host --cache none \
	--ready "$top/ready.sh $trig $top/lv.log" \
	--run "$(abg_hot_go_cmd $trig $top/guest.log)" --interval 0.05 \
	--metric read_mb_per_s --runs 3 --dir $top/lv --json >$top/lv-n2.json 2>&1
check "the plan's -N is the command line's (levels, disks, caches, runs)" \
	cmp $top/lv-n1.json $top/lv-n2.json
t0=$(date +%s%N)
xvbd ab run --plan $top/lv-plan.json --dir $top/lv --json >$top/lv.json 2>$top/lv.err
rc=$?
wall_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
sed 's/^/# /' $top/lv.err $top/lv.log
expect_eq "ab run --plan (base same none slow) exits 0" 0 $rc
expect_eq "3 runs a level" "3 3 3 3" "$(for l in base same none slow; do ls $top/lv/$l-*.json | wc -l; done | xargs)"
expect_eq "base's and same's runs: the /scratch image, buffered loop" 6 \
	"$(grep -Ec "^(base|same) .* file=[^ ]*scratch/t95.img dio=0\$" $top/lv.log)"
expect_eq "none's runs: the /scratch image, direct loop" 3 \
	"$(grep -c "^none .* file=[^ ]*scratch/t95.img dio=1\$" $top/lv.log)"
expect_eq "slow's runs: the slow disk's copy, direct loop" 3 \
	"$(grep -c "^slow .* file=[^ ]*slow/t95.img dio=1\$" $top/lv.log)"
order $top/lv >$top/lv.txt
sed 's/^/# /' $top/lv.txt
check "blocks and positions agree with the start times" blocks_agree $top/lv.txt 4
check "each level once at each position over the blocks' first three" \
	awk '$1 <= 3 { if (seen[$2, $4]++) bad = 1 } END { exit bad }' $top/lv.txt
expect_eq "the runs' own logs in the records' order" \
	"$(awk '{ print $4 }' $top/lv.txt | xargs)" "$(awk '{ print $1 }' $top/lv.log | xargs)"
expect_eq "the verdict: the levels, base the baseline, Williams, a table" \
	"base same none slow|base|Williams|object" \
	"$(jq -r '"\(.levels | join(" "))|\(.baseline)|\(.order)|\(.comparison | type)"' $top/lv.json)"
# The question as a user asks it: read_mb_per_s of every level against base.
xvbd ab compare base same none slow --metric read_mb_per_s --dir $top/lv \
	--json >$top/cmp.json 2>$top/cmp.err
xvbd ab compare base same none slow --metric read_mb_per_s --dir $top/lv 2>&1 |
	sed 's/^/# compare: /'
verdict() { jq -r --arg l $1 '.metrics[] | select(.metric == "read_mb_per_s") |
	.cells[] | select(.label == $l) | .verdict' $top/cmp.json; }
expect_eq "same (base's settings again): no difference" no-difference "$(verdict same)"
expect_eq "slow (the throttled disk): worse" worse "$(verdict slow)"
# Guest I/O: the guest's own uptimes around each read (10 ms steps).
io_ms=$(awk '{ s += ($3 - $2) * 1000 } END { printf "%d", s }' $top/guest.log)
runs=$(wc -l <$top/guest.log)
echo "# 4 levels x 3 blocks: wall $wall_ms ms; guest I/O $io_ms ms over $runs runs;" \
	"attach+detach $cycle_ms ms a cycle; wall / (I/O + $runs cycles) =" \
	"$(awk -v w=$wall_ms -v i=$io_ms -v c=$cycle_ms -v n=$runs 'BEGIN { printf "%.2f", w / (i + n * c) }')"
check "nothing of xvdb left (xenstore, loop)" nothing_left

phase "--sweep ring-order=0,1,2 --until-confident, at most 3 blocks"
t0=$SECONDS
hot $top/sw --disk "$(spec $fast)" --cache none --sweep ring-order=0,1,2 \
	--until-confident --max-runs 3
rc=$?
echo "# 3 levels x at most 3 blocks: $((SECONDS - t0)) s"
sed 's/^/# /' $top/sw.err $top/sw.log
expect_eq "ab run --sweep exits 0" 0 $rc
# The sequential stop over the 2 comparisons with ring-order-0: one line
# a block on stderr, its decisions in the output.
nb=$(jq -r '.sequential.blocks' $top/sw.json)
echo "# stopped after $nb blocks: $(jq -c '.sequential | {stop, levels: [.levels[] | {label, decision}]}' $top/sw.json)"
expect_eq "a stderr line a block" "$nb" "$(grep -c ': ab run: [0-9]* blocks\{0,1\}: read_mb_per_s against ring-order-0:' $top/sw.err)"
expect_eq "the sequential decisions: the two levels against the baseline" \
	"ring-order-1 ring-order-2" "$(jq -r '[.sequential.levels[].label] | join(" ")' $top/sw.json)"
for o in 0 1 2; do
	expect_eq "ring-order-$o's $nb runs: offer $o, the frontend took order $o" $nb \
		"$(grep -c "^ring-order-$o offer=$o fe=$o " $top/sw.log)"
	expect_eq "ring-order-$o's records: $((1 << o)) ring pages in the fingerprint" \
		"$(for i in $(seq $nb); do printf '%s ' $((1 << o)); done | xargs)" \
		"$(jq -r '.fingerprint["vbd.xvdb.ring_pages"]' $top/sw/ring-order-$o-*.json | xargs)"
done
order $top/sw >$top/sw.txt
sed 's/^/# /' $top/sw.txt
check "blocks and positions agree with the start times" blocks_agree $top/sw.txt 3
# Blocks 1-3 are rows 0-2 of the design: a Latin square.
expect_eq "each level at a different position in each block" $((nb * 3)) \
	"$(awk '{ print $2, $4 }' $top/sw.txt | sort -u | wc -l)"
expect_eq "the baseline is the first value" ring-order-0 "$(jq -r .baseline $top/sw.json)"
check "nothing of xvdb left (xenstore, loop)" nothing_left
xl destroy $name 2>/dev/null
finish
