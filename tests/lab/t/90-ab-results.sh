# ab record --run keeps what its command printed on stdout as the
# record's results, and survives what a guest's workload may print.
#  - real fio 3.33 outputs (/lab/data/fio, saved from a lab guest): the
#    record's fio figures equal jq's reading of the same output (IOPS,
#    bytes, clat p99, the JSON+ bins summed), fio's notes before the
#    JSON passed over; the output still echoed on stderr, not with -q;
#  - a dozen bad outputs: truncated JSON, fio's error JSON with its exit
#    status 1, a good report with exit 3, 100 MiB of text, nesting 40
#    deep, NaN, 1e999, invalid UTF-8, a NUL in a string, a 1 MiB string,
#    a benchmark line without its unit, plain text: each gives a record
#    with dom0's samples, its results absent with the reason, exactly one
#    warning line naming it, exit 1 for a failed command and 0 otherwise,
#    and xvbd's peak RSS (VmHWM, read by the command from /proc/$PPID)
#    under 64 MB;
#  - a benchmark line: results benchfmt, its value and unit;
#  - --results none: no results read, no warning; --results benchfmt on
#    fio's output: absent, said.
# lab-tier: all
# lab-timeout: 900
. /lab/lib/testlib.sh
img=/scratch/t90.img
top=/tmp/t90
store=$top/store
data=/lab/data/fio
xl destroy t90 2>/dev/null
rm -rf $top $img
mkdir -p $top/bad
truncate -s 16M $img

phase "an idle guest"
lab-guest start t90 --disk "format=raw,vdev=xvda,access=rw,target=$img" \
	--run 'true' >/dev/null
check "guest t90 up" wait_for 120 4 fstate "$(xl domid t90)" 51712

# rec NAME CMD [-q] [options...]: [xvbd -q] ab record NAME --run CMD
# [options]; its exit code in $rc, stderr in $top/NAME.err, the record's
# path in $rec.
rec() {
	local name=$1 cmd=$2 q=()
	shift 2
	if [ "${1:-}" = -q ]; then q=(-q); shift; fi
	xvbd "${q[@]}" ab record "$name" --domain t90 --vdev xvda \
		--interval 0.2 --dir $store --json --run "$cmd" "$@" \
		>$top/$name.out 2>$top/$name.err
	rc=$?
	rec=$(jq -r .path $top/$name.out 2>/dev/null)
}

phase "fio's own output"
rec fio "cat $data/randread-jsonplus.json"
expect_eq "fio: exit 0" 0 "$rc"
expect_eq "fio: no warning" 0 "$(grep -c '^xvbd: ' $top/fio.err)"
check "fio: the output echoed on stderr" grep -q '"fio version"' $top/fio.err
src=$data/randread-jsonplus.json
# jq over fio's output against jq over the record: one call each.
want=$(jq -r '[.jobs[0].read.iops, .jobs[0].read.io_bytes,
	.jobs[0].read.clat_ns.percentile["99.000000"],
	([.jobs[0].read.clat_ns.bins[]] | add), ."fio version"] | @tsv' $src)
got=$(jq -r '.results | [.fio.jobs[0].read.iops, .fio.jobs[0].read.io_bytes,
	(.fio.jobs[0].read.clat_ns.percentiles[] | select(.[0] == 99) | .[1]),
	([.fio.bins[] | select(.dir == "read" and .lat == "clat_ns") |
	  .bins[][1]] | add), .fio.version] | @tsv' $rec)
expect_eq "fio: IOPS, bytes, clat p99, binned I/Os, version as fio printed them" \
	"$want" "$got"
expect_eq "fio: the report's results" fio "$(jq -r .results $top/fio.out)"

rec fio-notes "cat $data/error-rodisk.json | sed 's/\"error\" : 1/\"error\" : 0/'"
expect_eq "fio's 'fio: pid=' line before the JSON: passed over" fio \
	"$(jq -r .results.format $rec)"

rec quiet "cat $data/read-json.json" -q
check "-q: the output not echoed" sh -c "! grep -q 'fio version' $top/quiet.err"
expect_eq "-q: still read" fio "$(jq -r .results.format $rec)"

phase "bad outputs"
b=$top/bad
head -c 3000 $data/randread-jsonplus.json >$b/truncated
printf '{"fio version": "fio-3.33", "jobs": [{"a": %s1%s}]}\n' \
	"$(printf '[%.0s' $(seq 40))" "$(printf ']%.0s' $(seq 40))" >$b/nested
