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
#   disk     base, xen, dom0, vbd (a disk's life: attach, detach, tune)
#   stats    base, xen, dom0, disk
#   workload base (what a benchmark printed: fio JSON, benchfmt)
#   ab       base, xen, dom0, vbd, disk, stats, workload
#   cmd      everything (cmd/attach, cmd/ab: the two command families)
#   hotplug  base, xen, dom0 (xvbd-block, its own program)
#
# Public headers live in include/xvbd/<layer>/; a private header sits
# beside the sources that own it (src/<layer>/x_impl.h) and only files of
# that folder include it.  Only xen includes the Xen libraries' headers.
# No source sits directly in src/.
#
# A command never calls another command's entry point (the handlers of
# src/cmd/main.c's table): an act two commands need is a layer.  Only
# main.c's table names them.
#
# Prints "ok"/"not ok" per file and ends with "layers: N passed, N
# failed".
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 1

declare -A may=(
	[base]="base"
	[xen]="base xen"
	[dom0]="base dom0"
	[vbd]="base xen dom0 vbd"
	[disk]="base xen dom0 vbd disk"
	[stats]="base xen dom0 disk stats"
	[workload]="base workload"
	[ab]="base xen dom0 vbd disk stats workload ab"
	[cmd]="base xen dom0 vbd disk stats workload ab cmd"
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

# The command table's handlers, and who uses them outside main.c.
entries=" $(sed -n 's/^[[:space:]]*{ *"[^"]*", *\(cmd_[a-z0-9_]*\),.*/\1/p' src/cmd/main.c | sort -u | tr '\n' ' ') "
[ "$entries" != "  " ] && ok "the command table names its handlers ($(wc -w <<<"$entries"))" ||
	not_ok "no command handler found in src/cmd/main.c's table"
while IFS= read -r f; do
	own=" $(sed -n 's/^int \(cmd_[a-z0-9_]*\)(struct xvbd_ctx .*/\1/p' "$f" | tr '\n' ' ') "
	# the code alone: no comment, no #include line
	used=$(perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{^[ \t]*#[ \t]*include[^\n]*}{}mg' "$f" |
		grep -ohE '\bcmd_[a-z0-9_]+\b' | sort -u)
	bad=()
	for n in $used; do
		[[ $entries == *" $n "* ]] && [[ $own != *" $n "* ]] && bad+=("$n")
	done
	if [ ${#bad[@]} = 0 ]; then
		ok "$f calls no other command's entry point"
	else
		not_ok "$f calls ${bad[*]}: another command's entry point (an act two commands need is a layer)"
	fi
done < <(find src/cmd -name '*.c' ! -path src/cmd/main.c | sort)

echo "layers: $passed passed, $failed failed"
[ $failed = 0 ]
