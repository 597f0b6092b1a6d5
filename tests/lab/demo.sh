# make demo: xvbd against a real Xen 4.17 dom0 in the lab.
# A PV guest with two file-backed disks, then what xvbd shows about them.
set -u
say() { printf '\n==== %s\n' "$*"; }
# A step that fails ends the demo (and `make demo`) with the step named.
die() { printf '\ndemo: FAILED: %s\n' "$*" >&2; exit 1; }
# The command line goes to stderr so that a pipe after run() gets only its
# output; a failed command ends the demo.
run() {
	local rc
	printf '$ %s\n' "$*" >&2
	"$@"
	rc=$?
	[ $rc = 0 ] || die "$* (exit $rc)"
}

dd if=/dev/zero of=/scratch/demo-a.img bs=1M count=0 seek=256 status=none
dd if=/dev/zero of=/scratch/demo-b.img bs=1M count=0 seek=64 status=none
say "A PV guest with two disks (its blkfront allows order-2 rings)"
lab-guest start demo --vcpus 2 --extra xen_blkfront.max_ring_page_order=2 \
	--disk "format=raw,vdev=xvda,access=rw,target=/scratch/demo-a.img" \
	--disk "format=raw,vdev=xvdb,access=ro,target=/scratch/demo-b.img" \
	--run 'dd if=/dev/xvda of=/dev/null bs=1M count=32 iflag=direct' >/dev/null 2>&1 ||
	die "lab-guest start demo"
lab-guest wait demo --timeout 300 >/dev/null || die "lab-guest wait demo: the guest's read failed"

say "Every VBD, with what each side negotiated"
run xvbd list
say "One VBD in full: backend offer vs frontend choice"
run xvbd show demo xvda
say "The same as JSON, for scripts"
run xvbd --json show demo xvdb | jq -c '{vdev, backend_state, frontend_state, negotiated}'
[ "${PIPESTATUS[0]}${PIPESTATUS[1]}" = 00 ] || die "xvbd --json show demo xvdb | jq"

say "Per-domain CPU and per-VBD I/O while the guest reads (5 samples, 1 s apart)"
lab-guest stop demo >/dev/null || die "lab-guest stop demo"
lab-guest start demo2 --disk "format=raw,vdev=xvda,access=rw,target=/scratch/demo-a.img" \
	--run 'sleep 2; dd if=/dev/xvda of=/dev/null bs=64k count=4096 iflag=direct' >/dev/null 2>&1 ||
	die "lab-guest start demo2"
d=$(xl domid demo2) || die "xl domid demo2"
for i in $(seq 300); do
	[ "$(xenstore-read /local/domain/$d/device/vbd/51712/state 2>/dev/null)" = 4 ] && break
	sleep 0.2
done
run xvbd stats demo2 -d 1 -n 5
lab-guest wait demo2 --timeout 300 >/dev/null || die "lab-guest wait demo2: the guest's read failed"
lab-guest stop demo2 >/dev/null || die "lab-guest stop demo2"

say "Tuning: start a guest paused, lower its ring to order 1 before blkfront reads it"
cfg=$(lab-guest prepare demo3 --extra xen_blkfront.max_ring_page_order=4 \
	--disk "format=raw,vdev=xvda,access=rw,target=/scratch/demo-a.img" --run true) ||
	die "lab-guest prepare demo3"
run xvbd start "$cfg" --vbd xvda:ring-order=1
run xvbd list demo3

say "Hot-attach: the plan (-N), then a new 128 MiB image file, a spare partition; detach both"
run xvbd -N attach demo3 --file /scratch/demo-c.img --size 128M
run xvbd attach demo3 --file /scratch/demo-c.img --size 128M
run xvbd attach demo3 --phy /dev/vdb1
run xvbd list demo3
run xvbd detach demo3 xvdb
run xvbd detach demo3 xvdc
lab-guest stop demo3 >/dev/null || die "lab-guest stop demo3"

