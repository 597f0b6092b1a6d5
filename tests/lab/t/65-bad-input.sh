# The catalogue of bad inputs (tests/bad-input/cases): every
# command line there that gets past the command line (exit 1), and the
# first two usage errors (exit 2) of each command, is refused the way it
# says, and refusing it changes nothing in dom0.  Every usage error runs
# on the host too, without Xen (tests/cli-bad-input.sh): found before any
# connection, it cannot touch dom0, and the two here per command check
# that against a real one.  One guest with one file-backed disk, images, links and
# credentials files are set up once; each case then runs `xvbd -q ARGS`:
#  - its exit code is the catalogue's, stdout is empty (under --json: the
#    one JSON failure object, its rc the exit code);
#  - stderr is exactly one line, "xvbd: ...", holding the catalogue's text;
#  - a usage error (exit 2) without -q prints that same first line and
#    then only hints (where the command's help is), no other error (the
#    first two of each command: the hint comes from one function);
#  - dom0 afterwards is as before: the guest's VBD directories in
#    xenstore, the domains, mounts, loop devices, the files of the image
#    directory and of xvbd's share directory, xen_blkback's parameters
#    (read after every 10 cases: a change names those 10).
# Time (TCG, ASan): ~1.5 s per run of xvbd, 0.5 s of it LeakSanitizer's
# scan at exit, checked in every case run.
# A tool that fails while dom0's state is read fails the case (an empty
# answer is not "nothing there").  An argument TEXT runs only the cases
# whose line holds TEXT (and then every usage error among them).  ~110
# cases: 2-5 min under TCG.
# lab-timeout: 2400
# lab-leaks: check
. /lab/lib/testlib.sh
cases=${BAD_INPUT_CASES:-/lab/bad-input/cases}
match=${1:-}
G=bi
DIR=/scratch/bi
IMG=$DIR/disk.img
FREE=$DIR/free.img
LINK=$DIR/link.img
EVIL=$DIR/evil.img
SUB=$DIR/sub
CRED=$DIR/smb.cred
CRED644=$DIR/smb644.cred
CREDLINK=$DIR/smb.cred.link
CFG=$DIR/bi2.cfg
CFG_RUNNING=$DIR/bi.cfg
DEVLINK=$DIR/vdb1.link
ABD=$DIR/ab
REC=

phase "fixtures"
rm -rf $DIR
mkdir -p $DIR $SUB $ABD
# attach and tune take the domain's lock in /run/xvbd (a file that lives
# while it is held): the directory is xvbd's from the first such call on.
mkdir -p -m 0700 /run/xvbd
truncate -s 64M $IMG
truncate -s 8M $FREE $DIR/other.img
ln -s $FREE $LINK
ln -s /etc/passwd $EVIL
ln -s /dev/vdb1 $DEVLINK
printf 'username=labsmb\npassword=not-the-real-one\n' >$CRED
cp $CRED $CRED644
chmod 0600 $CRED
chmod 0644 $CRED644
ln -s $CRED $CREDLINK
lab-guest config bi2 --disk "format=raw,vdev=xvda,access=rw,target=$FREE" >$CFG
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=$IMG" \
	--run 'true'
D=$(xl domid $G)
check "guest $G running" test -n "$D"
lab-guest config $G >$CFG_RUNNING
# One A/B record, written by hand as tests/cli-ab.sh does.
REC=one-20240501T120001-0001
{
	printf '{"format":"xvbd-ab-record","version":1,"id":"%s",' $REC
	printf '"label":"one","started":"2024-05-01T12:00:01Z",'
	printf '"started_unix_ns":1714564801000000000,"domain":"g","vdevs":["xvdb"],'
	printf '"mode":"duration","workload":"w","workload_status":0,'
	printf '"interval_ns":1000000000,"warmup_ns":0,"complete":true,'
	printf '"fingerprint":{},"notes":[],"samples":[]}\n'
} >$ABD/$REC.json
LOOP=$(loop_devices | awk -v f=$IMG '$2 == f { print "/dev/" $1 }')
check "xvda's loop device found" test -n "$LOOP"
MNTDEV=$(awk '$2 == "/scratch" { print $1 }' /proc/mounts)
check "/scratch's device found" test -n "$MNTDEV"
lab-guest wait $G --timeout 600 >/dev/null
expect_eq "guest commands succeeded" 0 "$?"

