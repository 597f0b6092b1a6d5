#!/bin/bash
# tests/deb.sh (make check-deb): builds the Debian package from a copy of
# the source tree (`dpkg-buildpackage -us -uc -b`: the tree's own build
# directories, with the lab's images, are left alone), checks it with
# lintian (no error), then installs it into the lab's dom0, runs `xvbd
# list` from it and removes it (tests/lab/deb/install-check.sh).  Needs
# debhelper and lintian (not part of make check).  LAB=0: no lab.
# Ends with "deb: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
end() { echo "deb: $passed passed, $failed failed"; [ $failed = 0 ]; exit; }
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null || { not_ok "$t missing: apt-get install debhelper lintian"; end; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n '1s/^xvbd (\([^)]*\)).*/\1/p' "$top/debian/changelog")
src=$work/xvbd-$version
mkdir -p "$src"
# The tracked files and new ones not ignored, as they are in the tree.
if git -C "$top" rev-parse >/dev/null 2>&1; then
	(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -xf - -C "$src"
else
	(cd "$top" && tar --exclude=./build --exclude=./build-san -cf - .) | tar -xf - -C "$src"
fi
if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b"
else
	not_ok "dpkg-buildpackage"; tail -n 30 "$work/build.log" | sed 's/^/#   /'; end
fi
deb=$(ls "$work"/xvbd_"$version"_*.deb)
echo "# $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -c "$deb" | awk '{ print "#   " $1, $6, $7, $8 }'
want="/etc/xen/scripts/xvbd-block /etc/xen/scripts/xvbd-block-direct /usr/libexec/xvbd/xvbd-block /usr/sbin/xvbd /usr/share/bash-completion/completions/xvbd /usr/share/zsh/vendor-completions/_xvbd"
for p in "$top"/man/*.1; do want+=" /usr/share/man/man1/$(basename "$p").gz"; done
got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||' | grep -v '^/usr/share/doc/' | sort | tr '\n' ' ')
[ "$got" = "$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ')" ] && ok "the package's files" ||
	not_ok "the package's files: $got"
case $(dpkg-deb -f "$deb" Depends) in
*libxen*) ok "Depends from the shared libraries (\${shlibs:Depends})" ;;
*) not_ok "Depends names no Xen library" ;;
esac
lintian "$deb" >"$work/lintian" 2>&1
sed 's/^/#   /' "$work/lintian"
grep -q '^E: ' "$work/lintian" && not_ok "lintian: errors" || ok "lintian: no error"
if [ "${LAB:-1}" != 0 ]; then
	out=$("$top/tests/lab/run" --with "$deb" "$top/tests/lab/deb/install-check.sh" 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 0 ] && ok "the package in the lab's dom0 (install, xvbd list, remove)" ||
		not_ok "the package in the lab's dom0 (rc $rc)"
fi
end
