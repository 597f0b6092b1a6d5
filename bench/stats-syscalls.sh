# bench/stats-syscalls.sh: what sampling costs, `xvbd stats` vs `xentop -b`,
# same dom0, same guest (one PV guest with 2 file-backed disks), side by side.
#   - system calls per refresh (strace -f -c), startup cancelled out by
#     running each tool for N1 and N2 refreshes: (calls(N2)-calls(N1))/(N2-N1)
#   - system calls per VBD per refresh: xvbd for all domains minus xvbd
#     for dom0 alone (same domain-list call, no VBD files), / 2 VBDs
#   - CPU time (user+sys) per 100 refreshes, same differencing, no strace
# Goal: <= 0.30 of xentop's calls per refresh with the backend CPU of
# each VBD's ring threads read too, <= 9 per VBD (7 blkback counters, the
# backing device's stat, one schedstat per ring: one ring here); the
# last line says whether it was met, and a miss exits 1.
# Run: tests/lab/run --timeout 1500 bench/stats-syscalls.sh
set -u
. /lab/lib/testlib.sh
G=benchstats
N1=3
N2=13
CPU_N1=5
CPU_N2=25

a=/scratch/benchstats-a.img
b=/scratch/benchstats-b.img
truncate -s 64M $a $b
# One disk at creation, the second hot-attached: two block scripts at
# once can outlast libxl's hotplug timeout on a loaded TCG host.
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=$a" \
	--run 'true' || exit 1
xl block-attach $G "format=raw,vdev=xvdb,access=rw,target=$b" || exit 1
lab-guest wait $G --timeout 300 >/dev/null
domid=$(xl domid $G)
wait_for 60 4 bstate "$domid" 51728 || { echo "xvdb not connected"; exit 1; }
nvbd=$(ls -d /sys/bus/xen-backend/devices/vbd-* | wc -l)
echo "# guests: $(xl list | tail -n +2 | awk '{print $1 "(" $4 " vCPU)"}' | tr '\n' ' ')"
echo "# VBDs served by blkback: $nvbd"

calls() {	# total system calls of a command, threads included
	strace -f -c -o /tmp/bench-strace.txt "$@" >/dev/null 2>&1
	awk '$NF == "total" { print $4 }' /tmp/bench-strace.txt
}

per_refresh() {	# NAME: prints calls/refresh; $cmd1 and $cmd2 set by caller
	local c1 c2
	c1=$(calls "${cmd1[@]}")
	c2=$(calls "${cmd2[@]}")
	awk -v a="$c1" -v b="$c2" -v n=$((N2 - N1)) \
		'BEGIN { printf "%.1f", (b - a) / n }'
	echo " ($c1 calls for $N1, $c2 for $N2)" >&2
}

cmd1=(xentop -b -d 1 -i $N1); cmd2=(xentop -b -d 1 -i $N2)
xentop_pr=$(per_refresh)
cmd1=(xvbd stats -d 1 -n $N1); cmd2=(xvbd stats -d 1 -n $N2)
xvbd_pr=$(per_refresh)
cmd1=(xvbd stats Domain-0 -d 1 -n $N1); cmd2=(xvbd stats Domain-0 -d 1 -n $N2)
xvbd_fixed=$(per_refresh)
per_vbd=$(awk -v a="$xvbd_pr" -v f="$xvbd_fixed" -v n="$nvbd" \
	'BEGIN { printf "%.1f", (a - f) / n }')
ratio=$(awk -v x="$xvbd_pr" -v t="$xentop_pr" 'BEGIN { printf "%.2f", x / t }')

echo "syscalls per refresh:  xentop -b $xentop_pr   xvbd stats $xvbd_pr   ratio xvbd/xentop $ratio (goal <= 0.30)"
echo "xvbd fixed part (dom0 only, no VBD files): $xvbd_fixed per refresh"
echo "xvbd per VBD per refresh: $per_vbd (goal <= 9; measured difference, see the trace below for the exact count)"

# What one refresh does, for the record.
strace -f -o /tmp/bench-trace.txt xvbd stats -d 1 -n 3 >/dev/null 2>&1
echo "# one xvbd refresh (between two sleeps):"
awk '/clock_nanosleep/ { n++ } n == 2' /tmp/bench-trace.txt |
	sed -E 's/^[0-9]+ +//; s/\(.*//' | sort | uniq -c | sed 's/^/#   /'
preads=$(awk '/clock_nanosleep/ { n++ } n == 2 && /pread64\(/' \
	/tmp/bench-trace.txt | wc -l)
echo "xvbd per VBD per refresh, counted in that refresh: $((preads / nvbd)) pread64 ($preads for $nvbd VBDs)"
rings=$(ls -d /proc/[0-9]* | while read -r p; do cat $p/comm 2>/dev/null; done |
	grep -c "^$domid\.xvd[a-z]*-[0-9]*$")
echo "# ring threads of the guest's VBDs: $rings (one schedstat pread each per refresh)"

cputime() {	# user+sys seconds of a command
	local TIMEFORMAT='%3U %3S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	awk -v t="$t" 'BEGIN { split(t, p, " "); printf "%.3f", p[1] + p[2] }'
}

per100() {	# seconds per 100 refreshes from two run lengths
	local c1 c2
	c1=$(cputime "${cmd1[@]}")
	c2=$(cputime "${cmd2[@]}")
	echo "  ($c1 s for $CPU_N1, $c2 s for $CPU_N2)" >&2
	awk -v a="$c1" -v b="$c2" -v n=$((CPU_N2 - CPU_N1)) \
		'BEGIN { printf "%.3f", (b - a) / n * 100 }'
}

# xentop takes whole seconds (-d 1); xvbd runs at the same pace.
cmd1=(xentop -b -d 1 -i $CPU_N1); cmd2=(xentop -b -d 1 -i $CPU_N2)
xentop_cpu=$(per100)
cmd1=(xvbd stats -d 1 -n $CPU_N1); cmd2=(xvbd stats -d 1 -n $CPU_N2)
xvbd_cpu=$(per100)
cpu_ratio=$(awk -v x="$xvbd_cpu" -v t="$xentop_cpu" \
	'BEGIN { printf "%.2f", (t > 0 ? x / t : 0) }')
echo "CPU time per 100 refreshes: xentop -b ${xentop_cpu} s   xvbd stats ${xvbd_cpu} s   ratio $cpu_ratio"

lab-guest stop $G
rm -f $a $b
# The goals, checked: the last line says whether both were met;
# a miss exits 1.
if awk -v r="$ratio" -v v="$per_vbd" 'BEGIN { exit !(r <= 0.30 && v <= 9) }'; then
	echo "goal met: xvbd/xentop calls $ratio <= 0.30, $per_vbd calls per VBD <= 9"
else
	echo "goal MISSED: xvbd/xentop calls $ratio (goal <= 0.30), $per_vbd calls per VBD (goal <= 9)"
	exit 1
fi
