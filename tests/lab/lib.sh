# Shared by the lab's host-side scripts (sourced, not run).
# LAB_DIR holds downloads, images and the running lab's state; it is
# outside git (build/ is ignored) and safe to delete.
LAB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB_DIR=${LAB_DIR:-$LAB_REPO/build/lab}
LAB_RUN=${LAB_RUN:-$LAB_DIR/run}  # state of the lab that is up
LAB_SHARE=$LAB_RUN/share        # 9p share, /lab inside dom0
LAB_SERIAL=$LAB_RUN/serial.log  # Xen + dom0 console
LAB_PIDFILE=$LAB_RUN/qemu.pid
LAB_MEM_MB=${LAB_MEM_MB:-4096}
LAB_DOM0_MEM_MB=${LAB_DOM0_MEM_MB:-1024}
LAB_SLOW_READ_BPS=${LAB_SLOW_READ_BPS:-1048576}	# /dev/vdc, the slow disk
LAB_BOOT_TIMEOUT=${LAB_BOOT_TIMEOUT:-240}
# QEMU accelerator and CPU model, and extra Xen command-line options
# (overridable to hunt the random user-space crashes; README).
LAB_QEMU_ACCEL=${LAB_QEMU_ACCEL:-tcg,thread=multi}
# SMAP/SMEP make dom0 crash at once under TCG (lab notes).
# AVX/AVX2 are new in QEMU 7.2's TCG; without them glibc's string
# functions take the long-tested SSE paths. (Turning them off did not
# stop the random user-space crashes: spec-ctrl=eager-fpu below did.)
LAB_QEMU_CPU=${LAB_QEMU_CPU:-max,-smap,-smep,-avx,-avx2}
# Appended after the fixed Xen options, so it can also undo them (e.g.
# spec-ctrl=no-eager-fpu to reproduce the crashes).
LAB_XEN_EXTRA=${LAB_XEN_EXTRA:-}

log() { printf 'lab: %s\n' "$*" >&2; }
die() { printf 'lab: error: %s\n' "$*" >&2; exit 1; }

lab_images() {
	local d=$LAB_DIR/images/current
	[ -f "$d/stamp" ] || die "no lab images: run 'make lab' (or tests/lab/build-images)"
	echo "$d"
}

# The QEMU pid of this LAB_RUN's lab, only if it is really running. The
# share path in QEMU's command line is unique per LAB_RUN, so a QEMU whose
# pid file was lost is still found (and never booted twice).
lab_pid() {
	local pid
	if [ -f "$LAB_PIDFILE" ]; then
		pid=$(cat "$LAB_PIDFILE")
		if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] &&
			tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "path=$LAB_SHARE,"; then
			echo "$pid"
			return 0
		fi
	fi
	pid=$(pgrep -f "qemu-system.*path=$LAB_SHARE," | head -n1)
	[ -n "$pid" ] || return 1
	echo "$pid"
}

serial_tail() {
	local n=${1:-40}
	[ -f "$LAB_SERIAL" ] || return 0
	# A hung dom0 prints its first report (soft lockup, RCU stall, oops)
	# with the stack that says where it hung once, long before the last
	# lines: CI keeps only what is printed.
	if grep -qE 'BUG: |rcu: INFO|WARNING: |Call Trace:' "$LAB_SERIAL"; then
		echo "---- dom0's first kernel report in $LAB_SERIAL ----" >&2
		grep -m1 -n -E 'BUG: |rcu: INFO|WARNING: |Call Trace:' "$LAB_SERIAL" |
			cut -d: -f1 | { read -r first || first=1
			sed -n "$((first > 5 ? first - 5 : 1)),$((first + 80))p" \
				"$LAB_SERIAL"; } | tr -d '\r' >&2
	fi
	echo "---- last $n lines of $LAB_SERIAL ----" >&2
	tail -n "$n" "$LAB_SERIAL" | tr -d '\r' >&2
	echo "----" >&2
}

