# xvbd pv: which disk path a guest uses, and PV drivers on/off per guest.
# status of a PV guest whose disk connected (pv, with both xenbus states
# as xenstore has them) and of one whose init loads no blkfront (never
# pv: not-connected, with the time waited, checked against libxl's
# start_time).  HVM configs (the lab cannot run HVM guests): off and on
# checked with real libxl (`xl -N create` prints the domain configuration
# xl would create) and by diffing the files: only the switch changes,
# comments and layout stay; --linux-unplug adds exactly
# xen_emul_unplug=never to the kernel command line.  Bad input: one line,
# exit != 0, the file untouched (checksum), no file left beside it.
. /lab/lib/testlib.sh
G1=t80a G2=t80b
dir=/scratch/t80
rm -rf $dir
mkdir -p $dir
truncate -s 16M $dir/a.img
truncate -s 16M $dir/b.img

phase "two PV guests: one with blkfront, one without"
lab-guest start $G1 --disk "format=raw,vdev=xvda,access=rw,target=$dir/a.img" \
	--run 'cat /sys/block/xvda/size' >/dev/null
lab-guest start $G2 --no-blkfront \
	--disk "format=raw,vdev=xvda,access=rw,target=$dir/b.img" \
	--run 'ls /sys/module | grep -c xen_blkfront' >/dev/null
expect_eq "$G1: guest sees xvda (32768 sectors)" 32768 "$(lab-guest wait $G1 --timeout 300)"
expect_eq "$G2: guest has no blkfront loaded" 0 "$(lab-guest wait $G2 --timeout 300)"
d1=$(xl domid $G1) d2=$(xl domid $G2)

# silent CMD...: CMD with its stdout dropped (check's own line stays)
silent() { "$@" >/dev/null; }
state_name() {
	case $1 in 1) echo Initialising ;; 2) echo InitWait ;; 3) echo Initialised ;;
	4) echo Connected ;; 5) echo Closing ;; 6) echo Closed ;; *) echo "?$1" ;; esac
}
# uptime DOMID: seconds since libxl's /vm/UUID/start_time, as dom0 sees it
uptime_of() {
	local vm start
	vm=$(xenstore-read "/local/domain/$1/vm")
	start=$(xenstore-read "$vm/start_time")
	echo $(( $(date +%s) - ${start%.*} ))
}

phase "status of a PV guest with a connected disk"
js=$(xvbd --json pv $G1)
echo "# $js"
check "$G1: --json parses" silent jq -e . <<<"$js"
expect_eq "$G1: type pv" pv "$(jq -r .type <<<"$js")"
expect_eq "$G1: no platform device setting for PV" null "$(jq -r .xen_platform_pci <<<"$js")"
expect_eq "$G1: one VBD, xvda" "xvda 51712" "$(jq -r '.vbds[] | "\(.vdev) \(.devid)"' <<<"$js")"
expect_eq "$G1: frontend state = xenstore's" "$(state_name "$(fstate $d1 51712)")" \
	"$(jq -r '.vbds[0].frontend_state' <<<"$js")"
expect_eq "$G1: backend state = xenstore's" "$(state_name "$(bstate $d1 51712)")" \
	"$(jq -r '.vbds[0].backend_state' <<<"$js")"
expect_eq "$G1: xvda is on the PV path" pv "$(jq -r '.vbds[0].path' <<<"$js")"
check "$G1: evidence names both sides Connected" \
	grep -q "frontend and backend Connected" <<<"$(jq -r '.vbds[0].evidence' <<<"$js")"
txt=$(xvbd pv $G1 status)
echo "$txt" | sed 's/^/# /'
check "$G1: text row: xvda pv" grep -Eq '^ +xvda +51712 +Connected +Connected +pv ' <<<"$txt"

phase "status of a PV guest whose blkfront never loaded"
js=$(xvbd --json pv $G2)
up=$(uptime_of $d2)
echo "# $js"
expect_eq "$G2: frontend Initialising in xenstore" 1 "$(fstate $d2 51712)"
expect_eq "$G2: frontend state = xenstore's" Initialising "$(jq -r '.vbds[0].frontend_state' <<<"$js")"
expect_eq "$G2: backend state = xenstore's" "$(state_name "$(bstate $d2 51712)")" \
	"$(jq -r '.vbds[0].backend_state' <<<"$js")"
