#!/bin/bash
# tests/deps.sh [INSTALL_DEPS]: runs tests/lab/install-deps against
# stand-in dpkg-query, dpkg, apt-get and id programs (first on PATH) that
# play four machines: packages never installed, all installed, some
# installed (one removed with its config files kept, one half-installed),
# and apt-get failing; also a user who is not root.  Checks exactly which
# packages are asked for, the exit codes and the messages.  Nothing real
# is installed or asked.  Ends with "deps: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=${1:-$here/lab/install-deps}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
check() {	# check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# The package list, read from the script itself: the stand-in machines
# know exactly these (plus unrelated ones).
# (pkgs="a b ..." or pkgs=(a b # comment ...), as the old and new script have it)
mapfile -t all < <(sed -n '/^pkgs=/,/[")]$/p' "$script" |
	sed -e 's/#.*//' -e 's/^pkgs=//' -e 's/[()"]//g' | tr -s ' \t' '\n' | sed '/^$/d')
[ ${#all[@]} -ge 10 ] || { echo "not ok - read the package list from $script (${#all[@]})"; echo "deps: 0 passed, 1 failed"; exit 1; }

# ---- the stand-ins ----
bin=$work/bin
mkdir -p "$bin"
# dpkg's database: "name status" lines ($FAKE_DB).  Like the real one,
# dpkg-query -W prints known packages and says "no packages found" on
# stderr with exit 1 for each unknown one.
cat >"$bin/dpkg-query" <<'EOF'
#!/bin/bash
echo "dpkg-query $*" >>"$FAKE_LOG"
fmt='${Package}\t${Version}\n'
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-W|--show) ;;
	-f) fmt=$2; shift ;;
	-f=*|--showformat=*) fmt=${1#*=} ;;
	*) args+=("$1") ;;
	esac
	shift
done
rc=0
for p in "${args[@]}"; do
	st=$(awk -v p="$p" '$1 == p { print $2 }' "$FAKE_DB")
	if [ -z "$st" ]; then
		echo "dpkg-query: no packages found matching $p" >&2
		rc=1
		continue
	fi
	out=${fmt//'${Package}'/$p}
	out=${out//'${db:Status-Status}'/$st}
	out=${out//'${Version}'/1.0}
	printf "$out"
done
exit $rc
EOF
cat >"$bin/dpkg" <<'EOF'
#!/bin/bash
echo "dpkg $*" >>"$FAKE_LOG"
case $1 in --print-architecture) echo amd64 ;; esac
exit 0
EOF
# apt-get: logs its arguments; FAKE_APT_FAIL=update|install makes that
# step fail as apt does; a successful install marks the packages installed.
cat >"$bin/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$FAKE_LOG"
cmd=
pk=()
for a in "$@"; do
	case $a in
	-*) ;;
	update|install) cmd=$a ;;
	*) pk+=("$a") ;;
	esac
done
if [ "${FAKE_APT_FAIL:-}" = "$cmd" ]; then
	case $cmd in
	update) echo "E: Failed to fetch http://deb.example/dists/bookworm/InRelease  Could not resolve 'deb.example'" >&2 ;;
	install) echo "E: Unable to locate package ${pk[0]}" >&2 ;;
	esac
	exit 100
fi
if [ "$cmd" = install ]; then
	for p in "${pk[@]}"; do
		grep -v "^$p " "$FAKE_DB" >"$FAKE_DB.new"; mv "$FAKE_DB.new" "$FAKE_DB"
		echo "$p installed" >>"$FAKE_DB"
	done
