# tests/cli-ab.sh - sourced by tests/cli.sh: the `xvbd ab` commands that
# read records (compare, list, show, rm, export, plot) need no Xen, so they
# run here for real, on records written by ab_rec below into a temporary
# store: planted confounders must each be named, a record edited so that
# CPU time outruns wall x vCPUs must be flagged, a corrupted record must
# give one line naming the file.  Uses case_, $xvbd, VALGRIND, passed and
# failed from cli.sh.

abdir=$(mktemp -d /tmp/xvbd-cli-ab.XXXXXX)
trap 'rm -rf "$abdir"' EXIT

# ab_rec DIR LABEL SEQ IOPS [key=value...] [cpu_jump=K]: a record of ten
# one-second intervals at IOPS reads per second (8 sectors each, 2 ms per
# read on the backing device, guest 30 % and dom0 10 % of a CPU), started
# at 2024-05-01T12:00:0SEQ.  key=value replaces a fingerprint fact;
# cpu_jump=K adds 2.5 s of guest CPU time from sample K on (1 vCPU: that
# interval's CPU time outruns its wall time); exp=ID pair=N make it pair
# N's run of ab run experiment ID; mode=run: a --run record (its run
# time known).  others=P: the samples carry the
# other domains' CPU (2 domains using P % of one CPU); foreign=N: the
# backing device serves N reads a second of 8 sectors that are not the
# VBD's, and its sector counts are in the record.  lat=T: the run has
# latency (ab record --latency): 1000 reads at 1 ms and T at 20 ms.
ab_rec() {
	local dir=$1 label=$2 seq=$3 iops=$4 kv k jump=0 sep id t exp= pair=
	local others= foreign= lat= mode=duration
	shift 4
	local -A fp=(
		[dom0.clocksource]=xen [guest.vcpus]=1
		[vbd.xvdb.backend]=phy [vbd.xvdb.dom0_cache]=n/a
		[vbd.xvdb.ring_pages]=1 [vbd.xvdb.size_bytes]=4294967296
		[workload]="duration 10s"
	)
	for kv; do
		case $kv in
		cpu_jump=*) jump=${kv#*=} ;;
		exp=*) exp=${kv#*=} ;;
		pair=*) pair=${kv#*=} ;;
		others=*) others=${kv#*=} ;;
		foreign=*) foreign=${kv#*=} ;;
		lat=*) lat=${kv#*=} ;;
		mode=*) mode=${kv#*=} ;;
		*) fp[${kv%%=*}]=${kv#*=} ;;
		esac
	done
	id=$label-20240501T12000$seq-000$seq
	{
		printf '{"format":"xvbd-ab-record","version":1,"id":"%s",' "$id"
		printf '"label":"%s","started":"2024-05-01T12:00:0%sZ",' \
			"$label" "$seq"
		printf '"started_unix_ns":%s000000000,' $((1714564800 + seq))
		printf '"domain":"guest1","vdevs":["xvdb"],"mode":"%s",' "$mode"
		printf '"workload":"%s","workload_status":0,' "${fp[workload]}"
		printf '"interval_ns":1000000000,"warmup_ns":0,"complete":true,'
		[ -n "$exp" ] && printf '"experiment":"%s","pair":%s,' "$exp" "$pair"
		printf '"fingerprint":{'
		sep=
		while read -r k; do
			printf '%s"%s":"%s"' "$sep" "$k" "${fp[$k]}"
			sep=,
		done < <(printf '%s\n' "${!fp[@]}" | LC_ALL=C sort)
		printf '},"notes":[],'
		# Buckets at their lower bounds: 999424 (1 ms), 19922944 (20 ms).
		[ -n "$lat" ] && {
			local e='{"count":0,"sum_ns":0,"max_ns":0,"buckets":[]}'
			local n=$((1000 + lat)) top=999424
			((lat)) && top=19922944
			printf '"latency":{"clock":"mono","relative_error":0.015625,'
			printf '"vbds":[{"vdev":"xvdb","state":"ok","backwards":0,'
			printf '"d2c":{"read":{"count":%s,"sum_ns":%s,"max_ns":%s,' \
				$n $((1000 * 999424 + lat * 19922944)) $top
			printf '"buckets":[[999424,1000]%s]},"write":%s},' \
				"$( ((lat)) && printf ',[19922944,%s]' $lat)" "$e"
			printf '"i2c":{"read":%s,"write":%s}}]},' "$e" "$e"
		}
		printf '"samples":['
		for t in 0 1 2 3 4 5 6 7 8 9 10; do
			local req=$((iops * t)) cpu=$((t * 300000000))
			((jump && t >= jump)) && cpu=$((cpu + 2500000000))
			((t)) && printf ,
			printf '{"t_ns":%s,"guest_cpu_ns":%s,' $((t * 1000000000)) "$cpu"
			printf '"dom0_cpu_ns":%s,"guest_vcpus":1,"dom0_vcpus":1,' \
				$((t * 100000000))
			[ -n "$others" ] &&
				printf '"others":{"cpu_ns":%s,"domains":2},' \
					$((t * others * 10000000))
			printf '"vbds":[{"rd_req":%s,"wr_req":0,"rd_sect":%s,' \
				"$req" $((req * 8))
			printf '"wr_sect":0,"f_req":0,"ds_req":0,"oo_req":0,'
			printf '"reset":false,"blk":{"rd_ios":%s,"wr_ios":0,' \
				$((req + t * ${foreign:-0}))
			[ -n "$foreign" ] &&
				printf '"rd_sectors":%s,"wr_sectors":0,' \
					$(((req + t * foreign) * 8))
			printf '"rd_ticks_ms":%s,"wr_ticks_ms":0}}]}' $((req * 2))
		done
		printf ']}\n'
	} > "$dir/$id.json"
}

