# xvbd ab run, A/A: the same configuration under
# two labels, 3 pairs of fresh guests in ABBA order, each reading 32 MiB
# with O_DIRECT between a GO and a DONE (/lab/lib/abguest.sh; --ready
# waits for the guest's READY instead of a fixed warmup).  ab run
# must find no difference in the read rate and no fact that differs
# between the sides.  The check is at 99 %: a true A/A fails it 1 % of
# the time, not 5 % (a failure here is worth a look, not a rerun).
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
img=/scratch/t78.img
trig=/scratch/t78-go.img
top=/tmp/t78
store=$top/store
xl destroy t78 2>/dev/null
rm -rf $top $img $trig
mkdir -p $top
dd if=/dev/urandom of=$img bs=1M count=32 status=none
abg_prepare t78 $img $trig xvbd-block-direct 1 32 $top/g.cfg
check "guest config prepared" test -s $top/g.cfg

phase "A/A: one configuration under two labels, --runs 3"
xvbd ab run same1 $top/g.cfg same2 $top/g.cfg --vdev xvda --ready "$(abg_ready_cmd $trig)" \
	--run "$(abg_go_cmd $trig 0)" --interval 0.5 --runs 3 --confidence 99 \
	--dir $store --json >$top/aa.json 2>$top/aa.err
expect_eq "ab run A/A exits 0" 0 $?
sed 's/^/# /' $top/aa.err
check "ab run prints JSON" jq -e . $top/aa.json
abg_run_fields $top/aa.json
expect_eq "3 runs of same1" 3 "$(ls $store/same1-*.json 2>/dev/null | wc -l)"
expect_eq "3 runs of same2" 3 "$(ls $store/same2-*.json 2>/dev/null | wc -l)"
for f in $store/*.json; do
	n=$(jq '.samples[-1].vbds[0].rd_sect - .samples[0].vbds[0].rd_sect' $f)
	check "$(basename $f .json): 32 MiB read in the record ($n sectors)" \
		sh -c "[ $n -ge 65536 ] && [ $n -le $((65536 + 256)) ]"
	expect_eq "$(basename $f .json): complete" true "$(jq -r .complete $f)"
	expect_eq "$(basename $f .json): no sample flagged reset" false \
		"$(jq '[.samples[].vbds[].reset] | any' $f)"
done
check "no run lost an interval" sh -c "! grep -q 'left out' $top/aa.json"
expect_eq "A/A read-mbs: no difference proven" no-difference \
	"$(jq -r '.comparison.metrics[] | select(.metric == "read-mbs") | .verdict' $top/aa.json)"
expect_eq "A/A: no fact differs" null "$(jq -r .comparison.variable $top/aa.json)"
expect_eq "A/A: no difference to warn about" 0 \
	"$(jq -r '.comparison.differences | length' $top/aa.json)"
check "no guest left" sh -c '! xl list | grep -q "^t78 "'

phase "clean up"
rm -rf $top $img $trig
finish
