# tests/cli-sweep.sh - sourced by tests/cli.sh: `ab run` over k levels in
# hot mode (LABEL... --domain G --disk [LABEL=]SPEC --cache [LABEL=]MODE
# --vbd LABEL=VDEV:k=v, and --sweep KEY=V1,V2,...).  Every refusal is
# one line and exit 2 before xvbd opens xenstore (here there is none:
# anything that got that far would say "cannot open xenstore", exit 1,
# which is what an accepted command line must say: parsed, then
# connecting).  Uses case_, $xvbd, passed and failed from cli.sh.

sw_spec='format=raw,vdev=xvdb,access=ro,target=/srv/t.img'
sw_other='format=raw,vdev=xvdc,access=ro,target=/srv/t.img'
SW="ab run --domain g --duration 1"

# accepted: parsed, and the next step is to connect (exit 1 here)
for args in "a b c --disk $sw_spec" \
	"a b c --disk $sw_spec --disk c=${sw_spec%t.img}u.img --vbd c=xvdb:ring-order=1" \
	"a b --disk-a $sw_spec --disk-b $sw_spec --cache-b none" \
	"a b c --disk $sw_spec --cache none --cache b=host --vbd c=xvdb:queues=2" \
	"--disk $sw_spec --sweep ring-order=0,1,2" \
	"--disk $sw_spec --sweep ring_order=0,1 --cache none" \
	"--disk $sw_spec --sweep cache=host,none" \
	"a b c --disk $sw_spec --fail-if-worse 20" \
	"--disk $sw_spec --sweep queues=1,2 --fail-if-worse 7.5% --metric read_mb_per_s"; do
	case_ 1 "ab run: cannot open xenstore" $SW $args
done
case_ 2 'ab run: --fail-if-worse: "0": expected a percentage from 0.1 to 1000' \
	$SW a b --disk $sw_spec --fail-if-worse 0
case_ 2 'ab run: --fail-if-worse: "worse": expected a percentage' \
	$SW a b --disk $sw_spec --fail-if-worse worse

case_ 2 'ab run: label: "a" given twice: give each level its own label' \
	$SW a b a --disk $sw_spec
case_ 2 "ab run: with --domain: expected two labels or more" \
	$SW a --disk $sw_spec
case_ 2 "ab run: 17 labels: at most 16 levels" \
	$SW l{1..17} --disk $sw_spec
case_ 2 'ab run: --disk: no disk for level "c": give --disk c=SPEC' \
	$SW a b c --disk a=$sw_spec --disk b=$sw_spec
case_ 2 'ab run: --disk: level "a"'"'"'s disk given twice (--disk-a and --disk)' \
	$SW a b c --disk-a $sw_spec --disk a=$sw_spec --disk $sw_spec
case_ 2 "ab run: --disk: given twice for every level" \
	$SW a b c --disk $sw_spec --disk $sw_spec
case_ 2 "ab run: --disk: vdev xvdc, but the first level's is xvdb" \
	$SW a b c --disk $sw_spec --disk c=$sw_other
case_ 2 'ab run: --cache: "z": not one of the levels'"'"' labels' \
	$SW a b c --disk $sw_spec --cache z=none
case_ 2 'ab run: --cache: host or none, not "slow"' \
	$SW a b c --disk $sw_spec --cache c=slow
case_ 2 'ab run: --vbd: "xvdb:ring-order=1": name the level' \
	$SW a b c --disk $sw_spec --vbd xvdb:ring-order=1
case_ 2 "ab run: --vbd: xvdc: the disk under test is xvdb" \
	$SW a b c --disk $sw_spec --vbd c=xvdc:ring-order=1
case_ 2 "ab run: --disk: goes with --domain" \
	ab run a x.cfg b y.cfg --duration 1 --disk $sw_spec
case_ 2 "ab run: --sweep: goes with --domain" \
	ab run a x.cfg b y.cfg --duration 1 --sweep ring-order=0,1
case_ 2 "ab run: --sweep: it makes the levels and their labels" \
	$SW x --disk $sw_spec --sweep ring-order=0,1
case_ 2 'ab run: --sweep: "ring-order=0": one value' \
	$SW --disk $sw_spec --sweep ring-order=0
