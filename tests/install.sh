#!/bin/bash
# tests/install.sh: `make install` into a temporary DESTDIR puts exactly
# the expected files there with their modes and links (xvbd-block in
# LIBEXECDIR, linked from /etc/xen/scripts; PREFIX=/usr: Debian's
# directories; then BINDIR, MANDIR and the completion directories given
# one by one), xvbd runs from there, and `make uninstall` with the same
# variables leaves no file or link behind.  Needs the build (./xvbd,
# ./xvbd-block).  Ends with "install: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pages=$(cd "$top/man" && ls *.1)

# run NAME WANT MAKEVARS...: install, compare, uninstall, compare.
run() {
	local name=$1 want=$2 d=$work/$1 got
	shift 2
	if ! make -s -C "$top" install DESTDIR="$d" "$@" >"$work/log" 2>&1; then
		not_ok "$name: make install"; sed 's/^/#   /' "$work/log"
		return
	fi
	got=$(cd "$d" && find . ! -type d -printf '%m %y %p %l\n' | sed 's/ $//' | sort)
	if [ "$got" = "$(sort <<<"$want")" ]; then
		ok "$name: every file, its mode, the link"
	else
		not_ok "$name: files and modes"
		diff <(sort <<<"$want") <(echo "$got") | sed -n 's/^[<>]/#   &/p'
	fi
	if "$d$(awk '$3 ~ /\/xvbd$/ && $2 == "f" { print substr($3, 2); exit }' <<<"$want")" --version |
		grep -qx "xvbd [0-9.]*"; then
		ok "$name: the installed xvbd runs"
	else
		not_ok "$name: the installed xvbd runs"
	fi
	if ! make -s -C "$top" uninstall DESTDIR="$d" "$@" >"$work/log" 2>&1; then
		not_ok "$name: make uninstall"; sed 's/^/#   /' "$work/log"
		return
	fi
	got=$(cd "$d" && find . ! -type d)
	[ -z "$got" ] && ok "$name: uninstall leaves nothing" ||
		{ not_ok "$name: left behind: $(echo $got)"; }
}

want="755 f ./usr/sbin/xvbd
755 f ./usr/libexec/xvbd/xvbd-block
777 l ./etc/xen/scripts/xvbd-block /usr/libexec/xvbd/xvbd-block
777 l ./etc/xen/scripts/xvbd-block-direct xvbd-block
644 f ./usr/share/bash-completion/completions/xvbd
644 f ./usr/share/zsh/vendor-completions/_xvbd"
for p in $pages; do want+=$'\n'"644 f ./usr/share/man/man1/$p"; done
run debian "$want" PREFIX=/usr

want="755 f ./opt/x/bin/xvbd
755 f ./opt/x/libexec/xvbd/xvbd-block
777 l ./etc/xen/scripts/xvbd-block /opt/x/libexec/xvbd/xvbd-block
777 l ./etc/xen/scripts/xvbd-block-direct xvbd-block
644 f ./b/xvbd
644 f ./z/_xvbd"
for p in $pages; do want+=$'\n'"644 f ./m/man1/$p"; done
run dirs "$want" PREFIX=/opt/x BINDIR=/opt/x/bin MANDIR=/m BASHCOMPDIR=/b ZSHCOMPDIR=/z

# What make install ships has no test hooks: XVBD_TEST_PV_HOOK (a program
# pv runs between its read and its write) and XVBD_TEST_STOP_AT (a stop,
# SIGSTOP, at a named step: xvbd and xvbd-block) are ignored.  The pv
# hook by its effect (the program leaves a mark when it runs); the stop
# points by their name, which a build that reads the variable must hold
# (every step needs Xen).  The config lies below the tree (root's
# directories, not /tmp's) so that pv's own checks of it pass.
hooks() {
	local d=$work/hooks cfgdir got
	if ! make -s -C "$top" install DESTDIR="$d" PREFIX=/usr >"$work/log" 2>&1; then
		not_ok "test hooks: make install"; sed 's/^/#   /' "$work/log"
		return
	fi
	cfgdir=$(mktemp -d "$top/build/install-hooks.XXXXXX")
	chmod 0755 "$cfgdir"
	printf 'name = "x"\ntype = "hvm"\n' >"$cfgdir/g.cfg"
	printf '#!/bin/sh\ntouch "%s/hook-ran"\n' "$cfgdir" >"$cfgdir/hook.sh"
	chmod 0755 "$cfgdir/hook.sh"
	got=$(XVBD_TEST_PV_HOOK=$cfgdir/hook.sh XVBD_TEST_STOP_AT=attach-prepared \
		"$d/usr/sbin/xvbd" -q pv "$cfgdir/g.cfg" off 2>&1)
	[ $? = 0 ] && ok "test hooks: pv off of a config file works" ||
		not_ok "test hooks: pv off of a config file: $got"
	[ ! -e "$cfgdir/hook-ran" ] && ok "test hooks: the installed xvbd runs no XVBD_TEST_PV_HOOK" ||
		not_ok "test hooks: the installed xvbd ran XVBD_TEST_PV_HOOK's program"
	rm -rf "$cfgdir"
	got=$(grep -las XVBD_TEST_ "$d/usr/sbin/xvbd" "$d/usr/libexec/xvbd/xvbd-block")
	[ -z "$got" ] && ok "test hooks: neither installed program reads XVBD_TEST_STOP_AT or XVBD_TEST_PV_HOOK" ||
		not_ok "test hooks: XVBD_TEST_ variables read by: $(echo $got)"
}
hooks

echo "install: $passed passed, $failed failed"
[ $failed = 0 ]
