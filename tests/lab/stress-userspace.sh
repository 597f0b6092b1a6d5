# Stress reproducer for the random user-space crashes seen in the lab
# (heap corruption in GNU grep/xl, busybox applets segfaulting).
#
#   tests/lab/run --timeout S tests/lab/stress-userspace.sh [SECONDS] [LOOPS]
#
# For SECONDS (default 300), LOOPS (default 3) parallel loops in dom0 run
# process-heavy pipelines (GNU coreutils/grep/sed, busybox applets, gzip,
# xenstore-ls, xl) and compare each output with the value the same
# pipeline gave twice in a row at the start. Meanwhile one PV guest
# does continuous O_DIRECT dd I/O (plus a small busybox pipeline check of
# its own) to keep the hypervisor busy. Counted: runs, wrong outputs (or a
# non-zero exit status below 128),
# crashes (exit status >= 128, a pipeline hanging for 120 s, or "corrupted"/"Segmentation fault"/
# "Aborted"/"core dumped"/"double free" on stderr) and the dom0 kernel's
# "segfault at" lines. Last line:
#   stress: N runs, C crashes, W wrong
# Exit status 0 only when C = W = 0 (and the guest saw no problem).
secs=${1:-300}
nloops=${2:-3}
work=/tmp/stress.$$
mkdir -p "$work"
img=/scratch/stress.img
guest=stress

# name|pipeline (run by bash -o pipefail); "-" as expected value below
# means "exit status only" (outputs that legitimately change).
cat >"$work/cases" <<'EOF'
sortgrep|seq 1 30000 | sort -r | grep 7 | md5sum
sortn|seq 1 20000 | sort -R --random-source=/lab/images/vmlinuz | sort -n | md5sum
sedtr|seq 1 20000 | sed 's/1/x/g' | tr x y | busybox tr 0-4 a-e | md5sum
bbawk|seq 1 20000 | busybox awk '{s+=length($0)} END{print s}'
gzip|seq 1 50000 | gzip -c | gzip -dc | sha256sum
grepre|seq 1 40000 | grep -E '^(1|3)[0-9]*7$' | wc -l
small|for i in 1 2 3 4 5 6 7 8; do dirname /a/b/$i; busybox dirname /c/d/$i; basename /x/y$i; truncate -s ${i}k /tmp/stress.tr.$$; stat -c %s /tmp/stress.tr.$$; busybox tr a-z A-Z <<<abc$i; done | md5sum; rm -f /tmp/stress.tr.$$
xs|xenstore-ls -f / | wc -l
xl|xl list | wc -l
EOF
volatile="xs xl"

run_case() {	# run_case NAME CMD OUTFILE ERRFILE -> exit status
	# A corrupted process may also spin forever: 124 = hang.
	timeout -k 5 120 bash -o pipefail -c "$2" >"$3" 2>"$4"
}

# Expected values: two agreeing runs each (process start alone takes
# ~1.5 s in dom0 under TCG on a loaded host, so this takes a minute or two).
: >"$work/expect"
while IFS='|' read -r name cmd; do
	case " $volatile " in *" $name "*) echo "$name|-" >>"$work/expect"; continue ;; esac
	vals=
	for k in 1 2; do
		run_case "$name" "$cmd" "$work/e.out" "$work/e.err"
		vals="$vals$(md5sum <"$work/e.out" | cut -c1-32) "
	done
	set -- $vals
	if [ "$1" != "$2" ]; then
		echo "stress: $name gives different outputs already at the start: $vals" >&2
		cat "$work/e.err" >&2
		exit 2
	fi
	echo "$name|$1" >>"$work/expect"
done <"$work/cases"

# The guest: continuous direct I/O on a file-backed disk, plus a busybox
# pipeline whose result is checked, reporting problems on its console.
xl destroy $guest >/dev/null 2>&1
dd if=/dev/urandom of=$img bs=1M count=64 status=none
lab-guest start $guest --disk "format=raw,vdev=xvda,access=rw,target=$img" --run '
exp=$(seq 1 3000 | sort -r | grep 7 | md5sum)
i=0
while :; do
	dd if=/dev/xvda of=/dev/xvda bs=1M count=32 skip=0 seek=32 iflag=direct oflag=direct 2>/tmp/dd.err || { echo "GUEST-CRASH dd rc=$?"; cat /tmp/dd.err; }
	o=$(seq 1 3000 | sort -r | grep 7 | md5sum); rc=$?
	[ $rc -ge 128 ] && echo "GUEST-CRASH pipeline rc=$rc"
	[ "$o" = "$exp" ] || echo "GUEST-WRONG $o"
	i=$((i + 1))
	[ $((i % 20)) = 0 ] && echo "GUEST-ITER $i"
