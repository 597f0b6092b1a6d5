# xvbd stats: a guest reads exactly
# 256 MiB with O_DIRECT while `xvbd stats --json -d 0.2` samples it.
#  - the read-sector delta over the samples that saw the read is exactly
#    524288 sectors (256 MiB);
#  - ... as the guest's own block layer counts it (/sys/block/xvda/stat)
#    and its dd reports;
#  - the rates are bytes per second of xvbd's intervals: rate x interval
#    over the samples that saw the read adds up to 256 MiB (within 2 %;
#    a consistency check only: the rate is delta / interval);
#  - xvbd's clock agrees with the guest's (which timed its dd): the samples
#    fully inside the read span no more than the dd took (5 % + 0.1 s),
#    and all samples that saw the read at least 3/4 of it (the dd's time
#    also holds its start-up, a few tenths of a second under TCG).  A clock
#    50 % fast or slow fails one of the two.  (Comparing rates instead
#    failed both ways: a 1 s dd is a third start-up.)
#  - the idle guest shows < 5 % CPU;
#  - text, --json and --csv of a frozen (paused) guest parse and carry the
#    same numbers; --prometheus writes the same counters; bad usage exits 2
#    (consistency only: t/72 checks each format against sysfs during I/O).
. /lab/lib/testlib.sh
img=/scratch/t70.img
truncate -s 300M $img
json=/tmp/t70.jsonl

lab-guest start t70 --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--paused --run 'sleep 3; s0=$(cat /sys/block/xvda/stat)
a=$(cut -d" " -f1 /proc/uptime)
dd if=/dev/xvda of=/dev/null bs=1M count=256 iflag=direct 2>&1
b=$(cut -d" " -f1 /proc/uptime); echo "DDTIME $a $b"
s1=$(cat /sys/block/xvda/stat); echo "GSTAT0 $s0"; echo "GSTAT1 $s1"; sleep 3'
domid=$(xl domid t70)
check "guest created" test -n "$domid"
check "backend in InitWait while paused" wait_for 60 2 bstate "$domid" 51712

xvbd stats t70 -d 0.2 --json >$json 2>/tmp/t70.err &
stats=$!
sleep 2
xl unpause t70
out=$(lab-guest wait t70 --timeout 300)
rc=$?
echo "$out" | sed 's/^/# guest: /'
expect_eq "guest commands succeeded" 0 "$rc"
sleep 1
kill -INT $stats
wait $stats
expect_eq "stats ended cleanly on SIGINT" 0 $?
check "no warnings from stats" test ! -s /tmp/t70.err
cat /tmp/t70.err | sed 's/^/# stderr: /'
check "every line is one JSON object" \
	sh -c "jq -e -c 'type == \"object\"' $json >/dev/null"
echo "# $(wc -l <$json) samples"

# One line per sample of xvda: raw rd_sect, interval, rate (MB/s),
# interval state.
jq -r '. as $s | .vbds[] | select(.vdev == "xvda") |
	"\(.rd_sect) \($s.interval_s) \(.read_mb_per_s) \(.interval)"' \
	$json >/tmp/t70.rows
check "xvda sampled" test -s /tmp/t70.rows

