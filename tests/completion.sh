#!/bin/bash
# tests/completion.sh: the shell completions against the command table.
# bash: completions/xvbd's _xvbd is run as bash runs it (COMP_WORDS,
# COMP_CWORD) for every command of the table (tests/cmdtable.sh): the
# commands, the subcommands of ab, each command's options, the keys of
# tune/--vbd, xen_blkback's parameters, the metrics, files, and domain
# names and vdevs from stand-in xenstore tools (nothing and no message
# without them).  zsh: completions/_xvbd loads under `zsh -f` with
# compinit and completes the same through zpty (tests/completion.zsh).
# Ends with "completion: N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
# same WHAT WANT GOT: two word lists equal as sets
same() {
	local w g
	w=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u)
	g=$(tr ' ' '\n' <<<"$3" | sed '/^$/d' | sort -u)
	if [ "$w" = "$g" ]; then
		ok "$1"
	else
		not_ok "$1"
		diff <(echo "$w") <(echo "$g") | sed -n 's/^[<>]/#   &/p'
	fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

table=$("$here/cmdtable.sh" "$top/src") || { echo "completion: 0 passed, 1 failed"; exit 1; }
mapfile -t cmds < <(sed -n 's/^cmd //p' <<<"$table")
top_words=$(sed -n 's/^cmd \([^ ]*\).*/\1/p' <<<"$table" | sort -u | tr '\n' ' ')
ab_words=$(sed -n 's/^cmd ab //p' <<<"$table" | tr '\n' ' ')
opts_of() { awk -v c="opt $1 " 'index($0, c) == 1 { print substr($0, length(c) + 1) }' <<<"$table" | tr '\n' ' '; }
keys_of() { sed -n "s/^key $1 //p" <<<"$table" | tr '\n' ' '; }

# Stand-in xenstore tools: two domains, dom0's backend directories of
# guest 3's disks.  A third, with a name no shell should see, is left out.
mkdir -p "$work/bin" "$work/files/sub"
cat >"$work/bin/xenstore-list" <<'EOF'
#!/bin/bash
case $1 in
/local/domain) printf '0\n3\n7\n9\n' ;;
/local/domain/0/backend/vbd/3) printf '51712\n51728\n' ;;
*) echo "xenstore-list: could not access path $1" >&2; exit 1 ;;
esac
EOF
cat >"$work/bin/xenstore-read" <<'EOF'
#!/bin/bash
for p; do
	case $p in
	/local/domain/0/name) echo Domain-0 ;;
	/local/domain/3/name) echo web1 ;;
	/local/domain/7/name) echo db-2 ;;
	/local/domain/9/name) echo 'x;$(reboot)' ;;
	/local/domain/0/backend/vbd/3/51712/dev) echo xvda ;;
	/local/domain/0/backend/vbd/3/51728/dev) echo xvdb ;;
	*) exit 1 ;;
	esac