done' >"$work/guest.log" 2>&1 || { echo "stress: guest did not start" >&2; cat "$work/guest.log" >&2; }

segv0=$(dmesg | grep -c 'segfault at')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
end=$(( $(date +%s) + secs ))

stress_loop() {	# stress_loop N: one line per run in $work/loop.N
	local n=$1 log=$work/loop.$1 name cmd exp rc got
	local -A expect
	while IFS='|' read -r name exp; do expect[$name]=$exp; done <"$work/expect"
	while [ "$(date +%s)" -lt $end ]; do
		while IFS='|' read -r name cmd; do
			[ "$(date +%s)" -lt $end ] || break
			exp=${expect[$name]}
			run_case "$name" "$cmd" "$work/o.$n" "$work/r.$n"
			rc=$?
			got=$(md5sum <"$work/o.$n" | cut -c1-32)
			if [ $rc = 124 ]; then
				echo "crash $name hang (killed after 120s)" >>"$log"
			elif [ $rc -ge 128 ] ||
				grep -qiE 'corrupt|segmentation|aborted|core dumped|double free|free\(\)|malloc' "$work/r.$n"; then
				echo "crash $name rc=$rc $(head -c 300 "$work/r.$n" | tr '\n' ' ')" >>"$log"
			elif [ $rc -ne 0 ]; then
				echo "fail $name rc=$rc $(head -c 300 "$work/r.$n" | tr '\n' ' ')" >>"$log"
			elif [ "$exp" != - ] && [ "$got" != "$exp" ]; then
				echo "wrong $name" >>"$log"
			else
				echo "ok $name" >>"$log"
			fi
		done <"$work/cases"
	done
	echo "loop-done" >>"$log"
}

pids=
for ((n = 1; n <= nloops; n++)); do
	: >"$work/loop.$n"
	stress_loop $n &
	pids="$pids $!"
done
# Progress every minute.
while [ "$(date +%s)" -lt $end ]; do
	sleep 60
	echo "# $(date +%T) so far: $(cat "$work"/loop.* | grep -c '^ok\|^wrong\|^crash\|^fail') runs, $(cat "$work"/loop.* | grep -c '^crash') crashes, $(cat "$work"/loop.* | grep -c '^wrong\|^fail') wrong, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
wait $pids
load1=$(cut -d' ' -f1-3 /proc/loadavg)

runs=$(cat "$work"/loop.* | grep -c '^ok\|^wrong\|^crash\|^fail')
crashes=$(cat "$work"/loop.* | grep -c '^crash')
fails=$(cat "$work"/loop.* | grep -c '^fail')
wrong=$(( $(cat "$work"/loop.* | grep -c '^wrong') + fails ))
dead=0
for ((n = 1; n <= nloops; n++)); do
	tail -n1 "$work/loop.$n" | grep -q '^loop-done' || dead=$((dead + 1))
done
segv=$(( $(dmesg | grep -c 'segfault at') - segv0 ))

cat "$work"/loop.* | grep -v '^ok\|^loop-done' | sort | uniq -c | sed 's/^/# /' | head -40
dmesg | grep 'segfault at' | tail -n "$segv" | sed 's/^/# dmesg: /' | head -20
gcon=$(lab-guest console $guest)
giter=$(echo "$gcon" | sed -n 's/^GUEST-ITER //p' | tail -n1)
gcrash=$(echo "$gcon" | grep -c '^GUEST-CRASH\|segfault\|Segmentation')
gwrong=$(echo "$gcon" | grep -c '^GUEST-WRONG')
echo "$gcon" | grep '^GUEST-CRASH\|^GUEST-WRONG\|segfault\|Segmentation' | head -10 | sed 's/^/# guest: /'
gstate=up
xl domid $guest >/dev/null 2>&1 || gstate=gone
lab-guest stop $guest >/dev/null 2>&1
rm -f $img
echo "# dom0: $fails of the wrong ones exited 1-127, $dead loops died early, $segv dmesg segfault lines; guest ($gstate): ${giter:-0}+ iterations, $gcrash crashes, $gwrong wrong"
echo "# load average at start: $load0, at end: $load1; ${secs}s, $nloops loops"
echo "stress: $runs runs, $crashes crashes, $wrong wrong"
rm -rf "$work"
[ "$crashes" = 0 ] && [ "$wrong" = 0 ] && [ "$dead" = 0 ] && [ "$gcrash" = 0 ] && [ "$gwrong" = 0 ]
