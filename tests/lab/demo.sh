# make demo: xvbd against a real Xen 4.17 dom0 in the lab.
# A PV guest with two file-backed disks, then what xvbd shows about them.
set -u
say() { printf '\n==== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

dd if=/dev/zero of=/scratch/demo-a.img bs=1M count=0 seek=256 status=none
dd if=/dev/zero of=/scratch/demo-b.img bs=1M count=0 seek=64 status=none
say "A PV guest with two disks (its blkfront allows order-2 rings)"
lab-guest start demo --vcpus 2 --extra xen_blkfront.max_ring_page_order=2 \
	--disk "format=raw,vdev=xvda,access=rw,target=/scratch/demo-a.img" \
	--disk "format=raw,vdev=xvdb,access=ro,target=/scratch/demo-b.img" \
	--run 'dd if=/dev/xvda of=/dev/null bs=1M count=32 iflag=direct' >/dev/null 2>&1
lab-guest wait demo --timeout 300 >/dev/null || { echo "demo guest failed"; exit 1; }

say "Every VBD, with what each side negotiated"
run xvbd list
say "One VBD in full: backend offer vs frontend choice"
run xvbd show demo xvda
say "The same as JSON, for scripts"
run xvbd --json show demo xvdb | jq -c '{vdev, backend_state, frontend_state, negotiated}'
lab-guest stop demo >/dev/null
rm -f /scratch/demo-*.img