sed 's/"iops" : [0-9.]*/"iops" : NaN/' $data/read-json.json >$b/nan
sed 's/"io_bytes" : [0-9]*/"io_bytes" : 1e999/' $data/read-json.json >$b/huge
sed 's/"jobname" : "seqread"/"jobname" : "\xc3\x28"/' $data/read-json.json >$b/utf8
sed 's/"jobname" : "seqread"/"jobname" : "a\\u0000b"/' $data/read-json.json >$b/nul
{ printf '{"fio version": "'; head -c 1048576 /dev/zero | tr '\0' x
  printf '"}\n'; } >$b/longstring
printf 'goos: linux\nBenchmarkCopy-2 10 3.5\n' >$b/nounit
printf 'hello\nworld\n' >$b/text
# name@command@exit code@what the warning and the results say (fio's
# error output came with exit status 1, as fio exited)
cases="truncated@cat $b/truncated@0@the output ends inside it (cut short)
fioerror@cat $data/error-rodisk.json; exit 1@1@fio job 'ro' failed: error 1 (Operation not permitted)
exit3@cat $data/read-json.json; exit 3@1@the command exited with status 3
flood@yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 104857600@0@more than the 64 MiB read
nested@cat $b/nested@0@nested deeper than 16
nan@cat $b/nan@0@not valid JSON
huge@cat $b/huge@0@jobs[0].read.io_bytes: not a whole number
utf8@cat $b/utf8@0@not valid JSON
nul@cat $b/nul@0@a NUL byte inside a string
longstring@cat $b/longstring@0@a string longer than 64 KiB
nounit@cat $b/nounit@0@BenchmarkCopy-2: a value without its unit
text@cat $b/text@0@neither fio's JSON nor benchmark lines in 12 bytes"
while IFS='@' read -r name cmd want_rc says <&3; do
	# The command ends by reading xvbd's peak RSS (its parent's).
	rec "$name" "( $cmd ); s=\$?; sleep 0.3; grep VmHWM /proc/\$PPID/status >&2; exit \$s" -q
	expect_eq "$name: exit $want_rc" "$want_rc" "$rc"
	warn=$(grep '^xvbd: ab record: warning: ' $top/$name.err)
	expect_eq "$name: one warning line" 1 "$(grep -c '^xvbd: ab record: warning: ' $top/$name.err)"
	check "$name: the warning says '$says'" grep -qF -- "$says" <<<"$warn"
	check "$name: record written" test -f "$rec"
	IFS=$'\t' read -r fmt nsamples why < <(jq -r '[.results.format,
		(.samples | length), .results.why] | @tsv' "$rec")
	expect_eq "$name: results absent" absent "$fmt"
	check "$name: the record says why" grep -qF -- "$says" <<<"$why"
	check "$name: dom0's samples kept ($nsamples)" test "$nsamples" -ge 2
	kb=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' $top/$name.err)
	echo "# $name: xvbd peak RSS ${kb} kB"
	check "$name: xvbd's peak RSS under 64 MB (${kb} kB)" test "${kb:-999999}" -lt 65536
done 3<<<"$cases"
expect_eq "flood: all of it counted" 104857600 \
	"$(jq -r .results.output_bytes $store/flood-*.json)"

phase "benchfmt, --results"
rec bench "printf 'cpu: x\nBenchmarkSum-1 1 2.25 s 400 MB/s\n'"
expect_eq "bench: results, value, unit" "benchfmt 2.25 s" \
	"$(jq -r '.results | "\(.format) \(.benchfmt.lines[0].values[0][0]) \(.benchfmt.lines[0].values[0][1])"' $rec)"
rec none "cat $data/read-json.json" --results none
expect_eq "--results none: no warning" 0 "$(grep -c '^xvbd: ' $top/none.err)"
expect_eq "--results none: not read" "absent not read (--results none)" \
	"$(jq -r '.results | "\(.format) \(.why)"' $rec)"
rec asked "cat $data/read-json.json" --results benchfmt
check "--results benchfmt on fio's output: said" \
	grep -q 'warning: asked: no workload results in the record: no benchmark lines' $top/asked.err
lab-guest stop t90 >/dev/null
rm -rf $top $img
finish
