#!/bin/bash
# tests/layers.sh [TOP]: the layer rule, checked over every #include.
#
# src/ is in layer folders; a file may include headers of its own layer
# and of the layers below it, never of one above:
#
#   base     libc, yajl                    src/base,  include/xvbd/base
#   xen      base (+ libxenstore, libxl, libxlutil, libxenctrl)
#   dom0     base (sysfs, /proc, loop, mount, modprobe)
#   vbd      base, xen, dom0
#   stats    base, xen, dom0
#   workload base (what a benchmark printed: fio JSON, benchfmt)
#   ab       base, xen, dom0, vbd, stats, workload
#   cmd      everything (cmd/attach, cmd/ab: the two command families)
#   hotplug  base, xen, dom0 (xvbd-block, its own program)
#
# Public headers live in include/xvbd/<layer>/; a private header sits
# beside the sources that own it (src/<layer>/x_impl.h) and only files of
# that folder include it.  Only xen includes the Xen libraries' headers.
# No source sits directly in src/.  Prints "ok"/"not ok" per file and
# ends with "layers: N passed, N failed".
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 1

declare -A may=(
	[base]="base"
	[xen]="base xen"
	[dom0]="base dom0"
	[vbd]="base xen dom0 vbd"
	[stats]="base xen dom0 stats"
	[workload]="base workload"
	[ab]="base xen dom0 vbd stats workload ab"
	[cmd]="base xen dom0 vbd stats workload ab cmd"
	[hotplug]="base xen dom0 hotplug"
)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

# The layer of a path: src/<layer>/..., include/xvbd/<layer>/...
layer_of() {
	local p=${1#src/}
	p=${p#include/xvbd/}
	case $p in */*) echo "${p%%/*}" ;; *) echo "" ;; esac
}

stray=$(find src -maxdepth 1 -type f -name '*.[ch]' | sort)
[ -z "$stray" ] && ok "every source is in a layer folder" ||
	not_ok "sources directly in src/ (move them to their layer's folder): $stray"

while IFS= read -r f; do
	own=$(layer_of "$f")
	if [ -z "$own" ] || [ -z "${may[$own]+x}" ]; then
		not_ok "$f: not in a layer folder (${!may[*]})"
		continue
	fi
	bad=()
	while IFS= read -r inc; do
		if [[ $inc == \<* ]]; then
			case $inc in
			"<libxl"*|"<xenstore.h>"|"<xenctrl.h>"|"<xentoollog.h>")
				[ "$own" = xen ] || bad+=("$inc: only xen talks to the Xen libraries") ;;
			esac
			continue
		fi
		inc=${inc//\"/}
		if [[ $inc == xvbd/* ]]; then
			hl=$(layer_of "include/$inc")
			[ -f "include/$inc" ] || { bad+=("$inc: no such header"); continue; }
			[[ " ${may[$own]} " == *" $hl "* ]] ||
				bad+=("$inc: $own may not use $hl (may use: ${may[$own]})")
		else
			# A private header: beside the includer, in its folder only.
			[ -f "$(dirname "$f")/$inc" ] ||
				bad+=("\"$inc\": a private header of another folder (public ones are included as xvbd/<layer>/name.h)")
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$f")
	if [ ${#bad[@]} = 0 ]; then
		ok "$f ($own)"
	else
		for b in "${bad[@]}"; do not_ok "$f ($own) includes $b"; done
	fi
done < <(find src include/xvbd -name '*.[ch]' | sort)

echo "layers: $passed passed, $failed failed"
[ $failed = 0 ]
