#!/bin/bash
# tests/cli.sh XVBD: the command line on this host, which has no Xen: usage
# errors must be reported as such (exit 2, one line naming the problem)
# before xvbd looks for xenstore or libxl, and a valid command line must
# get as far as the missing xenstore (exit 1).  Every case also runs under
# valgrind (memory errors or definite/indirect leaks fail it).
# Ends with "cli: N passed, N failed".  Needs a host without Xen (a Xen
# host would connect); as another user than root a valid command line
# stops at "must run as root" instead of the missing xenstore.
set -u
xvbd=${1:?usage: tests/cli.sh PATH_TO_XVBD}
passed=0 failed=0
VALGRIND=(valgrind -q --error-exitcode=99 --leak-check=full
	--errors-for-leak-kinds=definite,indirect)

if [ -e /dev/xen/xenbus ] || [ -S /run/xenstored/socket ]; then
	echo "cli: this host runs Xen: the connection would succeed; not run"
	echo "cli: 0 passed, 1 failed"
	exit 1
fi

# with_stdin CMD...: CMD with the file $CASE_STDIN (if set) as stdin.
with_stdin() {
	if [ -n "${CASE_STDIN:-}" ]; then "$@" <"$CASE_STDIN"; else "$@"; fi
}

# case WANT_RC TEXT ARGS...: exit code WANT_RC, the first stderr line is
# "xvbd: ..." containing TEXT (with -q, the one line also of a usage
# error); then the same under valgrind.
case_() {
	local want=$1 text=$2 err rc line
	shift 2
	err=$(with_stdin "$xvbd" -q "$@" 2>&1 >/dev/null)
	rc=$?
	line=${err%%$'\n'*}
	if [ "$rc" = "$want" ] && [[ $line == "xvbd: "*"$text"* ]] &&
		[[ $err != *$'\n'* ]]; then
		echo "ok - xvbd $* -> $rc: $line"
		passed=$((passed + 1))
	else
		echo "not ok - xvbd $* -> $rc (want $want, one line with '$text'):"
		printf '%s\n' "$err" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
	err=$(with_stdin "${VALGRIND[@]}" "$xvbd" -q "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want" ]; then
		passed=$((passed + 1))
	else
		echo "not ok - valgrind: xvbd $* -> $rc:"
		printf '%s\n' "$err" | tail -n 30 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

no_xs="cannot open xenstore"
[ "$(id -u)" = 0 ] || no_xs="must run as root"
# Usage errors first, whatever the host has.
case_ 2 'attach: unknown option "--bogus"' attach --bogus g
case_ 2 "attach: no disk" attach g
case_ 2 "attach: --ring-order" attach g --ring-order 9 --file /srv/x.img
case_ 2 "attach: --file needs a value" attach g --file
case_ 2 'attach: --cache: "writeback": expected one of host|none' \
	attach g --file /srv/x.img --cache writeback
case_ 2 "attach: --size, --prealloc and --cache are for image files, not --phy" \
	attach g --phy /dev/vdb1 --cache none
case_ 2 'detach: vdev: "sda-1"' detach g sda-1
case_ 2 "detach: missing arguments" detach g
case_ 2 'detach: vdev: "sda-1"' -N detach g sda-1
case_ 2 'stats: -d: "abc"' stats -d abc
case_ 2 'defaults: unknown option "--bogus"' defaults --bogus
case_ 2 "start: missing arguments" start
case_ 2 "-N (dry run) is not supported" -N list
case_ 2 'unknown command "frobnicate"' frobnicate
case_ 2 "pv: missing the domain or config file" pv
case_ 2 "pv: missing the domain or config file" pv --json
case_ 2 'pv: "frob": expected status, on or off' pv g frob
case_ 2 "pv: too many arguments" pv g on off
case_ 2 "pv: --config, --linux-unplug and --reboot go with on and off" pv g --reboot
case_ 2 "pv: -N goes with on and off" -N pv g
case_ 2 "pv: g: libxl records no config file" pv g off
case_ 2 "pv: --config and --reboot need a running domain" pv /etc/xen/g.cfg off --reboot
case_ 2 "pv: --reboot with -N" -N pv g on --config /etc/xen/g.cfg --reboot
case_ 2 'pv: --settle: "x"' pv g --settle x
case_ 2 'unknown option "--bogus"' --bogus list
case_ 2 'no command' -v
case_ 2 'tune: unknown key "bogus"' tune g xvda bogus=1
case_ 2 'tune: ring-order=5: expected a number 0..4' tune g xvda ring-order=5
case_ 2 'show: vdev: "sda-1"' show g sda-1
case_ 2 'show: unknown option "-x"' show -x g xvda
case_ 2 "stats: -d given twice" stats -d 1 -d 2
case_ 2 "start: --timeout given twice" start x.cfg --timeout 5 --timeout 6
case_ 2 "attach: --file given twice" attach g --file /a.img --file /b.img
case_ 2 "attach: --ring-order given twice" attach g --file /a.img --ring-order 1 --ring-order 2
case_ 1 "attach: $no_xs" attach g --file /a.img --no-wait --wait --prealloc --prealloc
# Valid command lines reach the connection (and say why it failed).
case_ 1 "attach: $no_xs" attach g --file /srv/x.img --size 8M
case_ 1 "attach: $no_xs" attach g --file /srv/x.img --cache none
case_ 1 "detach: $no_xs" detach g xvdb
case_ 1 "detach: $no_xs" -N detach g xvdb
# apply: a bad plan exits 2 naming its place in the plan, before any
# connection; a good one gets as far as the connection.
plans=$(mktemp -d)
plan() { printf '%s\n' "$2" >"$plans/$1.json"; }
plan good '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img", "size": "8M", "ring_order": 1, "discard": true}, {"vdev": "xvdc", "phy": "/dev/vdb1"}]}'
plan key '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img"}, {"vdev": "xvdc", "file": "/srv/c.img", "ring_ordr": 2}]}'
plan range '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img", "ring_order": 9}]}'
plan twice '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img"}, {"vdev": "xvdb", "file": "/srv/c.img"}]}'
plan nosrc '{"guest": "g", "disks": [{"vdev": "xvdb"}]}'
plan pw '{"guest": "g", "disks": [{"vdev": "xvdb", "share": "smb://u:pw@srv/share/b.img", "credentials": "/c"}]}'
plan json '{"guest": "g", "disks": ['
plan nul '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img\u0000.x"}]}'
case_ 2 "apply: $plans/key.json: disks[1].ring_ordr: unknown key" apply "$plans/key.json"
case_ 2 "apply: $plans/range.json: disks[0].ring_order: ring-order=9" apply "$plans/range.json"
case_ 2 "apply: $plans/twice.json: disks[1].vdev: xvdb given twice" apply "$plans/twice.json"
case_ 2 "apply: $plans/nosrc.json: disks[0]: no source" apply "$plans/nosrc.json"
case_ 2 "apply: $plans/pw.json: disks[0].share: user or password in the URL" apply "$plans/pw.json"
case_ 2 "apply: $plans/json.json: plan: not valid JSON" -N apply "$plans/json.json"
case_ 2 "apply: $plans/nul.json: disks[0].file: a \\u0000 (NUL) inside the string" apply "$plans/nul.json"
case_ 2 "apply: /nonexistent.json: No such file" apply /nonexistent.json
case_ 2 "apply: missing plan" apply --check
case_ 2 "apply: one plan per call" apply "$plans/good.json" "$plans/good.json"
case_ 2 'apply: unknown option "--force"' apply --force "$plans/good.json"
case_ 1 "apply: $no_xs" apply "$plans/good.json"
case_ 1 "apply: $no_xs" apply --check --diff --prune "$plans/good.json"
case_ 1 "apply: $no_xs" -N apply "$plans/good.json"
# A plan decides what root attaches to which guest: one that another user
# can write, or could have planted or swapped (a link of theirs, a
# directory of theirs or writable by others), is refused before any
# connection, naming the component and the fix.  A plan on stdin is the
# caller's choice.
if [ "$(id -u)" = 0 ]; then
	chmod 0755 "$plans"
	mkdir -m 1777 "$plans/tmp"
	cp "$plans/good.json" "$plans/tmp/theirs.json"
	chown 65534 "$plans/tmp/theirs.json"
	chmod 0666 "$plans/tmp/theirs.json"
	case_ 2 "apply: $plans/tmp/theirs.json: $plans/tmp: writable by others (mode 1777): root applies a plan only from a file and directories nobody else can change" \
		apply "$plans/tmp/theirs.json"
	case_ 2 "apply: $plans/tmp/theirs.json: $plans/tmp: writable by others" \
		apply --check "$plans/tmp/theirs.json"
	mkdir -m 0755 "$plans/root"
	cp "$plans/good.json" "$plans/root/mine.json"
	cp "$plans/good.json" "$plans/root/open.json"
	chmod 0666 "$plans/root/open.json"
	case_ 2 "apply: $plans/root/open.json: $plans/root/open.json: writable by others (mode 0666)" \
		apply "$plans/root/open.json"
	# their link, in a sticky directory, to root's own plan
	ln -s ../root/mine.json "$plans/tmp/link.json"
	chown -h 65534 "$plans/tmp/link.json"
	case_ 2 "apply: $plans/tmp/link.json: $plans/tmp/link.json: a symbolic link owned by uid 65534" \
		apply "$plans/tmp/link.json"
	mkdir -m 0775 "$plans/group"
	cp "$plans/good.json" "$plans/group/plan.json"
	case_ 2 "apply: $plans/group/plan.json: $plans/group: writable by its group (mode 0775)" \
		apply "$plans/group/plan.json"
	mkfifo -m 0600 "$plans/root/fifo.json"
	case_ 2 "apply: $plans/root/fifo.json: not a regular file" \
		apply "$plans/root/fifo.json"
	# root's link in root's directory, and the same plan on stdin: read
	ln -s mine.json "$plans/root/current.json"
	case_ 1 "apply: $no_xs" apply "$plans/root/current.json"
	CASE_STDIN=$plans/tmp/theirs.json case_ 1 "apply: $no_xs" apply -
fi
# --json: a failure is one JSON object on stdout, for scripts and
# Ansible's from_json: failed, msg (the error line), rc (the exit code);
# where the global option stands does not matter.
json_fail() {
	local want=$1 out rc
	shift
	out=$("$xvbd" -q "$@" 2>/dev/null)
	rc=$?
	if [ "$rc" = "$want" ] && jq -e --argjson rc "$want" '.failed == true and
		.rc == $rc and (.msg | test("^[a-z]"))' <<<"$out" >/dev/null &&
		[ "$(wc -l <<<"$out")" = 1 ]; then
		echo "ok - xvbd $* -> $rc, one JSON failure object: $out"
		passed=$((passed + 1))
	else
		echo "not ok - xvbd $*: want exit $want and one JSON failure object, got $rc: $out"
		failed=$((failed + 1))
	fi
}
json_fail 1 --json list
json_fail 1 list --json
json_fail 1 -j apply "$plans/good.json"
json_fail 1 apply "$plans/good.json" --json
json_fail 1 apply --json --check --diff "$plans/good.json"
json_fail 2 apply "$plans/range.json" --json
json_fail 2 --json lsit
json_fail 2 --json apply --bogus
json_fail 2 stats -j -d 0
json_fail 1 ab compare a b --dir /nonexistent-dir --json
json_fail 1 --json pv /nonexistent/g.cfg off
rm -rf "$plans"
case_ 1 "stats: $no_xs" stats -d 1 -n 1
case_ 1 "list: $no_xs" list
case_ 1 "pv: $no_xs" pv g
case_ 1 "pv: $no_xs" pv g off --config /etc/xen/g.cfg
# A config file needs neither root nor Xen.
case_ 1 "pv: /nonexistent/g.cfg: No such file" pv /nonexistent/g.cfg off
# ab record: usage errors, then a valid line reaches the connection.
case_ 2 "ab record: <Label> missing" ab record
case_ 2 'ab record: label "../x"' ab record ../x --domain g --duration 1
case_ 2 "ab record: how long?" ab record x --domain g
case_ 2 "ab record: --duration, --run and --until-shutdown exclude" \
	ab record x --domain g --duration 1 --run true
case_ 2 'ab record: --interval: "0"' ab record x --domain g --duration 1 \
	--interval 0
case_ 2 "ab record: --domain missing" ab record x --until-shutdown
case_ 2 'ab record: --vdev: "sdz-1"' ab record x --domain g --vdev sdz-1 \
	--duration 1
case_ 1 "ab record: $no_xs" ab record x --domain g --duration 1 --json
case_ 2 "ab record: --results reads the output of --run's command" \
	ab record x --domain g --duration 1 --results fio
case_ 2 'ab record: --results: "json": expected one of auto|fio|benchfmt|none' \
	ab record x --domain g --run true --results json
case_ 2 "ab run: --results reads the output of --run's command" \
	ab run a x.cfg b y.cfg --until-shutdown --results auto
case_ 1 "ab record: $no_xs" ab record x --domain g --run true --results benchfmt
# the largest confidence is 99.999 in both commands, as their messages say
case_ 2 'ab compare: --confidence: "99.9999": expected a percentage from 50 to 99.999' \
	ab compare a b --confidence 99.9999
case_ 2 'ab run: --confidence: "99.9999": expected a percentage from 50 to 99.999' \
	ab run a /x.cfg b /y.cfg --duration 1 --confidence 99.9999
case_ 1 "ab compare: /nonexistent-dir" ab compare a b --confidence 99.999 \
	--dir /nonexistent-dir
case_ 2 'ab run: --vdev: "bogus": expected a virtual device' \
	ab run a x.cfg b y.cfg --until-shutdown --vdev bogus
case_ 2 "ab run: --vdev: 51712 given twice" \
	ab run a x.cfg b y.cfg --until-shutdown --vdev xvda --vdev 51712
if [ "$(id -u)" = 0 ]; then
	case_ 1 "start: /nonexistent.cfg: cannot read the xl config: No such file" \
		start /nonexistent.cfg
	# (a directory made libxlutil's scanner exit the program; a non-config
	# printed libxlutil's messages, one per line)
	case_ 1 "start: /: cannot read the xl config: not a regular file" \
		start /
	case_ 1 "start: /etc/passwd: cannot read the xl config: /etc/passwd:1: config parsing error" \
		start /etc/passwd
fi

# SIGPIPE is ignored: output into a pipe whose reader
# has gone is a write error (exit 1, one line), not a death by SIGPIPE
# (141), which in attach or start could come with the guest paused.
# The reader is gone before xvbd starts, for sure, however slow the host:
# a FIFO whose only reader opened it and exited (a "| true" after a sleep
# could fail on a busy host: true had not ended within the sleep).
pipe_case() {
	local fifo err rc
	fifo=$(mktemp -u) err=$(mktemp)
	mkfifo "$fifo"
	(exec 4<"$fifo") &
	exec 5>"$fifo"
	wait $!
	"$xvbd" "$@" >&5 2>"$err"
	rc=$?
	exec 5>&-
	rm -f "$fifo"
	if [ "$rc" = 1 ] && grep -q "^xvbd: .*stdout: write failed" "$err"; then
		echo "ok - xvbd $* | (reader gone) -> 1: $(head -n 1 "$err")"
		passed=$((passed + 1))
	else
		echo "not ok - xvbd $* | (reader gone) -> $rc (want 1 and stdout: write failed)"
		sed 's/^/#   /' "$err"
		failed=$((failed + 1))
	fi
	rm -f "$err"
}
pipe_case help
pipe_case help attach
pipe_case --help

# Help: `xvbd CMD -h` and `xvbd help CMD` agree, within 80 columns (the
# rest of the help's checks: tests/cli-anywhere.sh, over every command).
for c in attach "ab run" stats; do
	h1=$("$xvbd" help $c) h2=$("$xvbd" $c -h)
	if [ "$h1" = "$h2" ] && [ -z "$(awk 'length > 80' <<<"$h1")" ] &&
		grep -q '^example:' <<<"$h1"; then
		echo "ok - help $c: one text, within 80 columns, with an example"
		passed=$((passed + 1))
	else
		echo "not ok - help $c: the two spellings differ or a line is over 80 columns"
		failed=$((failed + 1))
	fi
done
# A usage error: its one line, then where the help is (not the usage).
err=$("$xvbd" ab compare a 2>&1 >/dev/null)
if [ "$err" = 'xvbd: ab compare: missing arguments
xvbd: hint: see "xvbd ab compare -h"' ]; then
	echo "ok - a usage error is one line and the pointer to the help"
	passed=$((passed + 1))
else
	echo "not ok - a usage error prints: $err"
	failed=$((failed + 1))
fi

# One grammar for option values, every command that takes each kind.
. "$(dirname "$0")/cli-optval.sh"

# The ab commands that read records: no Xen needed, run for real.
. "$(dirname "$0")/cli-ab.sh"

# ab run over k levels, --sweep: the refusals before any connection.
. "$(dirname "$0")/cli-sweep.sh"

# pv CONFIG_FILE on|off: no Xen needed, edits run for real.
. "$(dirname "$0")/cli-pv.sh"

# Every usage error of the catalogue of bad inputs, found before any
# connection.
. "$(dirname "$0")/cli-bad-input.sh"

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
