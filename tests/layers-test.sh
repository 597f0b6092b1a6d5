#!/bin/bash
# tests/layers-test.sh: tests/layers.sh itself, on copies of the tree with
# one violation planted each: it must fail and name the file and header.
# Ends with "layers-test: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plant() {	# plant NAME EXPECT SHELL-EDIT: a fresh copy, the edit, the verdict
	local name=$1 expect=$2 edit=$3 out rc
	rm -rf "$tmp/t" && mkdir "$tmp/t" && cp -a "$top/src" "$top/include" "$tmp/t/"
	(cd "$tmp/t" && eval "$edit")
	out=$("$top/tests/layers.sh" "$tmp/t" 2>&1); rc=$?
	if [ $rc != 0 ] && grep -q -- "^not ok - .*$expect" <<<"$out"; then
		ok "$name: refused ($(grep -m1 '^not ok' <<<"$out"))"
	else
		not_ok "$name: exit $rc, no \"not ok\" line matching \"$expect\""
	fi
}

out=$("$top/tests/layers.sh" "$top" 2>&1) && ok "the tree itself passes" ||
	not_ok "the tree itself fails: $(grep '^not ok' <<<"$out" | head -n 3)"
plant "cmd.h from base" 'src/base/util.c (base) includes xvbd/cmd/cmd.h: base may not use cmd' \
	'sed -i "0,/^#include \"/s//#include \"xvbd\/cmd\/cmd.h\"\n&/" src/base/util.c'
plant "ab from stats" 'src/stats/stats.c (stats) includes xvbd/ab/ab.h: stats may not use ab' \
	'sed -i "0,/^#include \"/s//#include \"xvbd\/ab\/ab.h\"\n&/" src/stats/stats.c'
plant "dom0 from xen (siblings)" 'src/xen/xs.c (xen) includes xvbd/dom0/loop.h: xen may not use dom0' \
	'sed -i "0,/^#include \"/s//#include \"xvbd\/dom0\/loop.h\"\n&/" src/xen/xs.c'
plant "libxl outside xen" 'src/dom0/loop.c (dom0) includes <libxl.h>: only xen' \
	'sed -i "0,/^#include </s//#include <libxl.h>\n&/" src/dom0/loop.c'
plant "another folder's private header" 'src/vbd/vbd.c (vbd) includes "tstack_impl.h": a private header' \
	'sed -i "0,/^#include \"/s//#include \"tstack_impl.h\"\n&/" src/vbd/vbd.c'
plant "disk from vbd (the layer above it)" 'src/vbd/vbd.c (vbd) includes xvbd/disk/disk.h: vbd may not use disk' \
	'sed -i "0,/^#include \"/s//#include \"xvbd\/disk\/disk.h\"\n&/" src/vbd/vbd.c'
plant "cmd from disk" 'src/disk/disk_desc.c (disk) includes xvbd/cmd/cmd.h: disk may not use cmd' \
	'sed -i "0,/^#include \"/s//#include \"xvbd\/cmd\/cmd.h\"\n&/" src/disk/disk_desc.c'
plant "a command calling another's entry point" 'src/cmd/cmd_tune.c calls cmd_detach: another command' \
	'sed -i "s/^int cmd_tune(struct xvbd_ctx \*ctx, int argc, char \*\*argv)\$/static int detach_it(struct xvbd_ctx *c, int n, char **v) { return cmd_detach(c, n, v); }\n&/" src/cmd/cmd_tune.c'
plant "a source directly in src/" 'sources directly in src/' 'echo "int x;" > src/stray.c'

echo "layers-test: $passed passed, $failed failed"
[ $failed = 0 ]
