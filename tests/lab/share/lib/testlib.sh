# Helpers for lab system tests (sourced in dom0 as /lab/lib/testlib.sh).
# A test prints "ok - WHAT" / "not ok - WHAT" lines through check/ok/fail
# and ends with `finish`, which exits 1 if anything failed.
T_FAILED=0
T_PASSED=0
ok()   { T_PASSED=$((T_PASSED + 1)); echo "ok - $*"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "not ok - $*"; }
# check "what" command...: ok if the command succeeds.
check() {
	local what=$1; shift
	if "$@"; then ok "$what"; else fail "$what (command: $*)"; fi
}
# expect_eq "what" EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: expected '$2', got '$3'"; fi
}
# What xvbd made in tracefs (stats --latency: an instance xvbd-PID and a
# synthetic event xvbd_PID) and did not remove: one name per line.
TRACEFS=/sys/kernel/tracing
tracefs_left() {
	[ -d $TRACEFS/instances ] || return 0
	ls $TRACEFS/instances | grep -E '^xvbd-[0-9]+$'
	grep -oE '^xvbd_[0-9]+' $TRACEFS/synthetic_events
	return 0
}
# Every test ends with nothing of xvbd's left in tracefs; what is left
# is failed and removed (its triggers cleared in the order xvbd clears
# them, the instance, the synthetic event), so the next test starts clean.
finish() {
	local left n e
	left=$(tracefs_left)
	if [ -n "$left" ]; then
		fail "tracefs: xvbd left $(echo $left)"
		for n in $left; do
			case $n in
			xvbd-*)
				for e in synthetic/xvbd_${n#xvbd-} \
					block/block_rq_complete block/block_rq_issue \
					block/block_rq_insert; do
					: 2>/dev/null >"$TRACEFS/instances/$n/events/$e/trigger"
				done
				rmdir "$TRACEFS/instances/$n" ;;
			xvbd_*) echo "!$n" >>$TRACEFS/synthetic_events ;;
			esac
		done
	fi
	echo "# $T_PASSED passed, $T_FAILED failed"
	[ $T_FAILED = 0 ]
}
# xenbus state of a VBD side: bstate DOMID DEVID / fstate DOMID DEVID
bstate() { xenstore-read "/local/domain/0/backend/vbd/$1/$2/state" 2>/dev/null; }
fstate() { xenstore-read "/local/domain/$1/device/vbd/$2/state" 2>/dev/null; }
# wait_state WHAT SECONDS STATE cmd...: poll until cmd prints STATE.
wait_for() {
	local secs=$1 want=$2 i; shift 2
	for ((i = 0; i < secs * 5; i++)); do
		[ "$("$@")" = "$want" ] && return 0
		sleep 0.2
	done
	return 1
}

# xvbd runs from a copy in dom0's RAM: /lab/bin is a 9p share mounted
# cache=none, and exec pages the 2.6 MB ASan build in over 9p every time
# (under TCG on a loaded host: a failing attach took 11 s from /lab/bin,
# 5-7 s from the copy; --help 2-3.5 s against 1.1 s).  Which build:
# LAB_XVBD_DIR (share/lib/lab-job).
xvbd_dir=${LAB_XVBD_DIR:-/lab/bin}
if [ -x $xvbd_dir/xvbd ] && mkdir -p /run/lab-test/bin &&
	cp $xvbd_dir/xvbd /run/lab-test/bin/xvbd.new &&
	mv /run/lab-test/bin/xvbd.new /run/lab-test/bin/xvbd; then
	PATH=/run/lab-test/bin:$PATH
fi

# phase WHAT: a "# [Ns] WHAT" line, so a slow test's log shows where the
# time went (no process: $SECONDS is bash's).
phase() { echo "# [${SECONDS}s] $*"; }

# ---- guest write-then-read (attach tests) ----

