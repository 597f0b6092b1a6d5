# xvbd ab run: kill -9 during an ab run leaves no
# half-written record and the other records intact, and the next ab run
# names the guest left behind with the command that removes it; SIGTERM
# ends the experiment with its guest destroyed and exit 1.  The guests
# of the killed runs wait for a GO that never comes (/lab/lib/abguest.sh):
# each lasts as long as its --duration.
# lab-timeout: 900
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
img=/scratch/t79.img
trig=/scratch/t79-go.img
top=/tmp/t79
store=$top/store
xl destroy t79 2>/dev/null
rm -rf $top $img $trig /run/xvbd/ab-run
mkdir -p $top
truncate -s 32M $img
abg_prepare t79 $img $trig xvbd-block 1 4 $top/g.cfg
check "guest config prepared" test -s $top/g.cfg
cfg=$top/g.cfg
phase "a record to keep"
xvbd ab run keep1 "$cfg" keep2 "$cfg" --vdev xvda --ready "$(abg_ready_cmd $trig)" \
	--run "$(abg_go_cmd $trig 0)" --runs 1 --dir $store >/dev/null 2>$top/keep.err
expect_eq "a short experiment exits 0" 0 $?
sed 's/^/# /' $top/keep.err
expect_eq "it left two records" 2 "$(ls $store/*.json 2>/dev/null | wc -l)"

phase "a fixed number of runs goes on through a metric with no I/O"
# The image is read-only: no run writes.  Only --until-confident needs a
# pair's ratio of --metric; --runs N used to stop at the first pair
# ("pair 1 has no write-mbs on a side") and print no comparison.
xvbd ab run w1 "$cfg" w2 "$cfg" --vdev xvda --warmup 0 --duration 2 \
	--runs 1 --metric write-mbs --dir $top/wstore --json >$top/w.json 2>$top/w.err
expect_eq "--runs 1 --metric write-mbs of a reader exits 0" 0 $?
sed 's/^/# /' $top/w.err
expect_eq "both runs recorded" 2 "$(ls $top/wstore/*.json 2>/dev/null | wc -l)"
expect_eq "no writes in any run (the records' counters)" 0 \
	"$(jq -s '[.[].samples[-1].vbds[0].wr_sect] | add' $top/wstore/*.json)"
check "the comparison is printed, write-mbs without a verdict of change" sh -c \
	"jq -r '.comparison.metrics[] | select(.metric == \"write-mbs\") | .verdict' $top/w.json | grep -qv '^better\$\|^worse\$'"
check "no guest left" sh -c '! xl list | grep -q "^t79 "'

phase "kill -9 and SIGTERM during ab run"
sums=$(md5sum $store/*.json)
xvbd ab run k1 "$cfg" k2 "$cfg" --duration 60 --runs 1 --dir $store \
	>$top/kill.out 2>$top/kill.err &
pid=$!
check "the guest of the killed run comes up" wait_for 300 1 sh -c 'xl list | grep -c "^t79 "'
sleep 2
kill -9 $pid
wait $pid 2>/dev/null
check "no record of the killed run" sh -c "! ls $store/k1-*.json 2>/dev/null | grep -q ."
check "no temporary left as a record" sh -c "! ls $store | grep -v '^[a-z0-9]*-.*\.json$' | grep -q ."
expect_eq "other records untouched" "$sums" "$(md5sum $store/*.json)"
left=$(xl domid t79)
check "the killed run's guest is still there" test -n "$left"
xvbd ab run k3 "$cfg" k4 "$cfg" --duration 1 --runs 1 --dir $store \
	>/dev/null 2>$top/next.err
sed 's/^/# /' $top/next.err
check "the next ab run names the guest left behind" \
	grep -q "guest t79 (domid $left) was started by an ab run that died" $top/next.err
check "... with the command that removes it" grep -q "xl destroy $left" $top/next.err
xl destroy t79 2>/dev/null
xvbd ab run k5 "$cfg" k6 "$cfg" --duration 60 --runs 1 --dir $store \
	>/dev/null 2>$top/int.err &
pid=$!
check "the guest of the interrupted run comes up" wait_for 300 1 sh -c 'xl list | grep -c "^t79 "'
sleep 2
# SIGTERM: SIGINT is ignored by a job started with & in a script.
kill -TERM $pid
wait $pid
expect_eq "SIGTERM: exit 1" 1 $?
sed 's/^/# /' $top/int.err
check "SIGTERM: said so" grep -q "interrupted" $top/int.err
check "SIGTERM: the guest is gone" sh -c '! xl list | grep -q "^t79 "'

phase "clean up"
xl destroy t79 2>/dev/null
rm -rf $top $img $trig
finish
