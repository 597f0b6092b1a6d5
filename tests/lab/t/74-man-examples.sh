# lab-timeout: 1800
# The EXAMPLES of the manual pages, run for real.  The pages
# are the tree's (tests/lab/lib.sh copies man/*.1 to /lab/man at every
# run); each example line is taken from the page as it is, its guest
# names, image paths and servers replaced through the MAP below (nothing
# else), run in dom0 and checked against what xvbd does not control:
# xenstore, losetup, sysfs, the files, xl -N create, the guest's own view.
# An example that cannot run in the lab is in NOT_RUN with the reason; an
# example that is in neither table fails the test, so a new example in a
# page cannot go untested.  Runs in page order (LC_ALL=C), the examples
# in DEFER (they need every guest gone) at the end.
. /lab/lib/testlib.sh
G=t74 S=t74s
dir=/scratch/t74
tmp=/tmp/t74
nfs_dir=/srv/nfs/export/t74
smb_dir=/srv/smb/share/t74
store=/var/lib/xvbd/ab
BE=/local/domain/0/backend/vbd

# ---- the examples: run (with its check) or not, and why ----

# The page's names -> the test's own.  Applied in this order, each part of
# the example replaced at most once (a replaced part is not looked at
# again): longer names first.
MAP=(
	# Shorter runs: the example's form is what is checked, not its length.
	"--duration 60 --warmup 5=--duration 4 --warmup 1"
	"-d 5 -n 12=-d 0.2 -n 12"
	"-d 15 --prometheus=-d 2 --prometheus"
	"/etc/xen/guest1.cfg=@CFG@"
	"guest1.cfg=@CFG@"
	"/dev/vg0/guest1-data=/dev/vdb1"
	"guest1.jsonl=$tmp/guest1.jsonl"
	"guest1=$G"
	"/etc/xen/win10.cfg=$dir/win10.cfg"
	"/etc/xen/linux-hvm.cfg=$dir/linux-hvm.cfg"
	"win10=$G"
	"bench1=$G"
	"bench2=$G"
	"/srv/img/=$dir/"
	"/srv/=$dir/"
	"nfs://nas/export/vm/=nfs://127.0.0.1$nfs_dir/"
	"smb://nas/vm/=smb://127.0.0.1/share/t74/"
	"/root/nas.cred=/run/lab-share/smb.cred"
	" file phy=@LABELS@"
	"ring8-20240501T120000-3f2a=@RING8ID@"
	"runs.csv=$tmp/runs.csv"
	# The set-up's runs are idle: read_iops is 0 in every run, and ab
	# plot refuses a metric with no data (exit 2); the example's form is
	# run with dom0's CPU, which every run has.
	"rings.svg --metric read_iops=$tmp/rings.svg --metric dom0_cpu_pct"
	"rings.svg=$tmp/rings.svg"
	"ring.svg=$tmp/ring.svg"
)
declare -A NOT_RUN=(
	["xvbd ab record ring4 --domain bench1 --vdev xvdb --run 'ssh bench1 fio /root/job.fio'"]="its workload logs into the guest with ssh: lab guests have no network (no vif)"
	["xvbd ab record ring4 --domain bench1 --vdev xvdb --run 'ssh bench1 fio --output-format=json+ /root/job.fio'"]="as above (ssh); tests/lab/t/92-ab-fio.sh runs fio's JSON+ through the trigger disk instead and checks the record against it"
	["xvbd ab record ring4 --domain bench2 --until-shutdown --interval 0.5"]="needs a guest that shuts itself down during the record: tests/lab/t/75-ab-record.sh records one (--until-shutdown, checked against the guest's own counters)"
	["xvbd advise"]="advise's findings need a guest under a known load to be checked against anything: tests/lab/t/86-stats-cost.sh runs it on one (and on an idle guest)"
	["xvbd advise guest1 xvda -d 30 --json"]="as xvbd advise: tests/lab/t/86-stats-cost.sh checks its JSON against man xvbd-advise"
	["# before the update (or from the last good build's store)"]="a CI job's script: its workload logs into the guest with ssh (lab guests have no network); tests/lab/t/87-ab-gate.sh runs ab compare --fail-if-worse on lab records and checks its exit codes"
	["# the experiment's plan, kept in the repository beside the job"]="a CI job's script: its workload logs into the guest with ssh (lab guests have no network); tests/lab/t/87-ab-gate.sh runs ab run --fail-if-worse on a lab guest and checks its exit codes, t/95 an experiment from a plan"
	["xvbd pv win10 on --config /etc/xen/win10.cfg --reboot"]="reboots an HVM guest: the lab has no hardware virtualisation, so no HVM guests (xvbd-pv's file edits are run: the examples on /etc/xen/win10.cfg)"
)
# Examples run after the others, when no guest of the test is left.
declare -A DEFER=(
	["xvbd defaults --reload max_ring_page_order=2"]=1
)
# Examples that run until interrupted: SIGINT after this many seconds.
declare -A STOP_AFTER=(
	["xvbd stats"]=6
	["xvbd stats -d 15 --prometheus /var/lib/node_exporter/xvbd.prom"]=6
)
# The check of each example that runs (a function; $EX_OUT is its output).
declare -A CHECK=(
	["xvbd ab record base --domain bench1 --duration 60 --warmup 5"]=c_ab_record
	["xvbd ab list"]=c_ab_list
	["xvbd ab compare ring1 ring8"]=c_ab_compare
	["xvbd ab compare ring1 ring8 --metric read_iops --confidence 99"]=c_ab_compare99
	["xvbd ab compare --test mwu file phy --json"]=c_ab_compare_json
	["xvbd ab show ring8-20240501T120000-3f2a"]=c_ab_show
	["xvbd ab export --csv > runs.csv"]=c_ab_export
	["xvbd ab plot ring1 ring8 -o ring.svg"]=c_ab_plot
	["xvbd ab compare ring1 ring2 ring4 ring8 --metric read_iops,read_mb_per_s"]=c_ab_compare_levels
	["xvbd ab plot ring1 ring2 ring4 ring8 -o rings.svg --metric read_iops"]=c_ab_plot_levels
	["xvbd -N ab rm ring1"]=c_ab_rm_dry
	["xvbd attach guest1 --file /srv/img/data.raw --size 4G"]=c_attach_file
	["xvbd attach guest1 --phy /dev/vg0/guest1-data --vdev xvdc"]=c_attach_phy
	["xvbd attach guest1 --share nfs://nas/export/vm/d.raw --size 8G"]=c_attach_nfs
	["xvbd attach guest1 --share smb://nas/vm/d.raw --credentials /root/nas.cred"]=c_attach_smb
	["xvbd attach guest1 --spec vdev=auto,target=/srv/a.raw --spec vdev=auto,target=/srv/b.raw"]=c_attach_spec
	["xvbd -N attach guest1 --file /srv/img/new.raw --size 1G"]=c_attach_dry
	["xvbd defaults"]=c_defaults
	["xvbd defaults --reload max_ring_page_order=2"]=c_defaults_reload
	["xvbd -N detach guest1 xvdc"]=c_detach_dry
	["xvbd detach guest1 xvdc"]=c_detach
	["xvbd list"]=c_list
	["xvbd --json list guest1"]=c_list_json
	["xvbd pv win10"]=c_pv
	["xvbd --json pv win10 | jq '.vbds[] | {vdev, path}'"]=c_pv_jq
	["xvbd pv /etc/xen/win10.cfg"]=c_pv_file
	["xvbd -N pv /etc/xen/win10.cfg off"]=c_pv_dry_off
	["xvbd pv /etc/xen/win10.cfg off"]=c_pv_off
	["xvbd pv /etc/xen/linux-hvm.cfg off --linux-unplug"]=c_pv_unplug
	["xvbd show guest1 xvda"]=c_show
	["xvbd start /etc/xen/guest1.cfg --vbd xvda:ring-order=2,queues=1"]=c_start_ring
	["xvbd start guest1.cfg --vbd xvda:indirect-segments=64 --guest-limits"]=c_start_limits
	["xvbd stats"]=c_stats
	["xvbd stats guest1 -d 5 -n 12 --json > guest1.jsonl"]=c_stats_json
	["xvbd stats guest1 --latency -d 2 -n 5"]=c_stats_lat
	["xvbd stats -d 15 --prometheus /var/lib/node_exporter/xvbd.prom"]=c_stats_prom
	["xvbd tune guest1 xvda discard=0"]=c_tune
	["xvbd -N tune guest1 xvda discard=0"]=c_tune_dry
	["xvbd help attach"]=c_help
)
# apply's examples (their JSON holds double quotes: keyed through a
# variable); the plan's xvda is the guest's own, so only xvdp is new.
ex_plan='{"guest": "guest1", "disks": [{"vdev": "xvda", "file": "/srv/img/xvda.img"}, {"vdev": "xvdp", "file": "/srv/img/apply.raw", "size": "1G", "ring_order": 2}]}'
CHECK["echo '$ex_plan' | xvbd apply -"]=c_apply
CHECK["echo '$ex_plan' | xvbd --json apply --check - | jq .changed"]=c_apply_check

