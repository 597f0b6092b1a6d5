#!/bin/bash
# tests/man.sh: the manual pages are lint-clean (`mandoc -T lint` and
# `groff -ww -z` print nothing), and they and the command table
# (tests/cmdtable.sh) agree: every command and each of its options appears
# in its page (man/xvbd-<group>.1 when there is one, else man/xvbd.1), its
# SYNOPSIS has the usage line of `xvbd help COMMAND` (XVBD, default ./xvbd),
# and every long option and every "xvbd <command>" the pages name exists.
# Ends with "man: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

pages=("$top"/man/*.1)
for p in "${pages[@]}"; do
	n=${p#"$top"/}
	if ! command -v mandoc >/dev/null; then
		not_ok "$n: mandoc missing (tests/lab/install-deps installs it)"
	else
		out=$(mandoc -T lint "$p" 2>&1)
		[ -z "$out" ] && ok "$n: mandoc -T lint prints nothing" ||
			{ not_ok "$n: mandoc -T lint"; sed 's/^/#   /' <<<"$out"; }
	fi
	# Alternating-font macros glue their arguments: ".BR a ). Next word"
	# renders "a).Nextword" and no linter says so.  Two plain words in a
	# row among them are always that mistake (paths and keys glue a word
	# to punctuation: ".BI vbd. vdev .target").
	glued=$(awk '/^\.(BR|RB|IR|RI|BI|IB)[ \t]/ {
		line = substr($0, 5); n = 0
		while (line != "") {
			sub(/^[ \t]+/, "", line)
			if (line == "") break
			if (substr(line, 1, 1) == "\"") {
				rest = substr(line, 2); q = index(rest, "\"")
				if (q == 0) { arg[++n] = rest; line = "" }
				else { arg[++n] = substr(rest, 1, q - 1); line = substr(rest, q + 1) }
			} else {
				match(line, /^[^ \t]+/)
				arg[++n] = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
			}
		}
		for (i = 2; i <= n; i++)
			if (arg[i-1] ~ /^[A-Za-z][a-z]+$/ && arg[i] ~ /^[A-Za-z][a-z]+$/) {
				printf "line %d: %s\n", FNR, $0; break
			}
	}' "$p")
	[ -z "$glued" ] && ok "$n: no words run together by an alternating-font macro" ||
		{ not_ok "$n: words run together (one word per argument of .BR and the like)"; sed 's/^/#   /' <<<"$glued"; }
	if ! command -v groff >/dev/null; then
		not_ok "$n: groff missing (tests/lab/install-deps installs groff-base)"
	else
		out=$(groff -ww -z -man "$p" 2>&1)
		[ -z "$out" ] && ok "$n: groff -ww -z prints nothing" ||
			{ not_ok "$n: groff -ww"; sed 's/^/#   /' <<<"$out"; }
	fi
done

table=$("$here/cmdtable.sh" "$top/src") || { echo "man: 0 passed, 1 failed"; exit 1; }
mapfile -t cmds < <(sed -n 's/^cmd //p' <<<"$table")
# roff text with "\-" as "-" (options are spelled \-\-name\-part).
text() { sed 's/\\-/-/g' "$1"; }
# A command's page: man/xvbd-<command>.1, else its group's
# (man/xvbd-ab.1), else the index xvbd.1 (help, the global options).
page_of() {
	local g=${1%% *}
	if [ "$1" = xvbd ]; then echo "$top/man/xvbd.1"
	elif [ -f "$top/man/xvbd-${1// /-}.1" ]; then echo "$top/man/xvbd-${1// /-}.1"
	elif [ -f "$top/man/xvbd-$g.1" ]; then echo "$top/man/xvbd-$g.1"
	else echo "$top/man/xvbd.1"; fi
}

for c in xvbd "${cmds[@]}"; do
	p=$(page_of "$c")
	t=$(text "$p")
	if [ "$c" != xvbd ]; then
		# the command's synopsis line: .B xvbd <name>, or .B <name> in a
		# list of the group's commands
		if grep -qE "^\.B[RI]? \"?(xvbd )?${c}\b" <<<"$t"; then
			ok "${p#"$top"/}: command \"$c\""
		else
			not_ok "${p#"$top"/}: command \"$c\" not found"
		fi
	fi
	missing=()
	for o in $(awk -v c="opt $c " 'index($0, c) == 1 { print substr($0, length(c) + 1) }' <<<"$table"); do
		o=${o%=}
		grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|$)" <<<"$t" || missing+=("$o")
	done
	[ ${#missing[@]} = 0 ] && ok "${p#"$top"/}: every option of \"$c\"" ||
		not_ok "${p#"$top"/}: options of \"$c\" not in the page: ${missing[*]}"
done

# The SYNOPSIS says what `xvbd help COMMAND` says (the help is generated
# from the command table): its usage line, <Operand> being the page's
# italics, whitespace as it falls.
xvbd=${XVBD:-$top/xvbd}
norm() { tr -s ' \n\t' '   ' | sed 's/^ //; s/ $//'; }
if [ ! -x "$xvbd" ]; then
	not_ok "SYNOPSIS against the help: $xvbd missing (run make)"
else
	for c in "${cmds[@]}"; do
		p=$(page_of "$c")
		syn=$(mandoc -T ascii -O width=250 "$p" | col -b |
			awk '/^SYNOPSIS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' | norm)
		u=$("$xvbd" help $c | awk 'NR == 1 { sub(/^usage: /, "") }
			/^$/ { exit } { print }' | norm | tr -d '<>')
		if [[ -n $u && " $syn " == *" $u "* ]]; then
			ok "${p#"$top"/}: SYNOPSIS has the help's usage: $u"
		else
			not_ok "${p#"$top"/}: SYNOPSIS lacks the help's usage \"$u\""
			echo "#   SYNOPSIS: $syn"
		fi
	done
fi

# The reverse: long options and commands the pages name.
known=$(sed -n 's/^opt [a-z ]* \(--[a-z0-9-]*\)=\{0,1\}$/\1/p' <<<"$table" | sort -u)
# Other programs' options the pages name (fio's, in xvbd-ab's workload
# results and examples): theirs, not xvbd's.
foreign="--output-format --status-interval"
known=$(printf '%s\n' $known $foreign | sort -u)
for p in "${pages[@]}"; do
	t=$(text "$p")
	unknown=$(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$t" | sort -u | comm -23 - <(echo "$known"))
	[ -z "$unknown" ] && ok "${p#"$top"/}: every long option it names exists" ||
		not_ok "${p#"$top"/}: options no parser takes: $(echo $unknown)"
	bad=()
	while read -r w1 w2; do
		grep -qx "cmd $w1" <<<"$table" && continue
		grep -qx "cmd $w1 $w2" <<<"$table" && continue
		bad+=("$w1 $w2")
	done < <(grep -oE '^\.B[RI]? "?xvbd( -[A-Za-z])* [a-z]+( [a-z]+)?' <<<"$t" |
		sed -E 's/^[^x]*xvbd( -[A-Za-z])* //')
	[ ${#bad[@]} = 0 ] && ok "${p#"$top"/}: every \"xvbd <command>\" exists" ||
		not_ok "${p#"$top"/}: commands not in the table: ${bad[*]}"
done

# Every JSON field the sources print (xvbd_out_* with a literal key) is
# named in the JSON OUTPUT section of its command's page; every source
# file that prints fields is in this table.
# Source files by name, wherever their layer folder is (src/*/, src/*/*/).
src_names() { (cd "$top/src" && for g in "$@"; do find . -name "$g" -printf '%f\n'; done | sort -u | tr '\n' ' '); }
src_path() { find "$top/src" -name "$1" | head -n 1; }
json_files=(
	"xvbd-list.1 cmd_list.c"
	"xvbd-show.1 cmd_show.c"
	"xvbd-start.1 cmd_start.c override_run.c"
	"xvbd-tune.1 cmd_tune.c override.c"
	"xvbd-defaults.1 cmd_defaults.c"
	"xvbd-attach.1 $(src_names 'cmd_attach.c' 'attach_*.c')"
	"xvbd-detach.1 cmd_detach.c"
	"xvbd-apply.1 cmd_apply.c apply_run.c apply_plan.c"
	"xvbd-stats.1 cmd_stats.c stats_render.c stats_render_lat.c"
	"xvbd-advise.1 cmd_advise.c"
	"xvbd-ab.1 $(src_names 'ab_*.c' 'cmd_ab_*.c')"
	"xvbd-pv.1 $(src_names 'cmd_pv*.c')"
	"xvbd.1 cmd_help.c"
)
json_re='(xvbd_out_[a-z_]+\([^,]+|num\(o), *"[a-z0-9_]+"'
json_section() { text "$1" | awk '/^\.SH / { on = /^\.SH "?JSON OUTPUT/ } on'; }
mapped=" "
for row in "${json_files[@]}"; do
	read -r n fs <<<"$row"
	p=$top/man/$n
	srcs=()
	for f in $fs; do srcs+=("$(src_path "$f")"); mapped+="$f "; done
	# and the quantities' names (src/base/vocab.c): XVBD_QN(READ_IOPS)
	# prints "read_iops"
	keys=$( { grep -ohE "$json_re" "${srcs[@]}" | sed -E 's/.*"([a-z0-9_]+)"$/\1/'
		grep -ohE 'XVBD_QN\([A-Z0-9_]+\)' "${srcs[@]}" |
		sed -E 's/XVBD_QN\((.*)\)/\L\1/'; } | sort -u)
	sec=$(json_section "$p" 2>/dev/null)
	missing=()
	for k in $keys; do
		grep -qE "(^|[^a-z0-9_])$k([^a-z0-9_]|$)" <<<"$sec" || missing+=("$k")
	done
	[ ${#missing[@]} = 0 ] && ok "man/$n: every JSON field of $fs in JSON OUTPUT ($(wc -w <<<"$keys"))" ||
		not_ok "man/$n: JSON fields not in JSON OUTPUT: ${missing[*]}"
done
unmapped=()
for f in $(grep -rlE --include="*.c" "$json_re" "$top"/src); do
	f=${f##*/}
	[ "$f" = out.c ] || [[ $mapped == *" $f "* ]] || unmapped+=("$f")
done
[ ${#unmapped[@]} = 0 ] && ok "every source file that prints JSON fields has its page" ||
	not_ok "source files printing JSON fields without a page in tests/man.sh: ${unmapped[*]}"
for p in "${pages[@]}"; do
	grep -q '^\.SH EXIT STATUS' "$p" && ok "${p#"$top"/}: EXIT STATUS" ||
		not_ok "${p#"$top"/}: no EXIT STATUS"
done

echo "man: $passed passed, $failed failed"
[ $failed = 0 ]