case_ 2 'ab run: --sweep: "bogus": not a setting a level can sweep' \
	$SW --disk $sw_spec --sweep bogus=0,1
case_ 2 'ab run: --sweep: "ring-order": expected KEY=V1,V2' \
	$SW --disk $sw_spec --sweep ring-order
case_ 2 'ab run: --sweep: "ring-order=0,,1": an empty value' \
	$SW --disk $sw_spec --sweep ring-order=0,,1
case_ 2 "ab run: --sweep: ring-order=9: expected a number 0..4" \
	$SW --disk $sw_spec --sweep ring-order=0,9
case_ 2 "ab run: --sweep: discard=on and discard=1 are the same setting" \
	$SW --disk $sw_spec --sweep discard=on,1
case_ 2 'ab run: --sweep: "a/b": not a value of queues' \
	$SW --disk $sw_spec --sweep queues=1,a/b
case_ 2 "ab run: --sweep: more than 16 values" \
	$SW --disk $sw_spec --sweep queues=$(seq -s, 1 17)
case_ 2 'ab run: --disk: no disk for level "ring-order-0"' \
	$SW --sweep ring-order=0,1
case_ 2 "ab run: --sweep: cache is also set by --cache: sweep it or set it, not both" \
	$SW --disk $sw_spec --sweep cache=host,none --cache none
case_ 2 "ab run: --sweep: ring-order is also set by --vbd: sweep it or set it" \
	$SW --disk $sw_spec --sweep ring-order=1,2 --vbd ring-order-1=xvdb:ring-order=3

# Fresh guests over k levels: LABEL CONFIG pairs, --vbd LABEL=.
FR="ab run --duration 1"
for args in "a a.cfg b b.cfg c c.cfg" \
	"a a.cfg b b.cfg c c.cfg --vbd c=xvda:ring-order=1 --vbd b=xvda:queues=2" \
	"a a.cfg b b.cfg --vbd-b xvda:ring-order=1" \
	"a a.cfg b b.cfg --vbd b=xvda:ring-order=1" \
	"a a.cfg b b.cfg c c.cfg --fail-if-worse 20"; do
	case_ 1 "ab run: cannot open xenstore" $FR $args
done
case_ 2 'ab run: label: "a" given twice: give each level its own label' \
	$FR a a.cfg b b.cfg a c.cfg
case_ 2 "ab run: expected LABEL CONFIG pairs, two or more" \
	$FR a a.cfg b b.cfg c
case_ 2 "ab run: expected LABEL CONFIG pairs, two or more" \
	$FR a a.cfg
case_ 2 "ab run: 17 levels: at most 16" \
	$FR $(for i in $(seq 17); do echo l$i l$i.cfg; done)
case_ 2 "ab run: --vbd-b: with more than two levels, name the level" \
	$FR a a.cfg b b.cfg c c.cfg --vbd-b xvda:ring-order=1
case_ 2 'ab run: --vbd: "xvda:ring-order=1": name the level' \
	$FR a a.cfg b b.cfg c c.cfg --vbd xvda:ring-order=1
case_ 2 'ab run: --vbd: "z=xvda:ring-order=1": name the level' \
	$FR a a.cfg b b.cfg c c.cfg --vbd z=xvda:ring-order=1
case_ 2 "ab run: --vbd: xvda given twice" \
	$FR a a.cfg b b.cfg c c.cfg --vbd c=xvda:ring-order=1 --vbd c=xvda:queues=1
# --plan FILE: the experiment from a JSON plan.  A bad plan is one line
# naming the plan's path (and the place in it), exit 2, before any
# connection; a good one is the command line it stands for.
sw_plans=$(mktemp -d)
chmod 0755 "$sw_plans"
sw_plan() { printf '%s\n' "$2" >"$sw_plans/$1.json"; }
sw_lv() { printf '{"label": "%s", "disk": "%s"%s}' "$1" "$sw_spec" "${2:-}"; }
sw_plan good '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b ', "cache": "none"'), $(sw_lv c ', "vbd": ["xvdb:ring-order=1"]')"'],
 "baseline": "b", "duration": 1, "runs": 2, "metric": "read_iops"}'