# guest_rw_script VDEV...: commands for `lab-guest start --run`: wait for
# the disks (hot-attached later; up to 10 minutes in all, polling once a
# second: the guest's vCPU competes with dom0's for the host), then per
# disk print "size VDEV SECTORS", write 1 MiB of random data at 1 MiB with
# O_DIRECT, read it back and print "md5 VDEV SUM" when both match.
guest_rw_script() {
	echo "disks='$*'"
	cat <<'EOS'
i=0
for d in $disks; do
	while [ ! -b /dev/$d ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
done
for d in $disks; do
	echo "size $d $(cat /sys/block/$d/size)"
	dd if=/dev/urandom of=/tmp/p bs=64k count=16 2>/dev/null
	dd if=/tmp/p of=/dev/$d bs=64k seek=16 oflag=direct conv=fsync 2>/dev/null
	dd if=/dev/$d of=/tmp/r bs=64k skip=16 count=16 iflag=direct 2>/dev/null
	if cmp /tmp/p /tmp/r >/dev/null; then
		set -- $(md5sum /tmp/p)
		echo "md5 $d $1"
	fi
done
EOS
}

# backing_md5 PATH: md5 of the MiB at 1 MiB of an image file or block
# device, read with O_DIRECT (past dom0's caches) where the file system
# has it (the share servers' exports on dom0's rootfs do not).
backing_md5() {
	local sum
	sum=$(dd if="$1" bs=64k skip=16 count=16 iflag=direct 2>/dev/null | md5sum)
	# md5 of nothing: O_DIRECT refused
	[ "${sum%% *}" = d41d8cd98f00b204e9800998ecf8427e ] &&
		sum=$(dd if="$1" bs=64k skip=16 count=16 2>/dev/null | md5sum)
	echo "${sum%% *}"
}

# check_guest_rw GUEST_OUTPUT VDEV:SECTORS:BACKING...: the guest saw each
# disk with SECTORS sectors and read back what it wrote, and dom0 finds
# the same data in BACKING (image file or block device).
check_guest_rw() {
	local out=$1 spec d sectors backing line size md5
	shift
	for spec; do
		IFS=: read -r d sectors backing <<<"$spec"
		size= md5=
		while read -r line; do
			case $line in
			"size $d "*) size=${line#size $d } ;;
			"md5 $d "*) md5=${line#md5 $d } ;;
			esac
		done <<<"$out"
		expect_eq "guest: $d has $sectors sectors" "$sectors" "$size"
		if [ -n "$md5" ]; then
			ok "$d: guest write-then-read"
			expect_eq "$d: guest's data in $backing" "$md5" \
				"$(backing_md5 "$backing")"
		else
			fail "$d: guest write-then-read (no md5 line)"
		fi
	done
}

# ---- what dom0 holds for VBDs and shares ----

# Under TCG every xenstore request costs 10-50 ms (xenstore-ls of one
# guest's five backends: 8 s), so the helpers below ask for what they
# compare with one xenstore-read or xenstore-list call.

# vbd_states DOMID DEVID...: "DEVID=BACKEND/FRONTEND ..." xenbus states.
vbd_states() {
	local domid=$1 d keys=() vals=() r=
	shift
	for d; do
		keys+=("/local/domain/0/backend/vbd/$domid/$d/state"
			"/local/domain/$domid/device/vbd/$d/state")
	done
	mapfile -t vals < <(xenstore-read "${keys[@]}" 2>/dev/null)
	for d; do
		r+="${r:+ }$d=${vals[0]:--}/${vals[1]:--}"
		vals=("${vals[@]:2}")
	done
	echo "$r"
}

# loop_devices: "loopN BACKING_FILE" per bound loop device (sysfs, no
# process).
loop_devices() {
	local f b n
	for f in /sys/block/loop*/loop/backing_file; do
		[ -e "$f" ] && read -r b <"$f" || continue
		n=${f#/sys/block/}
		echo "${n%%/*} $b"
	done
}

# crash_retry CMD...: CMD's output; CMD runs again (up to three times)
# when a signal killed it: dom0 tools under TCG die now and then (once
# "malloc(): unsorted double linked list corrupted" in xenstore-list).
crash_retry() {
	local out rc try
	for try in 1 2 3; do
		out=$("$@" 2>&1)
		rc=$?
		[ $rc -lt 128 ] && break
		echo "# $1 died (status $rc), running it again" >&2
	done
	printf '%s' "$out"
	return $rc
}

# xs_tree PATH...: `xenstore-ls -f` of each PATH, "PATH: absent" for one
# that does not exist.  Any other failure of the tool (it crashed,
# xenstored did not answer) returns 1 with its message on stderr: an
# empty answer is not "nothing there", so callers check the status.
xs_tree() {
	local p out rc
	for p; do
		out=$(crash_retry xenstore-ls -f "$p")
		rc=$?
		if [ $rc = 0 ]; then
			[ -z "$out" ] || printf '%s\n' "$out"
		elif [[ $out == *"No such file or directory"* ]]; then
			echo "$p: absent"
		else
			echo "xs_tree: xenstore-ls -f $p failed ($rc): $out" >&2
			return 1
		fi
	done
}

# xs_list PATH: the children of PATH, one a line; nothing when PATH does
# not exist; 1 (message on stderr) when xenstore-list fails otherwise.
# (xenstore-list's message does not say why it failed: the path counts
# as absent when the nearest ancestor that lists has no such child.)
xs_list() {
	local out rc up=$1 child kids
	out=$(crash_retry xenstore-list "$1")
	rc=$?
	if [ $rc = 0 ]; then
		[ -z "$out" ] || printf '%s\n' "$out"
		return 0
	fi
	while [ -n "$up" ] && [ "$up" != / ]; do
		child=${up##*/}
		up=${up%/*}
		kids=$(crash_retry xenstore-list "${up:-/}") || continue
		grep -qxF -- "$child" <<<"$kids" || return 0
		break
	done
	echo "xs_list: xenstore-list $1 failed ($rc): $out" >&2
	return 1
}

# losetup_of FILE: the loop devices bound to FILE ("/dev/loopN" lines),
# from losetup -j; 1 (message on stderr) when losetup fails.
losetup_of() {
	local out rc
	out=$(crash_retry losetup -n -O NAME -j "$1")
	rc=$?
	if [ $rc != 0 ]; then
		echo "losetup_of: losetup -j $1 failed ($rc): $out" >&2
		return 1
	fi
	[ -z "$out" ] || printf '%s\n' "$out"
}

# dom0_state DOMID DIR...: into T_STATE, everything a failed attach to
# DOMID must leave as it was: its VBD directories in xenstore (backend,
# frontend, libxl's record), dom0's mounts and loop devices, and each file
# in each DIR (with its size if it is a regular file).
dom0_state() {
	local domid=$1 out line type name size files=() d
	shift
	# A failed tool makes the state an error, which never equals a
	# baseline (and returns 1); a missing directory is "p: " (empty).
	T_STATE=
	for d in "/local/domain/0/backend/vbd/$domid" \
		"/local/domain/$domid/device/vbd" "/libxl/$domid/device/vbd"; do
		out=$(xs_list "$d" 2>&1) ||
			{ T_STATE="ERROR $RANDOM: $out"; return 1; }
		T_STATE+="$d: ${out//$'\n'/ }"$'\n'
	done
	while read -r line; do
		[[ $line == *" /proc/"* ]] || T_STATE+="mount $line"$'\n'
	done </proc/mounts
	T_STATE+=$(loop_devices)$'\n'
	for d; do
		for name in "$d"/*; do [ -e "$name" ] && files+=("$name"); done
	done
	[ ${#files[@]} = 0 ] && return
	# A directory's size may change by itself (and means nothing here).
	out=$(crash_retry stat -c '%F|%n|%s' "${files[@]}") ||
		{ T_STATE="ERROR $RANDOM: stat failed: $out"; return 1; }
	while IFS='|' read -r type name size; do
		case $type in
		regular*) T_STATE+="file $name $size"$'\n' ;;
		*) T_STATE+="$type $name"$'\n' ;;
		esac
	done <<<"$out"
}

# bad_input_setup DOMID DIR...: the baseline bad_input compares with.
bad_input_setup() {
	T_BAD_ARGS=("$@")
	dom0_state "$@"
	T_BAD_BASE=$T_STATE
}

# bad_input WHAT RC TEXT XVBD_ARGS...: `xvbd -q XVBD_ARGS` exits with RC,
# prints one line on stderr that starts "xvbd: COMMAND:" and contains TEXT,
# and leaves dom0_state as it was at bad_input_setup.  A mismatch is
# looked at once more (dom0 tools under TCG crashed now and then).
bad_input() {
	local what=$1 want_rc=$2 text=$3 err rc
	shift 3
	err=$(xvbd -q "$@" 2>&1 >/dev/null)
	rc=$?
	dom0_state "${T_BAD_ARGS[@]}"
	[ "$T_STATE" = "$T_BAD_BASE" ] || dom0_state "${T_BAD_ARGS[@]}"
	echo "# $what: rc=$rc: $err"
	if [ "$rc" = "$want_rc" ] && [[ $err != *$'\n'* ]] &&
		[[ $err == "xvbd: $1: "*"$text"* ]] &&
		[ "$T_STATE" = "$T_BAD_BASE" ]; then
		ok "bad input: $what"
	else
		fail "bad input: $what (want rc=$want_rc and one line with '$text')"
		diff <(echo "$T_BAD_BASE") <(echo "$T_STATE") | sed 's/^/#   /'
	fi
}

# check_no_vbds DOMID: no backend or frontend directory of DOMID's VBDs
# left in xenstore, and no loop device in dom0.
check_no_vbds() {
	local domid=$1 be fe
	if be=$(xs_list /local/domain/0/backend/vbd); then
		check "no backend directory of domain $domid left" \
			test -z "$(grep -x "$domid" <<<"$be")"
	else
		fail "no backend directory of domain $domid left: xenstore-list failed"
	fi
	if fe=$(xs_list /local/domain/$domid/device/vbd); then
		expect_eq "no frontend directories of domain $domid left" "" "$fe"
	else
		fail "no frontend directories of domain $domid left: xenstore-list failed"
	fi
	expect_eq "no loop device left" "" "$(loop_devices)"
}

# share_mount SOURCE: where SOURCE ("srv:/export", "//srv/share") is
# mounted, from /proc/mounts.
share_mount() {
	local src pt rest
	while read -r src pt rest; do
		[ "$src" = "$1" ] && echo "$pt"
	done </proc/mounts
}

# guest_with_share G PROTO GUEST_SCRIPT [LAB_GUEST_OPTION...]: start share
# server PROTO (nfs|smb) in the background while guest G boots with
# GUEST_SCRIPT (both take tens of seconds under TCG), then check both.
# Sets domid.
guest_with_share() {
	local g=$1 proto=$2 script=$3 pid log=/tmp/lab-share-$2.log
	shift 3
	phase "guest boots while the $proto server starts"
	lab-share start "$proto" >"$log" 2>&1 &
	pid=$!
	lab-guest start "$g" "$@" --run "$script"
	domid=$(xl domid "$g")
	check "guest running" test -n "$domid"
	if wait $pid; then
		ok "$proto server up"
	else
		fail "$proto server up"
		sed 's/^/# /' "$log"
	fi
}

# fields WHAT JSON 'KEY:TYPE ...': JSON is an object with each KEY of the
# jq TYPE (string, number, boolean, array, object; "a|b" either; a
# trailing ? also null).  One jq call per object.
# (The types go into a bash array: a grep per key cost ~0.1 s each under
# TCG, 32 s of t/74b.)
fields() {
	local what=$1 json=$2 spec k t g got line bad=
	local -A type_of=()
	got=$(jq -r 'if type == "object" then to_entries[] | "\(.key):\(.value | type)" else error("not an object") end' \
		<<<"$json" 2>&1) || { fail "$what: not a JSON object: ${json:0:200}"; return; }
	while IFS= read -r line; do
		k=${line%:*}
		[ -n "${type_of[$k]+set}" ] || type_of[$k]=${line##*:}
	done <<<"$got"
	for spec in $3; do
		k=${spec%%:*} t=${spec#*:}
		g=${type_of[$k]:-}
		if [ "${t: -1}" = '?' ]; then
			t=${t%?}
			[ "$g" = null ] && continue
		fi
		[[ "|$t|" == *"|$g|"* ]] || bad+=" $k(want $t, got ${g:-nothing})"
	done
	expect_eq "$what: documented fields with their types" "" "$bad"
}
# ab compare's JSON, as man xvbd-ab documents it (JSON OUTPUT), for fields:
# the report and each of its metrics (also ab run's "comparison").
AB_COMPARE_FIELDS="a:string runs_a:number b:string runs_b:number
	confidence:number|string test:string metrics:array variable:string? differences:array warnings:array"
AB_METRIC_FIELDS="metric:string unit:string
	n_a:number a:number? a_half:number? n_b:number b:number? b_half:number? diff:number|string?
	diff_lo:number? diff_hi:number? pct:number|string? pct_lo:number? pct_hi:number? p:number?
	verdict:string text:string"

# ---- processes stopped at XVBD_TEST_STOP_AT points (t/81, t/82) ----

# need_test_hooks: the script's fault injection needs a test build
# (make SANITIZE=1 or TEST_HOOKS=1); one without it ends the script.
need_test_hooks() {
	grep -qa XVBD_TEST_STOP_AT "$(command -v xvbd)" && return 0
	fail "this xvbd has no test hooks: run with XVBD_BIN=\$PWD/build-san/xvbd (make SANITIZE=1) or build-test/xvbd (make TEST_HOOKS=1)"
	finish
	exit 1
}

# state_of PID: its state letter (T: stopped), from /proc.
state_of() { sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -d' ' -f1; }
# wait_stopped PID: until it stops itself (at most 120 s).
wait_stopped() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(state_of $1)" = T ] && return 0
		[ -d /proc/$1 ] || return 1
		sleep 0.1
	done
	return 1
}
# proc_with NAME N VALUE: the pid of a process called NAME whose N-th
# /proc/PID/stat field after the name (0 state, 1 parent, 2 group) is VALUE.
proc_with() {
	local f rest a
	for f in /proc/[0-9]*/stat; do
		read -r rest <"$f" 2>/dev/null || continue
		[[ $rest == *"($1) "* ]] || continue
		read -ra a <<<"${rest##*) }"
		[ "${a[$2]}" = "$3" ] && { echo "${f//[^0-9]/}"; return 0; }
	done
	return 1
}
member_of() { proc_with "$2" 2 "$1"; }		# member_of PGID NAME
stopped_named() { proc_with "$1" 0 T; }		# stopped_named NAME
child_of() { proc_with "$2" 1 "$1"; }		# child_of PPID NAME
# reap PID: its exit status once it has ended (with job control, bash's
# wait returns when a job stops, and remembers the stop).
reap() {
	while [ -d /proc/$1 ]; do sleep 0.1; done
	wait $1
}
# stop_at STEP XVBD_ARGS...: xvbd in the background ($pid), its stderr in
# $STOP_ERR, until it stops itself at STEP; false (said, reaped) if not.
stop_at() {
	local step=$1
	shift
	XVBD_TEST_STOP_AT=$step xvbd "$@" >/dev/null 2>"$STOP_ERR" &
	pid=$!
	wait_stopped $pid && return 0
	fail "xvbd $1 did not stop at $step"
	reap $pid
	sed 's/^/# stderr: /' "$STOP_ERR"
	return 1
}
# same_state WHAT: dom0_state of $domid, /scratch and /run/xvbd/shares as
# at the baseline $BASE (looked at twice: dom0 tools under TCG crash now
# and then).
same_state() {
	dom0_state $domid /scratch /run/xvbd/shares
	[ "$T_STATE" = "$BASE" ] || { sleep 2; dom0_state $domid /scratch /run/xvbd/shares; }
	if [ "$T_STATE" = "$BASE" ]; then
		ok "$1: xenstore, mounts, loop devices and /scratch as before"
	else
		fail "$1: xenstore, mounts, loop devices and /scratch as before"
		diff <(echo "$BASE") <(echo "$T_STATE") | sed 's/^/#   /'
	fi
}
blkback_loaded() { test -d /sys/module/xen_blkback/parameters; }
# block_stopped XVBD_ARGS...: xvbd in the background ($pid, its stderr in
# $STOP_ERR) until the xvbd-block it has libxl run stops itself at
# block-bound: true, its pid in $blk; false (blk empty) if it never does.
block_stopped() {
	local i
	XVBD_TEST_STOP_AT=block-bound xvbd "$@" >/dev/null 2>"$STOP_ERR" &
	pid=$!
	blk=
	for ((i = 0; i < 1200; i++)); do
		blk=$(stopped_named xvbd-block) && return 0
		[ -d /proc/$pid ] || return 1
		sleep 0.1
	done
	return 1
}