say "A/B: does dom0's page cache flatter a file-backed disk? (seed 001)"
# One running guest; each run attaches the disk under test (an 8 MiB
# image on the lab's slow disk, reads at 1 MiB/s) with its side's
# setting, and detaches it after: A's loop is buffered (dom0's page cache
# serves the reads), B's does direct I/O.  The guest says READY on its
# trigger disk once the disk under test is there (--ready waits for it:
# no fixed warmup), then waits for the GO that the --run command writes,
# reads the 8 MiB and answers DONE.  ABBA order, until the sequential
# test settles read MB/s (at most 6 pairs); IO/s and MB/s over each run's
# busy span.
. /lab/lib/abguest.sh
abg_mount_slow || die "mount /dev/vdc /slow"
dd if=/dev/urandom of=/slow/demo-ab.img bs=1M count=8 status=none ||
	die "dd /slow/demo-ab.img"
abg_hot_start demo4 8 /scratch/demo-go.img || die "lab-guest start demo4"
cat /slow/demo-ab.img >/dev/null	# A's cache, warm
spec=format=raw,vdev=xvdb,access=ro,target=/slow/demo-ab.img
run xvbd ab run cached direct --domain demo4 \
	--disk-a "$spec" --cache-a host --disk-b "$spec" --cache-b none \
	--ready "$(abg_hot_ready_cmd /scratch/demo-go.img)" \
	--run "$(abg_hot_go_cmd /scratch/demo-go.img /tmp/demo-go.log)" \
	--interval 0.05 --until-confident --max-runs 6 --metric read_mb_per_s \
	--dir /tmp/demo-ab
say "The guest's own timings of its 8 MiB read (uptime before and after, s)"
cat /tmp/demo-go.log
say "The runs it recorded, and the same comparison from the records"
run xvbd ab list --dir /tmp/demo-ab
run xvbd ab compare cached direct --dir /tmp/demo-ab --metric read_mb_per_s,read_iops,run_s
lab-guest stop demo4 >/dev/null || die "lab-guest stop demo4"

say "A/B with the guest's own numbers: fio in the guest, its JSON+ read by ab run"
# The same kind of hot guest, with fio (lab-guest --fio): at each GO it
# runs a 4k random-read O_DIRECT job on the disk under test and hands its
# JSON+ back over the trigger disk; the --run command prints it and ab
# run reads it: fio's IOPS and clat percentiles become metrics beside
# blkback's, the job's options enter the fingerprint, and the bytes fio
# counted are set against blkback's and the disk's (the accounting).
dd if=/dev/urandom of=/scratch/demo-fio.img bs=1M count=16 status=none ||
	die "dd /scratch/demo-fio.img"
abg_hot_fio_start demo5 /scratch/demo-fio-go.img || die "lab-guest start demo5 --fio"
mkdir -p /tmp/demo-fio
echo "GO --name=rr --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=4 --size=16M --runtime=2 --time_based" \
	>/tmp/demo-fio/args
spec=format=raw,vdev=xvdb,access=ro,target=/scratch/demo-fio.img
run xvbd -q ab run cached direct --domain demo5 \
	--disk-a "$spec" --cache-a host --disk-b "$spec" --cache-b none \
	--ready "$(abg_hot_ready_cmd /scratch/demo-fio-go.img)" \
	--run "$(abg_hot_fio_go_cmd /scratch/demo-fio-go.img /tmp/demo-fio)" \
	--runs 2 --dir /tmp/demo-fio-ab >/dev/null
run xvbd ab compare cached direct --dir /tmp/demo-fio-ab \
	--metric guest_read_iops,guest_read_clat_p99_ms,read_iops
say "Label 'cached': its runs' merged completion latency (summed JSON+ bins)"
run xvbd ab show cached --dir /tmp/demo-fio-ab
lab-guest stop demo5 >/dev/null || die "lab-guest stop demo5"
rm -rf /tmp/demo-fio /tmp/demo-fio-ab /scratch/demo-fio*.img
rm -rf /tmp/demo-ab /tmp/demo-go.log
rm -f /scratch/demo-*.img /slow/demo-ab.img
umount /slow