sw_plan sweep '{"domain": "g", "sweep": "ring_order=0,1,2", "baseline": "ring-order-1",
 "disk": "'"$sw_spec"'", "cache": "none", "duration": "2s", "until_confident": true, "max_runs": 4}'
sw_plan one '{"domain": "g", "levels": ['"$(sw_lv a)"'], "duration": 1}'
sw_plan empty '{"domain": "g", "levels": [], "duration": 1}'
sw_plan twice '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b), $(sw_lv a)"'], "duration": 1}'
sw_plan topkey '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "run_s": 3}'
sw_plan lvkey '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b), $(sw_lv c ', "cahce": "none"')"'], "duration": 1}'
sw_plan sweepval '{"domain": "g", "sweep": "ring-order=0,9", "disk": "'"$sw_spec"'", "duration": 1}'
sw_plan base '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "baseline": "z", "duration": 1}'
sw_plan sbase '{"domain": "g", "sweep": "queues=1,2", "baseline": "queues-3", "disk": "'"$sw_spec"'", "duration": 1}'
sw_plan type '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "runs": [3]}'
sw_plan ltype '{"domain": "g", "levels": [{"label": 7, "disk": "x"}, '"$(sw_lv b)"'], "duration": 1}'
sw_plan notjson '{"domain": "g", "levels": ['
sw_plan nodisk '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b"}], "duration": 1}'
sw_plan both '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "sweep": "queues=1,2", "duration": 1}'
sw_plan runs0 '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "runs": 0}'
sw_plan disk2 '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": "'"$sw_other"'"}], "duration": 1}'
sw_plan gate '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "fail_if_worse": 20, "metric": "read_mb_per_s"}'
sw_plan gatebad '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "fail_if_worse": 0}'
sw_plan gatetype '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "fail_if_worse": true}'
# A level's disk as apply's disk object (apply's reader, the disk layer's
# parser): the spec of what it describes, its cache and offers.
sw_obj() { printf '{"vdev": "xvdb", "file": "/srv/t.img", "access": "ro"%s}' "${1:-}"; }
sw_plan obj '{"domain": "g", "levels": [{"label": "a", "disk": '"$(sw_obj ', "cache": "host"')"'},
 {"label": "b", "disk": '"$(sw_obj ', "cache": "none", "ring_order": 1, "discard": false')"'},
 {"label": "c", "disk": {"vdev": "xvdb", "phy": "/dev/sdb"}}], "duration": 1}'
sw_plan objtop '{"domain": "g", "sweep": "queues=1,2", "disk": '"$(sw_obj ', "cache": "none"')"', "duration": 1}'
sw_plan objkey '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": '"$(sw_obj ', "cahce": "none"')"'}], "duration": 1}'
sw_plan objsize '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": '"$(sw_obj ', "size": "1G"')"'}], "duration": 1}'
sw_plan objshare '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": {"vdev": "xvdb", "share": "nfs://s/e/t.img"}}], "duration": 1}'
sw_plan objvdev '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": {"file": "/srv/t.img"}}], "duration": 1}'
sw_plan objauto '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": {"vdev": "auto", "file": "/srv/t.img"}}], "duration": 1}'
sw_plan objring '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": '"$(sw_obj ', "ring_order": 9')"'}], "duration": 1}'
sw_plan objsrc '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": {"vdev": "xvdb", "file": "/srv/t.img", "phy": "/dev/sdb"}}], "duration": 1}'
sw_plan objtype '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": ["x"]}], "duration": 1}'
sw_plan objcache '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "cache": "host", "disk": '"$(sw_obj ', "cache": "none"')"'}], "duration": 1}'
sw_plan objvbd '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "vbd": "xvdb:queues=2", "disk": '"$(sw_obj ', "queues": 1')"'}], "duration": 1}'
sw_plan objtopoffer '{"domain": "g", "levels": [{"label": "a"}, {"label": "b"}], "disk": '"$(sw_obj ', "queues": 2')"', "duration": 1}'
sw_plan objdisk2 '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "disk": {"vdev": "xvdc", "file": "/srv/t.img", "access": "ro"}}], "duration": 1}'
# Fresh guests: no "domain", each level its xl config (and --vbd offers).
sw_plan fresh '{"levels": [{"label": "a", "config": "/etc/xen/a.cfg"},
 {"label": "b", "config": "/etc/xen/b.cfg", "vbd": "xvda:ring-order=1"},
 {"label": "c", "config": "/etc/xen/c.cfg", "vbd": ["xvda:queues=2", "xvdb:ring-order=2"]}],
 "baseline": "b", "duration": 1, "runs": 2, "guest_limits": true, "fail_if_worse": 10}'
