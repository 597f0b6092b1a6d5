# xvbd ab run: a whole experiment in the lab, hot (ab run --domain).
#  - A/B: one running guest; each run attaches the disk under test (xvdb,
#    an 8 MiB image on the lab's slow disk) with its side's setting and
#    detaches it after.  A: --cache host (a buffered loop: dom0's page
#    cache, warmed first, serves the reads), B: --cache none (the loop
#    does direct I/O: every read goes to the disk).  Seed 001's
#    confounder as the variable under test.  The slow disk (/dev/vdc,
#    reads throttled to 1 MiB/s by QEMU) is where, under TCG, the page
#    cache moves the guest's MB/s.  In each run the guest reads the 8 MiB
#    with O_DIRECT between a GO and a DONE on its trigger disk
#    (/lab/lib/abguest.sh: --ready waits for the guest's READY, which it
#    says once the disk under test is there);
#    runs alternate ABBA; --until-confident stops the experiment.  The
#    test recomputes the verdict's numbers its own way from the records'
#    raw counters and times (jq + awk: each run's busy span, the first to
#    the last interval in which the VBD had requests or its loop device's
#    io_ticks grew; mean, sample sd, Student's t half-width) and finds ab
#    run's equal; each run's read sectors are the guest's 8 MiB; the only
#    fingerprint difference is vbd.xvdb.dom0_cache.
# The fresh-guest mode's whole experiment and its signals: t/79; the A/A
# experiment: t/78; the hot mode's settings, idle tail and signals: t/83.
# lab-timeout: 1200
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t76
slow=/slow
img=$slow/t76.img
keep=/scratch/t76-keep.img
trig=/scratch/t76-go.img
top=/tmp/t76
store=$top/store
xl destroy $name 2>/dev/null
rm -rf $top /run/xvbd/ab-run
mkdir -p $top
check "the slow disk is mounted on $slow" abg_mount_slow
rm -f $img $trig $keep
dd if=/dev/urandom of=$img bs=1M count=8 status=none
truncate -s 1M $keep
# The slow disk is slow: 4 MiB read past dom0's page cache take >= 2 s
# (QEMU's throttle lets a first burst through: 2 MiB once took 1.18 s).
t0=$(date +%s%N)
dd if=$img of=/dev/null bs=1M count=4 skip=4 iflag=direct status=none
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "the slow disk reads at <= ~2 MB/s (4 MiB in $ms ms)" test $ms -ge 2000

# The guest (abguest.sh, abg_hot_guest): polls its trigger disk (xvdc);
# READY when xvdb is there, GO reads xvdb (8 MiB, O_DIRECT), then DONE.
check "the guest is up (UP on its trigger)" abg_hot_start $name 8 $trig $keep ||
	{ finish; exit 1; }
domid=$(xl domid $name)
spec="format=raw,vdev=xvdb,access=ro,target=$img"
# dom0's page cache holds the image before A's first run.
cat $img >/dev/null