done
EOF
chmod +x "$work/bin"/*
touch "$work/files/a.cfg" "$work/files/b.txt" "$work/files/sub/c.cfg"

# ---- bash ----
bash_comp=/usr/share/bash-completion/bash_completion
if [ ! -r "$bash_comp" ]; then
	not_ok "bash: $bash_comp missing (tests/lab/install-deps installs bash-completion)"
else
	# One bash runs every case: the words per line, "|" between them;
	# it prints "=== CASE" and the candidates, one a line.
	{
		for c in "${cmds[@]}"; do echo "opts $c|xvbd $c -"; done
		cat <<EOF
top|xvbd 
global|xvbd -
ab|xvbd ab 
ab-prefix|xvbd ab rec --d
cmd-prefix|xvbd det -
tune-keys|xvbd tune web1 xvdb 
vbd-keys|xvbd start x.cfg --vbd xvdb:ring-order=1,
vbd-vdev|xvbd start --vbd xv
params|xvbd defaults 
metric|xvbd ab compare A B --metric 
domains|xvbd show 
vdevs|xvbd show web1 
vdevs-id|xvbd detach 3 
record-vdev|xvbd ab record L --domain web1 --vdev 
record-domain|xvbd ab record L --domain 
help|xvbd help 
help-ab|xvbd help ab 
start-file|xvbd start 
attach-file|xvbd attach web1 --file 
pv-sub|xvbd pv web1 
EOF
	} >"$work/cases"
	cat >"$work/run.bash" <<'EOF'
. "$1"
. "$2"
cd "$4"
while IFS='|' read -r name line; do
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_xvbd xvbd "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	echo "=== $name|$line"
	printf '%s\n' "${COMPREPLY[@]}"
done <"$3"
EOF
	t0=$(date +%s%N)
	PATH=$work/bin:$PATH bash "$work/run.bash" "$bash_comp" "$top/completions/xvbd" \
		"$work/cases" "$work/files" >"$work/bash.out" 2>"$work/bash.err"
	t1=$(date +%s%N)
	got() { awk -v n="=== $1|" 'index($0, "=== ") == 1 { on = index($0, n) == 1; next } on' "$work/bash.out" | tr '\n' ' '; }
	same "bash: no output on stderr" "" "$(cat "$work/bash.err")"
	for c in "${cmds[@]}"; do
		want=$(opts_of "$c")
		g=$(opts_of xvbd)
		same "bash: xvbd $c -<TAB>: the options of its table and the global ones" \
			"${want//=/} ${g//=/}" "$(got "opts $c")"
		want_v=$(tr ' ' '\n' <<<"$want" | grep '=$' | tr '\n' ' ')
		(
			. "$top/completions/xvbd"
			same "bash: xvbd $c: the options that take a value" "$want_v" \
				"$(_xvbd_words opts "$c" | tr ' ' '\n' | grep '=$' | tr '\n' ' ')"
		)
	done
	same "bash: xvbd <TAB>: the commands" "$top_words" "$(got top)"
	g=$(opts_of xvbd)
	same "bash: xvbd -<TAB>: the global options" "${g//=/}" "$(got global)"
	same "bash: xvbd ab <TAB>: its subcommands" "$ab_words" "$(got ab)"
	same "bash: xvbd ab rec --d<TAB> (prefixes)" "--dir --domain --duration --dry-run" "$(got ab-prefix)"
	same "bash: xvbd det -<TAB> (prefix)" "--force $(opts_of xvbd | sed 's/=//g')" "$(got cmd-prefix)"
	same "bash: tune keys" "$(keys_of tune | sed 's/ /= /g')" "$(got tune-keys)"
	same "bash: --vbd keys after a comma" \
		"$(keys_of tune | sed 's/\([^ ]*\) /xvdb:ring-order=1,\1= /g')" "$(got vbd-keys)"
	same "bash: --vbd vdev" "xvda: xvdb: xvdc: xvdd:" "$(got vbd-vdev)"
	same "bash: defaults parameters" "$(keys_of defaults | sed 's/ /= /g')" "$(got params)"
	same "bash: --metric" "$(keys_of metric)" "$(got metric)"
	same "bash: domain names from xenstore (odd names left out)" "Domain-0 web1 db-2" "$(got domains)"
	same "bash: a domain's vdevs" "xvda xvdb" "$(got vdevs)"
	same "bash: a domain's vdevs by id" "xvda xvdb" "$(got vdevs-id)"
	same "bash: ab record --vdev: the vdevs of --domain" "xvda xvdb" "$(got record-vdev)"
	same "bash: ab record --domain" "Domain-0 web1 db-2" "$(got record-domain)"
	same "bash: help <TAB>" "$top_words" "$(got help)"
	same "bash: help ab <TAB>" "$ab_words" "$(got help-ab)"
	same "bash: start <TAB>: xl.cfg files and directories" "a.cfg sub" "$(got start-file)"
	same "bash: attach --file <TAB>: files" "a.cfg b.txt sub" "$(got attach-file)"
	same "bash: pv <Domain> <TAB>" "status on off" "$(got pv-sub)"
	ms=$(((t1 - t0) / 1000000))
	n=$(grep -c '^=== ' "$work/bash.out")
	echo "# bash: $n completions in ${ms} ms"
	# Without xenstore tools (no Xen, or not root): nothing, silently.
	printf 'domains|xvbd show \nvdevs|xvbd show web1 \n' >"$work/cases2"
	PATH=/usr/bin:/bin bash "$work/run.bash" "$bash_comp" "$top/completions/xvbd" \
		"$work/cases2" "$work/files" >"$work/bash2.out" 2>&1
	same "bash: no xenstore tools: no domains, no message" "=== domains|xvbd show === vdevs|xvbd show web1" \
		"$(tr '\n' ' ' <"$work/bash2.out")"
fi

# ---- zsh ----
if ! command -v zsh >/dev/null; then
	not_ok "zsh: not installed (tests/lab/install-deps installs zsh)"
else
	{
		for c in "${cmds[@]}"; do echo "opts $c|xvbd $c -"; done
		grep -E '^(top|global|ab|tune-keys|params|metric|domains|vdevs|start-file)\|' "$work/cases"
	} >"$work/zsh.cases"
	PATH=$work/bin:$PATH zsh -f "$here/completion.zsh" "$top/completions" \
		"$work/files" "$work/zsh" >"$work/zsh.log" 2>&1
	zrc=$?
	[ $zrc = 0 ] || { not_ok "zsh: the harness ran (rc $zrc)"; sed 's/^/#   /' "$work/zsh.log"; }
	zgot() { awk -v n="=== $1|" 'index($0, "=== ") == 1 { on = index($0, n) == 1; next } on' "$work/zsh" 2>/dev/null | tr '\n' ' '; }
	same "zsh: xvbd <TAB>: the commands" "$top_words" "$(zgot top)"
	same "zsh: xvbd ab <TAB>: its subcommands" "$ab_words" "$(zgot ab)"
	same "zsh: xvbd -<TAB>: the global options" "$(g=$(opts_of xvbd); echo "${g//=/}")" "$(zgot global)"
	for c in "${cmds[@]}"; do
		want=$(opts_of "$c")
		g=$(opts_of xvbd | sed 's/--version//')
		same "zsh: xvbd $c -<TAB>: the options of its table and the global ones" \
			"${want//=/} ${g//=/}" "$(zgot "opts $c")"
	done
	same "zsh: tune keys" "$(keys_of tune)" "$(zgot tune-keys)"
	same "zsh: defaults parameters" "$(keys_of defaults)" "$(zgot params)"
	same "zsh: --metric" "$(keys_of metric)" "$(zgot metric)"
	same "zsh: domain names" "Domain-0 web1 db-2" "$(zgot domains)"
	same "zsh: a domain's vdevs" "xvda xvdb" "$(zgot vdevs)"
	same "zsh: start <TAB>: xl.cfg files and directories" "a.cfg sub" "$(zgot start-file)"
fi

echo "completion: $passed passed, $failed failed"
[ $failed = 0 ]
