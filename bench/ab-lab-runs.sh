# bench/ab-lab-runs.sh [PAIRS]: run summaries of one configuration,
# recorded in the lab, as input for build/bench/ab-sequential.
#
# An A/A experiment with `xvbd ab run` (PAIRS pairs, default 12: 2 x PAIRS
# runs of the same config under two labels, ABBA order), each run a fresh
# guest reading 2 x 48 MiB with O_DIRECT from a file-backed disk (the
# handshake of /lab/lib/abguest.sh: the record spans the reads, not the
# boot).  Prints every run's read MB/s summary as "SUMMARY <label>
# <read_mb_per_s>", then the spread (mean, sd of ln) and, as its last
# line, whether every run was complete and measured.
#
#   tests/lab/run --timeout 1800 bench/ab-lab-runs.sh [PAIRS] | tee runs.log
#   sed -n 's/^SUMMARY [^ ]* //p' runs.log > bench/data/lab-read-mbs.txt
#   make bench-ab-sequential && build/bench/ab-sequential bench/data/lab-read-mbs.txt
set -u
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
pairs=${1:-12}
img=/scratch/bench-abl.img
trig=/scratch/bench-abl-go.img
top=/tmp/bench-abl
rm -rf $top $img $trig
mkdir -p $top
dd if=/dev/urandom of=$img bs=1M count=64 status=none
abg_prepare benchabl $img $trig xvbd-block-direct 2 48 $top/g.cfg ||
	{ echo "bench: cannot prepare the guest"; exit 1; }
t0=$(date +%s)
xvbd ab run aa1 $top/g.cfg aa2 $top/g.cfg --vdev xvda --warmup $ABG_WARMUP \
	--run "$(abg_go_cmd $trig $ABG_WARMUP)" --interval 0.5 --runs "$pairs" \
	--dir $top/store >$top/report 2>$top/err
rc=$?
sed 's/^/# /' $top/err
cat $top/report
echo "# ab run: exit $rc, $(( $(date +%s) - t0 )) s for $((2 * pairs)) runs"
xvbd ab export --json --dir $top/store >$top/runs.json
jq -r 'sort_by(.started)[] | "SUMMARY \(.label) \(.read_mb_per_s)"' $top/runs.json
jq -r '[.[].read_mb_per_s] | (add / length) as $m |
	([.[] | log] | (add / length) as $l | (map((. - $l) * (. - $l)) | add) / (length - 1) | sqrt) as $sdl |
	"runs \(length), mean read MB/s \($m), sd of ln \($sdl)"' $top/runs.json
n=$(jq '[.[] | select(.complete == true and .read_mb_per_s > 0)] | length' $top/runs.json)
rm -rf $img $trig
if [ "$rc" = 0 ] && [ "$n" = $((2 * pairs)) ]; then
	echo "goal: $n of $((2 * pairs)) runs complete and measured: met"
else
	echo "goal: $n of $((2 * pairs)) runs complete and measured (ab run exit $rc): MISSED"
	exit 1
fi
