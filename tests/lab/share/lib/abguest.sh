# abguest.sh: a guest disk workload for `xvbd ab run --run`, sourced by
# lab tests and benchmarks (/lab/lib/abguest.sh in dom0).
#
# Each run of an experiment is a fresh guest that boots in a few seconds
# and would finish a short read before, or while, the recording begins.
# So the guest waits: its second disk (xvdb, a 1 MiB "trigger" file)
# carries a handshake.  The guest, booted, writes "READY" there; the
# --run command (dom0, started by ab run at the beginning of --warmup W)
# waits for READY and for W + 1 s to pass, writes "GO", the guest reads,
# writes "DONE", and the command returns.  The record (from the end of the
# warmup) spans the workload, not the boot, and no read can fall before
# its baseline.  `--vdev xvda` keeps the trigger's polling out of it.
#
#   abg_prepare NAME IMAGE TRIGGER HOTPLUG PASSES MIB OUT.cfg
#	the guest's xl config: xvda = IMAGE (read-only, hotplug program
#	HOTPLUG, e.g. xvbd-block or xvbd-block-direct), xvdb = TRIGGER;
#	after GO it reads the first MIB MiB of xvda with O_DIRECT, PASSES
#	times, then DONE.
#   abg_go_cmd TRIGGER W [LOG] -> the --run command line for ab run
#			--warmup W (LOG: the guest's own times, as
#			abg-hot-go.sh's)
#   abg_ready_cmd TRIGGER -> the --ready command line: exits 0 once the
#			guest wrote READY (ab run then needs no warmup for the
#			boot: --warmup 0 and abg_go_cmd TRIGGER 0)
#   abg_reset TRIGGER   clear the handshake
#   abg_mount_slow      mount the lab's slow disk (/dev/vdc, reads
#			throttled by QEMU) on /slow, once
#   abg_hot_guest MIB [READ]
#			the guest script of a hot experiment (below)
#   abg_hot_start NAME MIB TRIGGER [KEEP]
#			start that guest (xvdc = TRIGGER, xvda = KEEP read-only
#			if given) and wait for its UP (below)
#   abg_hot_ready_cmd TRIGGER, abg_hot_go_cmd TRIGGER [LOG]
#			dom0's side of a hot experiment's handshake: the
#			--ready and --run command lines (below)
#   abg_hot_fio_start NAME TRIGGER [KEEP]
#			the same guest with fio (lab-guest --fio, 512 MiB):
#			at each "GO ARGS..." it runs fio ARGS on xvdb
#			(abg_hot_fio_guest) and hands its JSON back on the
#			trigger disk
#   abg_hot_fio_go_cmd TRIGGER DIR
#			dom0's --run command for it: the line of
#			$DIR/args-LABEL (or $DIR/args: "GO FIO-ARGS" or
#			"BENCH") on the trigger, the guest's output
#			on stdout (what ab run reads as the run's results) and
#			a copy in DIR/LABEL-N.json; exits with fio's status
#   abg_run_fields FILE [sequential]
#			checks a real `ab run --json` output's fields and
#			types (testlib.sh's fields; man xvbd-ab, JSON OUTPUT)

ABG_GO=/tmp/abg-go.sh
ABG_READY=/tmp/abg-ready.sh
# The warmup of the lab's experiments: it must cover a fresh guest's boot
# to READY: 4-21 s seen with one lab on two cores, 5-36 s with two, where
# abg-go then refuses the run.  tests/lab/run passes LAB_AB_WARMUP in for
# a loaded host.
ABG_WARMUP=${LAB_AB_WARMUP:-30}

