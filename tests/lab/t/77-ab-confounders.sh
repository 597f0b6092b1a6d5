# xvbd ab compare on real records: planted
# confounders each give a named warning, never a silent verdict.
#  - base: a 1-vCPU guest on a 64 MiB image file (loop, dom0's page cache);
#  - vcpus2: the same with 2 vCPUs;
#  - phy: a 1-vCPU guest on a spare partition (phy, no dom0 cache);
#  - big: a 1-vCPU guest on a 128 MiB image file;
#  - other workload: base's guest recorded with --run instead of
#    --duration;
#  - a copy of a base record edited so that the guest's CPU time outruns
#    wall time x vCPUs: flagged and left out;
#  - a corrupted record: a one-line error naming the file.
# Each fact the warning names is first read here from xl/xenstore, so a
# fingerprint that recorded the wrong thing fails too.
. /lab/lib/testlib.sh
top=/tmp/t77
store=$top/store
for g in t77a t77b t77c t77d; do xl destroy $g 2>/dev/null; done
rm -rf $top /scratch/t77*.img
mkdir -p $top
truncate -s 64M /scratch/t77a.img
truncate -s 128M /scratch/t77d.img
file() { echo "format=raw,vdev=xvda,access=ro,script=xvbd-block,target=$1"; }
idle='sleep 100000'

phase "four guests"
lab-guest start t77a --mem 256 --disk "$(file /scratch/t77a.img)" --run "$idle"
lab-guest start t77b --mem 256 --vcpus 2 --disk "$(file /scratch/t77a.img)" --run "$idle"
lab-guest start t77c --mem 256 --disk "format=raw,vdev=xvda,access=ro,target=/dev/vdb1" --run "$idle"
lab-guest start t77d --mem 256 --disk "$(file /scratch/t77d.img)" --run "$idle"
for g in t77a t77b t77c t77d; do
	d=$(xl domid $g)
	check "$g connected" wait_for 180 4 fstate "$d" 51712
done
expect_eq "t77b has 2 vCPUs (xl)" 2 "$(xl list t77b | awk 'NR == 2 { print $4 }')"
expect_eq "t77c's backend is a phy device" /dev/vdb1 \
	"$(xenstore-read /local/domain/0/backend/vbd/$(xl domid t77c)/51712/params)"

rec() {	# rec LABEL GUEST [ab record options]
	local l=$1 g=$2; shift 2
	xvbd ab record "$l" --domain "$g" --interval 0.25 --dir $store "$@" \
		>/dev/null 2>>$top/rec.err
}
phase "records"
rec base t77a --duration 2
check "base recorded" test $? = 0
rec base t77a --duration 2
rec vcpus2 t77b --duration 2
check "vcpus2 recorded" test $? = 0
rec phy t77c --duration 2
check "phy recorded" test $? = 0
rec big t77d --duration 2
check "big recorded" test $? = 0
rec otherwl t77a --run 'sleep 2'
check "otherwl recorded" test $? = 0
sed 's/^/# rec: /' $top/rec.err

cmp() { xvbd ab compare base "$1" --dir $store 2>&1; }
warns() {	# warns OTHER: the comparison's warnings (JSON), one per line
	xvbd ab compare base "$1" --dir $store --json 2>/dev/null |
		jq -r '.warnings[]'
}

phase "confounders"
out=$(warns vcpus2)
echo "$out" | sed 's/^/# vcpus2: /'
check "vCPUs differ: named" grep -q 'guest.vcpus: A 1, B 2' <<<"$out"
out=$(warns phy)
echo "$out" | sed 's/^/# phy: /'
check "file (cached) vs phy: the backend kind named" grep -q 'vbd.xvda.backend: A file via loop, B phy' <<<"$out"
check "file (cached) vs phy: dom0's page cache named" grep -q 'vbd.xvda.dom0_cache: A host.*B n/a' <<<"$out"
out=$(warns big)
echo "$out" | sed 's/^/# big: /'
check "image sizes differ: named with both sizes" \
	grep -q "vbd.xvda.size_bytes: A $((64 << 20)), B $((128 << 20))" <<<"$out"
out=$(warns otherwl)
echo "$out" | sed 's/^/# otherwl: /'
check "workloads differ: named" grep -q '^workload: A duration' <<<"$out"
for o in vcpus2 phy big otherwl; do
	t=$(cmp $o)
	check "$o: the text output carries the warnings too" grep -q 'warning' <<<"$t"
done

phase "a record whose CPU time outruns wall x vCPUs"
src=$(ls $store/base-*.json | head -n1)
jq '.id = "edited-20260101T000000-abcd" | .label = "edited" |
	.samples[2].guest_cpu_ns = (.samples[1].guest_cpu_ns + 50000000000) |
	.samples[3].guest_cpu_ns = (.samples[2].guest_cpu_ns + 1)' \
	"$src" >$store/edited-20260101T000000-abcd.json
out=$(xvbd ab compare base edited --dir $store --json 2>/dev/null | jq -r '.warnings[]')
echo "$out" | sed 's/^/# edited: /'
check "flagged: CPU time outran wall time x vCPUs" grep -q 'outran wall time x vCPUs' <<<"$out"
check "flagged interval left out" grep -q 'left out' <<<"$out"

phase "a corrupted record"
printf '{"format":"xvbd-ab-record","version":1,"id":' >$store/broken-20260101T000000-abcd.json
out=$(xvbd ab compare base broken --dir $store 2>&1)
rc=$?
expect_eq "corrupted record: exit 1" 1 $rc
expect_eq "corrupted record: one line" 1 "$(wc -l <<<"$out")"
check "corrupted record: the file is named" grep -q "broken-20260101T000000-abcd.json" <<<"$out"

phase "clean up"
for g in t77a t77b t77c t77d; do lab-guest stop $g >/dev/null 2>&1; done
rm -rf $top /scratch/t77*.img
finish
