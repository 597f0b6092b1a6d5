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
	"--disk $sw_spec --sweep cache=host,none"; do
	case_ 1 "ab run: cannot open xenstore" $SW $args
done

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
	"a a.cfg b b.cfg --vbd b=xvda:ring-order=1"; do
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
