#!/bin/bash
# tests/cmdtable.sh [SRC [XVBD]]: the command line as xvbd defines it, for
# the tests that keep the completions and the manual from drifting:
#
#   cmd NAME          each entry of the command table (src/cmd/main.c)
#   opt NAME -X       each option of NAME's option table (cmd_opt.h), as
#   opt NAME --long   `xvbd help --table` prints them from the tables
#                     themselves; NAME "xvbd": the global options.  "=":
#                     it takes a value.
#   key tune KEY      the per-VBD keys tune and --vbd take (src/vbd/override.c,
#                     not those it refuses)
#   key defaults P    xen_blkback's parameters (src/dom0/modparam.c)
#   key metric M      the A/B metrics: the quantities of the vocabulary
#                     (src/base/vocab.c) --metric takes, as `xvbd help
#                     metrics --json` prints them from the table
#
# XVBD: the build to ask (default ./xvbd of the tree: make builds it).
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
xvbd=${2:-$(dirname "$src")/xvbd}
[ -x "$xvbd" ] || { echo "cmdtable: $xvbd missing: run make first" >&2; exit 1; }

table=$("$xvbd" help --table)
mapfile -t names < <(sed -n 's/^cmd //p' <<<"$table")
[ ${#names[@]} -ge 5 ] || { echo "cmdtable: no command table from $xvbd" >&2; exit 1; }
printf '%s\n' "$table"
# Keys of xvbd_ovr_keys: [XVBD_OVR_X] = { XVBD_OVR_X, "name", "xs-key", B|F, CLASS
tr '\n\t' '  ' <"$src/vbd/override.c" |
	grep -o 'XVBD_OVR_[A-Z_]*, *"[a-z-]*", *"[a-z-]*", *[BF], *XVBD_OVR_[A-Z]*' |
	awk -F'"' '$NF !~ /REFUSED/ { print "key tune " $2 }'
awk '/xvbd_blkback_params\[\] = \{/ { on = 1; next } on && /^};/ { on = 0 }
     on && match($0, /^\t\{ "[a-z_]*"/) { s = substr($0, RSTART, RLENGTH); sub(/^\t\{ "/, "", s); sub(/"$/, "", s); print "key defaults " s }' "$src/dom0/modparam.c"
"$xvbd" --json help metrics | jq -r '.[] | select(.metric) | "key metric " + .name'
