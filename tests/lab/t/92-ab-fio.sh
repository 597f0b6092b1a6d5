# The guest's own numbers in hot A/B experiments: one guest with fio
# (abguest.sh, abg_hot_fio_start) runs each run's fio job on the disk
# under test and hands its JSON+ back over its trigger disk to the --run
# command, whose stdout ab run reads.  Checked against fio's own JSON
# (jq over the copies the --run command kept), not xvbd's output:
#  - fio 4k randread O_DIRECT, 3+3 runs (A: blkback's ring offer, B:
#    ring-order=0): every guest metric of every run (IOPS, MB/s, clat
#    mean, p50, p99, p99.9, max) equals fio's figure; each label's merged
#    p99 (ab show LABEL) equals the p99 of the sum of its runs' JSON+
#    bins computed here; blkback's read requests per second over each
#    run (read_iops) within 5 % of fio's IOPS;
#  - two runs whose jobs differ only in bs (4k, 1k): ab compare names
#    the workload difference in one line and takes no variable under
#    test;
#  - dom0's page cache: the image --cache host against --cache none,
#    each run's job reading the same 2 MiB twice (O_DIRECT in the guest:
#    with host, dom0's cache serves the second pass; a random job of 2 s
#    read 0.5 MiB here, below what the accounting calls more than
#    rounding, and its runs' cache did not carry over the none runs
#    between A's two): the accounting names A's second run "served from
#    dom0's page cache" with a fraction within 5 points of the one from
#    the stat of the disk holding the image, read here around each run;
#    none of B's;
#  - a benchfmt workload (the guest times an md5sum of the disk under
#    test and prints a Benchmark line): the fast disk (/scratch) against
#    the slow one (/slow, reads throttled), 3+3 runs: B worse, lower
#    being better for seconds.
# lab-tier: all
# lab-timeout: 1500
. /lab/lib/testlib.sh
. /lab/lib/abguest.sh
name=t92
top=/tmp/t92
store=$top/store
img=/scratch/t92.img
slow=/slow/t92.img
fast=/scratch/t92-fast.img
trig=/scratch/t92-trig.img
xl destroy $name 2>/dev/null
rm -rf $top
mkdir -p $top/fio $top/bs $top/bench $top/cache
check "the slow disk is mounted on /slow" abg_mount_slow
rm -f $img $slow $fast $trig
dd if=/dev/urandom of=$img bs=1M count=16 status=none
# the benchmark's two disks: the same 4 MiB, fast and throttled
dd if=/dev/urandom of=$fast bs=1M count=4 status=none
cp $fast $slow
truncate -s 1M $trig

phase "a guest with fio"
check "the guest is up (UP on its trigger)" abg_hot_fio_start $name $trig ||
	{ finish; exit 1; }
spec="format=raw,vdev=xvdb,access=ro,target=$img"
ready=$(abg_hot_ready_cmd $trig)
job="--name=rr --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --size=16M --runtime=3 --time_based"

phase "hot A/B with fio, 3+3 runs"
echo "GO $job" >$top/fio/args
t0=$SECONDS
xvbd ab run fioa fiob --domain $name --disk-a "$spec" --cache-a none \
	--disk-b "$spec" --cache-b none --vbd-b xvdb:ring-order=0 \
	--ready "$ready" --run "$(abg_hot_fio_go_cmd $trig $top/fio)" \
	--runs 3 --dir $store --json >$top/ab.json 2>$top/ab.err
rc=$?
echo "# hot fio experiment: $((SECONDS - t0)) s"
expect_eq "ab run exits 0" 0 $rc
[ $rc = 0 ] || sed 's/^/# /' $top/ab.err | tail -30
expect_eq "no warning about results" 0 "$(grep -c 'no workload results' $top/ab.err)"
expect_eq "6 fio reports kept by the --run command" 6 "$(ls $top/fio/*.json | wc -l)"
# Record id -> fio's timestamp_ms (which report is whose), xvbd's export,
# fio's own figures: one jq each, joined by awk.
jq -r '"\(.id) \(.results.fio.timestamp_ms)"' $store/fio*.json >$top/map
xvbd ab export --json --dir $store fioa fiob |
	jq -r '.[] | [.id, .guest_read_iops, .guest_read_mb_per_s,
		.guest_read_clat_ms, .guest_read_clat_p50_ms, .guest_read_clat_p99_ms,
		.guest_read_clat_p99_9_ms, .guest_read_clat_max_ms, .read_iops] |
		map(tostring) | join(" ")' >$top/xvbd
