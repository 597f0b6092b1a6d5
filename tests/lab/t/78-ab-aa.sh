# xvbd ab run, A/A, hot: the same disk under two labels, attached to one
# running guest in turn (ab run --domain), 3 runs each in ABBA order, each
# run reading the 32 MiB image with O_DIRECT between a GO and a DONE on
# the guest's trigger disk.  ab run must find no difference in the read
# rate (over each run's busy span, at --run's default 0.1 s step) and no
# fact that differs between the sides.  The check is at 99 %:
# a true A/A fails it 1 % of the time, not 5 % (a failure here is worth a
# look, not a rerun).  (The fresh-guest mode's whole experiment is t/79's.)
# lab-timeout: 900
# lab-tier: all
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t78
img=/scratch/t78.img
trig=/scratch/t78-trig.img
top=/tmp/t78
store=$top/store
xl destroy $name 2>/dev/null
rm -rf $top $img $trig
mkdir -p $top
dd if=/dev/urandom of=$img bs=1M count=32 status=none
truncate -s 1M $trig

# The guest (abguest.sh, abg_hot_start): polls its trigger disk (xvdc);
# READY when xvdb is there, GO reads xvdb (32 MiB, O_DIRECT), then DONE.
check "the guest is up (UP on its trigger)" abg_hot_start $name 32 $trig ||
	{ finish; exit 1; }
domid=$(xl domid $name)

spec="format=raw,vdev=xvdb,access=ro,target=$img"

phase "A/A: one disk under two labels, --runs 3"
t0=$SECONDS
xvbd ab run same1 same2 --domain $name --disk-a "$spec" --disk-b "$spec" \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$(abg_hot_go_cmd $trig)" \
	--runs 3 --confidence 99 \
	--dir $store --json >$top/aa.json 2>$top/aa.err
expect_eq "ab run A/A exits 0" 0 $?
echo "# hot A/A: $((SECONDS - t0)) s"
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
expect_eq "A/A read_mb_per_s: no difference proven" no-difference \
	"$(jq -r '.comparison.metrics[] | select(.metric == "read_mb_per_s") | .verdict' $top/aa.json)"
expect_eq "A/A: no fact differs" null "$(jq -r .comparison.variable $top/aa.json)"
expect_eq "A/A: no difference to warn about" 0 \
	"$(jq -r '.comparison.differences | length' $top/aa.json)"
check "nothing of xvdb left (xenstore)" sh -c \
	"[ -z \"\$(xenstore-ls /local/domain/0/backend/vbd/$domid/51728 2>/dev/null)\" ]"
check "no loop device over the image" sh -c "! losetup -a | grep -q $img"
check "the guest runs on" sh -c "xl list | grep -q '^$name '"

phase "clean up"
xl destroy $name 2>/dev/null
rm -rf $top $img $trig
finish