# Independent recomputation: per record, read requests and bytes over the
# run from its first and last sample (the test also requires that no
# interval was left out), then per label mean, sd and the t half-width.
run_rates() {	# run_rates LABEL -> "iops mbs" per record of LABEL
	local f
	for f in "$store"/"$1"-*.json; do
		# Busy intervals: requests of any kind or the loop's io_ticks
		# grew; the span from the start of the first to the end of the
		# last; requests and bytes over the whole record.
		jq -r '.samples as $s | [range(1; $s | length) | select(
			[$s[.].vbds[0], $s[. - 1].vbds[0]] as [$b, $a] |
			$b.rd_req + $b.wr_req + $b.f_req + $b.ds_req >
			$a.rd_req + $a.wr_req + $a.f_req + $a.ds_req or
			(($b.blk.io_ticks_ms // 0) != ($a.blk.io_ticks_ms // 0)))] as $busy |
		"\($s[-1].vbds[0].rd_req - $s[0].vbds[0].rd_req) \($s[-1].vbds[0].rd_sect - $s[0].vbds[0].rd_sect) \($s[$busy[-1]].t_ns - $s[$busy[0] - 1].t_ns)"' "$f" |
			awk '{ printf "%.6f %.6f\n", $1 / ($3 / 1e9), $2 * 512 / 1e6 / ($3 / 1e9) }'
	done
}
# t quantile 0.975 (95 %) by degrees of freedom 1..12.
t975() { awk -v df="$1" 'BEGIN { split("12.706205 4.302653 3.182446 2.776445 2.570582 2.446912 2.364624 2.306004 2.262157 2.228139 2.200985 2.178813", t, " "); print t[df] }'; }
# mean_half COLUMN: "mean half n" of column COLUMN of stdin.
mean_half() {
	awk -v c="$1" '{ x[NR] = $c; s += $c } END {
		n = NR; m = s / n; for (i = 1; i <= n; i++) v += (x[i] - m) ^ 2
		sd = sqrt(v / (n - 1)); printf "%.6f %.6f %d\n", m, sd / sqrt(n), n }'
}
# gmean_half COLUMN T: "geometric mean, half-width, n" of column COLUMN of
# stdin: exp(mean ln x), and of its interval exp(mean ln x +- T s / sqrt n)
# the larger side (the paired test's centres are on its ratio scale).
gmean_half() {
	awk -v c="$1" -v t="$2" '{ x[NR] = log($c); s += x[NR] } END {
		n = NR; m = s / n; for (i = 1; i <= n; i++) v += (x[i] - m) ^ 2
		h = t * sqrt(v / (n - 1)) / sqrt(n)
		printf "%.6f %.6f %d\n", exp(m), exp(m) * (exp(h) - 1), n }'
}
close_to() {	# close_to A B: two numbers, equal to 0.2 % (or 0.01 absolute)
	local num='^-?[0-9]+(\.[0-9]+)?$'
	[[ $1 =~ $num && $2 =~ $num ]] || { echo "# not numbers: '$1' '$2'"; return 1; }
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d
		m = (a < 0 ? -a : a); exit !(d <= 0.002 * m || d <= 0.01) }'
}

phase "A/B: dom0 cache host vs none, until confident"
t0=$SECONDS
xvbd ab run cached direct --domain $name --disk-a "$spec" --cache-a host \
	--disk-b "$spec" --cache-b none \
	--ready "$(abg_hot_ready_cmd $trig)" --run "$(abg_hot_go_cmd $trig $top/go.log)" \
	--interval 0.05 --until-confident --max-runs 6 --metric read_mb_per_s --dir $store \
	--json >$top/ab.json 2>$top/ab.err
rc=$?
echo "# hot experiment: $((SECONDS - t0)) s"
sed 's/^/# /' $top/ab.err $top/go.log
expect_eq "ab run A/B exits 0" 0 $rc
check "ab run prints JSON" jq -e . $top/ab.json
abg_run_fields $top/ab.json sequential
na=$(ls $store/cached-*.json 2>/dev/null | wc -l)
nb=$(ls $store/direct-*.json 2>/dev/null | wc -l)
expect_eq "as many runs of A as of B" "$na" "$nb"
check "at least 3 runs each ($na)" test "$na" -ge 3
expect_eq "the sequence decided: different" different \
	"$(jq -r .sequential.decision $top/ab.json)"