sw_plan fresh2 '{"levels": [{"label": "x", "config": "x.cfg"}, {"label": "y", "config": "y.cfg", "vbd": "xvda:queues=1"}],
 "run": "true", "until_confident": true, "max_runs": 6}'
sw_plan frdisk '{"levels": [{"label": "a", "config": "a.cfg", "disk": "'"$sw_spec"'"}, {"label": "b", "config": "b.cfg"}], "duration": 1}'
sw_plan frcfg '{"levels": [{"label": "a", "config": "a.cfg"}, {"label": "b"}], "duration": 1}'
sw_plan frhot '{"domain": "g", "levels": ['"$(sw_lv a)"', {"label": "b", "config": "b.cfg"}], "duration": 1}'
sw_plan frsweep '{"levels": [{"label": "a", "config": "a.cfg"}, {"label": "b", "config": "b.cfg"}], "sweep": "queues=1,2", "duration": 1}'
sw_plan frtop '{"levels": [{"label": "a", "config": "a.cfg"}, {"label": "b", "config": "b.cfg"}], "cache": "none", "duration": 1}'
sw_plan frtype '{"levels": [{"label": "a", "config": 7}, {"label": "b", "config": "b.cfg"}], "duration": 1}'
sw_plan frempty '{"levels": [{"label": "a", "config": ""}, {"label": "b", "config": "b.cfg"}], "duration": 1}'
sw_plan frvbd '{"levels": [{"label": "a", "config": "a.cfg"}, {"label": "b", "config": "b.cfg", "vbd": "ring-order=1"}], "duration": 1}'
sw_plan frvbd2 '{"levels": [{"label": "a", "config": "a.cfg"}, {"label": "b", "config": "b.cfg", "vbd": ["xvda:ring-order=1", "xvda:queues=2"]}], "duration": 1}'
sw_plan frlim '{"domain": "g", "levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1, "guest_limits": true}'
sw_plan nodom '{"levels": ['"$(sw_lv a), $(sw_lv b)"'], "duration": 1}'
P=$sw_plans
case_ 2 "ab run: $P/one.json: levels: one level: an experiment compares two levels or more" ab run --plan "$P/one.json"
case_ 2 "ab run: $P/empty.json: levels: empty" ab run --plan "$P/empty.json"
case_ 2 "ab run: $P/twice.json: levels[2].label: \"a\" given twice (also levels[0])" ab run --plan "$P/twice.json"
case_ 2 "ab run: $P/topkey.json: plan.run_s: unknown key" ab run --plan "$P/topkey.json"
case_ 2 "ab run: $P/lvkey.json: levels[2].cahce: unknown key" ab run --plan "$P/lvkey.json"
case_ 2 "ab run: $P/sweepval.json: --sweep: ring-order=9: expected a number 0..4" ab run --plan "$P/sweepval.json"
case_ 2 "ab run: $P/base.json: baseline: \"z\": not one of the levels' labels" ab run --plan "$P/base.json"
case_ 2 "ab run: $P/sbase.json: baseline: \"queues-3\": not one of the sweep's labels" ab run --plan "$P/sbase.json"
case_ 2 "ab run: $P/type.json: runs: a string, not null, an array or an object" ab run --plan "$P/type.json"
case_ 2 "ab run: $P/ltype.json: levels[0].label: a string, not a number" ab run --plan "$P/ltype.json"
case_ 2 "ab run: $P/notjson.json: plan: not valid JSON" ab run --plan "$P/notjson.json"
case_ 2 "ab run: $P/nodisk.json: levels[1].disk: missing" ab run --plan "$P/nodisk.json"
case_ 2 "ab run: $P/both.json: sweep: \"levels\" and \"sweep\" exclude each other" ab run --plan "$P/both.json"
case_ 2 "ab run: $P/runs0.json: --runs: \"0\": expected a count from 1 to 500" ab run --plan "$P/runs0.json"
case_ 2 "ab run: $P/disk2.json: --disk: vdev xvdc, but the first level's is xvdb" ab run --plan "$P/disk2.json"
case_ 2 "ab run: $P/nodom.json: domain: missing" ab run --plan "$P/nodom.json"
case_ 2 "ab run: $P/nothere.json: No such file" ab run --plan "$P/nothere.json"
case_ 2 "ab run: $P/frdisk.json: levels[0].disk: goes with \"domain\" (a hot experiment on a running guest)" ab run --plan "$P/frdisk.json"
case_ 2 "ab run: $P/frcfg.json: levels[1].config: missing: the xl config of the level's fresh guest" ab run --plan "$P/frcfg.json"
case_ 2 "ab run: $P/frhot.json: levels[1].config: a fresh guest's xl config: leave out \"domain\"" ab run --plan "$P/frhot.json"
case_ 2 "ab run: $P/frsweep.json: plan.sweep: goes with \"domain\"" ab run --plan "$P/frsweep.json"
case_ 2 "ab run: $P/frtop.json: plan.cache: goes with \"domain\"" ab run --plan "$P/frtop.json"
case_ 2 "ab run: $P/frtype.json: levels[0].config: a string, not a number" ab run --plan "$P/frtype.json"
case_ 2 "ab run: $P/frempty.json: levels[0].config: empty" ab run --plan "$P/frempty.json"
case_ 2 "ab run: $P/frvbd.json: levels[1].vbd: \"ring-order=1\": expected VDEV:key=value" ab run --plan "$P/frvbd.json"
case_ 2 "ab run: $P/frvbd2.json: --vbd: xvda given twice" ab run --plan "$P/frvbd2.json"
case_ 2 "ab run: $P/frlim.json: --guest-limits: goes with fresh guests, not --domain" ab run --plan "$P/frlim.json"
case_ 1 "ab run: $no_xs" ab run --plan "$P/fresh.json"
case_ 1 "ab run: $no_xs" ab run --plan "$P/fresh2.json" --vdev xvda --timeout 60
case_ 2 'ab run: --guest-limits: beside --plan: the plan says it ("guest_limits")' ab run --plan "$P/fresh.json" --guest-limits
case_ 2 "ab run: $P/objkey.json: levels[1].disk.cahce: unknown key (known: vdev, file, phy, share," ab run --plan "$P/objkey.json"
case_ 2 "ab run: $P/objsize.json: levels[1].disk.size: not for an experiment's disk" ab run --plan "$P/objsize.json"
case_ 2 "ab run: $P/objshare.json: levels[1].disk.share: not for an experiment's disk" ab run --plan "$P/objshare.json"
case_ 2 "ab run: $P/objvdev.json: levels[1].disk.vdev: missing" ab run --plan "$P/objvdev.json"
case_ 2 "ab run: $P/objauto.json: levels[1].disk.vdev: \"auto\": name it" ab run --plan "$P/objauto.json"
case_ 2 "ab run: $P/objring.json: levels[1].disk.ring_order: ring-order=9: expected a number 0..4" ab run --plan "$P/objring.json"
case_ 2 "ab run: $P/objsrc.json: levels[1].disk: file and phy are one disk each" ab run --plan "$P/objsrc.json"
case_ 2 "ab run: $P/objtype.json: levels[1].disk: an xl disk spec string" ab run --plan "$P/objtype.json"
case_ 2 "ab run: $P/objcache.json: levels[1].cache: also in its disk object" ab run --plan "$P/objcache.json"
case_ 2 "ab run: $P/objvbd.json: levels[1].vbd: its disk object has offers (queues)" ab run --plan "$P/objvbd.json"
case_ 2 "ab run: $P/objtopoffer.json: disk: offers for every level" ab run --plan "$P/objtopoffer.json"
case_ 2 "ab run: $P/objdisk2.json: --disk: vdev xvdc, but the first level's is xvdb" ab run --plan "$P/objdisk2.json"
case_ 2 "ab run: $P/gatebad.json: --fail-if-worse: \"0\": expected a percentage from 0.1 to 1000" ab run --plan "$P/gatebad.json"
case_ 2 "ab run: $P/gatetype.json: fail_if_worse: a string, not a boolean" ab run --plan "$P/gatetype.json"
case_ 1 "ab run: $no_xs" ab run --plan "$P/gate.json"
CASE_STDIN=$P/lvkey.json case_ 2 "ab run: -: levels[2].cahce: unknown key" ab run --plan -
# beside --plan: what the plan says is refused, the rest is taken
case_ 2 'ab run: --runs: beside --plan: the plan says it ("runs")' ab run --plan "$P/good.json" --runs 3
case_ 2 'ab run: --disk: beside --plan: the plan says it ("disk")' ab run --plan "$P/good.json" --disk "$sw_spec"
case_ 2 "ab run: --plan names the levels: give no LABEL operands" ab run --plan "$P/good.json" a b
case_ 2 'ab run: --fail-if-worse: beside --plan: the plan says it ("fail_if_worse")' ab run --plan "$P/good.json" --fail-if-worse 5
case_ 1 "ab run: $no_xs" ab run --plan "$P/good.json"
case_ 1 "ab run: $no_xs" ab run --plan "$P/sweep.json" --dir "$P/records" --timeout 30
CASE_STDIN=$P/good.json case_ 1 "ab run: $no_xs" ab run --plan -
# A plan chooses what root attaches: another user's hand on it refuses it.
if [ "$(id -u)" = 0 ]; then
	cp "$P/good.json" "$P/open.json"
	chmod 0666 "$P/open.json"
	case_ 2 "ab run: $P/open.json: $P/open.json: writable by others (mode 0666): root runs an experiment plan only from a file and directories nobody else can change" \
		ab run --plan "$P/open.json"
