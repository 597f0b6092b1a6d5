# tests/lab/deb/install-check.sh (run in dom0 by tests/deb.sh, with the
# package handed in beside it): installs xvbd_*.deb into dom0, checks its
# files and that its libraries resolve, runs `xvbd list` from it, removes
# it and finds none of its files left.  dom0's image has no dpkg (the
# image builder leaves it out): then the package is unpacked as dpkg
# unpacks it (the data archive over /; it has no maintainer scripts) and
# removed file by file from its own list, as `dpkg -r` does.
. /lab/lib/testlib.sh
here=$(cd "$(dirname "$0")" && pwd)
deb=$(ls "$here"/xvbd_*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || { fail "no xvbd_*.deb handed in"; finish; exit 1; }
echo "# $deb"

data() {	# the data archive's tar stream
	local m
	m=$(ar t "$deb" | grep '^data\.tar') || return 1
	case $m in
	*.xz) ar p "$deb" "$m" | xz -dc ;;
	*.zst) ar p "$deb" "$m" | zstd -dc ;;
	*.gz) ar p "$deb" "$m" | gzip -dc ;;
	*) ar p "$deb" "$m" ;;
	esac
}
check "no maintainer scripts to run" \
	bash -c "! ar p '$deb' control.tar.xz | xz -dc | tar -t | grep -qE 'preinst|postinst|prerm|postrm'"
# (directories are stored with a trailing "/", as dpkg-deb writes them)
mapfile -t entries < <(data | tar -t | sed 's|^\./|/|' | sed '/^\/*$/d')
files=() dirs=()
for e in "${entries[@]}"; do
	case $e in
	*/) dirs+=("${e%/}") ;;
	*) files+=("$e") ;;
	esac
done
echo "# ${#files[@]} files and links, ${#dirs[@]} directories"
new_dirs=()
for d in "${dirs[@]}"; do [ -d "$d" ] || new_dirs+=("$d"); done

phase "install"
if command -v dpkg >/dev/null && [ -d /var/lib/dpkg ]; then
	check "dpkg -i" dpkg -i --force-depends "$deb"
else
	check "unpack over / (dom0 has no dpkg)" bash -c "$(declare -f data); deb='$deb'; data | tar -x -C /"
fi
for f in /usr/sbin/xvbd /usr/libexec/xvbd/xvbd-block; do
	check "$f: an executable file" test -f $f -a -x $f
done
expect_eq "/etc/xen/scripts/xvbd-block: a link to the program" \
	/usr/libexec/xvbd/xvbd-block "$(readlink /etc/xen/scripts/xvbd-block)"
expect_eq "/etc/xen/scripts/xvbd-block-direct: a link to xvbd-block" \
	xvbd-block "$(readlink /etc/xen/scripts/xvbd-block-direct)"
for f in /usr/share/man/man1/xvbd.1.gz /usr/share/bash-completion/completions/xvbd \
	/usr/share/zsh/vendor-completions/_xvbd; do
	check "$f installed" test -s $f
done
# dom0 has no ldd: the dynamic loader lists what it would load.
ld=$(ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-*.so.* 2>/dev/null | head -n1)
for f in /usr/sbin/xvbd /usr/libexec/xvbd/xvbd-block; do
	libs=$("$ld" --list "$f" 2>&1)
	echo "$libs" | sed 's/^/#   /'
	check "$f: every library resolves in dom0 ($ld --list)" \
		bash -c "[ -n '$ld' ] && ! grep -q 'not found' <<<'$libs' && grep -q libc.so <<<'$libs'"
done

phase "run"
out=$(/usr/sbin/xvbd list 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
expect_eq "the packaged xvbd list: exit 0" 0 "$rc"
# xl's own view of the domains: xvbd list names each one that has disks
# (dom0 has none here, so no line is required, but no error either).
check "no error line" bash -c "! grep -q '^xvbd:' <<<'$out'"
expect_eq "xvbd --version" "xvbd 0.1.0" "$(/usr/sbin/xvbd --version)"
check "xvbd-block -direct answers as the hotplug program (refuses no args)" \
	bash -c "! /etc/xen/scripts/xvbd-block-direct >/dev/null 2>&1"

phase "remove"
if command -v dpkg >/dev/null && [ -d /var/lib/dpkg ]; then
	check "dpkg -r" dpkg -r xvbd
else
	for f in "${files[@]}"; do rm -f "$f"; done
	for ((i = ${#new_dirs[@]} - 1; i >= 0; i--)); do rmdir "${new_dirs[i]}" 2>/dev/null; done
fi
left=()
for f in "${files[@]}"; do [ -e "$f" ] || [ -L "$f" ] && left+=("$f"); done
expect_eq "none of the package's files left" "" "${left[*]}"
left=()
for d in "${new_dirs[@]}"; do [ -d "$d" ] && left+=("$d"); done
expect_eq "no directory it created left" "" "${left[*]}"
finish
