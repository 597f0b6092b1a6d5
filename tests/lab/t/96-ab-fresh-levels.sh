# xvbd ab run over three levels of fresh guests, from an experiment plan
# (--plan: each level's label, xl config and blkif offer, which stand
# for LABEL CONFIG pairs and --vbd LABEL=VDEV:key=value), one block.
# Checked against what xvbd does not control:
#  - every run's guest was a new domain of the config's name, and none is
#    left (xl list);
#  - each record's backend offer (its fingerprint, read from blkback's
#    xenstore directory at the run) is its level's ring order;
#  - the block's positions: each level once, in the order of the
#    records' start times;
#  - the verdict is the sweep's table, o0 the baseline;
#  - nothing of the image left (no loop device over it).
# lab-tier: all
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
img=/scratch/t96.img
trig=/scratch/t96-go.img
top=/tmp/t96
store=$top/store
xl destroy t96 2>/dev/null
rm -rf $top $img
mkdir -p $top
truncate -s 8M $img
abg_prepare t96 $img $trig xvbd-block 1 2 $top/g.cfg
check "guest config prepared" test -s $top/g.cfg
cfg=$top/g.cfg

phase "three levels of fresh guests: ring order 0, 1, 2 offered to xvda"
( while :; do xl list 2>/dev/null | awk '$1 == "t96" { print $2 }'; sleep 0.5; done ) >$top/domids &
poller=$!
# From an experiment plan of fresh guests (no "domain": each level its
# config and offers); --vdev, --warmup and --dir beside it.
jq -n --arg cfg $cfg --arg ready "$(abg_ready_cmd $trig)" \
	--arg run "$(abg_go_cmd $trig 0)" '
	{ levels: [0, 1, 2] | map({ label: "o\(.)", config: $cfg,
				    vbd: "xvda:ring-order=\(.)" }),
	  ready: $ready, run: $run, runs: 1 }' >$top/plan.json
xvbd ab run --plan $top/plan.json --vdev xvda --warmup 0 --dir $store \
	--json >$top/run.json 2>$top/run.err
rc=$?
sleep 2
kill $poller
wait $poller 2>/dev/null
sed 's/^/# /' $top/run.err
expect_eq "ab run --plan (o0 o1 o2, fresh guests) exits 0" 0 $rc
expect_eq "one record a level" "o0 o1 o2" "$(jq -r .label $store/*.json | sort | xargs)"
expect_eq "three guests, each a new domain" 3 "$(sort -u $top/domids | wc -l)"
check "no guest left" sh -c '! xl list | grep -q "^t96 "'
jq -r '"\(.label) \(.fingerprint["vbd.xvda.offer.ring_order"])"' $store/*.json |
	sort >$top/offers
sed 's/^/# offer: /' $top/offers
expect_eq "each level's offer in its record (blkback's directory)" \
	"o0 0 o1 1 o2 2" "$(xargs <$top/offers)"
jq -r '"\(.pair) \(.position) \(.started_unix_ns) \(.label)"' $store/*.json |
	sort -k3,3n >$top/order
sed 's/^/# order: /' $top/order
check "block 1, positions 1 2 3 by start time, each level once" \
	awk '{ n++; if ($1 != 1 || $2 != n || seen[$4]++) bad = 1 }
	END { exit bad || n != 3 }' $top/order
expect_eq "the verdict: the levels, o0 the baseline, Williams" \
	"o0 o1 o2|o0|Williams|object" \
	"$(jq -r '"\(.levels | join(" "))|\(.baseline)|\(.order)|\(.comparison | type)"' $top/run.json)"
check "no loop device over the image" sh -c "! losetup -a | grep -q t96.img"
rm -f $img $trig
finish