fi
[ "$cmd" = update ] && touch "$DEPS_APT_LISTS/deb.example_dists_bookworm_main_binary-amd64_Packages"
exit 0
EOF
cat >"$bin/id" <<'EOF'
#!/bin/bash
[ "$1" = -u ] && { echo "${FAKE_UID:-0}"; exit 0; }
exec /usr/bin/id "$@"
EOF
chmod +x "$bin"/*

# run_machine NAME: runs the script on the machine set up in $work/NAME;
# sets rc, out (stdout), err (stderr), log (the stand-ins' calls).
run_machine() {
	local m=$work/$1
	: >"$m/log"
	FAKE_DB=$m/db FAKE_LOG=$m/log DEPS_APT_LISTS=$m/lists \
		PATH=$bin:/usr/bin:/bin bash "$script" >"$m/out" 2>"$m/err"
	rc=$?
	out=$(cat "$m/out"); err=$(cat "$m/err"); log=$(cat "$m/log")
}
machine() {	# machine NAME [LISTS]: a machine with an empty dpkg database
	mkdir -p "$work/$1/lists"
	printf 'base-files installed\nbash installed\n' >"$work/$1/db"
	[ "${2:-}" = lists ] && touch "$work/$1/lists/deb.example_dists_bookworm_main_binary-amd64_Packages"
	return 0
}
installed() {	# installed MACHINE PKG... (mark as installed)
	local m=$1 p; shift
	for p; do echo "$p installed" >>"$work/$m/db"; done
}
# The packages apt-get install was asked for, one per line, sorted.
asked() { sed -n 's/^apt-get .*install //p' "$work/$1/log" | tr ' ' '\n' | grep -v '^-' | sed '/^$/d' | sort; }
sorted() { printf '%s\n' "$@" | sort; }

# 1. A minimal fresh Debian: none of the packages was ever installed.
machine fresh
run_machine fresh
check "never installed: exit 0 (rc $rc: $err)" [ $rc = 0 ]
check "never installed: every package asked for, once" [ "$(asked fresh)" = "$(sorted "${all[@]}")" ]
check "never installed: apt-get update before install" \
	[ "$(awk '$1 == "apt-get" { for (i = 2; i <= NF; i++) if ($i !~ /^-/) { printf "%s ", $i; break } }' "$work/fresh/log")" = "update install " ]
check "never installed: says what it installs" grep -q "^deps: installing ${#all[@]} packages: " <<<"$out"
check "never installed: libc6-dev and make among them" bash -c "grep -qx libc6-dev <<<'$(asked fresh)' && grep -qx make <<<'$(asked fresh)'"

# 2. Everything installed, apt lists present: nothing asked.
machine full lists
installed full "${all[@]}"
run_machine full
check "all installed: exit 0" [ $rc = 0 ]
check "all installed: apt-get not run" [ -z "$(grep '^apt-get' "$work/full/log")" ]
check "all installed: silent" [ -z "$out$err" ]

# 3. Some installed; one removed with its config kept, one half-installed,
# one never heard of.
machine some lists
half=("${all[@]:0:5}")
installed some "${half[@]}"
echo "${all[5]} config-files" >>"$work/some/db"
echo "${all[6]} half-installed" >>"$work/some/db"
run_machine some
check "some installed: exit 0" [ $rc = 0 ]
check "some installed: exactly the missing ones asked for (removed and half-installed count as missing)" \
	[ "$(asked some)" = "$(sorted "${all[@]:5}")" ]

# 4. apt-get install fails: the step and the fix in one line, exit 1.
machine aptfail
FAKE_APT_FAIL=install run_machine aptfail
check "apt-get install fails: exit 1" [ $rc = 1 ]
check "apt-get install fails: one error line" [ "$(wc -l <<<"$err")" = 1 ]
check "apt-get install fails: names the step and apt's error" \
	grep -q "^deps: apt-get install .* failed: E: Unable to locate package .*(fix apt, or install these by hand, then run this again)$" <<<"$err"

# 5. apt-get update fails.
machine updfail
FAKE_APT_FAIL=update run_machine updfail
check "apt-get update fails: exit 1, step named, nothing installed" \
	bash -c "[ $rc = 1 ] && grep -q '^deps: apt-get update failed: E: Failed to fetch' <<<'$err' && ! grep -q 'install' '$work/updfail/log'"

# 6. Not root, packages missing: one line naming what to install.
machine user
installed user "${all[@]:2}"
FAKE_UID=1000 run_machine user
check "not root: exit 1" [ $rc = 1 ]
check "not root: one line with the missing packages and the command" \
	[ "$err" = "deps: missing packages: ${all[0]} ${all[1]}: as root, run: apt-get install --no-install-recommends ${all[0]} ${all[1]}" ]
check "not root: apt-get not run" [ -z "$(grep '^apt-get' "$work/user/log")" ]

# 7. Not root, everything there: fine.
machine user2 lists
installed user2 "${all[@]}"
FAKE_UID=1000 run_machine user2
check "not root, all installed: exit 0" [ $rc = 0 ]

# 8. Everything installed but no apt lists (build-images needs them).
machine nolists
installed nolists "${all[@]}"
run_machine nolists
check "no apt lists: apt-get update run, nothing installed" \
	bash -c "[ $rc = 0 ] && grep -q '^apt-get .*update' '$work/nolists/log' && ! grep -q 'install' '$work/nolists/log'"

echo "deps: $passed passed, $failed failed"
[ $failed = 0 ]