# qemu_args MODE: the QEMU command line of the lab. MODE is "agent"
# (background, serial to a file) or "shell" (serial on this terminal).
qemu_args() {
	local mode=$1 img dom0_args
	img=$(lab_images)
	dom0_args="console=hvc0 earlyprintk=xen loglevel=4"
	[ "$mode" = shell ] && dom0_args="$dom0_args lab.shell=1"
	QEMU_ARGS=(qemu-system-x86_64 -name xvbd-lab
		-machine pc -accel "$LAB_QEMU_ACCEL"
		-cpu "$LAB_QEMU_CPU" -smp 2 -m "$LAB_MEM_MB"
		-kernel "$img/xen"
		# spec-ctrl=eager-fpu: on the AMD "max" CPU Xen switches PV
		# vCPUs' FPU/SSE state lazily (CR0.TS + #NM), and under QEMU 7.2
		# TCG that corrupts user-space registers now and then: random
		# segfaults and glibc heap aborts in dom0 and guests, worse on
		# a loaded host (README, tests/lab/stress-userspace.sh).
		-append "console=com1 com1=115200,8n1 spec-ctrl=eager-fpu dom0_mem=${LAB_DOM0_MEM_MB}M,max:${LAB_DOM0_MEM_MB}M dom0_max_vcpus=2 loglvl=all guest_loglvl=all${LAB_XEN_EXTRA:+ $LAB_XEN_EXTRA}"
		-initrd "${LAB_KERNEL:-$img/vmlinuz} $dom0_args,$img/dom0.cpio.gz"
		-display none -no-reboot
		# No NIC at all: without this QEMU adds an e1000 on its user-mode
		# network, a path off the machine for any later dom0 image with a
		# driver for it. Tests aim at unreachable addresses on purpose.
		-nic none
		-virtfs "local,path=$LAB_SHARE,mount_tag=lab,security_model=none,id=lab"
		-drive "file=$LAB_RUN/scratch.img,if=virtio,format=raw,cache=unsafe"
		-drive "file=$LAB_RUN/spare.img,if=virtio,format=raw,cache=unsafe"
		# A slow disk (reads at 1 MiB/s, QEMU's throttle): where dom0's
		# page cache makes a measurable difference even under TCG, whose
		# blkfront/blkback path is itself slower than the other disks.
		-drive "file=$LAB_RUN/slow.img,if=virtio,format=raw,cache=unsafe,throttling.bps-read=$LAB_SLOW_READ_BPS")
	if [ "$mode" = shell ]; then
		QEMU_ARGS+=(-serial mon:stdio)
	else
		QEMU_ARGS+=(-monitor none -serial "file:$LAB_SERIAL"
			-pidfile "$LAB_PIDFILE" -daemonize)
	fi
}

# Fresh state for a boot: the share (tools, guest images, jobs), a scratch
# ext4 disk for image files and a spare partitioned disk for phy VBDs.
prepare_run() {
	local img
	img=$(lab_images)
	rm -rf "$LAB_RUN"
	mkdir -p "$LAB_SHARE"/{bin,lib,images,jobs}
	for f in vmlinuz vmlinux guest.cpio.gz fio.cpio.gz nfs.cpio.gz samba.cpio.gz \
		ansible.cpio.gz versions; do
		ln "$img/$f" "$LAB_SHARE/images/$f" 2>/dev/null ||
			cp "$img/$f" "$LAB_SHARE/images/$f"
	done
	truncate -s 4G "$LAB_RUN/scratch.img"
	mkfs.ext4 -q -F -L scratch "$LAB_RUN/scratch.img"
	truncate -s 1G "$LAB_RUN/spare.img"
	printf 'label: dos\n,512M,L\n,,L\n' |
		sfdisk -q "$LAB_RUN/spare.img" >/dev/null
	truncate -s 128M "$LAB_RUN/slow.img"
	mkfs.ext4 -q -F -L slow "$LAB_RUN/slow.img"
	sync_tools
}

# put_build BIN DIR: xvbd BIN and the xvbd-block beside it into DIR (each
# replaced whole); a build without xvbd-block removes DIR's last one, and
# xvbd then falls back to Xen's block script (tests/lab/share/lib/lab-job
# installs it in dom0).
put_build() {
	local hotplug
	hotplug=$(dirname "$1")/xvbd-block
	if [ -x "$1" ]; then
		cp "$1" "$2/xvbd.new"
		mv "$2/xvbd.new" "$2/xvbd"
	fi
	if [ -x "$hotplug" ]; then
		cp "$hotplug" "$2/xvbd-block.new"
		mv "$2/xvbd-block.new" "$2/xvbd-block"
	else
		rm -f "$2/xvbd-block"
	fi
}

