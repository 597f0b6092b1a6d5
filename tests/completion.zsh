# tests/completion.zsh COMPDIR FILESDIR OUT (run with zsh -f by
# tests/completion.sh): an interactive `zsh -f` under zpty loads COMPDIR's
# _xvbd through compinit, and each case's line is typed with a TAB.  A
# compadd wrapper writes every candidate offered; OUT gets "=== NAME|LINE"
# and the candidates, one a line, per case.  The cases come from OUT.cases.
zmodload zsh/zpty || exit 1
compdir=$1 files=$2 out=$3
cur=$out.cur init=$out.init
: >| $out

cat >| $init <<EOF
PS1='' RPS1='' PROMPT='' RPROMPT=''
unsetopt zle_bracketed_paste autolist listbeep beep 2>/dev/null
fpath=($compdir \$fpath)
autoload -Uz compinit && compinit -u -D
# Every candidate any completion function adds, after matching.
compadd() {
	if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "\$@"
		return
	fi
	local -a __hits
	builtin compadd -A __hits "\$@"
	(( \$#__hits )) && print -rl -- \$__hits >> $cur
	builtin compadd "\$@"
}
_t_complete() {
	zle complete-word
	print -r -- --done-- >> $cur
	BUFFER= CURSOR=0
}
zle -N _t_complete
bindkey '^I' _t_complete
cd $files
print -r -- --ready-- >> $cur
EOF

# wait_done: until the completion wrote its end mark (10 s at most).
wait_for() {
	local i
	for ((i = 0; i < 400; i++)); do
		grep -qx -- "$1" $cur 2>/dev/null && return 0
		zpty -rt z junk 2>/dev/null	# keep the terminal drained
		sleep 0.025
	done
	return 1
}

: >| $cur
zpty z zsh -f -i || exit 1
zpty -w z "source $init"
wait_for --ready-- || { print "zsh: the init did not finish"; exit 1 }
rc=0
while IFS='|' read -r name line; do
	: >| $cur
	zpty -n -w z "$line"$'\t'
	if ! wait_for --done--; then
		print "zsh: no completion for: $line"
		rc=1
		continue
	fi
	print -r -- "=== $name|$line" >> $out
	grep -vx -- --done-- $cur >> $out
done < $out.cases
zpty -d z
exit $rc