jq -r '[.timestamp_ms, .jobs[0].read.iops, .jobs[0].read.bw_bytes / 1e6,
	(.jobs[0].read.clat_ns | .mean / 1e6, .percentile["50.000000"] / 1e6,
	 .percentile["99.000000"] / 1e6, .percentile["99.900000"] / 1e6,
	 .max / 1e6)] | map(tostring) | join(" ")' $top/fio/*.json >$top/fio.txt
sed 's/^/# xvbd: /' $top/xvbd
sed 's/^/# fio:  /' $top/fio.txt
# decimals of ab export: IO/s 3, MB/s 4, ms 5
out=$(awk 'FILENAME ~ /map$/ { ts[$1] = $2; next }
	FILENAME ~ /fio.txt$/ { for (i = 2; i <= 8; i++) f[$1, i] = $i; next }
	{ n++; t = ts[$1]; split("3 4 5 5 5 5 5", dec)
	  for (i = 2; i <= 8; i++) {
		d = $i - f[t, i]; if (d < 0) d = -d
		if (!(t != "" && d <= 0.5 * 10 ^ -dec[i - 1] + 1e-9))
			print "run " $1 " metric " i - 1 ": xvbd " $i ", fio " f[t, i]
	  }
	  r = $9 / f[t, 2]
	  if (r < 0.95 || r > 1.05)
		print "run " $1 ": blkback " $9 " req/s, fio " f[t, 2] " IO/s"
	  else
		ok++ }
	END { print n + 0 " runs, " ok + 0 " within 5 %" }' $top/map $top/fio.txt $top/xvbd)
echo "$out" | sed 's/^/# /'
expect_eq "every guest metric of the 6 runs is fio's own, blkback's req/s within 5 % of fio's IOPS" \
	"6 runs, 6 within 5 %" "$out"
# The label's p99: 99 % of the summed bins' I/Os at or below it.
p99_of() {
	jq -s -r '[.[] | .jobs[0].read.clat_ns.bins | to_entries[]] |
		group_by(.key | tonumber) |
		map({v: (.[0].key | tonumber), c: (map(.value) | add)}) |
		sort_by(.v) | (map(.c) | add) as $n |
		reduce .[] as $b ({s: 0, r: null};
			if .r == null then .s += $b.c |
				(if .s >= 0.99 * $n then .r = $b.v else . end)
			else . end) | .r / 1e6' "$@"
}
for l in fioa fiob; do
	want=$(p99_of $top/fio/$l-*.json)
	got=$(xvbd ab show $l --dir $store --json | jq -r '.merged_clat.read.p99_ms')
	check "$l: merged p99 ($got ms) is the p99 of the summed bins ($want ms)" \
		awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.0005 && d > -0.0005) }'
done

phase "dom0's page cache: --cache host (read twice) against --cache none"
echo "GO --name=twice --rw=read --bs=64k --direct=1 --ioengine=psync --size=2M --loops=2" >$top/cache/args
dev=$(stat -c '%Hd:%Ld' $img)
# The --run command, between two reads of that disk's stat: the sectors
# it read during each run, per label.
cat >$top/cache/go.sh <<EOS
#!/bin/sh
read -r x y s0 rest </sys/dev/block/$dev/stat
$(abg_hot_fio_go_cmd $trig $top/cache)
rc=\$?
read -r x y s1 rest </sys/dev/block/$dev/stat
echo "\$XVBD_AB_LABEL \$((s1 - s0))" >>$top/cache/sectors
exit \$rc
EOS
chmod +x $top/cache/go.sh
sync
echo 3 >/proc/sys/vm/drop_caches
xvbd ab run host none --domain $name --disk-a "$spec" --cache-a host \
	--disk-b "$spec" --cache-b none --ready "$ready" \
	--run "$top/cache/go.sh" --runs 2 --dir $store --json \
	>$top/cache.json 2>$top/cache.err
expect_eq "cache: ab run exits 0" 0 $?
sed 's/^/# disk sectors read: /' $top/cache/sectors
second=$(ls $store/host-*.json | sort | tail -1)
id2=$(jq -r .id $second)
xvbd ab show $id2 --dir $store --json >$top/cache/show2.json
flag=$(jq -r '.accounting.flags[]' $top/cache/show2.json)
echo "# $id2: $flag"
# the counts the flag is decided from, for a failure's log
echo "# $id2: $(jq -c '.accounting | del(.flags)' $top/cache/show2.json)"
pct=$(sed -n 's/.*: \([0-9]*\) % served from dom0.s page cache$/\1/p' <<<"$flag")
check "A's second run: served from dom0's page cache, the disk holding the image named" \
	grep -q "the disk holding the image .*% served from dom0's page cache" <<<"$flag"
