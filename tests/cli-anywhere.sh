#!/bin/bash
# tests/cli-anywhere.sh [XVBD]: the command line as the option tables say
# it, for every command of the table (`xvbd help --table`), on a build
# with the test hooks (make TEST_HOOKS=1: build-test/xvbd, the default),
# whose XVBD_TEST_ARGS_DUMP=1 prints what the one parser made of a line
# (command, global options, the command's options with their values,
# operands) and stops:
#  - each global option (-j/--json, -N/--dry-run, -q/--quiet,
#    -v/--verbose) before the command, right after its name, after its
#    first operand and at the end of the line gives the same parse, and
#    one that differs from the line without it; after "--" it is an
#    operand, not an option;
#  - `xvbd CMD -h`, `xvbd help CMD` and `xvbd CMD ARGS... -h` print the
#    same help, every line within 80 columns, one line per option of the
#    table and an example, which itself parses;
#  - no option letter or name of a command is also a global one's.
# The line each command is tried with is its help's example.
# Ends with "cli-anywhere: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
xvbd=${1:-$(dirname "$here")/build-test/xvbd}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

[ -x "$xvbd" ] || { echo "cli-anywhere: $xvbd missing (make TEST_HOOKS=1)"; echo "cli-anywhere: 0 passed, 1 failed"; exit 1; }
dump() { XVBD_TEST_ARGS_DUMP=1 "$xvbd" "$@" 2>&1; }
probe=$(dump list x)
if [[ $probe != "command list"* ]]; then
	echo "cli-anywhere: $xvbd has no test hooks (make TEST_HOOKS=1): $probe"
	echo "cli-anywhere: 0 passed, 1 failed"
	exit 1
fi

table=$("$xvbd" help --table)
mapfile -t cmds < <(sed -n 's/^cmd //p' <<<"$table")
globals=(-j --json -N --dry-run -q --quiet -v --verbose)

for c in "${cmds[@]}"; do
	read -ra cw <<<"$c"
	help=$("$xvbd" help "${cw[@]}" 2>&1)
	hrc=$?
	# The example: its words after "xvbd", then the command's words.
	ex=$(awk '/^example:/ { getline; sub(/^ *xvbd /, ""); print; exit }' <<<"$help")
	read -ra words <<<"$ex"
	# the example's own global options left out: each is added below
	args=()
	for w in "${words[@]:${#cw[@]}}"; do
		[[ " ${globals[*]} " == *" $w "* ]] || args+=("$w")
	done
	[ "$hrc" = 0 ] && [ -n "$ex" ] && [ "${words[*]:0:${#cw[@]}}" = "$c" ] &&
		ok "$c: help has an example for $c: xvbd $ex" ||
		{ not_ok "$c: help (exit $hrc) with an example of this command: '$ex'"; continue; }
	# Help three ways, the same text, within 80 columns, every option.
	h2=$("$xvbd" "${cw[@]}" -h 2>&1)
	h3=$("$xvbd" "${cw[@]}" "${args[@]}" --help 2>&1)
	[ "$help" = "$h2" ] && [ "$help" = "$h3" ] &&
		ok "$c: xvbd $c -h, xvbd help $c and -h after the arguments print one help" ||
		not_ok "$c: help differs between its three spellings"
	long=$(awk 'length > 80' <<<"$help")
	[ -z "$long" ] && ok "$c: help within 80 columns ($(wc -l <<<"$help") lines)" ||
		not_ok "$c: help lines over 80 columns: $long"
	missing=()
	for o in $(awk -v c="opt $c " 'index($0, c) == 1 { print substr($0, length(c) + 1) }' <<<"$table"); do
		o=${o%=}
		grep -qE -- "^  $o, --|^  (-[a-zA-Z], |    )$o( |$)" <<<"$help" ||
			missing+=("$o")
	done
	[ ${#missing[@]} = 0 ] && ok "$c: one help line per option" ||
		not_ok "$c: options without their help line: ${missing[*]}"
	# The example parses: the command and its operands.
	base=$(dump "${cw[@]}" "${args[@]}")
	[[ $base == "command $c"$'\n'* ]] && ok "$c: the example parses" ||
		{ not_ok "$c: the example does not parse: $base"; continue; }
	for g in "${globals[@]}"; do
		want=$(dump "$g" "${cw[@]}" "${args[@]}")
		[ "$want" != "$base" ] ||
			not_ok "$c: $g changes nothing in the parse"
		same=1
		for pos in name first end; do
			case $pos in
			name) line=("${cw[@]}" "$g" "${args[@]}") ;;
			first) line=("${cw[@]}" "${args[@]:0:1}" "$g" "${args[@]:1}") ;;
			end) line=("${cw[@]}" "${args[@]}" "$g") ;;
			esac
			got=$(dump "${line[@]}")
			if [ "$got" != "$want" ]; then
				same=
				not_ok "$c: xvbd ${line[*]}: parse differs from $g before the command"
				diff <(echo "$want") <(echo "$got") | sed 's/^/#   /'
			fi
		done
		[ -n "$same" ] && ok "$c: $g before, after the name, after an operand, at the end: one parse"
		# After "--" a global option is an operand.
		got=$(dump "${cw[@]}" "${args[@]}" -- "$g")
		grep -qx -- "operand $g" <<<"$got" &&
			[ "$(grep '^global' <<<"$got")" = "$(grep '^global' <<<"$base")" ] &&
			ok "$c: $g after -- is an operand" ||
			not_ok "$c: $g after --: $got"
	done
done

# No command option shadows a global one (its letter or its name).
clash=$(awk '$1 == "opt" && $2 != "xvbd" { print $NF }' <<<"$table" | sed 's/=$//' |
	grep -xF -f <(awk '$1 == "opt" && $2 == "xvbd" { print $3 }' <<<"$table") | sort -u)
[ -z "$clash" ] && ok "no command option is spelled as a global one" ||
	not_ok "command options spelled as global ones: $clash"

echo "cli-anywhere: $passed passed, $failed failed"
[ "$failed" = 0 ]