fi

# The plan is the command line it stands for: -v says which, and -N
# gives what that command line gives (on dom0 the plan of runs; here the
# same refusal to go on without xenstore).
sw_same() {
	local name=$1 want got line
	shift
	line=$("$xvbd" -v ab run --plan "$P/$name.json" 2>&1 >/dev/null | head -n 1)
	want="xvbd: ab run: $P/$name.json: as the command line: $*"
	got=$("$xvbd" -N ab run --plan "$P/$name.json" 2>&1; echo "rc=$?")
	if [ "$line" = "$want" ] &&
		[ "$got" = "$("$xvbd" -N "$@" 2>&1; echo "rc=$?")" ]; then
		echo "ok - ab run --plan $name.json is: $*"
		passed=$((passed + 1))
	else
		echo "not ok - ab run --plan $name.json is not: $*"
		printf '#   %s\n' "$line" "$got"
		failed=$((failed + 1))
	fi
}
sw_same good ab run b a c --disk "a=$sw_spec" --disk "b=$sw_spec" --cache b=none \
	--disk "c=$sw_spec" --vbd c=xvdb:ring-order=1 --domain g --duration 1 \
	--runs 2 --metric read_iops
sw_same sweep ab run --sweep ring_order=1,0,2 --domain g --disk "$sw_spec" \
	--cache none --duration 2s --max-runs 4 --until-confident
sw_same gate ab run a b --disk "a=$sw_spec" --disk "b=$sw_spec" --domain g \
	--duration 1 --metric read_mb_per_s --fail-if-worse 20
sw_same obj ab run a b c --disk "a=$sw_spec" --cache a=host --disk "b=$sw_spec" \
	--cache b=none --vbd b=xvdb:ring-order=1,discard=0 \
	--disk c=format=raw,vdev=xvdb,access=rw,target=/dev/sdb --domain g --duration 1
sw_same objtop ab run --sweep queues=1,2 --domain g --disk "$sw_spec" --cache none \
	--duration 1
sw_same fresh ab run b /etc/xen/b.cfg a /etc/xen/a.cfg c /etc/xen/c.cfg \
	--vbd b=xvda:ring-order=1 --vbd c=xvda:queues=2 --vbd c=xvdb:ring-order=2 \
	--duration 1 --runs 2 --fail-if-worse 10 --guest-limits
sw_same fresh2 ab run x x.cfg y y.cfg --vbd y=xvda:queues=1 --run true \
	--max-runs 6 --until-confident
rm -rf "$sw_plans"