# The fraction from the disk's own stat and fio's bytes of that run.
bytes=$(jq -r '.jobs[0].read.io_bytes' $top/cache/host-2.json)
sect=$(awk '$1 == "host" { n++; if (n == 2) print $2 }' $top/cache/sectors)
want=$(awk -v s="$sect" -v b="$bytes" 'BEGIN { printf "%.0f", 100 * (1 - s * 512 / b) }')
check "its fraction ($pct %) within 5 points of the disk's own ($want %)" \
	awk -v a="${pct:-999}" -v b="$want" 'BEGIN { d = a - b; exit !(d <= 5 && d >= -5) }'
for f in $store/none-*.json; do
	expect_eq "B's run $(jq -r .id $f): no page cache flag" "" \
		"$(xvbd ab show $(jq -r .id $f) --dir $store --json | jq -r '.accounting.flags[]' | grep 'page cache')"
done
check "ab compare names it" sh -c "xvbd ab compare host none --dir $store --json |
	jq -r '.warnings[]' | grep -q '^A run $id2: guest read .* served from dom0.s page cache'"

phase "fio jobs that differ in bs"
echo "GO ${job/--bs=4k/--bs=4k} --runtime=1" >$top/bs/args-bs4k
echo "GO ${job/--bs=4k/--bs=1k} --runtime=1" >$top/bs/args-bs1k
xvbd ab run bs4k bs1k --domain $name --disk-a "$spec" --cache-a none \
	--disk-b "$spec" --cache-b none --ready "$ready" \
	--run "$(abg_hot_fio_go_cmd $trig $top/bs)" --runs 1 --dir $store \
	--json >$top/bs.json 2>$top/bs.err
expect_eq "bs: ab run exits 0" 0 $?
xvbd ab compare bs4k bs1k --dir $store --json >$top/bscmp.json
w=$(jq -r '.warnings[]' $top/bscmp.json)
echo "$w" | sed 's/^/# warning: /'
check "compare names the job's bs in one line" \
	grep -q "the workload's own parameters differ: A ran bs=4k, B bs=1k: fio's jobs differ" <<<"$w"
check "and says it is no variable under test" \
	grep -q "workload.fio.job0.bs cannot be the variable under test" <<<"$w"
expect_eq "the guest's IOPS compared" 1 \
	"$(jq '[.metrics[] | select(.metric == "guest_read_iops")] | length' $top/bscmp.json)"

phase "benchfmt: an md5sum of the fast disk against the slow one, 3+3"
echo BENCH >$top/bench/args
xvbd ab run fast slow --domain $name \
	--disk-a "format=raw,vdev=xvdb,access=ro,target=$fast" --cache-a none \
	--disk-b "format=raw,vdev=xvdb,access=ro,target=$slow" --cache-b none \
	--ready "$ready" --run "$(abg_hot_fio_go_cmd $trig $top/bench)" \
	--runs 3 --dir $store --json >$top/bench.json 2>$top/bench.err
expect_eq "bench: ab run exits 0" 0 $?
cat $top/bench/*.json | sed 's/^/# guest: /'
# The metric decided on before looking (man xvbd-ab): Holm over all the
# metrics ab run compared left 'no difference' in a loaded lab where A's
# times spread 0.20-0.76 s against B's 3.9 s.
xvbd ab compare fast slow --metric bench_lower_1 --dir $store --json \
	>$top/bench-cmp.json
m='.metrics[] | select(.metric == "bench_lower_1")'
expect_eq "bench_lower_1: B worse (its seconds higher)" worse \
	"$(jq -r "$m | .verdict" $top/bench-cmp.json)"
check "in the metric's words" sh -c "jq -r '$m | .text' $top/bench-cmp.json | grep -q '^B worse (higher)'"
expect_eq "the slot holds the guest's benchmark" "BenchmarkMd5Sum s" \
	"$(jq -r '.fingerprint["workload.bench.lower-1"]' $(ls $store/fast-*.json | head -1))"
lab-guest stop $name >/dev/null
rm -rf $top $img $slow $fast $trig
finish