# state: into S, all a refused command must leave alone.  Fails (returns
# 1, S says why) when a tool fails: a failed xenstore-list prints
# nothing, which must not read as "no VBDs".
state() {
	local out rc f v line files
	S=
	out=$(crash_retry xenstore-list /local/domain)
	rc=$?
	[ $rc = 0 ] || { S="xenstore-list /local/domain failed ($rc): $out"; return 1; }
	S+="domains: ${out//$'\n'/ }"$'\n'
	out=$(crash_retry xenstore-list -p "/local/domain/0/backend/vbd/$D" \
		"/local/domain/$D/device/vbd" "/libxl/$D/device/vbd")
	rc=$?
	[ $rc = 0 ] || { S="xenstore-list of the VBDs failed ($rc): $out"; return 1; }
	S+="$out"$'\n'
	while read -r line; do
		[[ $line == *" /proc/"* ]] || S+="mount $line"$'\n'
	done </proc/mounts
	S+=$(loop_devices)$'\n'
	for f in /sys/module/xen_blkback/parameters/*; do
		read -r v <"$f" || { S="cannot read $f"; return 1; }
		S+="${f##*/}=$v"$'\n'
	done
	# Every file below the image directory and xvbd's share directory
	# (dom0's find is busybox's: no -printf).
	# (nullglob only here: a case's words are not globs)
	shopt -s globstar nullglob dotglob
	files=($DIR/** /run/xvb[d] /run/xvbd/**)	# [d]: none if absent
	shopt -u globstar nullglob dotglob
	out=$(crash_retry stat -c '%n %F %s %a' "${files[@]}")
	rc=$?
	[ $rc = 0 ] || { S="stat failed ($rc): $out"; return 1; }
	S+=$(sort <<<"$out")
}

state
base_rc=$?
base=$S
check "dom0 state read (${#base} bytes)" test $base_rc = 0
echo "$base" | sed 's/^/# base: /' | head -n 40

phase "cases"
# dom0's state is read after every 10 cases (reading it costs 3 processes,
# ~1 s under TCG); a change names the cases since the last read.
n=0 since=()
declare -A loud_seen usage_run
compare_state() {
	if ! state; then
		fail "dom0 state after: ${since[*]}: $S"
	elif [ "$S" != "$base" ]; then
		fail "dom0 unchanged after: ${since[*]}: $(diff <(echo "$base") <(echo "$S") | grep '^[<>]' | head -n 6 | tr '\n' ' ')"
		base=$S		# one finding, not one per later read
	else
		ok "dom0 unchanged after ${#since[@]} cases"
	fi
	since=()
}
t_cases=$SECONDS
while IFS=$'\t' read -r want text argstr; do
	[[ -z $want || $want == "#"* ]] && continue
	[ -n "${match}" ] &&
		[[ "$want $text $argstr" != *"$match"* ]] && continue
	eval "args=($argstr)"
	what="xvbd ${args[*]:0:8}"
	what=${what//$'\n'/\\n}
	what=${what:0:120}
	# (the command word, "ab show" for a group)
	cmdword=${args[0]:-(none)}
	[ "$cmdword" = ab ] && cmdword="ab ${args[1]:-}"
	# The other usage errors: tests/cli-bad-input.sh, on the host.
	if [ "$want" = 2 ] && [ -z "${match}" ]; then
		[ "${usage_run[$cmdword]:-0}" -lt 2 ] || continue
		usage_run[$cmdword]=$(( ${usage_run[$cmdword]:-0} + 1 ))
	fi
	n=$((n + 1))
	out=$(xvbd -q "${args[@]}" 2>/tmp/bi.err)
	rc=$?
	err=$(</tmp/bi.err)
	problems=()
	[ "$rc" = "$want" ] || problems+=("exit $rc, not $want")
	# Nothing on stdout, but under --json the one failure object.
	if [[ " ${args[*]} " == *" --json "* || " ${args[*]} " == *" -j "* ]]; then
		jq -e --argjson rc "$rc" '.failed == true and .rc == $rc and
			(.msg | type) == "string"' <<<"$out" >/dev/null ||
			problems+=("stdout not one JSON failure object: ${out:0:80}")
	else
		[ -z "$out" ] || problems+=("stdout: ${out:0:80}")
	fi
	[[ $err == "xvbd: "* ]] || problems+=("stderr not \"xvbd: ...\"")
	[[ $err == *$'\n'* ]] && problems+=("$(wc -l <<<"$err") lines on stderr")
	[[ $err == *"$text"* ]] || problems+=("no \"$text\"")
	# Without -q: the first two usage errors of each command (the usage
	# text is printed in one place; a run costs ~1-2 s under TCG).
	if [ "$want" = 2 ] && [ ${#problems[@]} = 0 ] &&
		[ "${loud_seen[$cmdword]:-0}" -lt 2 ]; then
		loud_seen[$cmdword]=$(( ${loud_seen[$cmdword]:-0} + 1 ))
		loud=$(xvbd "${args[@]}" 2>&1 >/dev/null)
		[ "${loud%%$'\n'*}" = "$err" ] ||
			problems+=("without -q, another first line: ${loud%%$'\n'*}")
		rest=$(tail -n +2 <<<"$loud" | grep '^xvbd: ' | grep -v '^xvbd: hint: ')
		[ -z "$rest" ] || problems+=("without -q, more errors: $rest")
	fi
	if [ ${#problems[@]} = 0 ]; then
		ok "$what -> $rc: $err"
	else
		fail "$what: $(IFS=';'; echo "${problems[*]}") [stderr: ${err//$'\n'/ | }]"
	fi
	since+=("[$what]")
	[ ${#since[@]} -lt 10 ] || compare_state
done <"$cases"
[ ${#since[@]} = 0 ] || compare_state
echo "# $n cases in $((SECONDS - t_cases)) s"
check "at least 100 cases ($n)" test -n "${match}" -o "$n" -ge 100

phase "clean up"
lab-guest stop $G
rm -rf $DIR /tmp/bi.err
finish