# The --run command: GO, wait for DONE (bounded), clear.  It sees only
# PATH, HOME and XVBD_AB_* (ab run's fixed environment), so the trigger
# comes as an argument.
abg_write_go() {
	cat >$ABG_GO <<'EOS'
#!/bin/sh
# abg-go.sh TRIGGER W [LOG]: start the guest's workload after the warmup
# of W seconds (and its boot), wait for its end; with LOG, append
# "LABEL T0 T1", the guest's own uptime before and after its reads.
t=$1
# dom0's date is busybox's (no %N): time from /proc/uptime, in 10 ms.
cs() { read -r up _ </proc/uptime; echo "${up%.*}${up#*.}"; }
t0=$(cs)
# With --ready (W = 0) the guest is READY already: no wait.
if [ "$2" -gt 0 ]; then sleep "$(($2 + 1))"; fi &
warm=$!
ms() { echo $(( ($(cs) - t0) * 10 )); }
blk() { dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 4; }
until_blk() {	# until_blk WORD: poll the trigger (bounded: 600 s)
	i=0
	while [ "$(blk)" != "$1" ]; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { echo "abg-go: no $1 from the guest in 600 s" >&2; exit 1; }
		sleep 0.1
	done
}
until_blk READ
ready=$(ms)
wait $warm
printf 'GO%4094s' x | dd of="$t" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null
go=$(ms)
until_blk DONE
done=$(ms)
# The guest's own uptime before and after its reads (10 ms steps).
if [ -n "${3:-}" ]; then
	w=$(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | tr -d '\0' | head -1)
	echo "$XVBD_AB_LABEL ${w#DONE }" >>"$3"
fi
dd if=/dev/zero of="$t" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null
echo "abg-go: READY ${ready} ms, GO ${go} ms, DONE ${done} ms after the warmup began" >&2
# A guest that booted after the warmup: the record (from the warmup's
# end) holds idle time before GO, and its rate is wrong.
if [ "$2" -gt 0 ] && [ "$ready" -gt "${2}000" ]; then
	echo "abg-go: the guest was READY after the warmup of $2 s: the record holds $((ready - ${2}000)) ms of waiting; give a longer --warmup" >&2
	exit 3
fi
EOS
	chmod +x $ABG_GO
	cat >$ABG_READY <<'EOS'
#!/bin/sh
# abg-ready.sh TRIGGER: 0 once the guest has booted and wrote READY.
[ "$(dd if="$1" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 5)" = READY ]
EOS
	chmod +x $ABG_READY
}

abg_go_cmd() { echo "$ABG_GO $1 $2${3:+ $3}"; }
abg_ready_cmd() { echo "$ABG_READY $1"; }

abg_reset() {
	dd if=/dev/zero of="$1" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null
}

abg_prepare() {
	local name=$1 img=$2 trig=$3 hotplug=$4 passes=$5 mib=$6 out=$7 c
	[ -f "$trig" ] || truncate -s 1M "$trig"
	abg_reset "$trig"
	abg_write_go
	c=$(lab-guest prepare "$name" --mem 512 \
		--disk "format=raw,vdev=xvda,access=ro,script=$hotplug,target=$img" \
		--disk "format=raw,vdev=xvdb,access=rw,script=xvbd-block,target=$trig" \
		--run "printf 'READY%4091s' x | dd of=/dev/xvdb bs=4096 count=1 oflag=direct 2>/dev/null
while ! dd if=/dev/xvdb bs=4096 count=1 iflag=direct 2>/dev/null | grep -q GO; do sleep 0.1; done
a=\$(cut -d' ' -f1 /proc/uptime)
i=0
while [ \$i -lt $passes ]; do
	dd if=/dev/xvda of=/dev/null bs=1M count=$mib iflag=direct 2>&1
	i=\$((i + 1))
done
b=\$(cut -d' ' -f1 /proc/uptime)
printf 'DONE %s %s\\n' \$a \$b | dd of=/dev/xvdb bs=4096 count=1 conv=sync oflag=direct 2>/dev/null") &&
		cp "$c" "$out"
}

# abg_hot_guest MIB [READ]: the --run script of a hot experiment's guest
# (ab run --domain), for lab-guest start.  The guest keeps running; the
# disk under test comes and goes as xvdb; xvdc is its trigger disk.  It
# polls xvdc: empty (or UP) and xvdb present: READY; GO: reads MIB MiB
# of xvdb with O_DIRECT (or runs READ, guest shell lines, instead) and
# answers "DONE T0 T1" (its uptime before and after, 10 ms steps); SUM:
# answers "MD5" and the md5 of xvda (an answer that does not start with
# SUM, or the guest would take it for the next question).
abg_hot_guest() {
	cat <<EOS
put() { printf '%s\\n' "\$1" | dd of=/dev/xvdc bs=4096 count=1 conv=sync oflag=direct 2>/dev/null; }
put UP
while :; do
	t=\$(dd if=/dev/xvdc bs=4096 count=1 iflag=direct 2>/dev/null | head -c 4)
	case "\$t" in
	GO*)
		a=\$(cut -d' ' -f1 /proc/uptime)
		${2:-dd if=/dev/xvdb of=/dev/null bs=1M count=$1 iflag=direct 2>/dev/null}
		b=\$(cut -d' ' -f1 /proc/uptime)
		put "DONE \$a \$b";;
	SUM*)
		put "MD5 \$(md5sum </dev/xvda | cut -d' ' -f1)";;
	UP*|"")
		[ -b /dev/xvdb ] && put READY;;
	esac
	sleep 0.1
