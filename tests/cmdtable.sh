#!/bin/bash
# tests/cmdtable.sh [SRC]: the command line as the sources define it, for
# the tests that keep the completions and the manual from drifting:
#
#   cmd NAME          each entry of the command table (src/cmd/main.c)
#   opt NAME -X       each option NAME's parser takes: its getopt string
#                     and its struct option array (src/cmd/**/cmd_<name>.c, "ab
#                     record" -> cmd_ab_record.c); NAME "xvbd": the global
#                     options of src/cmd/main.c.  "-X=": it takes a value.
#   key tune KEY      the per-VBD keys tune and --vbd take (src/vbd/override.c,
#                     not those it refuses)
#   key defaults P    xen_blkback's parameters (src/dom0/modparam.c)
#   key metric M      the A/B metrics (src/ab/ab_summary.c)
#
# Read from the C text, not from a build: the tests run without one.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}

# opts FILE: -X per letter of its getopt strings (xvbd_getopt() or the
# XVBD_FOREACH_OPT loop), --name per struct option
# ("=" after those that take a value).
opts() {
	sed -n 's/.*\(getopt[a-z_]*\|XVBD_FOREACH_OPT[A-Z_]*\)([^"]*"\([^"]*\)".*/\2/p' "$1" |
		sed 's/^[:+]*//; s/\([^:]\)/ -\1/g; s/:/=/g' | tr ' ' '\n' | sed '/^$/d'
	awk '/struct option [a-z_]*\[\] = \{/ { on = 1; next }
	     on && /\{ *NULL/ { on = 0 }
	     on && match($0, /\{ *"[^"]*", *[a-z_]*/) {
		s = substr($0, RSTART, RLENGTH); sub(/\{ *"/, "", s)
		n = s; sub(/".*/, "", n)
		print "--" n (s ~ /required_argument/ ? "=" : "") }' "$1"
}

mapfile -t names < <(awk '/^static const struct xvbd_cmd commands\[\]/ { on = 1 }
	on && /^};/ { on = 0 }
	on && match($0, /^\t\{ "[^"]*", cmd_/) {
		s = substr($0, RSTART, RLENGTH); sub(/^\t\{ "/, "", s); sub(/", cmd_$/, "", s); print s }' "$src/cmd/main.c")
[ ${#names[@]} -ge 5 ] || { echo "cmdtable: no command table in $src/cmd/main.c" >&2; exit 1; }
for n in "${names[@]}"; do
	echo "cmd $n"
done
opts "$src/cmd/main.c" | grep -v -- '^-V$' | sort -u | sed 's/^/opt xvbd /'
for n in "${names[@]}"; do
	f=$(find "$src" -name "cmd_${n// /_}.c" | head -n 1)
	[ -n "$f" ] || continue
	opts "$f" | sort -u | sed "s/^/opt $n /"
done
# Keys of xvbd_ovr_keys: [XVBD_OVR_X] = { XVBD_OVR_X, "name", "xs-key", B|F, CLASS
tr '\n\t' '  ' <"$src/vbd/override.c" |
	grep -o 'XVBD_OVR_[A-Z_]*, *"[a-z-]*", *"[a-z-]*", *[BF], *XVBD_OVR_[A-Z]*' |
	awk -F'"' '$NF !~ /REFUSED/ { print "key tune " $2 }'
awk '/xvbd_blkback_params\[\] = \{/ { on = 1; next } on && /^};/ { on = 0 }
     on && match($0, /^\t\{ "[a-z_]*"/) { s = substr($0, RSTART, RLENGTH); sub(/^\t\{ "/, "", s); sub(/"$/, "", s); print "key defaults " s }' "$src/dom0/modparam.c"
sed -n 's/^\t\[XVBD_AB_[A-Z0-9_]*\] = { "\([a-z0-9-]*\)".*/key metric \1/p' "$src/ab/ab_summary.c"