# The dd: the counter stands still (partition scan done, guest sleeping)
# for >= 1 s, then climbs to its final value.  Its samples: from the
# first that moved after that plateau to the last that moved.
read -r dd_a dd_b < <(echo "$out" | sed -n 's/^DDTIME //p')
res=$(awk -v a="$dd_a" -v b="$dd_b" '
	{ sect[NR] = $1; iv[NR] = $2; rate[NR] = $3; st[NR] = $4 }
	END {
		final = sect[NR]; run = 1; base = -1
		for (i = 2; i <= NR; i++) {
			run = sect[i] == sect[i - 1] ? run + 1 : 1
			if (run == 5 && sect[i] < final) { base = sect[i]; bi = i }
		}
		if (base < 0) { print "none"; exit }
		for (i = bi + 1; i <= NR && sect[i] == base; i++) ;
		first = i
		for (i = NR; sect[i] == sect[i - 1]; i--) ;
		last = i
		# Samples fully inside the read: all but the first and last.
		t_in = 0; bad = 0
		for (i = first + 1; i < last; i++) {
			if (st[i] != "ok") bad++
			t_in += iv[i]
		}
		# All that saw it: their time, and rate x interval.
		t_all = 0; bytes = 0
		for (i = first; i <= last; i++) {
			t_all += iv[i]; bytes += rate[i] * 1e6 * iv[i]
		}
		printf "%d %d %d %.3f %.3f %.0f %.3f\n", final - base,
			last - first - 1, bad, t_in, t_all, bytes, b - a
	}' /tmp/t70.rows)
echo "# delta_sectors full_samples not_ok inside_s all_s rate_x_interval_bytes dd_s: $res"
read -r delta nfull bad t_in t_all bytes dd_s <<<"$res"
expect_eq "read-sector delta is exactly 256 MiB (524288 sectors)" 524288 "$delta"
# Sources xvbd does not control: the guest's dd says how many bytes it
# read, and the guest's own block layer (/sys/block/xvda/stat, field 3:
# sectors read) how many sectors went to the disk, before and after the
# dd and in all since boot, which blkback's cumulative count must equal.
# (busybox dd counts blocks only: 256 full blocks of 1 MiB)
expect_eq "the guest's dd read 256 MiB (256 full 1 MiB blocks)" "256+0" \
	"$(sed -n 's/^\([0-9+]*\) records in$/\1/p' <<<"$out")"
read -r -a gs0 < <(sed -n 's/^GSTAT0 //p' <<<"$out")
read -r -a gs1 < <(sed -n 's/^GSTAT1 //p' <<<"$out")
expect_eq "xvbd's read-sector delta = the guest's own (sysfs)" \
	"$((${gs1[2]:-0} - ${gs0[2]:-0}))" "$delta"
expect_eq "xvbd's last rd_sect = the guest's sectors read since boot" \
	"${gs1[2]:-none}" "$(tail -n 1 /tmp/t70.rows | cut -d' ' -f1)"
check "at least 2 samples fully inside the read" test "${nfull:-0}" -ge 2
expect_eq "samples inside the read are all 'ok'" 0 "$bad"
check "rate x interval adds up to 256 MiB within 2 % ($bytes B)" \
	awk -v x="$bytes" 'BEGIN { r = x / 268435456; exit !(r > 0.98 && r < 1.02) }'
check "xvbd's time inside the read <= the guest's dd time ($t_in s vs $dd_s s)" \
	awk -v x="$t_in" -v d="$dd_s" 'BEGIN { exit !(x <= d * 1.05 + 0.1) }'
check "xvbd's time over the read >= 3/4 of the dd time ($t_all s vs $dd_s s)" \
	awk -v x="$t_all" -v d="$dd_s" 'BEGIN { exit !(x >= d * 0.75) }'
check "no negative number anywhere" \
	sh -c "! grep -q -- ':-[0-9]' $json"

# The guest is idle now: xvbd's CPU% over 3 s against Xen's own count
# across the call (xl list: seconds with one decimal, so +-0.1 s at each
# end), and low (an idle guest under TCG on a loaded host: 4-6 % seen; a
# spinning one is ~100 %).
xl_cpu_s() { xl list t70 | awk 'NR == 2 { print $6 }'; }
x0=$(xl_cpu_s) w0=$EPOCHREALTIME
idle=$(xvbd stats t70 -d 1 -n 3 --json |
	jq -s '[.[].domains[] | select(.domain == "t70") | .cpu_pct] | add / length')
x1=$(xl_cpu_s) w1=$EPOCHREALTIME
xen_pct=$(awk -v a="$x0" -v b="$x1" -v s="$w0" -v e="$w1" \
	'BEGIN { printf "%.2f", (b - a) * 100 / (e - s) }')
slack=$(awk -v s="$w0" -v e="$w1" 'BEGIN { printf "%.2f", 0.25 * 100 / (e - s) + 1 }')
echo "# idle guest CPU%: xvbd $idle, Xen $xen_pct (x0 $x0 x1 $x1, +-$slack)"
check "idle guest's CPU% near Xen's count ($idle vs $xen_pct +-$slack)" \
	awk -v c="$idle" -v x="$xen_pct" -v s="$slack" \
	'BEGIN { exit !(c != "" && c - x <= s && x - c <= s) }'
check "idle guest < 10 % CPU ($idle)" awk -v c="$idle" 'BEGIN { exit !(c < 10) }'

# Paused: its counters and CPU time stand still, so three formats taken
# one after the other describe the same state.
xl pause t70
xvbd stats t70 -d 0.3 -n 1 >/tmp/t70.txt
xvbd stats t70 -d 0.3 -n 1 --json >/tmp/t70.one.json
xvbd stats t70 -d 0.3 -n 1 --csv >/tmp/t70.csv
sed 's/^/# text: /' /tmp/t70.txt
check "JSON parses" sh -c "jq -e . /tmp/t70.one.json >/dev/null"
# jq turns 0.00 into 0: compare as numbers (the digits are the unit test's).
same_numbers() {	# "a,b,c" "a,b,c"
	awk -v x="$1" -v y="$2" 'BEGIN { n = split(x, p, ","); m = split(y, q, ",")
		if (n != m || n == 0) exit 1
		for (i = 1; i <= n; i++) if (p[i] == "" || p[i] + 0 != q[i] + 0) exit 1 }'
}
jrow=$(jq -r '.vbds[0] | [.domid, .devid, .rd_req, .rd_sect, .wr_req,
	.wr_sect, .f_req, .ds_req, .oo_req, .read_iops, .read_mb_per_s] |
	map(tostring) | join(",")' /tmp/t70.one.json)