done
EOS
}

# abg_hot_start NAME MIB TRIGGER [KEEP]: start the hot guest NAME
# (abg_hot_guest MIB, 256 MiB; its trigger disk xvdc = TRIGGER, cleared
# first; xvda = KEEP, an image it holds read-only, when given) and wait
# (300 s at most) until it says UP.  On failure: why, the tail of its
# console, status 1.
abg_hot_start() {
	local name=$1 mib=$2 trig=$3 keep=${4:-} i=0 disks=()
	[ -f "$trig" ] || truncate -s 1M "$trig"
	abg_reset "$trig"
	[ -z "$keep" ] || disks+=(--disk "format=raw,vdev=xvda,access=ro,script=xvbd-block,target=$keep")
	disks+=(--disk "format=raw,vdev=xvdc,access=rw,script=xvbd-block,target=$trig")
	# ABG_HOT_SCRIPT, ABG_HOT_EXTRA: another guest script and its
	# lab-guest options (abg_hot_fio_start).
	if ! lab-guest start "$name" ${ABG_HOT_EXTRA:---mem 256} "${disks[@]}" \
		--run "${ABG_HOT_SCRIPT:-$(abg_hot_guest "$mib")}" >/tmp/abg-$name.out 2>&1; then
		echo "# lab-guest start $name failed:"
		tail -20 /tmp/abg-$name.out | sed 's/^/#   /'
		return 1
	fi
	until [ "$(dd if="$trig" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 2 | tr -d '\0')" = UP ]; do
		i=$((i + 1))
		if [ $i -ge 1500 ]; then
			echo "# $name: no UP on its trigger in 300 s; its console:"
			lab-guest console "$name" 2>&1 | tail -20 | sed 's/^/#   /'
			return 1
		fi
		sleep 0.2
	done
}

# dom0's side of abg_hot_guest's handshake, for ab run --domain (its
# commands see only PATH, HOME and XVBD_AB_*: the trigger comes as an
# argument).
#   abg-hot-ready.sh TRIGGER: 0 once the guest says READY (the disk under
#	test is there); a last run's DONE, or the first UP, is cleared so
#	that the guest can say READY for the next disk.
#   abg-hot-go.sh TRIGGER [LOG]: GO, wait for DONE (bounded: 300 s), and
#	append "LABEL T0 T1" to LOG: the guest's own uptime before and after
#	its read (10 ms steps), the reference for the rates xvbd reports.
ABG_HOT_READY=/tmp/abg-hot-ready.sh
ABG_HOT_GO=/tmp/abg-hot-go.sh
abg_write_hot() {
	cat >$ABG_HOT_READY <<'EOS'
#!/bin/sh
t=$1
w=$(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 5)
[ "$w" = READY ] && exit 0
case "$w" in DONE*|UP*|MD5*) dd if=/dev/zero of="$t" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null;; esac
exit 1
EOS
	cat >$ABG_HOT_GO <<'EOS'
#!/bin/sh
t=$1 log=${2:-/dev/null}
printf 'GO%4094s' x | dd of="$t" bs=4096 count=1 conv=notrunc oflag=direct 2>/dev/null
i=0
until [ "$(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 4)" = DONE ]; do
	i=$((i + 1)); [ $i -lt 6000 ] || { echo "abg-hot-go: no DONE in 300 s" >&2; exit 1; }
	sleep 0.05
done
w=$(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | tr -d '\0' | head -1)
echo "$XVBD_AB_LABEL ${w#DONE }" >>"$log"
EOS
	chmod +x $ABG_HOT_READY $ABG_HOT_GO
}
abg_hot_ready_cmd() { abg_write_hot; echo "$ABG_HOT_READY $1"; }
abg_hot_go_cmd() { abg_write_hot; echo "$ABG_HOT_GO $1${2:+ $2}"; }