# Tools that change more often than the images: copied on every run.
# XVBD_BIN goes to /lab/bin; XVBD_PLAIN_BIN, the build without sanitizers
# (make TEST_HOOKS=1) for the scripts that do not check leaks, to
# /lab/bin/plain (share/lib/lab-job).
sync_tools() {
	cp "$LAB_REPO"/tests/lab/share/bin/* "$LAB_SHARE/bin/"
	cp "$LAB_REPO"/tests/lab/share/lib/* "$LAB_SHARE/lib/"
	# The catalogue of bad inputs (t/65-bad-input.sh): /lab/bad-input/
	mkdir -p "$LAB_SHARE/bad-input"
	cp "$LAB_REPO"/tests/bad-input/cases "$LAB_SHARE/bad-input/"
	# Real fio outputs (tests/data/fio, the parsers' test data): /lab/data/fio/
	mkdir -p "$LAB_SHARE/data/fio"
	cp "$LAB_REPO"/tests/data/fio/*.json "$LAB_SHARE/data/fio/"
	# The manual pages, whose EXAMPLES t/74-man-examples.sh runs: /lab/man/
	mkdir -p "$LAB_SHARE/man"
	rm -f "$LAB_SHARE"/man/*.1
	cp "$LAB_REPO"/man/*.1 "$LAB_SHARE/man/"
	put_build "${XVBD_BIN:-$LAB_REPO/xvbd}" "$LAB_SHARE/bin"
	rm -rf "$LAB_SHARE/bin/plain"
	if [ -n "${XVBD_PLAIN_BIN:-}" ] && [ -x "$XVBD_PLAIN_BIN" ]; then
		mkdir -p "$LAB_SHARE/bin/plain"
		put_build "$XVBD_PLAIN_BIN" "$LAB_SHARE/bin/plain"
	fi
}

lab_up() {
	local pid t0 i
	if pid=$(lab_pid); then
		log "lab already up (qemu pid $pid)"
		return 0
	fi
	prepare_run
	qemu_args agent
	log "booting: -accel $LAB_QEMU_ACCEL -cpu $LAB_QEMU_CPU${LAB_XEN_EXTRA:+, Xen: $LAB_XEN_EXTRA}"
	t0=$(date +%s)
	"${QEMU_ARGS[@]}" || die "qemu did not start"
	for ((i = 0; i < LAB_BOOT_TIMEOUT * 5; i++)); do
		if grep -q '^LAB-READY' "$LAB_SERIAL" 2>/dev/null; then
			log "lab up in $(( $(date +%s) - t0 ))s (qemu pid $(lab_pid))"
			return 0
		fi
		if grep -q '^LAB-FAILED' "$LAB_SERIAL" 2>/dev/null ||
			! lab_pid >/dev/null; then
			serial_tail 40
			lab_down
			die "dom0 did not come up: $(grep -a -m1 '^LAB-FAILED' "$LAB_SERIAL" | tr -d '\r' || echo 'qemu exited')"
		fi
		sleep 0.2
	done
	serial_tail 40
	lab_down
	die "dom0 not ready after ${LAB_BOOT_TIMEOUT}s (see the serial log above)"
}

lab_down() {
	local pid i
	pid=$(lab_pid) || return 0
	# Ask dom0's agent (if it got that far) to destroy guests and reboot:
	# QEMU exits on reboot (-no-reboot).
	if grep -q '^LAB-READY' "$LAB_SERIAL" 2>/dev/null; then
		touch "$LAB_SHARE/jobs/.shutdown" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			[ -d "/proc/$pid" ] || break
			sleep 0.2
		done
	fi
	if [ -d "/proc/$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		sleep 1
		kill -KILL "$pid" 2>/dev/null
	fi
	for ((i = 0; i < 50; i++)); do
		[ -d "/proc/$pid" ] || break
		sleep 0.1
	done
	rm -f "$LAB_PIDFILE"
	log "lab down"
}
