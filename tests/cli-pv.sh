# tests/cli-pv.sh - sourced by tests/cli.sh: `xvbd pv CONFIG_FILE on|off`
# needs no Xen, so its edits run here for real, on trees made with
# chown/chmod (as root) in a temporary directory:
#  - a config reached through a directory someone else owns (uid 65534)
#    is refused in one line naming that directory, and nothing is written
#    (before: the file the link points to was edited);
#  - root's own link (/etc/xen/auto style) is followed and the target
#    edited, the link left a link;
#  - an edit waits for another's lock on the same file (before: no lock,
#    one of two concurrent edits could be lost), and a SIGTERM while it
#    waits ends it with "interrupted", exit 1, nothing written, no
#    temporary left (before: no wait, and a signal killed it where it
#    was).
# Uses case_, $xvbd, passed and failed from cli.sh.

pvdir=$(mktemp -d /tmp/xvbd-cli-pv.XXXXXX)
trap 'rm -rf "$abdir" "$pvdir"' EXIT

pv_ok() {
	echo "ok - $1"
	passed=$((passed + 1))
}

pv_fail() {
	echo "not ok - $1"
	[ -z "${2-}" ] || printf '%s\n' "$2" | sed 's/^/#   /'
	failed=$((failed + 1))
}

# pv_check WHAT COMMAND...: a check of the host (files, their bytes).
pv_check() {
	local what=$1
	shift
	if "$@"; then pv_ok "$what"; else pv_fail "$what"; fi
}

pv_cfg() {
	cat >"$1" <<'EOF'
name = "g"
type = "hvm"
memory = 1024
disk = [ 'format=raw, vdev=hda, access=rw, target=/srv/g.img' ]
EOF
}

if [ "$(id -u)" = 0 ]; then
	mkdir -m 0755 "$pvdir/real" "$pvdir/user" "$pvdir/auto"
	pv_cfg "$pvdir/real/bob.cfg"
	cp "$pvdir/real/bob.cfg" "$pvdir/bob.orig"
	ln -s ../real/bob.cfg "$pvdir/user/alice.cfg"
	chown -h 65534 "$pvdir/user" "$pvdir/user/alice.cfg"
	ln -s ../real/bob.cfg "$pvdir/auto/g.cfg"

	case_ 1 "pv: $pvdir/user/alice.cfg: $pvdir/user: a directory owned by uid 65534" \
		pv "$pvdir/user/alice.cfg" off
	pv_check "pv through a directory uid 65534 owns: the target untouched" \
		cmp -s "$pvdir/real/bob.cfg" "$pvdir/bob.orig"
	pv_check "pv through a directory uid 65534 owns: no backup made" \
		test ! -e "$pvdir/real/bob.cfg.xvbd-bak"

	# root's link: followed, the target edited, the link kept
	err=$("$xvbd" -q pv "$pvdir/auto/g.cfg" off 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 0 ] && grep -qx 'xen_platform_pci = 0' "$pvdir/real/bob.cfg" &&
		[ -L "$pvdir/auto/g.cfg" ] &&
		cmp -s "$pvdir/real/bob.cfg.xvbd-bak" "$pvdir/bob.orig"; then
		pv_ok "pv through root's link: the target edited, its backup beside it"
	else
		pv_fail "pv through root's link (rc $rc)" "$err"
	fi
	rm -f "$pvdir/real/bob.cfg.xvbd-bak"
	cp "$pvdir/bob.orig" "$pvdir/real/bob.cfg"

	# The lock of the file's resolved path (FNV-1a 64 of it, lock.c).
	h=$((0xcbf29ce484222325))
	real="$pvdir/real/bob.cfg"
	for ((i = 0; i < ${#real}; i++)); do
		printf -v c '%d' "'${real:i:1}"
		h=$(((h ^ c) * 0x100000001b3))
	done
	printf -v lock '/run/xvbd/file.%016x.lock' "$h"
	mkdir -p /run/xvbd
	# pv_waiting PID: until PID holds the lock file open (waiting for it)
	pv_waiting() {
		local n
		for ((n = 0; n < 300; n++)); do
			ls -l "/proc/$1/fd" 2>/dev/null | grep -qF "$lock" &&
				return 0
			kill -0 "$1" 2>/dev/null || return 1
			sleep 0.1
		done
		return 1
	}

	# another holds the lock (this shell, on fd 9, which xvbd does not
	# inherit): the edit waits, then runs once it is free
	exec 9>"$lock"
	flock 9
	"$xvbd" -q pv "$real" off 2>"$pvdir/err" >/dev/null 9>&- &
	pid=$!
	if pv_waiting $pid && cmp -s "$real" "$pvdir/bob.orig"; then
		pv_ok "pv waits for another edit's lock of the same file"
	else
		pv_fail "pv waits for another edit's lock" "$(cat "$pvdir/err")"
	fi
	exec 9>&-
	wait $pid
	rc=$?
	pv_check "pv edits once the lock is free (rc $rc)" \
		grep -qx 'xen_platform_pci = 0' "$real"
	rm -f "$real.xvbd-bak"
	cp "$pvdir/bob.orig" "$real"

	# SIGTERM while waiting (a background job here ignores SIGINT; the
	# same handler takes both): "interrupted", exit 1, nothing written
	exec 9>"$lock"
	flock 9
	"$xvbd" pv "$real" off 2>"$pvdir/err" >/dev/null 9>&- &
	pid=$!
	pv_waiting $pid
	kill -TERM $pid
	wait $pid
	rc=$?
	exec 9>&-
	if [ $rc = 1 ] && grep -q "^xvbd: pv: interrupted: by SIGTERM while waiting for the lock of $real; nothing done$" "$pvdir/err" &&
		[ "$(wc -l <"$pvdir/err")" = 1 ] &&
		cmp -s "$real" "$pvdir/bob.orig" &&
		[ -z "$(ls -A "$pvdir/real" | grep -v '^bob.cfg$')" ]; then
		pv_ok "pv: SIGTERM while waiting: exit 1, one line, nothing written, nothing left"
	else
		pv_fail "pv: SIGTERM while waiting (rc $rc; files: $(ls -A "$pvdir/real" | tr '\n' ' '))" \
			"$(cat "$pvdir/err")"
	fi
else
	echo "# pv file edits: not run (chown needs root)"
fi