expect_eq "$G2: xvda not connected (never pv)" not-connected "$(jq -r '.vbds[0].path' <<<"$js")"
xup=$(jq -r .uptime_s <<<"$js")
check "$G2: uptime $xup s within 5 s of libxl's start_time ($up s)" \
	test $(( xup - up )) -le 5 -a $(( up - xup )) -le 5
ev=$(jq -r '.vbds[0].evidence' <<<"$js")
check "$G2: evidence says not connected and how long it waited" \
	grep -q "not connected: waited up to $xup s" <<<"$ev"
check "$G2: text says not-connected with the seconds" \
	grep -Eq "xvda +51712 +InitWait +Initialising +not-connected +frontend Initialising, not connected: waited up to [0-9]+ s" \
	<<<"$(xvbd pv $G2)"

phase "HVM configs: off and on, checked with xl -N create"
# xl -N create CFG: the b_info.type.hvm.xen_platform_pci xl would hand to
# libxl ("False", "True", or null when left to libxl's default: on).
xl_platform() {
	xl -N create "$1" 2>/dev/null | jq -r '.b_info."type.hvm".xen_platform_pci'
}
xl_cmdline() {
	xl -N create "$1" 2>/dev/null | jq -r '.b_info.cmdline'
}
# changed A B: the lines diff -u removes (-) and adds (+), nothing else
changed() { diff -u "$1" "$2" | grep '^[-+][^-+]'; }
cat >$dir/win.cfg <<'EOF'
# Windows guest for the PV-driver A/B (xen_platform_pci = 1 here is a comment)
name = "t80win"
type = "hvm"    # HVM: platform device, emulated disks
memory = 1024
vcpus = 2
disk = [ 'format=raw, vdev=hda, access=rw, target=/scratch/t80/a.img',
         # the data disk
         'format=raw, vdev=hdb, access=rw, target=/scratch/t80/b.img', ]
serial = 'pty'; vnc = 0
device_model_args = [ "-no-shutdown" ]
EOF
cp $dir/win.cfg $dir/win.orig
expect_eq "xl -N create: the default (no setting)" null "$(xl_platform $dir/win.cfg)"
check "status: the file asks for PV if the guest has PV drivers" \
	test "$(xvbd --json pv $dir/win.cfg | jq -r '"\(.type) \(.xen_platform_pci) \(.disk_path)"')" = "hvm true pv-if-drivers"
dry=$(xvbd -N pv $dir/win.cfg off)
echo "$dry" | sed 's/^/# /'
check "-N off: prints the diff" grep -qx '+xen_platform_pci = 0' <<<"$dry"
check "-N off: the file untouched" cmp -s $dir/win.cfg $dir/win.orig
check "-N off: no backup" test ! -e $dir/win.cfg.xvbd-bak
check "off" silent xvbd -q pv $dir/win.cfg off
expect_eq "off: xl -N create says False" False "$(xl_platform $dir/win.cfg)"
expect_eq "off: the only change is the appended line" "+xen_platform_pci = 0" \
	"$(changed $dir/win.orig $dir/win.cfg)"
check "off: backup holds the old bytes" cmp -s $dir/win.cfg.xvbd-bak $dir/win.orig
expect_eq "-N off showed the edit off made" "$(grep '^[-+][^-+]' <<<"$dry")" \
	"$(changed $dir/win.orig $dir/win.cfg)"
expect_eq "status after off" "false emulated" \
	"$(xvbd --json pv $dir/win.cfg | jq -r '"\(.xen_platform_pci) \(.disk_path)"')"
expect_eq "off again: nothing to change" "false false" \
	"$(xvbd --json pv $dir/win.cfg off | jq -r '"\(.changed) \(.written)"')"
check "on" silent xvbd -q pv $dir/win.cfg on
expect_eq "on: xl -N create says True" True "$(xl_platform $dir/win.cfg)"
expect_eq "on: still only that line differs" "+xen_platform_pci = 1" \
	"$(changed $dir/win.orig $dir/win.cfg)"

