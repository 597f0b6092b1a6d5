# tests/cli-optval.sh: sourced by tests/cli.sh ($xvbd, $passed, $failed).
# One grammar for option values: a value gets the same verdict, and the
# same words, from every command that takes that kind of value.  Each
# template names the value's place with @; a refused value must give exit
# 2 with "<opt>: \"<value>\": expected <kind>" (TEXT), a taken one must get
# past the command line (exit other than 2, no complaint about it).

# kind_case WANT TEXT VALUE TEMPLATE...: WANT "refused" or "taken".
kind_case() {
	local want=$1 text=$2 value=$3 tpl err rc line words=() i same=""
	shift 3
	for tpl in "$@"; do
		read -ra words <<<"$tpl"
		for i in "${!words[@]}"; do
			[ "${words[$i]}" = @ ] && words[$i]=$value
		done
		err=$("$xvbd" -q "${words[@]}" 2>&1 >/dev/null)
		rc=$?
		line=${err%%$'\n'*}
		if [ "$want" = refused ] && [ "$rc" = 2 ] &&
			[[ $line == *"\"$value\": $text"* ]]; then
			echo "ok - $kind value \"$value\" refused by xvbd $tpl: $line"
			passed=$((passed + 1))
		elif [ "$want" = taken ] && [ "$rc" != 2 ] &&
			[[ $line != *"\"$value\""* ]]; then
			echo "ok - $kind value \"$value\" taken by xvbd $tpl (exit $rc: $line)"
			passed=$((passed + 1))
		else
			echo "not ok - $kind value \"$value\" by xvbd $tpl: want $want, got exit $rc: $line"
			failed=$((failed + 1))
		fi
		# Same bounds, same words: the whole reason must match.
		if [ "$want" = refused ] && [ -n "${same_words:-}" ]; then
			if [ -z "$same" ]; then
				same=${line#*\"$value\": }
			elif [ "${line#*\"$value\": }" != "$same" ]; then
				echo "not ok - $kind value \"$value\": xvbd $tpl says \"${line#*\"$value\": }\", the others \"$same\""
				failed=$((failed + 1))
			fi
		fi
	done
}

RUN="ab run a x.cfg b y.cfg"
REC="ab record x --domain g"

kind=seconds
seconds_all=("stats -d @ -n 1" "$REC --duration @" "$RUN --duration @"
	"$REC --duration 1 --interval @" "$RUN --duration 1 --interval @"
	"$REC --duration 1 --warmup @" "$RUN --duration 1 --warmup @"
	"start x.cfg --timeout @" "attach g --file /srv/x.img --timeout @"
	"pv g --settle @" "$RUN --duration 1 --timeout @")
for v in abc -1 1e3 1s "" .5 1. " 1" 0x10 1.0000000001 +2 1,5; do
	kind_case refused "expected seconds from" "$v" "${seconds_all[@]}"
done
for v in 2 2.5 30 1.5; do
	kind_case taken "" "$v" "${seconds_all[@]}"
done
# A recording's --duration, the same bounds in ab record and ab run.
same_words=1
kind_case refused "expected seconds from 0.01 to 86400" 0.005 \
	"$REC --duration @" "$RUN --duration @"
kind_case refused "expected seconds from 0.01 to 86400" 86401 \
	"$REC --duration @" "$RUN --duration @" "$REC --duration 1 --interval @" \
	"$RUN --duration 1 --interval @"
unset same_words

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
	"$RUN --until-shutdown --equivalence @")
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
count_all=("stats -d 1 -n @" "$RUN --until-shutdown --runs @"
	"$RUN --until-shutdown --until-confident --max-runs @"
	"attach g --file /srv/x.img --jobs @")
for v in abc -1 1.5 01 1e3 "" +3 " 3" 0x3; do
	kind_case refused "expected a count from" "$v" "${count_all[@]}"
done
for v in 3 10; do
	kind_case taken "" "$v" "${count_all[@]}"
done

kind=size
for v in 8X -8M "" 8MM 1.5G 99999999999T 18446744073709551616 "8 M" 0 511; do
	kind_case refused "expected a size from" "$v" \
		"attach g --file /srv/x.img --size @"
done
for v in 512 8M 1G 4KiB; do
	kind_case taken "" "$v" "attach g --file /srv/x.img --size @"
done
unset kind