crow=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["type"] == "vbd" { print $c["domid"] "," $c["devid"] "," \
		$c["rd_req"] "," $c["rd_sect"] "," $c["wr_req"] "," \
		$c["wr_sect"] "," $c["f_req"] "," $c["ds_req"] "," \
		$c["oo_req"] "," $c["read_iops"] "," $c["read_mb_per_s"] }' \
	/tmp/t70.csv)
echo "# json: $jrow"
echo "# csv:  $crow"
check "CSV row carries the JSON numbers" same_numbers "$jrow" "$crow"
check "CSV rows have the header's column count" \
	awk -F, 'NR == 1 { n = NF; next } NF != n { exit 1 }' /tmp/t70.csv
jcpu=$(jq -r '.domains[] | select(.domain == "t70") | .cpu_pct' \
	/tmp/t70.one.json)
tcpu=$(awk '/^vbds:/ { col = 0 } / CPU% / { for (i = 1; i <= NF; i++)
	if ($i == "CPU%") col = i; next } col && $2 == "t70" { print $col }' \
	/tmp/t70.txt)
check "text CPU% of the paused guest equals JSON's ($tcpu, $jcpu)" \
	same_numbers "$jcpu" "$tcpu"
jrd=$(jq -r '.vbds[0] | [.read_iops, .write_iops,
	(.read_mb_per_s * 100 | round / 100), .queue_depth] |
	map(tostring) | join(",")' /tmp/t70.one.json)
trd=$(awk '/ RD\/s / { for (i = 1; i <= NF; i++) c[$i] = i; next }
	c["RD/s"] && $3 == "xvda" { print $c["RD/s"] "," $c["WR/s"] "," \
		$c["RD-MB/s"] "," $c["QDEPTH"] }' /tmp/t70.txt)
check "text VBD rates equal JSON's ($trd, $jrd)" same_numbers "$jrd" "$trd"

# Prometheus textfile: written atomically, same counters as the JSON.
prom=/tmp/t70-prom/xvbd.prom
mkdir -p /tmp/t70-prom
xvbd stats t70 -d 0.3 -n 1 --prometheus $prom
expect_eq "--prometheus exits 0" 0 $?
sect=$(jq -r '.vbds[0].rd_sect' /tmp/t70.one.json)
check "prometheus read bytes = rd_sect x 512" grep -q \
	"^xvbd_vbd_read_bytes_total{domid=\"$domid\",domain=\"t70\",vdev=\"xvda\",devid=\"51712\"} $((sect * 512))\$" $prom
check "no temporary file left beside it" \
	test "$(ls -A /tmp/t70-prom)" = xvbd.prom
xl unpause t70

# Usage errors: exit 2, nothing on stdout (under --json the one failure
# object).
for bad in "-d 0" "-d abc" "-n 0" "--bogus"; do
	o=$(xvbd stats $bad 2>/dev/null)
	expect_eq "xvbd stats $bad exits 2" 2 $?
	expect_eq "xvbd stats $bad prints nothing" "" "$o"
done
o=$(xvbd stats --json --csv 2>/dev/null)
expect_eq "xvbd stats --json --csv exits 2" 2 $?
expect_eq "xvbd stats --json --csv: one JSON failure object" "true 2" \
	"$(jq -r '"\(.failed) \(.rc)"' <<<"$o")"
xvbd stats no-such-domain -n 1 >/dev/null 2>&1
expect_eq "unknown domain exits 1" 1 $?

lab-guest stop t70
rm -f $img
finish