# The setting in the middle, with a comment, in a string and a comment
# elsewhere: off and on give the original bytes back.
cat >$dir/mid.cfg <<'EOF'
name = "t80mid"
builder = 'hvm'
# xen_platform_pci = 0 would switch PV drivers off
xen_platform_pci=1   # PV drivers on
memory = 512; vcpus = 1
extra = "xen_platform_pci = 0 is not here"
disk = [ 'vdev=hda, target=/scratch/t80/a.img' ]
EOF
cp $dir/mid.cfg $dir/mid.orig
check "mid: off (a path with ..)" silent xvbd -q pv $dir/../t80/mid.cfg off
expect_eq "mid: xl -N create says False" False "$(xl_platform $dir/mid.cfg)"
expect_eq "mid: one line changed, its comment kept" "-xen_platform_pci=1   # PV drivers on
+xen_platform_pci=0   # PV drivers on" "$(changed $dir/mid.orig $dir/mid.cfg)"
check "mid: on" silent xvbd -q pv $dir/mid.cfg on
expect_eq "mid: xl -N create says True" True "$(xl_platform $dir/mid.cfg)"
check "mid: off then on gives the original bytes" cmp $dir/mid.orig $dir/mid.cfg

# A Linux HVM guest with direct kernel boot: --linux-unplug.
cat >$dir/lin.cfg <<'EOF'
name = "t80lin"
type = "hvm"
kernel = "/lab/images/vmlinuz"
extra = "console=ttyS0 root=/dev/xvda1"   # kernel command line
memory = 512
disk = [ 'vdev=xvda, target=/scratch/t80/a.img' ]
EOF
cp $dir/lin.cfg $dir/lin.orig
before=$(xl_cmdline $dir/lin.cfg)
check "lin: off --linux-unplug" silent xvbd -q pv $dir/lin.cfg off --linux-unplug
expect_eq "lin: xl -N create says False" False "$(xl_platform $dir/lin.cfg)"
expect_eq "lin: the command line gained exactly xen_emul_unplug=never" \
	"$before xen_emul_unplug=never" "$(xl_cmdline $dir/lin.cfg)"
expect_eq "lin: two lines changed" "-extra = \"console=ttyS0 root=/dev/xvda1\"   # kernel command line
+extra = \"console=ttyS0 root=/dev/xvda1 xen_emul_unplug=never\"   # kernel command line
+xen_platform_pci = 0" "$(changed $dir/lin.orig $dir/lin.cfg)"
check "lin: on --linux-unplug" silent xvbd -q pv $dir/lin.cfg on --linux-unplug
expect_eq "lin: xl -N create says True" True "$(xl_platform $dir/lin.cfg)"
expect_eq "lin: command line as before" "$before" "$(xl_cmdline $dir/lin.cfg)"
expect_eq "lin: only the switch's line stays different" "+xen_platform_pci = 1" \
	"$(changed $dir/lin.orig $dir/lin.cfg)"

phase "a running domain: the file named with --config"
lab-guest config $G1 --disk "format=raw,vdev=xvda,access=rw,target=$dir/a.img" >$dir/g1.cfg
expect_eq "$G1 on --config: a PV guest, nothing to change" "null false" \
	"$(xvbd --json pv $G1 on --config $dir/g1.cfg | jq -r '"\(.xen_platform_pci) \(.changed)"')"

