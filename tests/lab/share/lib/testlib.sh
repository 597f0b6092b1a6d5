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
finish() {
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
