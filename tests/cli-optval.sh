# tests/cli-optval.sh: sourced by tests/cli.sh ($xvbd, $passed, $failed).
# One grammar for values (src/base/optval.c): a value gets the same
# verdict, and the same words, from every command option, key=value offer
# and plan key that takes that kind of value: durations, percentages,
# counts, sizes and booleans.  Each template names the value's place
# with @; a refused value must give exit 2 with the value and then
# "expected <kind>" (TEXT) in the one error line, a taken one must get
# past the command line (exit other than 2, no complaint about it).

# kind_case WANT TEXT VALUE TEMPLATE...: WANT "refused" or "taken".
kind_case() {
	local want=$1 text=$2 value=$3 tpl err rc line words=() i same=""
	shift 3
	for tpl in "$@"; do
		read -ra words <<<"$tpl"
		for i in "${!words[@]}"; do
			[[ ${words[$i]} == *@* ]] && words[$i]=${words[$i]//@/$value}
		done
		err=$("$xvbd" -q "${words[@]}" 2>&1 >/dev/null)
		rc=$?
		line=${err%%$'\n'*}
		if [ "$want" = refused ] && [ "$rc" = 2 ] &&
			[[ $line == *"$value"*": $text"* ]]; then
			echo "ok - $kind value \"$value\" refused by xvbd $tpl: $line"
			passed=$((passed + 1))
		elif [ "$want" = taken ] && [ "$rc" != 2 ] &&
			[[ $line != *"$value\": expected"* && $line != *"$value: expected"* ]]; then
			echo "ok - $kind value \"$value\" taken by xvbd $tpl (exit $rc: $line)"
			passed=$((passed + 1))
		else
			echo "not ok - $kind value \"$value\" by xvbd $tpl: want $want, got exit $rc: $line"
			failed=$((failed + 1))
		fi
		# Same bounds, same words: the whole reason must match.
		if [ "$want" = refused ] && [ -n "${same_words:-}" ]; then
			if [ -z "$same" ]; then
				same=${line#*: expected}
			elif [ "${line#*: expected}" != "$same" ]; then
				echo "not ok - $kind value \"$value\": xvbd $tpl says \"${line#*: expected}\", the others \"$same\""
				failed=$((failed + 1))
			fi
		fi
	done
}

RUN="ab run a x.cfg b y.cfg"
REC="ab record x --domain g"
optval_plans=$(mktemp -d)
# plan_tpl NAME JSON: a plan file whose text has @ for the value; the
# template names it as plan:NAME and each case writes it first.
plan_value() {	# plan_value NAME VALUE: the plan with the value in place
	sed "s|@|$2|" "$optval_plans/$1.tpl" >"$optval_plans/$1.json"
}
printf '%s\n' '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img", "size": "@"}]}' \
	>"$optval_plans/size.tpl"
printf '%s\n' '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img", "discard": "@"}]}' \
	>"$optval_plans/discard.tpl"
printf '%s\n' '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img", "trusted": "@"}]}' \
	>"$optval_plans/trusted.tpl"
printf '%s\n' '{"guest": "g", "disks": [{"vdev": "xvdb", "file": "/srv/b.img", "size": "8M", "prealloc": "@"}]}' \
	>"$optval_plans/prealloc.tpl"
# plan_case WANT TEXT VALUE NAME: the plan key's verdict, as the options'.
plan_case() {
	plan_value "$4" "$3"
	kind_case "$1" "$2" "$3" "apply $optval_plans/$4.json"
}

kind=duration
# Every option that takes a duration.
dur_all=("stats -d @ -n 1" "stats --interval @ -n 1" "advise -d @"
	"advise --duration @" "$REC --duration @" "$RUN --duration @"
	"$REC --duration 1 --interval @" "$RUN --duration 1 --interval @"
	"$REC --duration 1 --warmup @" "$RUN --duration 1 --warmup @"
	"start x.cfg --timeout @" "attach g --file /srv/x.img --timeout @"
	"pv g --settle @" "pv /etc/xen/g.cfg off --timeout @"
	"$RUN --duration 1 --timeout @")
for v in abc -1 1e3 "" .5 1. " 1" 0x10 1.0000000001 +2 1,5 5x 1sec 5mm \
	"5 s" 1.5.2 s ms 0.0000000001s; do
	kind_case refused "expected a duration from" "$v" "${dur_all[@]}"
done
for v in 2 2.5 30s 5m 1500ms 0.5m 1h; do
	kind_case taken "" "$v" "${dur_all[@]}"
done
# A recording's --duration, the same bounds in ab record and ab run.
same_words=1
kind_case refused "expected a duration from 10ms to 24h" 0.005 \
	"$REC --duration @" "$RUN --duration @"
kind_case refused "expected a duration from 10ms to 24h" 86401 \
	"$REC --duration @" "$RUN --duration @" "$REC --duration 1 --interval @" \
	"$RUN --duration 1 --interval @" "stats -d @"
kind_case refused "expected a duration from 10ms to 24h" 25h \
	"$REC --duration @" "$RUN --duration @" "stats -d @"
unset same_words
# The units are exact: 0.1h is 6m, 90s is 1.5m.
kind_case taken "" 0.1h "start x.cfg --timeout @"
kind_case taken "" 1.5m "start x.cfg --timeout @"
kind_case refused "expected a duration from 1s to 1h" 61m "start x.cfg --timeout @"
kind_case refused "expected a duration from 1s to 1h" 999ms "start x.cfg --timeout @"

kind=percentage
pct_all=("$RUN --until-shutdown --confidence @" "ab compare a b --confidence @"
	"$RUN --until-shutdown --until-confident --min-effect @")
for v in abc -5 95%% "9 5" 1e2 95.1234 "" .5 95. +95 0x50; do
	kind_case refused "expected a percentage from" "$v" "${pct_all[@]}"
done
for v in 95 95% 60.5 80.125; do
	kind_case taken "" "$v" "${pct_all[@]}"
done
# The effect sizes and margins of ab compare and ab run: the same grammar.
pct_small=("ab compare a b --equivalence @" "ab compare a b --min-effect @"
	"$RUN --until-shutdown --equivalence @" "ab compare a b --fail-if-worse @"
	"$RUN --until-shutdown --fail-if-worse @")
for v in abc -5 2%% "2 5" 1e1 2.1234 "" .5 2. +2 0x2; do
	kind_case refused "expected a percentage from" "$v" "${pct_small[@]}"
done
for v in 2 2% 0.5 12.125; do
	kind_case taken "" "$v" "${pct_small[@]}"
done
# --min-effect: the same bounds in ab compare and ab run.
same_words=1
kind_case refused "expected a percentage from 0.1 to 99.9" 0.05 \
	"ab compare a b --min-effect @" \
	"$RUN --until-shutdown --until-confident --min-effect @"
kind_case refused "expected a percentage from 0.1 to 50" 51 \
	"ab compare a b --equivalence @" "$RUN --until-shutdown --equivalence @"
unset same_words
# --interference-cpu: one grammar and one range in ab show and ab compare.
same_words=1
for v in abc -5 10%% 1e1 10.1234 "" .5 0.05 100.001; do
	kind_case refused "expected a percentage from 0.1 to 100" "$v" \
		"ab compare a b --interference-cpu @" "ab show a --interference-cpu @"
done
unset same_words
kind=confidence
same_words=1
for v in 99.9999 100 49.999 0; do
	kind_case refused "expected a percentage from 50 to 99.999" "$v" \
		"$RUN --until-shutdown --confidence @" "ab compare a b --confidence @"
done
unset same_words
for v in 99.999 50 95% 99.9%; do
	kind_case taken "" "$v" "$RUN --until-shutdown --confidence @" \
		"ab compare a b --confidence @"
done

kind=count
count_all=("stats -d 1 -n @" "stats --count @" "$RUN --until-shutdown --runs @"
	"$RUN --until-shutdown --until-confident --max-runs @"
	"attach g --file /srv/x.img --jobs @")
for v in abc -1 1.5 01 1e3 "" +3 " 3" 0x3 3k; do
	kind_case refused "expected a count from" "$v" "${count_all[@]}"
done
for v in 3 10; do
	kind_case taken "" "$v" "${count_all[@]}"
done

kind=size
size_all=("attach g --file /srv/x.img --size @")
for v in 8X -8M "" 8MM 1.5G 99999999999T 18446744073709551616 "8 M" 0 511 \
	8MB 2E 8Mi 08M; do
	kind_case refused "expected a size from 512 to 1E" "$v" "${size_all[@]}"
	plan_case refused "expected a size from 512 to 1E" "$v" size
done
for v in 512 8M 8m 1G 1g 4KiB 4kib 2t 1E 1P 4096B; do
	kind_case taken "" "$v" "${size_all[@]}"
	plan_case taken "" "$v" size
done
# Same words from the option and the plan key.
same_words=1
plan_value size 3E
kind_case refused "expected a size from 512 to 1E" 3E \
	"attach g --file /srv/x.img --size @" "apply $optval_plans/size.json"
unset same_words

kind=boolean
# attach's options, tune's and start's key=value offers, a plan's keys.
bool_all=("attach g --file /srv/x.img --discard @"
	"attach g --file /srv/x.img --trusted @" "tune g xvdb discard=@"
	"tune g xvdb trusted=@" "tune g xvdb direct-io-safe=@"
	"start x.cfg --vbd xvdb:discard=@" "start x.cfg --vbd xvdb:trusted=@")
for v in maybe 2 enabled "o n" 10 y; do
	kind_case refused "expected on or off" "$v" "${bool_all[@]}"
	plan_case refused "expected on or off" "$v" discard
	plan_case refused "expected on or off" "$v" trusted
	plan_case refused "expected on or off" "$v" prealloc
done
for v in on off yes no true false 1 0 ON False; do
	kind_case taken "" "$v" "${bool_all[@]}"
	plan_case taken "" "$v" discard
	plan_case taken "" "$v" trusted
	plan_case taken "" "$v" prealloc
done
same_words=1
plan_value discard maybe
kind_case refused "expected on or off" maybe "tune g xvdb discard=@" \
	"attach g --file /srv/x.img --discard @" "start x.cfg --vbd xvdb:discard=@" \
	"apply $optval_plans/discard.json"
unset same_words
rm -rf "$optval_plans"
unset kind