# abg_hot_fio_guest: the --run script of a hot guest that runs fio.  At
# "GO ARGS" on its trigger (xvdc) it runs fio ARGS --filename=/dev/xvdb
# --output-format=json+ into a file (at "BENCH": times an md5sum of xvdb
# and prints a benchfmt line "BenchmarkMd5Sum 1 S s" instead), writes
# that file's bytes from the trigger's second 4 KiB block on (its 1 MiB is
# the bound: a JSON+ report of a few jobs is 10-60 KiB) and answers "DONE
# T0 T1 LEN RC": its uptimes around it, the output's length and the exit
# status.
abg_hot_fio_guest() {
	cat <<'EOS'
put() { printf '%s\n' "$1" | dd of=/dev/xvdc bs=4096 count=1 conv=sync oflag=direct 2>/dev/null; }
put UP
while :; do
	l=$(dd if=/dev/xvdc bs=4096 count=1 iflag=direct 2>/dev/null | tr -d '\0' | head -1)
	case "$l" in
	GO*|BENCH*)
		a=$(cut -d' ' -f1 /proc/uptime)
		case "$l" in
		GO*)
			fio ${l#GO} --filename=/dev/xvdb --output-format=json+ --output=/tmp/r.json >/tmp/fio.log 2>&1
			rc=$?;;
		BENCH*)
			# A benchmark line of its own: the md5 of xvdb, timed.
			md5sum </dev/xvdb >/dev/null
			rc=$?
			awk -v a=$a -v b=$(cut -d' ' -f1 /proc/uptime) \
				'BEGIN { printf "BenchmarkMd5Sum 1 %.2f s\n", b - a }' >/tmp/r.json;;
		esac
		b=$(cut -d' ' -f1 /proc/uptime)
		n=$(wc -c </tmp/r.json)
		dd if=/tmp/r.json of=/dev/xvdc bs=4096 seek=1 conv=sync,notrunc oflag=direct 2>/dev/null
		put "DONE $a $b $n $rc";;
	UP*|"")
		[ -b /dev/xvdb ] && put READY;;
	esac
	sleep 0.1
done
EOS
}

# abg_hot_fio_start NAME TRIGGER [KEEP]: abg_hot_start with fio.
abg_hot_fio_start() {
	ABG_HOT_SCRIPT=$(abg_hot_fio_guest) ABG_HOT_EXTRA="--fio --mem 512" \
		abg_hot_start "$1" 0 "$2" "${3:-}"
}

ABG_HOT_FIO_GO=/tmp/abg-hot-fio-go.sh
abg_hot_fio_go_cmd() {
	cat >$ABG_HOT_FIO_GO <<'EOS'
#!/bin/sh
# abg-hot-fio-go.sh TRIGGER DIR: the line of DIR/args-LABEL (or
# DIR/args) on the trigger, wait for DONE (bounded), the guest's output
# (fio's JSON) to stdout and to DIR/LABEL-N.json.
t=$1 dir=$2
args=$(cat "$dir/args-$XVBD_AB_LABEL" 2>/dev/null || cat "$dir/args")
printf '%s\n' "$args" | dd of="$t" bs=4096 count=1 conv=sync,notrunc oflag=direct 2>/dev/null
i=0
until [ "$(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | head -c 4)" = DONE ]; do
	i=$((i + 1)); [ $i -lt 6000 ] || { echo "abg-hot-fio-go: no DONE in 300 s" >&2; exit 1; }
	sleep 0.05
done
set -- $(dd if="$t" bs=4096 count=1 iflag=direct 2>/dev/null | tr -d '\0' | head -1)
n=$(ls "$dir/$XVBD_AB_LABEL"-*.json 2>/dev/null | wc -l)
dd if="$t" bs=4096 skip=1 count=$(( ($4 + 4095) / 4096 )) iflag=direct 2>/dev/null |
	head -c "$4" >"$dir/$XVBD_AB_LABEL-$((n + 1)).json"
cat "$dir/$XVBD_AB_LABEL-$((n + 1)).json"
exit "$5"
EOS
	chmod +x $ABG_HOT_FIO_GO
	echo "$ABG_HOT_FIO_GO $1 $2"
}

abg_mount_slow() {
	mkdir -p /slow || return 1
	grep -q '^/dev/vdc /slow ' /proc/mounts || mount /dev/vdc /slow
}

abg_run_fields() {
	local j=$1 top="a:string b:string runs:number order:string dir:string comparison:object"
	if [ "${2:-}" = sequential ]; then
		fields "ab run --json" "$(jq -c . "$j")" "$top sequential:object"
		fields "ab run --json: sequential" "$(jq -c .sequential "$j")" "metric:string
			procedure:string pairs:number decision:string effect_pct:number?
			effect_lo_pct:number? effect_hi_pct:number? min_effect_pct:number?"
	else
		fields "ab run --json" "$(jq -c . "$j")" "$top"
	fi
	fields "ab run --json: comparison" "$(jq -c .comparison "$j")" "$AB_COMPARE_FIELDS"
	fields "ab run --json: comparison.metrics[0]" \
		"$(jq -c '.comparison.metrics[0]' "$j")" "$AB_METRIC_FIELDS"
}
