# tests/cli-bad-input.sh - sourced by tests/cli.sh: every usage error
# (exit 2) of the catalogue of bad inputs (tests/bad-input/cases), run
# here, on a host without Xen.  A usage error must be found before xvbd
# looks for xenstore or libxl: one that got further would stop at the
# missing xenstore here (exit 1, another line) and fail.  Per case, as
# the lab's runner checks it: the exit code, nothing on stdout (with
# --json: the one JSON failure object, its rc the exit code), exactly
# one line on stderr, "xvbd: ..." holding the catalogue's text.
# The lab (tests/lab/t/65-bad-input.sh) runs every case that gets past
# the command line (exit 1) and the first two usage errors of each
# command, and checks there that dom0 is left as it was.
# Uses $xvbd, passed and failed from cli.sh.

bidir=$(mktemp -d /tmp/xvbd-cli-bi.XXXXXX)
trap 'rm -rf "$abdir" "$pvdir" "$bidir"' EXIT

# The runner's fixtures (the catalogue's header), as files of this host;
# the guest and its devices are names only: no usage error may look them
# up.
G=bi
D=7
DIR=$bidir/bi
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
LOOP=/dev/loop0
MNTDEV=/dev/vda1
REC=one-20240501T120001-0001
mkdir -p "$SUB" "$ABD"
truncate -s 64M "$IMG"
truncate -s 8M "$FREE" "$DIR/other.img"
ln -s "$FREE" "$LINK"
ln -s /etc/passwd "$EVIL"
ln -s /dev/vdb1 "$DEVLINK"
printf 'username=labsmb\npassword=not-the-real-one\n' >"$CRED"
cp "$CRED" "$CRED644"
chmod 0600 "$CRED"
chmod 0644 "$CRED644"
ln -s "$CRED" "$CREDLINK"
for c in "$CFG" "$CFG_RUNNING"; do
	printf 'name = "%s"\ntype = "pv"\nmemory = 64\nkernel = "/boot/k"\n' \
		"$(basename "$c" .cfg)" >"$c"
done
printf '{"format":"xvbd-ab-record","version":1,"id":"%s","label":"one",' \
	"$REC" >"$ABD/$REC.json"
printf '"started":"2024-05-01T12:00:01Z","started_unix_ns":1714564801000000000,' \
	>>"$ABD/$REC.json"
printf '"domain":"g","vdevs":["xvdb"],"mode":"duration","workload":"w",' \
	>>"$ABD/$REC.json"
printf '"workload_status":0,"interval_ns":1000000000,"warmup_ns":0,' \
	>>"$ABD/$REC.json"
printf '"complete":true,"fingerprint":{},"notes":[],"samples":[]}\n' \
	>>"$ABD/$REC.json"
chmod -R go-w "$bidir"

bi_n=0
while IFS=$'\t' read -r want text argstr; do
	[[ -z $want || $want == "#"* ]] && continue
	[ "$want" = 2 ] || continue
	bi_n=$((bi_n + 1))
	eval "args=($argstr)"
	what="xvbd ${args[*]:0:8}"
	what=${what//$'\n'/\\n}
	what=${what:0:120}
	out=$("$xvbd" -q "${args[@]}" 2>"$bidir/err")
	rc=$?
	err=$(<"$bidir/err")
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
	text=${text//\/scratch\/bi/$DIR}
	[[ $err == *"$text"* ]] || problems+=("no \"$text\"")
	if [ ${#problems[@]} = 0 ]; then
		echo "ok - bad input: $what -> $rc: $err"
		passed=$((passed + 1))
	else
		echo "not ok - bad input: $what: $(IFS=';'; echo "${problems[*]}") [stderr: ${err//$'\n'/ | }]"
		failed=$((failed + 1))
	fi
done <"$(dirname "${BASH_SOURCE[0]}")/bad-input/cases"
if [ "$bi_n" -ge 200 ]; then
	echo "ok - bad input: $bi_n usage errors of the catalogue"
	passed=$((passed + 1))
else
	echo "not ok - bad input: only $bi_n usage errors in the catalogue"
	failed=$((failed + 1))
fi