phase "bad input: one line, exit != 0, the file untouched"
sum() { md5sum <"$1" | cut -d' ' -f1; }
# pv_bad WHAT RC TEXT FILE XVBD_ARGS...: exit RC, one stderr line
# "xvbd: pv: ...TEXT..." (a usage error, RC 2, then where its help is),
# FILE's bytes as before (or FILE still missing), no new file in its
# directory (backup, temporary).
pv_bad() {
	local what=$1 want_rc=$2 text=$3 file=$4 err rc b0 b1 l0 l1
	shift 4
	b0=$( [ -e "$file" ] && sum "$file") l0=$(ls -A "$(dirname "$file")")
	err=$(xvbd -q "$@" 2>&1 >/dev/null)
	rc=$?
	b1=$( [ -e "$file" ] && sum "$file") l1=$(ls -A "$(dirname "$file")")
	echo "# $what: rc=$rc: ${err%%$'\n'*}"
	if [ "$rc" = "$want_rc" ] && { [ "$rc" = 2 ] || [[ $err != *$'\n'* ]]; } &&
		[[ ${err%%$'\n'*} == "xvbd: pv: "*"$text"* ]] && [ "$b0" = "$b1" ] &&
		[ "$l0" = "$l1" ]; then
		ok "bad input: $what"
	else
		fail "bad input: $what (want rc=$want_rc and one line with '$text'; file $b0 -> $b1)"
		diff <(echo "$l0") <(echo "$l1") | sed 's/^/#   /'
	fi
}
bad=$dir/bad
mkdir -p $bad
pv_bad "missing file" 1 "No such file" $bad/missing.cfg pv $bad/missing.cfg off
printf 'name = "x"\ntype = "hvm"\nmemory = 256 +\n' >$bad/python.cfg
pv_bad "unparsable file" 1 "config parsing error" $bad/python.cfg pv $bad/python.cfg off
printf 'name = "x"\r\ntype = "hvm"\r\n' >$bad/crlf.cfg
pv_bad "CRLF file (libxlutil refuses it)" 1 "lexical error" $bad/crlf.cfg pv $bad/crlf.cfg off
printf 'name = "x"\ntype = "hvm"\nxen_platform_pci = 1\nxen_platform_pci = 1\n' >$bad/twice.cfg
pv_bad "the setting twice" 1 "set 2 times (lines 3, 4)" $bad/twice.cfg pv $bad/twice.cfg off
printf 'name = "x"\ntype = "hvm"\n' >$bad/ro.cfg
chmod 0444 $bad/ro.cfg
pv_bad "read-only file" 1 "read-only (mode 0444)" $bad/ro.cfg pv $bad/ro.cfg off
chmod 0644 $bad/ro.cfg
# the hook runs between xvbd's read and its write, like another editor
printf 'name = "x"\ntype = "hvm"\n' >$bad/race.cfg
printf '#!/bin/sh\necho "# edited meanwhile" >>"$1"\n' >$bad/hook.sh
chmod +x $bad/hook.sh
b0=$(sum $bad/race.cfg)
err=$(XVBD_TEST_PV_HOOK=$bad/hook.sh xvbd -q pv $bad/race.cfg off 2>&1 >/dev/null)
rc=$?
echo "# changed during the edit: rc=$rc: $err"
expect_eq "changed during the edit: exit 1, one line" "1 xvbd: pv: $bad/race.cfg: it changed while xvbd was editing it: nothing written, run the command again" "$rc $err"
expect_eq "changed during the edit: the other writer's bytes stay" \
	"$(printf 'name = "x"\ntype = "hvm"\n# edited meanwhile\n' | md5sum | cut -d' ' -f1)" "$(sum $bad/race.cfg)"
expect_eq "changed during the edit: no backup, no temporary" "crlf.cfg hook.sh python.cfg race.cfg ro.cfg twice.cfg" \
	"$(ls -A $bad | tr '\n' ' ' | sed 's/ $//')"
pv_bad "a domain that does not exist" 1 'domain: "t80nosuch": no such domain' $bad/race.cfg pv t80nosuch
pv_bad "on/off of a domain that does not exist" 1 'no such domain' $bad/race.cfg \
	pv t80nosuch off --config $bad/race.cfg
pv_bad "off on a PV config" 1 "a PV guest has no emulated disks: PV is its only disk path" \
	$dir/g1.cfg pv $dir/g1.cfg off
printf 'name = "pvh"\ntype = "pvh"\nkernel = "/lab/images/vmlinuz"\n' >$bad/pvh.cfg
pv_bad "off on a PVH config" 1 "a PVH guest has no emulated disks" $bad/pvh.cfg pv $bad/pvh.cfg off
pv_bad "a domain's file that is another guest's" 1 'its name= is "t80lin"' $dir/lin.cfg \
	pv $G1 off --config $dir/lin.cfg
pv_bad "--linux-unplug without direct kernel boot" 1 "needs direct kernel boot" \
	$dir/win.cfg pv $dir/win.cfg off --linux-unplug
pv_bad "off of a running PV guest" 1 "PV is its only disk path" $dir/g1.cfg \
	pv $G1 off --config $dir/g1.cfg
pv_bad "on/off of a domain without --config" 2 "give the one it is created from with --config" \
	$dir/g1.cfg pv $G1 off

lab-guest stop $G1
lab-guest stop $G2
finish