expect_eq "pairs = runs per label" "$na" "$(jq -r .sequential.pairs $top/ab.json)"
# ABBA: by start time the labels go A B B A A B ...
order=$(for f in $store/*.json; do jq -r '"\(.started_unix_ns) \(.label)"' $f; done |
	sort -n | awk '{ printf "%s", ($2 == "cached" ? "A" : "B") }')
expect_eq "runs in ABBA order" "$(echo ABBAABBAABBA | cut -c1-$((2 * na)))" "$order"
check "no run lost an interval (no reset, nothing flagged)" \
	sh -c "! grep -q 'left out' $top/ab.err $top/ab.json"
check "no sample of any record flagged reset" sh -c \
	"! jq '[.samples[].vbds[].reset] | any' $store/*.json | grep -q true"
# The fingerprint is taken after the warmup, the guest's disk connected:
# what its blkfront negotiated is known, as the backend shows it.
check "every record knows the ring the guest negotiated" sh -c \
	"! jq -r '.fingerprint[\"vbd.xvdb.ring_pages\"]' $store/*.json | grep -qv '^[0-9][0-9]*\$'"
check "every record knows its busy span" sh -c \
	"! jq -r '.samples[-1].vbds[0].blk.io_ticks_ms' $store/*.json | grep -qv '^[0-9][0-9]*\$'"
# Each run's disk is gone afterwards; the guest and its other disk stay.
check "nothing of xvdb left (xenstore, loop)" sh -c \
	"[ -z \"\$(xenstore-ls /local/domain/0/backend/vbd/$domid/51728 2>/dev/null)\" ] && ! losetup -a | grep -q $img"
check "the guest runs on" sh -c "xl list | grep -q '^$name '"
expect_eq "its other disk still Connected" "4 4" "$(bstate $domid 51712) $(fstate $domid 51712)"
check "no state file left" sh -c '[ -z "$(ls /run/xvbd/ab-run 2>/dev/null)" ]'

# Paired on ln(B/A): the centres are each side's geometric mean (every
# run is one side of a pair here), B-A and the % theirs; the plain means'
# difference is the raw one beside it.
m='.comparison.metrics[] | select(.metric == "read_mb_per_s")'
read -r ma _ nA < <(run_rates cached | mean_half 2)
read -r mb _ nB < <(run_rates direct | mean_half 2)
ta=$(t975 $((nA - 1)))
read -r ga gha _ < <(run_rates cached | gmean_half 2 "$ta")
read -r gb _ _ < <(run_rates direct | gmean_half 2 "$ta")
echo "# recomputed read MB/s: A $ga +- $gha (geometric, n=$nA; mean $ma), B $gb (geometric, n=$nB; mean $mb)"
expect_eq "read_mb_per_s: paired on the ratio scale" ratio "$(jq -r "$m | .scale" $top/ab.json)"
check "A's geometric mean read MB/s recomputed" close_to "$ga" "$(jq -r "$m | .a" $top/ab.json)"
check "B's geometric mean read MB/s recomputed" close_to "$gb" "$(jq -r "$m | .b" $top/ab.json)"
check "A's half-width recomputed (GM (exp(t sd(ln x) / sqrt n) - 1))" \
	close_to "$gha" "$(jq -r "$m | .a_half" $top/ab.json)"
check "the difference of the geometric means recomputed" \
	close_to "$(awk -v a=$ga -v b=$gb 'BEGIN { print b - a }')" "$(jq -r "$m | .diff" $top/ab.json)"
check "the relative difference recomputed (their ratio)" \
	close_to "$(awk -v a=$ga -v b=$gb 'BEGIN { print (b - a) / a * 100 }')" "$(jq -r "$m | .pct" $top/ab.json)"
check "the raw difference recomputed (the means')" \
	close_to "$(awk -v a=$ma -v b=$mb 'BEGIN { print b - a }')" "$(jq -r "$m | .raw_diff" $top/ab.json)"
expect_eq "read_mb_per_s verdict: B (direct I/O) slower, proven" worse "$(jq -r "$m | .verdict" $top/ab.json)"
read -r ia _ < <(run_rates cached | gmean_half 1 "$ta")
check "read_iops recomputed (A, geometric)" close_to "$ia" \
	"$(jq -r '.comparison.metrics[] | select(.metric == "read_iops") | .a' $top/ab.json)"
# Every run saw the guest's whole read: 8 MiB = 16384 sectors, plus a few
# KiB the guest kernel reads on its own (24 sectors in every run seen).
for f in $store/*.json; do
	n=$(jq '.samples[-1].vbds[0].rd_sect - .samples[0].vbds[0].rd_sect' $f)
	check "$(basename $f .json): 8 MiB read in the record ($n sectors)" \
		sh -c "[ $n -ge 16384 ] && [ $n -le $((16384 + 256)) ]"
done
expect_eq "the only fingerprint difference: vbd.xvdb.dom0_cache" \
	"vbd.xvdb.dom0_cache" "$(jq -r .comparison.variable $top/ab.json)"
expect_eq "A's side of it: host" host "$(jq -r '.comparison.differences[0].a' $top/ab.json | cut -d' ' -f1)"
expect_eq "B's side of it: none" none "$(jq -r '.comparison.differences[0].b' $top/ab.json | cut -d' ' -f1)"

phase "clean up"
xl destroy $name 2>/dev/null
rm -rf $top $img $trig $keep
umount $slow
finish