# ab_ok TEXT ARGS...: exit 0 and TEXT in stdout (blanks and line ends
# alike: the text form wraps its lines at 100 columns); then under
# valgrind.
ab_ok() {
	local text=$1 out rc flat want
	shift
	out=$("$xvbd" -q "$@" 2>&1)
	rc=$?
	flat=$(printf '%s' "$out" | tr -s '[:space:]' ' ')
	want=$(printf '%s' "$text" | tr -s '[:space:]' ' ')
	if [ "$rc" = 0 ] && [[ $flat == *"$want"* ]]; then
		echo "ok - xvbd $* -> 0: $text"
		passed=$((passed + 1))
	else
		echo "not ok - xvbd $* -> $rc (want 0 and '$text'):"
		printf '%s\n' "$out" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
	out=$("${VALGRIND[@]}" "$xvbd" -q "$@" 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
	else
		echo "not ok - valgrind: xvbd $* -> $rc:"
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

# ab_labels DIR: five runs of each of the labels the comparisons read,
# a variable or a confounder each against ring1.
ab_labels() {
	local i=0 iops s=$1

	for iops in 1510 1523 1498 1540 1529; do
		ab_rec "$s" ring1 $i $iops
		ab_rec "$s" ring8 $i $((iops + 190)) vbd.xvdb.ring_pages=8
		ab_rec "$s" order0 $i $iops vbd.xvdb.offer.ring_order=0
		ab_rec "$s" order2 $i $((iops + 3)) vbd.xvdb.offer.ring_order=2
		ab_rec "$s" order2t $i $((iops + 190)) vbd.xvdb.offer.ring_order=2 \
			vbd.xvdb.ring_pages=4
		ab_rec "$s" vcpus2 $i $((iops + 190)) vbd.xvdb.ring_pages=8 \
			guest.vcpus=2
		ab_rec "$s" file $i $((iops + 900)) vbd.xvdb.backend="file via loop" \
			vbd.xvdb.dom0_cache=host
		ab_rec "$s" big $i $((iops + 190)) vbd.xvdb.ring_pages=8 \
			vbd.xvdb.size_bytes=7516192768
		ab_rec "$s" fio64k $i $((iops + 190)) vbd.xvdb.ring_pages=8 \
			workload="fio 64k read"
		i=$((i + 1))
	done
}

s=$abdir/store
mkdir -p "$s"
ab_labels "$s"
ab_rec "$s" two 0 1700 vbd.xvdb.ring_pages=8
ab_rec "$s" two 1 1710 vbd.xvdb.ring_pages=8
ab_rec "$s" fast 0 1700 vbd.xvdb.ring_pages=8
ab_rec "$s" fast 1 1710 vbd.xvdb.ring_pages=8 cpu_jump=5
ab_rec "$s" fast 2 1705 vbd.xvdb.ring_pages=8

# One ab run experiment: the host drifts by pair, B is 2 % faster within
# each; paired, the drift drops out; unpaired, it hides the 2 %.
i=0
for iops in 1000 1200 1400 1600 1800; do
	ab_rec "$s" pa $i $iops exp=ab-run-20240501T120000-0000 pair=$((i + 1))
	ab_rec "$s" pb $i $((iops * 102 / 100 + i % 2)) vbd.xvdb.ring_pages=8 \
		exp=ab-run-20240501T120000-0000 pair=$((i + 1))
	i=$((i + 1))
done
ab_ok "paired t on the 5 ABBA pairs of experiment ab-run-20240501T120000-0000" \
	ab compare pa pb --dir "$s" -v
ab_ok "compared: A pa, B pb: the 5 ABBA pairs of ab-run-20240501T120000-0000" \
	ab compare pa pb --dir "$s"
ab_ok "read_iops: B faster by 2.0 % +- 0.1 % (paired t, p=" \
	ab compare pa pb --dir "$s" --metric read_iops -v
ab_ok "+2.0% +-0.1 B faster (p=3.7e-08)" ab compare pa pb --dir "$s" \
	--metric read_iops
ab_ok '"test":"paired","pairs":5,' ab compare pa pb --dir "$s" --json
ab_ok "Welch's t on run summaries" ab compare pa pb --dir "$s" --unpaired
ab_ok "runs per side would detect 5 % at 80 % power" \
	ab compare pa pb --dir "$s" --unpaired --metric read_iops
ab_ok "read_iops: same within +-5 % (90 % interval +" \
	ab compare pa pb --dir "$s" --equivalence 5
ab_ok "read_iops: not shown to be the same within +-1 %" \
	ab compare pa pb --dir "$s" --equivalence 1
ab_ok "runs per side would detect 20 %" \
	ab compare pa pb --dir "$s" --unpaired --min-effect 20
ab_ok "B faster by 12.5 % +- 1.7 % (Welch's t, p=" ab compare ring1 ring8 \
	--dir "$s" -v
ab_ok "B faster (p=5.6e-07)" ab compare ring1 ring8 --dir "$s"
ab_ok "multiple metrics: Holm-Bonferroni over" \
	ab compare ring1 ring8 --dir "$s" -v
ab_ok "p Holm-adjusted over 7 metrics" ab compare ring1 ring8 --dir "$s"
ab_ok "none (--no-adjust: each verdict at the confidence alone)" \
	ab compare ring1 ring8 --dir "$s" --no-adjust -v
ab_ok "p per metric (--no-adjust)" ab compare ring1 ring8 --dir "$s" \
	--no-adjust
ab_ok '"adjust":"none"' ab compare ring1 ring8 --dir "$s" --no-adjust \
	--json
ab_ok "none (one metric)" ab compare ring1 ring8 --dir "$s" \
	--metric read_iops -v
ab_ok "variable under test: vbd.xvdb.ring_pages: A 1, B 8" \
	ab compare ring1 ring8 --dir "$s"
ab_ok "guest.vcpus: A 1, B 2: guest vCPUs differ" \
	ab compare ring1 vcpus2 --dir "$s"
ab_ok "cannot be attributed" ab compare ring1 vcpus2 --dir "$s"
ab_ok "vbd.xvdb.dom0_cache: A n/a (phy), B host (dom0's page cache can serve reads)" \
	ab compare ring1 file --dir "$s"
ab_ok "disk sizes differ" ab compare ring1 big --dir "$s"
# an offer that differs while the frontend's choice does not
ab_ok "vbd.xvdb.offer.ring_order: B offered ring order 2 (A 0); the frontend chose 1 ring page on both sides: its limit, the guest kernel's xen_blkfront.max_ring_page_order, refused it: the change never took effect" \
	ab compare order0 order2 --dir "$s"
ab_ok '"not_taken":true,"refused_by":"frontend","parameter":"xen_blkfront.max_ring_page_order"' \
	ab compare order0 order2 --dir "$s" --json
ab_ok '"role":"follows","follows":"vbd.xvdb.offer.ring_order"' \
	ab compare order0 order2t --dir "$s" --json
ab_ok "variable under test: vbd.xvdb.offer.ring_order: A 0, B 2" \
	ab compare order0 order2t --dir "$s"
ab_ok "workloads differ" ab compare ring1 fio64k --dir "$s"
ab_ok "weak: 5 and 2 runs" ab compare ring1 two --dir "$s"
ab_ok "B run fast-20240501T120001-0001: 1 of 10 intervals flagged" \
	ab compare ring1 fast --dir "$s"
ab_ok '"verdict":"better"' ab compare ring1 ring8 --dir "$s" --json \
	--metric read_iops
ab_ok "Mann-Whitney U" ab compare --test mwu ring1 ring8 --dir "$s"
ab_ok "ring8-20240501T120004-0004" ab list --dir "$s"
ab_ok "left out (flagged): 1" ab show fast-20240501T120001-0001 --dir "$s"
ab_ok "fp.vbd.xvdb.ring_pages" ab export --dir "$s" ring1 ring8
ab_ok '"read_iops":1523.000' ab export --json --dir "$s" \
	ring1-20240501T120001-0001
ab_ok "$abdir/ring.svg" ab plot ring1 ring8 -o "$abdir/ring.svg" \
	--dir "$s"
if [ -s "$abdir/ring.svg" ] && grep -q '</svg>' "$abdir/ring.svg" &&
	{ ! command -v xmllint >/dev/null ||
		xmllint --noout "$abdir/ring.svg"; }; then
	echo "ok - ab plot wrote a well-formed SVG"
	passed=$((passed + 1))
else
	echo "not ok - ab plot: $abdir/ring.svg missing or not well-formed"
	failed=$((failed + 1))
fi
ab_ok "would remove" -N ab rm two --dir "$s"
ab_ok "would remove" ab rm -N two --dir "$s"
out=$("$xvbd" -q ab rm two-20240501T120000-0000 --dir "$s")
if [ $? = 0 ] && [[ $out == *removed* ]] &&
	[ ! -e "$s/two-20240501T120000-0000.json" ] &&
	[ -e "$s/two-20240501T120001-0001.json" ]; then
	echo "ok - ab rm removed the one record"
	passed=$((passed + 1))
else
	echo "not ok - ab rm two-20240501T120000-0000: $out"
	failed=$((failed + 1))
fi

# Usage errors come before any file is read.
case_ 2 "ab compare: --metric: \"iops\": unknown metric" \
	ab compare ring1 ring8 --metric iops --dir "$s"
case_ 2 'ab compare: "ring 1": not a label' ab compare "ring 1" ring8
case_ 2 'ab compare: "ring1" given twice: each label once' \
	ab compare ring1 ring1
case_ 2 "ab compare: --confidence" ab compare ring1 ring8 --confidence 0.95
case_ 2 "ab compare: missing arguments" ab compare ring1
case_ 2 "ab compare: 17 labels: at most 16" ab compare l1 l2 l3 l4 l5 l6 \
	l7 l8 l9 l10 l11 l12 l13 l14 l15 l16 l17
case_ 2 "ab compare: --baseline ring9: not one of the labels compared" \
	ab compare ring1 ring8 --baseline ring9
case_ 2 "ab compare: --fail-if-worse" ab compare ring1 ring8 --fail-if-worse 0
case_ 2 "ab compare: --fail-if-worse" ab compare ring1 ring8 \
	--fail-if-worse fast
case_ 2 'ab plot: "ring1" given twice: each label once' \
	ab plot ring1 ring8 ring1 -o /tmp/x.svg
case_ 2 "ab plot: --baseline ring9: not one of the labels plotted" \
	ab plot ring1 ring8 -o /tmp/x.svg --baseline ring9
case_ 2 "ab compare: --test" ab compare ring1 ring8 --test t
case_ 2 "ab plot: -o FILE.svg is needed" ab plot ring1 ring8
case_ 2 "ab plot: -o: expected a file name ending in .svg" \
	ab plot ring1 ring8 -o /tmp/x.png
case_ 2 "ab show: one record at a time" ab show a b
case_ 2 "ab export: --csv and --json exclude each other" \
	ab export --csv --json
case_ 2 'ab rm: ".x": not a label' ab rm .x
# Reading: a corrupted record is one line naming the file.
cp "$s/ring8-20240501T120000-0000.json" "$abdir/keep.json"
printf '{"format":"xvbd-ab-record","version":1,' \
	> "$s/ring8-20240501T120000-0000.json"
case_ 1 "ab compare: $s/ring8-20240501T120000-0000.json: " \
	ab compare ring1 ring8 --dir "$s"
case_ 1 "ab list: $s/ring8-20240501T120000-0000.json: " ab list --dir "$s"
case_ 1 "ab compare: no record with id or label \"nope\"" \
	ab compare ring1 nope --dir "$s"
case_ 1 "ab compare: run ring1-20240501T120000-0000 is selected by both" \
	ab compare ring1 ring1-20240501T120000-0000 --dir "$s"
# rm removes records only, and only from the store itself.
cp "$abdir/keep.json" "$abdir/ring8-20240501T120000-0000.json"
case_ 1 "not removed: it is not the store's file of that id" \
	ab rm "$abdir/ring8-20240501T120000-0000.json" --dir "$s"
echo '{}' > "$s/notes.json"
case_ 1 "ab rm: $s/notes.json: " ab rm "$s/notes.json" --dir "$s"
[ -e "$s/notes.json" ] && [ -e "$abdir/ring8-20240501T120000-0000.json" ] &&
	{ echo "ok - ab rm left the non-records alone"; passed=$((passed + 1)); } ||
	{ echo "not ok - ab rm removed a non-record"; failed=$((failed + 1)); }

# Interference: other domains' CPU and the backing device's I/O that was
# not the VBD's, flagged in show and compare with the figures; an old
# record (no others, no device sectors) says unknown, never flags.
si=$abdir/interf
mkdir -p "$si"
for i in 0 1 2; do
	ab_rec "$si" quiet $i $((1500 + i)) host.cpus=4 others=4 foreign=0
	ab_rec "$si" noisy $i $((1500 + i)) host.cpus=4 others=60 \
		vbd.xvdb.ring_pages=8 foreign=$((i == 2 ? 300 : 0))
done
ab_rec "$si" edge 5 1500 host.cpus=4 others=40 foreign=0
ab_no() {
	local text=$1 out rc
	shift
	out=$("$xvbd" -q "$@" 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && [[ $out != *"$text"* ]]; then
		echo "ok - xvbd $* -> 0, without '$text'"
		passed=$((passed + 1))
	else
		echo "not ok - xvbd $* -> $rc (want 0 and no '$text'):"
		printf '%s\n' "$out" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}
ab_ok "interference: other domains used 15.0 % of the host's CPUs (2 domains; 60.0 % of one CPU, 4 CPUs) over the window" \
	ab show noisy-20240501T120000-0000 --dir "$si"
ab_ok "interference: the backing device served 12.3 MB that were not this VBD's (16.6 % of its bytes; 3000 I/Os beyond its 15020 requests)" \
	ab show noisy-20240501T120002-0002 --dir "$si"
ab_no "interference: " ab show quiet-20240501T120000-0000 --dir "$si"
# 40 % of one CPU of 4 is the 10 % threshold itself: not above it.
ab_no "interference: " ab show edge-20240501T120005-0005 --dir "$si"
ab_ok "interference: other domains used 10.0 % of the host's CPUs" \
	ab show edge-20240501T120005-0005 --dir "$si" --interference-cpu 9.9
ab_no "interference: other domains" ab show noisy-20240501T120000-0000 \
	--dir "$si" --interference-cpu 20
ab_ok '"interference":{"cpu_flagged":true,"other_domains":2,"host_cpus":4,' \
	--json ab show noisy-20240501T120000-0000 --dir "$si"
ab_ok '"cpu_flagged":null,"other_domains":null,' \
	--json ab show ring1-20240501T120000-0000 --dir "$s"
ab_no "interference: " ab show ring1-20240501T120000-0000 --dir "$s"
ab_ok "B run noisy-20240501T120001-0001: interference: other domains used 15.0 %" \
	ab compare quiet noisy --dir "$si"
ab_ok "B run noisy-20240501T120002-0002: interference: the backing device served 12.3 MB" \
	ab compare quiet noisy --dir "$si"
ab_no "A run quiet-" ab compare quiet noisy --dir "$si"
ab_ok '"interference":[{"side":"B","run":"noisy-20240501T120000-0000","figures":{"cpu_flagged":true,' \
	ab compare quiet noisy --dir "$si" --json
# Above 50 %: only the run whose device served others is left.
ab_ok '"interference_cpu_pct":50.0,"interference":[{"side":"B","run":"noisy-20240501T120002-0002","figures":{"cpu_flagged":false,' \
	ab compare quiet noisy --dir "$si" --json --interference-cpu 50 \
	--metric read_iops

# The words agree with the numbers: the record sets of the review that
# found where they did not, each as records.  ab_run_rec DIR LABEL SEQ
# SECS REQ SECT IOS TICKS [exp=ID pair=N]: a run of SECS seconds (ten
# equal intervals) that read REQ requests of SECT sectors in all, and
# whose backing device served IOS reads in TICKS ms (IOS 0: no device,
# latency unknown); started SEQ seconds after 2024-05-01T12:00:00Z.
ab_run_rec() {
	local dir=$1 label=$2 seq=$3 secs=$4 req=$5 sect=$6 ios=$7 ticks=$8
	local exp= pair= kv t unix id k
	shift 8
	for kv; do
		case $kv in
		exp=*) exp=${kv#*=} ;;
		pair=*) pair=${kv#*=} ;;
		esac
	done
	unix=$((1714564800 + seq))
	id=$label-$(date -u -d @$unix +%Y%m%dT%H%M%S)-$(printf %04x "$seq")
	{
		printf '{"format":"xvbd-ab-record","version":1,"id":"%s",' "$id"
		printf '"label":"%s","started":"%s",' "$label" \
			"$(date -u -d @$unix +%Y-%m-%dT%H:%M:%SZ)"
		printf '"started_unix_ns":%s000000000,' "$unix"
		printf '"domain":"guest1","vdevs":["xvdb"],"mode":"duration",'
		printf '"workload":"w","workload_status":0,'
		printf '"interval_ns":%s,"warmup_ns":0,"complete":true,' \
			$((secs * 100000000))
		[ -n "$exp" ] && printf '"experiment":"%s","pair":%s,' "$exp" "$pair"
		printf '"fingerprint":{"vbd.xvdb.ring_pages":"%s","workload":"w"},' \
			"$([ "$label" = b ] && echo 8 || echo 1)"
		printf '"notes":[],"samples":['
		for t in 0 1 2 3 4 5 6 7 8 9 10; do
			((t)) && printf ,
			printf '{"t_ns":%s,"guest_cpu_ns":%s,"dom0_cpu_ns":%s,' \
				$((secs * t * 100000000)) $((secs * t * 30000000)) \
				$((secs * t * 10000000))
			printf '"guest_vcpus":1,"dom0_vcpus":1,"vbds":[{'
			printf '"rd_req":%s,"wr_req":0,"rd_sect":%s,"wr_sect":0,' \
				$((req * t / 10)) $((sect * t / 10))
			printf '"f_req":0,"ds_req":0,"oo_req":0,"reset":false,"blk":'
			if ((ios)); then
				printf '{"rd_ios":%s,"wr_ios":0,"rd_ticks_ms":%s,' \
					$((ios * t / 10)) $((ticks * t / 10))
				printf '"wr_ticks_ms":0}}]}'
			else
				printf 'null}]}'
			fi
		done
		printf ']}\n'
	} > "$dir/$id.json"
}
# ab_rate DIR LABEL SEQ RATE10 [exp=ID pair=N]: RATE10 / 10 IO/s over 10 s
ab_rate() {
	ab_run_rec "$1" "$2" "$3" 10 "$4" $(($4 * 8)) "$4" $(($4 * 2)) "${@:5}"
}
swd=$abdir/words
E=ab-run-20240501T120000-c0de
# (1, 2), (100, 60): +9.5 % is "higher", never "B lower by 9.5 %"
mkdir -m 700 "$swd" "$swd/w1"
ab_rate "$swd/w1" a 0 10 exp=$E pair=1
ab_rate "$swd/w1" b 1 20 exp=$E pair=1
ab_rate "$swd/w1" a 2 1000 exp=$E pair=2
ab_rate "$swd/w1" b 3 600 exp=$E pair=2
ab_ok '"text":"weak: 2 pairs (3 needed): B-A +9.5 % (-99.9 to +229775.6) %, B higher, not proven"' \
	ab compare a b --dir "$swd/w1" --metric read_iops --json
ab_no 'lower' ab compare a b --dir "$swd/w1" --metric read_iops --json --test mwu
# 20 pairs, A 10 or 1000, B 13.x or 97x: +13.2 % and B-A +13.2 IO/s, the
# raw mean's -9.4 said as pointing the other way
mkdir -m 700 "$swd/w2"
bs=(130 9790 132 9770 131 9780)
for i in $(seq 0 19); do
	ab_rate "$swd/w2" a $((2 * i)) $((i % 2 ? 10000 : 100)) exp=$E pair=$((i + 1))
	ab_rate "$swd/w2" b $((2 * i + 1)) "${bs[i % 6]}" exp=$E pair=$((i + 1))
done
ab_ok "+13.2% +-7.9 B faster (p=0.0015)" \
	ab compare a b --dir "$swd/w2" --metric read_iops
ab_ok "read_iops: B faster by 13.2 % +- 7.9 % (paired t, p=0.0015)" \
	ab compare a b --dir "$swd/w2" --metric read_iops -v
ab_ok "read_iops: the pairs' raw differences B-A average -9.4 +- 6.0 IO/s, the other way from the paired test's ln(B/A)" \
	ab compare a b --dir "$swd/w2" --metric read_iops
# read_lat_ms known in 3 runs a side but 2 pairs: weak, not "same"
mkdir -m 700 "$swd/w3"
la=(500 510 505 0) lb=(501 511 0 506)
for i in 0 1 2 3; do
	ab_run_rec "$swd/w3" a $((2 * i)) 10 1000 8000 $((la[i] ? 100 : 0)) \
		"${la[i]}" exp=$E pair=$((i + 1))
	ab_run_rec "$swd/w3" b $((2 * i + 1)) 10 1000 8000 $((lb[i] ? 100 : 0)) \
		"${lb[i]}" exp=$E pair=$((i + 1))
done
ab_ok "weak: 2 pairs, not proven" \
	ab compare a b --dir "$swd/w3" --metric read_lat_ms --equivalence 5
ab_ok "read_lat_ms: not shown to be the same within +-5 %" \
	ab compare a b --dir "$swd/w3" --metric read_lat_ms --equivalence 5
# five pairs within 1 %: the runs made already rule 5 % out
mkdir -m 700 "$swd/w4"
ra=(1000 1010 990 1005 995) rb=(1001 1008 992 1004 996)
for i in 0 1 2 3 4; do
	ab_rate "$swd/w4" a $((2 * i)) "${ra[i]}0" exp=$E pair=$((i + 1))
	ab_rate "$swd/w4" b $((2 * i + 1)) "${rb[i]}0" exp=$E pair=$((i + 1))
done
ab_ok "read_iops: the runs made already rule out an effect of 5 % (their 95 % interval of B-A %: -0.2 to +0.2 %)" \
	ab compare a b --dir "$swd/w4" --metric read_iops -v
ab_ok "read_iops: the runs made already rule out an effect of 5 %" \
	ab compare a b --dir "$swd/w4" --metric read_iops
ab_ok '"runs_needed":null,"runs_needed_status":"ruled-out"' \
	ab compare a b --dir "$swd/w4" --metric read_iops --json
ab_ok '"runs_needed":24,"runs_needed_status":"needed"' \
	ab compare a b --dir "$swd/w4" --metric read_iops --json --min-effect 0.1
ab_ok '"runs_needed":null,"runs_needed_status":"beyond-cap"' \
	ab compare pa pb --dir "$s" --metric read_iops --json --unpaired \
	--min-effect 0.1
# two pairs, 1000/1030 and 1000/1000, at 99.999 %: the % to +inf
mkdir -m 700 "$swd/w5"
ab_rate "$swd/w5" a 0 10000 exp=$E pair=1
ab_rate "$swd/w5" b 1 10300 exp=$E pair=1
ab_rate "$swd/w5" a 2 10000 exp=$E pair=2
ab_rate "$swd/w5" b 3 10000 exp=$E pair=2
ab_ok "+1.5 % (-100.0 to +inf) %" \
	ab compare a b --dir "$swd/w5" --metric read_iops --confidence 99.999 -v
ab_ok "+1.5% [-100.0,+inf] weak: 2 pairs, not proven" \
	ab compare a b --dir "$swd/w5" --metric read_iops --confidence 99.999
ab_no "+- inf" ab compare a b --dir "$swd/w5" --metric read_iops \
	--confidence 99.999
ab_ok '"pct_lo":null,"pct_hi":null,"pct_interval":"open"' \
	ab compare a b --dir "$swd/w5" --metric read_iops --confidence 99.999 \
	--json
ab_ok "+1.5 % (-100.0 to +7.39e+42) %" \
	ab compare a b --dir "$swd/w5" --metric read_iops --confidence 99.99
# every run 1.6 MB/s over 10 s or 3 s (1.6, 1.5999999999999999): one value
mkdir -m 700 "$swd/w6"
L=(3 3 10 3 3)
for i in 0 1 2 3 4; do
	ab_run_rec "$swd/w6" a $((2 * i)) 10 1000 31250 1000 2000 exp=$E pair=$((i + 1))
	ab_run_rec "$swd/w6" b $((2 * i + 1)) "${L[i]}" $((L[i] * 100)) \
		$((L[i] * 3125)) $((L[i] * 100)) $((L[i] * 200)) exp=$E pair=$((i + 1))
done
ab_ok "no difference proven at 95 % (paired t, p=1)" \
	ab compare a b --dir "$swd/w6" --metric read_mb_per_s -v
ab_ok "no difference proven at 95 % (Welch's t, p=1)" \
	ab compare a b --dir "$swd/w6" --metric read_mb_per_s --unpaired -v
# A = 4, 3, 4, 8, 5 against B = 5, 6: Fieller's set is two pieces
mkdir -m 700 "$swd/w8"
i=0
for v in 40 30 40 80 50; do ab_rate "$swd/w8" a $i $v; i=$((i + 1)); done
for v in 50 60; do ab_rate "$swd/w8" b $i $v; i=$((i + 1)); done
ab_ok "+14.6 % (-108.0 to -83.0 or -30.9 to +126.1) %" \
	ab compare a b --dir "$swd/w8" --metric read_iops -v
ab_ok "+14.6% [-108.0,-83.0]u[-30.9,+126.1]" \
	ab compare a b --dir "$swd/w8" --metric read_iops
ab_ok '"pct_lo":-107.987238,"pct_hi":126.097535,"pct_interval":"bounded","pct_pieces":[[-107.987238,-83.045483],[-30.880204,126.097535]]' \
	ab compare a b --dir "$swd/w8" --metric read_iops --json

# Latency (ab record --latency): merged percentiles, the metrics only
# when a run has them, the distributions in the picture.
sl=$abdir/lat
mkdir -p "$sl"
for i in 0 1 2 3 4; do
	ab_rec "$sl" calm $i 1500 lat=0
	ab_rec "$sl" tail $i 1500 lat=$((20 + i))
done
ab_ok "5110      1.008    19.923   19.923     19.923   1.407" \
	ab show --latency tail --dir "$sl"
ab_ok '"count":5110,"p50_ns":1007616,"p99_ns":19922944,"p999_ns":19922944,"max_ns":19922944,"sum_ns":' \
	--json ab show --latency tail --dir "$sl"
ab_ok '"latency":{"clock":"mono","relative_error":0.015625,"vbds":[{"vdev":"xvdb","kind":"d2c","direction":"read","runs":1,"incomplete":0,"count":1021,' \
	--json ab show tail-20240501T120001-0001 --dir "$sl"
ab_ok "read_p99_ms" ab compare calm tail --dir "$sl"
# a higher percentile is slower, in the words as in the verdict
ab_ok '"verdict":"worse","direction":"higher","scale":"difference","weak":null,"text":"B slower (higher latency) by 1893.4 % +- 0.0 %"' \
	ab compare calm tail --dir "$sl" --json --metric read_p99_ms
ab_ok "B slower (higher latency)" ab compare calm tail --dir "$sl" \
	--metric read_p99_ms
ab_no "B faster" ab compare calm tail --dir "$sl" --metric read_p99_ms,read_max_ms
ab_no "read_p99_ms" ab compare ring1 order0 --dir "$s"
ab_ok "read_p99_ms" ab export --dir "$sl" calm
ab_ok "$abdir/lat.svg" ab plot calm tail -o "$abdir/lat.svg" --dir "$sl"
case_ 1 "ab show: ring1: no run of it was recorded with --latency" \
	ab show --latency ring1 --dir "$s"

# A sweep: one experiment of 4 levels in 5 blocks; the host drifts by
# block; "none" 2 % faster, "slow" at 30 %, "same" within 0.1 %.
sw=$abdir/sweep
mkdir -p "$sw"
i=0
for iops in 1000 1200 1400 1600 1800; do
	e="exp=ab-run-20240501T120000-0041 pair=$((i + 1))"
	# shellcheck disable=SC2086
	ab_rec "$sw" host $i $iops vbd.xvdb.dom0_cache=host $e
	# shellcheck disable=SC2086
	ab_rec "$sw" none $i $((iops * 102 / 100 + i % 2)) \
		vbd.xvdb.dom0_cache=none $e
	# shellcheck disable=SC2086
	ab_rec "$sw" slow $i $((iops * 30 / 100 + i % 3)) \
		vbd.xvdb.dom0_cache=host vbd.xvdb.size_bytes=1073741824 $e
	# shellcheck disable=SC2086
	ab_rec "$sw" same $i $((iops + (i % 2) * 2 - 1)) \
		vbd.xvdb.dom0_cache=host $e
	i=$((i + 1))
done
ab_ok "paired t on the 5 blocks of experiment ab-run-20240501T120000-0041" \
	ab compare host none slow same --dir "$sw" -v
ab_ok "host (5 runs) against none (5), slow (5), same (5): the 5 blocks of ab-run-20240501T120000-0041" \
	ab compare host none slow same --dir "$sw"
ab_ok "Holm-Bonferroni over 21 tests (3 levels x metrics)" \
	ab compare host none slow same --dir "$sw" -v
ab_ok "vbd.xvdb.dom0_cache: host -> none" \
	ab compare host none slow same --dir "$sw"
# The table: benchstat's columns, every line within 100 columns.
out=$("$xvbd" -q ab compare host none slow same --dir "$sw")
if [[ $out == *"METRIC"*"HOST"*"NONE"*"VS HOST"* ]] &&
	[[ $out == *"read_iops IO/s "*"-69.9% +-0.1 worse"* ]] &&
	[[ $out == *"same read_iops: the runs made already rule out an effect of 5 %"* ]] &&
	[ "$(printf '%s\n' "$out" | grep -c '^  METRIC ')" = 3 ] &&
	! printf '%s\n' "$out" | awk '/^  [A-Za-z]/ && length($0) > 100 {
		bad = 1 } END { exit !bad }'; then
	echo "ok - ab compare of 4 levels: benchstat's table within 100 columns"
	passed=$((passed + 1))
else
	echo "not ok - ab compare of 4 levels: the table:"
	printf '%s\n' "$out" | sed 's/^/#   /'
	failed=$((failed + 1))
fi
ab_ok '"baseline":"host","levels":[{"label":"host","runs":5,"baseline":true},' \
	ab compare host none slow same --dir "$sw" --json
# paired by block: the centres are geometric means, as the % is
ab_ok '{"label":"slow","n":5,"centre":411.979762,' \
	ab compare host none slow same --dir "$sw" --json
ab_ok '"verdict":"worse"' \
	ab compare host none slow same --dir "$sw" --json --metric read_iops
ab_ok '"comparisons":[{"a":"host","runs_a":5,"b":"none",' \
	ab compare host none slow same --dir "$sw" --json
ab_ok "baseline: slow (5 runs)" \
	ab compare host none slow --dir "$sw" --baseline slow -v
ab_ok "compared: slow (5 runs) against host (5), none (5)" \
	ab compare host none slow --dir "$sw" --baseline slow
# Two labels: ab compare as ever (--baseline names the A side).
a=$("$xvbd" -q ab compare host none --dir "$sw")
b=$("$xvbd" -q ab compare none host --dir "$sw" --baseline host)
if [ "$a" = "$b" ] && [[ $a == "compared: "*"A host"*"B none"* ]]; then
	echo "ok - ab compare of two labels: A is the baseline"
	passed=$((passed + 1))
else
	echo "not ok - ab compare host none != none host --baseline host"
	failed=$((failed + 1))
fi
# The gate: exit 3 when proven worse by the threshold, 0 otherwise.
gate() {
	local want=$1 text=$2 err rc
	shift 2
	err=$("$xvbd" -q "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want" ] && [[ $err == *"$text"* ]]; then
		echo "ok - xvbd $* -> $rc: $text"
		passed=$((passed + 1))
	else
		echo "not ok - xvbd $* -> $rc (want $want and '$text'):"
		printf '%s\n' "$err" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}
gate 3 "gate: slow read_iops: -69.9 % (95 % interval -70.0 to -69.9 %) against host: worse by at least 20 % and proven at 95 %: fails the gate" \
	ab compare host none slow same --dir "$sw" --fail-if-worse 20
gate 3 "gate: failed: 2 metrics worse than the baseline by at least 20 %" \
	ab compare host slow --dir "$sw" --fail-if-worse 20
gate 0 "gate: passed: no metric proven worse than the baseline by 20 %" \
	ab compare host same --dir "$sw" --fail-if-worse 20
gate 0 "gate: passed" ab compare host none slow same --dir "$sw" \
	--fail-if-worse 75
# the output is there when the gate fails
out=$("$xvbd" -q ab compare host slow --dir "$sw" --fail-if-worse 20 \
	--json 2>/dev/null)
if [[ $out == '{"a":"host"'*'"verdict":"worse"'* ]]; then
	echo "ok - a failed gate still writes the comparison"
	passed=$((passed + 1))
else
	echo "not ok - a failed gate wrote: $out"
	failed=$((failed + 1))
fi
# Weak (2 runs a side) and 30 % worse: not proven, passes, said.
ab_rec "$sw" two 0 1700
ab_rec "$sw" two 1 1710
ab_rec "$sw" twoslow 0 1190
ab_rec "$sw" twoslow 1 1200
gate 0 "but weak: too few runs to prove anything at 95 %: not proven, the gate passes it" \
	ab compare two twoslow --dir "$sw" --fail-if-worse 20
# The levels' picture.
ab_ok "baseline: host" ab plot host none slow same -o "$abdir/levels.svg" \
	--dir "$sw" --metric read_iops
if [ -s "$abdir/levels.svg" ] &&
	[ "$(grep -o '<circle' "$abdir/levels.svg" | wc -l)" = 20 ] &&
	{ ! command -v xmllint >/dev/null ||
		xmllint --noout "$abdir/levels.svg"; }; then
	echo "ok - ab plot of 4 levels: a well-formed SVG with 20 runs"
	passed=$((passed + 1))
else
	echo "not ok - ab plot of 4 levels: $abdir/levels.svg"
	failed=$((failed + 1))
fi
. "$(dirname "${BASH_SOURCE[0]}")/cli-ab-text.sh"
