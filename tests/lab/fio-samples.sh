# fio-samples.sh: real fio outputs from a lab guest, the parsers' test data
# (tests/data/fio/).  Not a test: run it by hand when fio or the cases
# change, then copy build/lab/artefacts/fio-samples/o/* there:
#   tests/lab/run tests/lab/fio-samples.sh
# One guest (lab-guest --fio, 512 MiB): xvda a 64 MiB raw image (rw),
# xvdb a 16 MiB one (read-only), xvdc the outputs as a tar.  Each case's
# stdout is NAME.json (what a --run command's stdout holds: fio's notes
# before the JSON included), its stderr NAME.err, its exit status NAME.rc.
. /lab/lib/testlib.sh
a=/scratch/fs-a.img b=/scratch/fs-b.img o=/scratch/fs-out.img
truncate -s 64M $a
dd if=/dev/urandom of=$b bs=1M count=16 status=none
truncate -s 8M $o
# case NAME FIO-ARGS...: run fio, keep stdout, stderr and status
cases='
c() { n=$1; shift; fio "$@" >/tmp/o/$n.json 2>/tmp/o/$n.err; echo $? >/tmp/o/$n.rc; }
mkdir -p /tmp/o
fio --version >/tmp/o/version
D="--filename=/dev/xvda --direct=1"
c read-json --name=seqread $D --rw=read --bs=64k --size=16M --output-format=json
c write-json --name=seqwrite $D --rw=write --bs=64k --size=16M --output-format=json
c randrw-json --name=mix $D --rw=randrw --rwmixread=70 --bs=4k --size=4M --ioengine=libaio --iodepth=4 --output-format=json
c randread-jsonplus --name=rr $D --rw=randread --bs=4k --size=4M --ioengine=libaio --iodepth=8 --output-format=json+
c randrw-jsonplus-group --name=mixg $D --rw=randrw --bs=4k --size=2M --numjobs=2 --group_reporting --ioengine=libaio --iodepth=4 --output-format=json+
c randrw-jsonplus-nogroup --name=mixn $D --rw=randrw --bs=4k --size=2M --numjobs=2 --ioengine=libaio --iodepth=4 --output-format=json+
c read-json-group --name=rg $D --rw=read --bs=16k --size=4M --numjobs=2 --group_reporting --output-format=json
c timebased-jsonplus --name=tb $D --rw=randread --bs=4k --size=32M --runtime=2 --time_based --output-format=json+
c note-json --name=note $D --rw=randread --bs=4k --size=1M --ioengine=psync --iodepth=8 --output-format=json
cat >/tmp/two.fio <<EOJ
[global]
filename=/dev/xvda
direct=1
size=2M
[reader]
rw=randread
bs=1k
[writer]
rw=write
bs=4k
offset=8M
EOJ
c jobfile-jsonplus /tmp/two.fio --output-format=json+
c error-nodev --name=nodev --filename=/dev/xvdz --rw=read --bs=4k --size=1M --output-format=json
c error-rodisk --name=ro --filename=/dev/xvdb --direct=1 --rw=write --bs=4k --size=1M --output-format=json
c error-verify --name=vfy --filename=/dev/xvdb --rw=read --bs=4k --size=1M --verify=md5 --do_verify=1 --verify_only=1 --output-format=json
c normal-json --name=both $D --rw=read --bs=64k --size=4M --output-format=normal,json
c status-json --name=st $D --rw=randread --bs=4k --size=32M --runtime=3 --time_based --status-interval=1 --output-format=json
c trim-json --name=trim --filename=/dev/xvda --rw=trim --bs=64k --size=4M --output-format=json
cat /sys/block/xvda/queue/discard_max_bytes >/tmp/o/discard_max_bytes
tar cf /dev/xvdc -C /tmp o
sync
'
lab-guest start fs --mem 512 --fio \
	--disk "format=raw,vdev=xvda,access=rw,target=$a" \
	--disk "format=raw,vdev=xvdb,access=ro,target=$b" \
	--disk "format=raw,vdev=xvdc,access=rw,target=$o" --run "$cases"
out=$(lab-guest wait fs --timeout 500)
rc=$?
echo "$out" | sed 's/^/# guest: /'
expect_eq "guest commands succeeded" 0 "$rc"
lab-guest stop fs
mkdir -p "$LAB_ARTEFACTS"
tar xf $o -C "$LAB_ARTEFACTS"
check "outputs came back" test -s "$LAB_ARTEFACTS/o/version"
rm -f $a $b $o
finish
