# xvbd ab run: kill -9 during an ab run leaves no
# half-written record and the other records intact, and the next ab run
# names the guest left behind with the command that removes it; SIGTERM
# ends the experiment with its guest destroyed and exit 1.  The guests
# of the killed runs wait for a GO that never comes (/lab/lib/abguest.sh):
# each lasts as long as its --duration.
# Also: each side's config is read once (an edit mid-experiment changes
# no run; each record carries the file's SHA-256); the --run command
# starts with no signal ignored (SIGPIPE); a guest that reboots ends its
# run as incomplete and does not come back under a new domid; a signal
# between runs creates no further guest.
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
# watch_domids FILE: every domid xenstore lists, twice a second, into FILE
# (in the background, $poller) until watch_end; domids_seen FILE: how
# many other than dom0's.
watch_domids() {
	( while :; do xenstore-list /local/domain 2>/dev/null; sleep 0.5; done ) >"$1" &
	poller=$!
}
watch_end() { sleep 3; kill $poller; wait $poller 2>/dev/null; }
domids_seen() { sort -u "$1" | grep -vx 0 | wc -l; }
phase "a record to keep (its config edited meanwhile)"
# Each side's config is read once: an edit during the experiment (a new
# name=, memory) changes neither run, and each record carries the hash
# of the file as it was (sha256sum's, of a copy taken before).
cp $cfg $top/pin.cfg
sum0=$(sha256sum $top/pin.cfg | cut -d' ' -f1)
xvbd ab run keep1 "$top/pin.cfg" keep2 "$top/pin.cfg" --vdev xvda --ready "$(abg_ready_cmd $trig)" \
	--run "grep ^SigIgn /proc/self/status >>$top/sigign; $(abg_go_cmd $trig 0)" \
	--runs 1 --dir $store >/dev/null 2>$top/keep.err &
kpid=$!
check "the first run's guest comes up" wait_for 300 1 sh -c 'xl list | grep -c "^t79 "'
sed -i 's/^name *=.*/name = "t79edited"/' $top/pin.cfg
echo 'memory = 300' >>$top/pin.cfg
wait $kpid
expect_eq "a short experiment exits 0" 0 $?
sed 's/^/# /' $top/keep.err
expect_eq "it left two records" 2 "$(ls $store/*.json 2>/dev/null | wc -l)"
expect_eq "both runs' guest was t79 (the config as read at the start)" "t79 t79" \
	"$(jq -r .domain $store/*.json | tr '\n' ' ' | sed 's/ $//')"
expect_eq "each record's fingerprint: the SHA-256 of the file as it was" "$sum0 $sum0" \
	"$(jq -r '.fingerprint["guest.config_sha256"]' $store/*.json | tr '\n' ' ' | sed 's/ $//')"
check "no guest of the edited name" sh -c '! xl list | grep -q "^t79edited "'

# xvbd ignores SIGPIPE; its --run command must not inherit that (a
# pipeline relying on it would spin): the command's own /proc status.
# (32 and 33 are glibc's own: its sigaction leaves them alone.)
expect_eq "both runs' commands start with nothing ignored (SigIgn, but glibc's 32, 33)" "0 0" \
	"$(while read -r _ v; do echo $((0x$v & ~0x180000000)); done <$top/sigign | tr '\n' ' ' | sed 's/ $//')"

phase "a guest that reboots ends its run as incomplete, and does not come back"
truncate -s 8M /scratch/t79r.img
lab-guest prepare t79r --disk "format=raw,vdev=xvda,access=rw,target=/scratch/t79r.img" \
	--run 'sleep 3; reboot -f' >$top/rcfg.path
rcfg=$(cat $top/rcfg.path)
check "rebooting guest's config" test -s "$rcfg"
watch_domids $top/r.domids
xvbd ab run r1 "$rcfg" r2 "$rcfg" --warmup 0 --duration 40 --runs 1 --dir $top/rstore \
	--timeout 300 >/dev/null 2>$top/r.err
rc=$?
watch_end
sed 's/^/# /' $top/r.err
expect_eq "the experiment stops: exit 1" 1 $rc
check "the run is named incomplete, with the reboot" grep -q "incomplete.*shutdown reason: reboot" $top/r.err
expect_eq "its record says incomplete" false "$(jq -r .complete $top/rstore/r1-*.json 2>/dev/null)"
check "no guest of its name is left" sh -c '! xl list | grep -q "^t79r "'
expect_eq "one guest in all (no new domid after the reboot)" 1 \
	"$(domids_seen $top/r.domids)"

phase "a signal between runs: no further guest"
need_test_hooks
watch_domids $top/s.domids
set -m
XVBD_TEST_STOP_AT=ab-run-ended xvbd ab run s1 "$cfg" s2 "$cfg" --vdev xvda --warmup 0 \
	--duration 1 --runs 1 --dir $top/sstore >/dev/null 2>$top/s.err &
pid=$!
set +m
if wait_stopped $pid; then
	before=$(domids_seen $top/s.domids)
	kill -TERM $pid
	kill -CONT $pid
	reap $pid
	rc=$?
	watch_end
	sed 's/^/# /' $top/s.err
	expect_eq "SIGTERM after the first run: exit 1" 1 $rc
	check "said so" grep -q "interrupted" $top/s.err
	expect_eq "one record (the first run)" 1 "$(ls $top/sstore/*.json 2>/dev/null | wc -l)"
	expect_eq "no guest created after the signal (domids seen)" "$before" \
		"$(domids_seen $top/s.domids)"
else
	fail "ab run did not stop at ab-run-ended"
	kill $poller
fi
check "no guest left" sh -c '! xl list | grep -q "^t79 "'

phase "a fixed number of runs goes on through a metric with no I/O"
# The image is read-only: no run writes.  Only --until-confident needs a
# pair's ratio of --metric; --runs N used to stop at the first pair
# ("pair 1 has no write_mb_per_s on a side") and print no comparison.
xvbd ab run w1 "$cfg" w2 "$cfg" --vdev xvda --warmup 0 --duration 2 \
	--runs 1 --metric write_mb_per_s --dir $top/wstore --json >$top/w.json 2>$top/w.err
expect_eq "--runs 1 --metric write_mb_per_s of a reader exits 0" 0 $?
sed 's/^/# /' $top/w.err
expect_eq "both runs recorded" 2 "$(ls $top/wstore/*.json 2>/dev/null | wc -l)"
expect_eq "no writes in any run (the records' counters)" 0 \
	"$(jq -s '[.[].samples[-1].vbds[0].wr_sect] | add' $top/wstore/*.json)"
check "the comparison is printed, write_mb_per_s without a verdict of change" sh -c \
	"jq -r '.comparison.metrics[] | select(.metric == \"write_mb_per_s\") | .verdict' $top/w.json | grep -qv '^better\$\|^worse\$'"
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
xl destroy t79r 2>/dev/null
rm -rf $top $img $trig /scratch/t79r.img
finish