# ---- helpers ----

# examples PAGE...: "PAGE<TAB>COMMAND" per example line of each page's
# EXAMPLES section (between .nf and .fi), roff escapes \- and \e undone,
# a line ending in a backslash joined with the next.
examples() {
	local p line on nf cont first script
	for p; do
		on=0 nf=0 cont=
		while IFS= read -r line; do
			case $line in
			.SH*) [[ $line =~ ^\.SH\ \"?EXAMPLES? ]] && on=1 || on=0; continue ;;
			.nf) nf=$on first=1 script=; continue ;;
			.fi)
				[ -n "$script" ] && printf '%s\t%s\n' "${p##*/}" "$script"
				nf=0 script=
				continue ;;
			.*) continue ;;
			esac
			[ $nf = 1 ] || continue
			# A block that opens with a comment is one shell script
			# (loops, case): one example, named by that comment.
			if [ -n "$first" ] && [[ $line == "#"* ]]; then
				script=$line
			fi
			first=
			[ -n "$script" ] && continue
			line=${line//\\-/-}
			line=${line//\\e/\\}
			line=${line#"${line%%[![:space:]]*}"}
			if [ "${line: -1}" = '\' ]; then
				line=${line%\\}
				cont+="${line%"${line##*[![:space:]]}"} "
				continue
			fi
			printf '%s\t%s\n' "${p##*/}" "$cont$line"
			cont=
		done <"$p"
	done
}

# mapped TEXT: TEXT with MAP applied (placeholders first, so a name put in
# is not replaced again); @...@ values filled in from the test's state.
mapped() {
	local t=$1 i from to
	for i in "${!MAP[@]}"; do
		from=${MAP[$i]%%=*}
		t=${t//"$from"/$'\x01'$i$'\x01'}
	done
	for i in "${!MAP[@]}"; do
		to=${MAP[$i]#*=}
		t=${t//$'\x01'$i$'\x01'/$to}
	done
	t=${t//@CFG@/$cfg}
	t=${t//@LABELS@/ ring1 ring8}
	t=${t//@RING8ID@/$(ab_ids ring8 | head -n1)}
	echo "$t"
}

# run_example TEXT: the mapped example through bash -c (pipes and
# redirections as a shell runs them), its status, output and check.
run_example() {
	local text=$1 cmd rc
	cmd=$(mapped "$text")
	phase "example: $text"
	echo "#   run: $cmd"
	if [ -n "${STOP_AFTER[$text]:-}" ]; then
		EX_OUT=$(cd $tmp && timeout --preserve-status -s INT "${STOP_AFTER[$text]}" \
			bash -c "$cmd" 2>&1)
	else
		EX_OUT=$(cd $tmp && timeout 400 bash -c "$cmd" 2>&1)
	fi
	rc=$?
	head -n 25 <<<"$EX_OUT" | sed 's/^/#   | /'
	expect_eq "example exits 0: $text" 0 "$rc"
	"${CHECK[$text]}"
}

domid_of() { xl domid "$1" 2>/dev/null; }
# be_devs DOMID: the backend devids of DOMID's VBDs, sorted, one line
be_devs() { xs_list $BE/$1 | sort -n | tr '\n' ' '; }
bekey() { xenstore-read "$BE/$domid/$1/$2" 2>/dev/null; }
ab_ids() { local f; for f in "$store/$1"-*.json; do [ -e "$f" ] && basename "$f" .json; done; }
ab_count() { ab_ids "$1" | grep -c .; }
rd_req_sysfs() { cat "/sys/bus/xen-backend/devices/vbd-$1-$2/statistics/rd_req"; }
xl_platform() { xl -N create "$1" 2>/dev/null | jq -r '.b_info."type.hvm".xen_platform_pci'; }
xl_cmdline() { xl -N create "$1" 2>/dev/null | jq -r '.b_info.cmdline'; }
# attached WHAT DEVID: the VBD is in xenstore with both sides Connected
attached() { expect_eq "$1: xenstore: $2 Connected on both sides" "$2=4/4" "$(vbd_states $domid $2)"; }

# ---- the checks ----

c_ab_record() {
	expect_eq "record base: one run file in $store" 1 "$(ab_count base)"
	local f=$store/$(ab_ids base).json
	expect_eq "record base: the run file names the guest" "$G" "$(jq -r .domain "$f" 2>/dev/null)"
}
c_ab_list() {
	local id miss=
	for id in $(ab_ids base) $(ab_ids ring1) $(ab_ids ring8); do
		grep -qF "$id" <<<"$EX_OUT" || miss+=" $id"
	done
	expect_eq "ab list names every run file in $store" "" "$miss"
}
store_same() { expect_eq "$1: the store unchanged" "$store_before" "$(ls $store)"; }
c_ab_compare() {
	check "compare: A and B with as many runs as run files" \
		grep -Eq "^compared: +A ring1 \($(ab_count ring1) runs\), B ring8 \($(ab_count ring8) runs\)" <<<"$EX_OUT"
	store_same compare
}
c_ab_compare99() {
	check "compare --metric read_iops: the metric's row" grep -q 'read_iops' <<<"$EX_OUT"
	check "compare --confidence 99: says 99" grep -q '99' <<<"$EX_OUT"
	store_same "compare --confidence 99"
}
c_ab_compare_json() {
	expect_eq "compare --json: runs of each label = run files" \
		"ring1 $(ab_count ring1) ring8 $(ab_count ring8) mwu" \
		"$(jq -r '"\(.a) \(.runs_a) \(.b) \(.runs_b) \(.test)"' <<<"$EX_OUT")"
}
c_ab_show() {
	local id
	id=$(ab_ids ring8 | head -n1)
	check "ab show: the run's id" grep -qF "$id" <<<"$EX_OUT"
	check "ab show: the run's guest" grep -qw "$G" <<<"$EX_OUT"
}
c_ab_export() {
	local n
	n=$(ls $store/*.json | grep -c .)
	expect_eq "export --csv: a header and one row per run file" $((n + 1)) \
		"$(grep -c . $tmp/runs.csv)"
}
c_ab_plot() { check "plot: an SVG file" grep -q '<svg' $tmp/ring.svg; }
c_ab_compare_levels() {
	check "compare of 4 labels: ring1 the baseline with its run files" \
		grep -Eq "^compared: +ring1 \($(ab_count ring1) runs\) against" <<<"$EX_OUT"
	check "compare of 4 labels: the other three with their run files" \
		grep -Eq "against ring2 \($(ab_count ring2)\), ring4 \($(ab_count ring4)\), ring8 \($(ab_count ring8)\)" <<<"$EX_OUT"
	store_same "compare of 4 labels"
}
c_ab_plot_levels() {	# the set-up's runs are idle: dom0's CPU (MAP)
	check "plot of 4 labels: an SVG file" grep -q '<svg' $tmp/rings.svg
}
c_ab_rm_dry() {
	local id miss=
	for id in $(ab_ids ring1); do grep -qF "$id" <<<"$EX_OUT" || miss+=" $id"; done
	expect_eq "-N ab rm: names each ring1 run" "" "$miss"
	store_same "-N ab rm"
}

# apply: xvdp (51952) attached with its offer; then check mode says
# "already so" and nothing changed; xvdp is detached again so that the
# attach examples after it see the guest as before.
c_apply() {
	attached "apply" 51952
	expect_eq "apply: blkback's max-ring-page-order is the plan's" 2 "$(bekey 51952 max-ring-page-order)"
	expect_eq "apply: image created, 1 GiB" 1073741824 "$(stat -c %s $dir/apply.raw 2>&1)"
	apply_state=$(xs_tree $BE/$domid; loop_devices)
}
c_apply_check() {
	expect_eq "apply --check: changed false" false "$EX_OUT"
	expect_eq "apply --check: xenstore and loop devices as after the apply" \
		"$apply_state" "$(xs_tree $BE/$domid; loop_devices)"
	xvbd -q detach $G xvdp >/dev/null || fail "apply: clean up: detach xvdp"
	rm -f $dir/apply.raw
}
c_apply() {
	expect_eq "apply: xvdp's image created, 1 GiB" 1073741824 "$(stat -c %s $dir/apply.raw 2>&1)"
	attached "apply: xvdp" 51952
	expect_eq "apply: blkback's max-ring-page-order is the plan's" 2 "$(bekey 51952 max-ring-page-order)"
}
c_apply_check() {
	expect_eq "apply --check of the applied plan: changed false" false "$EX_OUT"
	# The attach examples that follow pick vdevs and count disks: xvdp
	# goes, as it came.
	xvbd detach $G xvdp >/dev/null && wait_for 60 "" bstate $domid 51952 ||
		fail "apply: xvdp detached again"
}
c_attach_file() {
	expect_eq "attach --file: image created, 4 GiB" 4294967296 "$(stat -c %s $dir/data.raw 2>&1)"
	expect_eq "attach --file: one loop device on the image" 1 "$(losetup_of $dir/data.raw | grep -c .)"
	attached "attach --file" 51728
}
c_attach_phy() {
	attached "attach --phy" 51744
	expect_eq "attach --phy: blkback's params" /dev/vdb1 "$(bekey 51744 params)"
}
c_attach_nfs() {
	check "attach nfs://: share mounted" test -n "$(share_mount 127.0.0.1:$nfs_dir)"
	expect_eq "attach nfs://: image created on the server, 8 GiB" 8589934592 \
		"$(stat -c %s $nfs_dir/d.raw 2>&1)"
	attached "attach nfs://" 51760
}
c_attach_smb() {
	check "attach smb://: share mounted" test -n "$(share_mount //127.0.0.1/share)"
	attached "attach smb://" 51776
}
c_attach_spec() {
	attached "attach --spec a.raw" 51792
	attached "attach --spec b.raw" 51808
	expect_eq "attach --spec: a loop device on each image" "1 1" \
		"$(losetup_of $dir/a.raw | grep -c .) $(losetup_of $dir/b.raw | grep -c .)"
}
c_attach_dry() {
	check "-N attach: no image created" test ! -e $dir/new.raw
	expect_eq "-N attach: no VBD added" "$(echo 51712 51728 51744 51760 51776 51792 51808) " "$(be_devs $domid)"
}
# after the attach page: the guest sees each disk with its size
after_attach() {
	local gout
	gout=$(lab-guest wait $G --timeout 400)
	expect_eq "guest: its commands succeeded" 0 "$?"
	echo "$gout" | sed 's/^/# guest: /'
	expect_eq "guest's view: the disks and their sectors" \
		"xvdb 8388608 xvdc 1048576 xvdd 16777216 xvde 32768 xvdf 32768 xvdg 32768" \
		"$(echo $(grep '^size ' <<<"$gout" | cut -d' ' -f2-))"
}

c_defaults() {
	local v
	v=$(cat /sys/module/xen_blkback/parameters/max_ring_page_order)
	check "defaults: max_ring_page_order with sysfs's value ($v)" \
		grep -Eq "max_ring_page_order[^0-9]+$v([^0-9]|$)" <<<"$EX_OUT"
}
c_defaults_reload() {
	expect_eq "defaults --reload: sysfs max_ring_page_order" 2 \
		"$(cat /sys/module/xen_blkback/parameters/max_ring_page_order)"
	check "defaults --reload: xen_blkback loaded" test -d /sys/module/xen_blkback/parameters
}

c_detach_dry() { attached "-N detach xvdc: still there" 51744; }
c_detach() {
	expect_eq "detach xvdc: gone from blkback's directory" \
		"$(echo 51712 51728 51760 51776 51792 51808) " "$(be_devs $domid)"
	expect_eq "detach xvdc: gone from the guest's directory" "" \
		"$(xs_list /local/domain/$domid/device/vbd | grep -x 51744)"
}

c_list() {
	expect_eq "list: one row per VBD of $G in xenstore" \
		"$(be_devs $domid | wc -w)" "$(grep -cw "$G" <<<"$EX_OUT")"
}
c_list_json() {
	expect_eq "list --json: the devids xenstore has" "$(be_devs $domid)" \
		"$(jq -r '.[].devid' <<<"$EX_OUT" | sort -n | tr '\n' ' ')"
}

c_pv() {
	check "pv: xvda Connected on both sides, path pv" \
		grep -Eq 'xvda +51712 +Connected +Connected +pv ' <<<"$EX_OUT"
	expect_eq "pv: xenstore has xvda Connected" "51712=4/4" "$(vbd_states $domid 51712)"
}
c_pv_jq() {
	expect_eq "pv --json | jq: one object per frontend in xenstore" \
		"$(xs_list /local/domain/$domid/device/vbd | grep -c .)" \
		"$(jq -s length <<<"$EX_OUT")"
	expect_eq "pv --json | jq: xvda's path" pv \
		"$(jq -rs 'map(select(.vdev == "xvda"))[0].path' <<<"$EX_OUT")"
}
c_pv_file() {
	check "pv FILE: says the guest uses PV if it has drivers" grep -q 'pv-if-drivers' <<<"$EX_OUT"
	expect_eq "pv FILE: xl -N create: no platform setting" null "$(xl_platform $dir/win10.cfg)"
	check "pv FILE: the file untouched" cmp -s $dir/win10.cfg $dir/win10.orig
}
c_pv_dry_off() {
	check "-N pv off: prints the line it would add" grep -qx '+xen_platform_pci = 0' <<<"$EX_OUT"
	check "-N pv off: the file untouched" cmp -s $dir/win10.cfg $dir/win10.orig
}
c_pv_off() { expect_eq "pv off: xl -N create says False" False "$(xl_platform $dir/win10.cfg)"; }
c_pv_unplug() {
	expect_eq "pv off --linux-unplug: xl -N create: no platform device" False \
		"$(xl_platform $dir/linux-hvm.cfg)"
	expect_eq "pv off --linux-unplug: kernel command line" \
		"console=ttyS0 root=/dev/xvda1 xen_emul_unplug=never" "$(xl_cmdline $dir/linux-hvm.cfg)"
}

c_show() {
	check "show: blkback's directory" grep -qF "$BE/$domid/51712" <<<"$EX_OUT"
	check "show: the sectors xenstore has ($(bekey 51712 sectors))" \
		grep -qw "$(bekey 51712 sectors)" <<<"$EX_OUT"
}

# start_done WHAT: the started guest's id; its console output after its
# commands ran (the guest's /proc/cmdline) in SOUT
start_guest() {
	sd=$(domid_of $S)
	check "$1: guest $S running" test -n "$sd"
	SOUT=$(lab-guest wait $S --timeout 300)
}
c_start_ring() {
	start_guest "start --vbd ring-order=2,queues=1"
	expect_eq "start: blkback offers ring order 2, 1 queue (xenstore)" "2 1" \
		"$(xenstore-read $BE/$sd/51712/max-ring-page-order $BE/$sd/51712/multi-queue-max-queues | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "start: the guest took ring order 2 (its frontend)" 2 \
		"$(xenstore-read /local/domain/$sd/device/vbd/51712/ring-page-order)"
	lab-guest stop $S >/dev/null 2>&1
}
c_start_limits() {
	start_guest "start --vbd indirect-segments=64 --guest-limits"
	expect_eq "start: blkback offers 64 indirect segments (xenstore)" 64 \
		"$(xenstore-read $BE/$sd/51712/feature-max-indirect-segments)"
	echo "$SOUT" | sed 's/^/# guest: /'
	# (the console holds the first start's guest too: its last command line)
	check "--guest-limits: the guest's kernel command line has the limit" \
		grep -q 'xen_blkfront.max_indirect_segments=64' <<<"$(grep '^console=' <<<"$SOUT" | tail -n1)"
	lab-guest stop $S >/dev/null 2>&1
}

c_stats() {
	check "stats: a row of $G" grep -qw "$G" <<<"$EX_OUT"
	check "stats: a row of its xvda" grep -qw xvda <<<"$EX_OUT"
}
c_stats_lat() {	# the figures themselves: t/88, against /sys/block stat
	check "stats --latency: the latency columns" grep -q 'RD-P50(ms)' <<<"$EX_OUT"
	check "stats --latency: a row of $G's xvda" grep -Eq "$G +xvda" <<<"$EX_OUT"
	check "stats --latency: not unavailable" bash -c '! grep -qi unavailable <<<"$1"' _ "$EX_OUT"
}
c_stats_json() {
	local f=$tmp/guest1.jsonl
	expect_eq "stats -n 12: twelve samples" 12 "$(grep -c . $f)"
	check "stats --json: every line an object" jq -e -s 'all(type == "object")' $f
	local x s
	x=$(tail -n1 $f | jq -r '.vbds[] | select(.vdev == "xvda") | .rd_req')
	s=$(rd_req_sysfs $domid 51712)
	check "stats --json: xvda's rd_req ($x) <= sysfs now ($s)" test "$x" -le "$s"
}
c_stats_prom() {
	local f=/var/lib/node_exporter/xvbd.prom x s
	x=$(grep "^xvbd_vbd_read_requests_total{.*domain=\"$G\".*vdev=\"xvda\"" $f | awk '{print $2}')
	s=$(rd_req_sysfs $domid 51712)
	echo "# prometheus: xvda reads $x, sysfs $s"
	check "stats --prometheus: xvda's read requests ($x) = sysfs's ($s)" test "$x" = "$s"
}

c_tune() { expect_eq "tune discard=0: discard-enable in xenstore" 0 "$(bekey 51712 discard-enable)"; }
c_tune_dry() {
	check "-N tune: names the xenstore key it would write" \
		grep -qF "$BE/$domid/51712/discard-enable" <<<"$EX_OUT"
	expect_eq "-N tune: xenstore unchanged" "$tune_before" "$(bekey 51712 discard-enable)"
}
c_help() {
	check "help attach: its options" grep -q -- '--share' <<<"$EX_OUT"
}

# ---- set-up ----

phase "set-up: guest $G, NFS and Samba servers, images, A/B runs"
lab-guest stop $G >/dev/null 2>&1; lab-guest stop $S >/dev/null 2>&1
rm -rf $dir $tmp $nfs_dir $smb_dir /var/lib/node_exporter
rm -f $store/base-*.json $store/ring[1248]-*.json
mkdir -p $dir $tmp /var/lib/node_exporter
truncate -s 16M $dir/xvda.img $dir/s.img $dir/a.raw $dir/b.raw
script='for d in xvdb xvdc xvdd xvde xvdf xvdg; do
	i=0
	while [ ! -b /dev/$d ] && [ $i -lt 400 ]; do sleep 1; i=$((i + 1)); done
	echo "size $d $(cat /sys/block/$d/size)"
done'
lab-share start smb >/tmp/t74-smb.log 2>&1 &
smb_pid=$!
lab-share start nfs >/tmp/t74-nfs.log 2>&1 &
nfs_pid=$!
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=$dir/xvda.img" --run "$script"
domid=$(domid_of $G)
check "guest $G running" test -n "$domid"
# (lab-guest start returns before blkfront connects: a record taken before
# then has the disk Initialising, a confounder ab compare rightly names.)
check "guest $G: xvda Connected" wait_for 300 4 fstate "$domid" 51712
wait $nfs_pid && ok "nfs server up" || { fail "nfs server up"; sed 's/^/# /' /tmp/t74-nfs.log; }
wait $smb_pid && ok "smb server up" || { fail "smb server up"; sed 's/^/# /' /tmp/t74-smb.log; }
mkdir -p $nfs_dir $smb_dir
truncate -s 16M $smb_dir/d.raw
chmod 0777 $smb_dir
chmod 0666 $smb_dir/d.raw
cat >$dir/win10.cfg <<'EOF'
name = "win10"
type = "hvm"
memory = 2048
vcpus = 2
disk = [ 'format=raw, vdev=hda, access=rw, target=/scratch/t74/a.raw' ]
vnc = 0
EOF
cp $dir/win10.cfg $dir/win10.orig
cat >$dir/linux-hvm.cfg <<'EOF'
name = "linux-hvm"
type = "hvm"
kernel = "/lab/images/vmlinuz"
extra = "console=ttyS0 root=/dev/xvda1"
memory = 512
disk = [ 'vdev=xvda, target=/scratch/t74/a.raw' ]
EOF
cfg=$(lab-guest prepare $S --disk "format=raw,vdev=xvda,access=rw,target=$dir/s.img" \
	--extra "xen_blkfront.max_ring_page_order=4" --run 'cat /proc/cmdline')
# Runs for the ab examples that compare, show, export, plot and list:
# two of each label, short (the examples' own record runs 65 s).
for l in ring1 ring8 ring2 ring4 ring1 ring8 ring2 ring4; do
	xvbd -q ab record $l --domain $G --duration 2 --interval 0.5 >/dev/null ||
		fail "set-up: ab record $l"
done
expect_eq "set-up: two runs of each label" "2 2 2 2" \
	"$(ab_count ring1) $(ab_count ring2) $(ab_count ring4) $(ab_count ring8)"

# ---- run ----

mapfile -t pages < <(ls /lab/man/*.1 | LC_ALL=C sort)
mapfile -t lines < <(examples "${pages[@]}")
check "the pages have examples" test ${#lines[@]} -gt 10
deferred=() ran=0 listed=0 unknown=0
prev_page=
for l in "${lines[@]}"; do
	page=${l%%$'\t'*} text=${l#*$'\t'}
	[ "$prev_page" = xvbd-attach.1 ] && [ "$page" != xvbd-attach.1 ] && after_attach
	prev_page=$page
	if [ -n "${NOT_RUN[$text]:-}" ]; then
		echo "# $page: not run: $text: ${NOT_RUN[$text]}"
		listed=$((listed + 1))
	elif [ -z "${CHECK[$text]:-}" ]; then
		fail "$page: example neither run nor listed as not runnable: $text"
		unknown=$((unknown + 1))
	elif [ -n "${DEFER[$text]:-}" ]; then
		deferred+=("$text")
	else
		store_before=$(ls $store)
		tune_before=$(bekey 51712 discard-enable)
		run_example "$text"
		ran=$((ran + 1))
	fi
done

phase "clean up, then the examples that need every guest gone"
for v in xvdb xvdd xvde xvdf xvdg; do xvbd -q detach $G $v >/dev/null || fail "clean up: detach $v"; done
lab-guest stop $G >/dev/null 2>&1
lab-guest stop $S >/dev/null 2>&1
orig=$(cat /sys/module/xen_blkback/parameters/max_ring_page_order)
for text in "${deferred[@]}"; do
	run_example "$text"
	ran=$((ran + 1))
done
xvbd -q defaults --reload max_ring_page_order=$orig >/dev/null ||
	fail "clean up: max_ring_page_order back to $orig"
echo "# examples: ${#lines[@]} in the pages, $ran run, $listed listed as not runnable, $unknown neither"
rm -f $store/base-*.json $store/ring[1248]-*.json
rm -rf $dir $tmp $nfs_dir $smb_dir /var/lib/node_exporter
finish
