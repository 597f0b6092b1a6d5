/*
 * blkif_table.c - every xenstore key of a VBD, one row each.
 *
 * Sources: xen/include/public/io/blkif.h (Xen 4.17), libxl_disk.c, the
 * `block` hotplug script, and what Linux 6.1 xen-blkback / xen-blkfront
 * actually write (see lab notes).  "probe" = blkback's xenbus probe,
 * "connect" = blkback connect() once the frontend is Initialised,
 * "init" = blkfront talk_to_blkback() when the backend is InitWait,
 * "create" = libxl when it creates the device, "hotplug" = the script.
 */
#include <stdint.h>

#include "xvbd/xen/blkif.h"

#define B	XVBD_DIR_BACKEND
#define F	XVBD_DIR_FRONTEND
#define S_BE	XVBD_SIDE_BACKEND
#define S_FE	XVBD_SIDE_FRONTEND
#define S_TS	XVBD_SIDE_TOOLSTACK
#define U32	UINT32_MAX
/* DOMID_FIRST_RESERVED - 1 */
#define DOMID_MAX	32751
/* 2 << 28 onwards is reserved by xen-vbd-interface(7) */
#define DEVID_MAX	((1u << 29) - 1)
/* XENBUS_MAX_RING_GRANT_ORDER in Linux; no backend offers more. */
#define RING_ORDER_MAX	4
/* Beyond any guest's vCPU count: a bound for guest-written queue counts. */
#define QUEUES_MAX	1024

#define ROW(n, d, s, w, t, lo, hi, def, m) \
	{ n, d, s, w, t, lo, hi, def, m }

const struct xvbd_blkif_key xvbd_blkif_keys[] = {
	/* --- backend directory, written by the toolstack --- */
	ROW("params", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "target: device, file or qdisk spec the backend opens"),
	ROW("type", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "backend type: phy (blkback), qdisk (QEMU), vbd3 (tapdisk)"),
	ROW("mode", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "access mode: r (read-only) or w (read-write)"),
	ROW("script", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "hotplug script that prepares params (e.g. loop device)"),
	ROW("frontend", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "frontend directory of this device"),
	ROW("frontend-id", B, S_TS, "create", XVBD_KT_UINT, 0, DOMID_MAX,
	    NULL, "domid of the guest"),
	ROW("online", B, S_TS, "create", XVBD_KT_BOOL, 0, 1, NULL,
	    "toolstack wants the device up (0 asks the backend to close)"),
	ROW("removable", B, S_TS, "create", XVBD_KT_BOOL, 0, 1, "0",
	    "removable media (CD-ROM)"),
	ROW("bootable", B, S_TS, "create", XVBD_KT_BOOL, 0, 1, NULL,
	    "device may be used for booting"),
	ROW("dev", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "virtual device name from the domain config (vdev)"),
	ROW("device-type", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "disk or cdrom"),
	ROW("discard-enable", B, S_TS, "create", XVBD_KT_BOOL, 0, 1, "1",
	    "toolstack allows the backend to offer feature-discard"),
	ROW("direct-io-safe", B, S_TS, "create", XVBD_KT_BOOL, 0, 1, "0",
	    "qdisk may use O_DIRECT safely on this target"),
	ROW("specification", B, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "disk specification (xen or virtio)"),
	ROW("hotplug-status", B, S_TS, "hotplug", XVBD_KT_STRING, 0, 0, NULL,
	    "hotplug script result: connected, or an error"),
	ROW("physical-device", B, S_TS, "hotplug", XVBD_KT_STRING, 0, 0,
	    NULL, "major:minor (hex) of the device blkback opens"),
	ROW("physical-device-path", B, S_TS, "hotplug", XVBD_KT_STRING, 0, 0,
	    NULL, "path of the device blkback opens"),
	ROW("node", B, S_TS, "hotplug", XVBD_KT_STRING, 0, 0, NULL,
	    "block device the script set up (/dev/loopN for files)"),
	/* --- backend directory, written by the backend driver --- */
	ROW("state", B, S_BE, "always", XVBD_KT_STATE, 0, XVBD_STATE_MAX,
	    NULL, "backend XenbusState"),
	ROW("max-ring-page-order", B, S_BE, "probe", XVBD_KT_UINT, 0,
	    RING_ORDER_MAX, "0",
	    "largest ring the backend accepts: 2^order pages"),
	ROW("max-ring-pages", B, S_BE, "probe", XVBD_KT_UINT, 1,
	    1u << RING_ORDER_MAX, "1",
	    "legacy (not Linux): largest ring in pages"),
	ROW("multi-queue-max-queues", B, S_BE, "probe", XVBD_KT_UINT, 1,
	    QUEUES_MAX, "1",
	    "most rings (queues) the backend accepts"),
	ROW("feature-max-indirect-segments", B, S_BE, "probe", XVBD_KT_UINT,
	    0, U32, "0",
	    "most segments per indirect request (0: no indirect)"),
	ROW("feature-persistent", B, S_BE, "connect", XVBD_KT_BOOL, 0, 1,
	    "0", "backend can map grants persistently"),
	ROW("feature-flush-cache", B, S_BE, "connect", XVBD_KT_BOOL, 0, 1,
	    "0", "backend handles BLKIF_OP_FLUSH_DISKCACHE"),
	ROW("feature-barrier", B, S_BE, "connect", XVBD_KT_BOOL, 0, 1, "0",
	    "backend handles BLKIF_OP_WRITE_BARRIER"),
	ROW("feature-discard", B, S_BE, "connect", XVBD_KT_BOOL, 0, 1, "0",
	    "backend handles BLKIF_OP_DISCARD"),
	ROW("discard-granularity", B, S_BE, "connect", XVBD_KT_UINT, 0, U32,
	    NULL, "discard extent size in bytes (default sector-size)"),
	ROW("discard-alignment", B, S_BE, "connect", XVBD_KT_UINT, 0, U32,
	    "0", "offset in bytes of the first discard extent"),
	ROW("discard-secure", B, S_BE, "connect", XVBD_KT_BOOL, 0, 1, "0",
	    "backend handles BLKIF_DISCARD_SECURE"),
	ROW("sectors", B, S_BE, "connect", XVBD_KT_UINT, 0, UINT64_MAX, NULL,
	    "device size in sector-size units (Linux: 512-byte units)"),
	ROW("sector-size", B, S_BE, "connect", XVBD_KT_UINT, 512, U32, NULL,
	    "logical block size in bytes (power of two, >= 512)"),
	ROW("physical-sector-size", B, S_BE, "connect", XVBD_KT_UINT, 512,
	    U32, NULL, "physical block size in bytes"),
	ROW("info", B, S_BE, "connect", XVBD_KT_UINT, 0, 7, "0",
	    "VDISK_* flags: 1 cdrom, 2 removable, 4 read-only"),
	/* --- frontend directory, written by the toolstack --- */
	ROW("backend", F, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "backend directory (guest-writable: never trusted by xvbd)"),
	ROW("backend-id", F, S_TS, "create", XVBD_KT_UINT, 0, DOMID_MAX,
	    NULL, "domid of the backend"),
	ROW("virtual-device", F, S_TS, "create", XVBD_KT_UINT, 0, DEVID_MAX,
	    NULL, "devid (xen-vbd-interface(7) encoding)"),
	ROW("device-type", F, S_TS, "create", XVBD_KT_STRING, 0, 0, NULL,
	    "disk or cdrom"),
	ROW("trusted", F, S_TS, "create", XVBD_KT_BOOL, 0, 1, "1",
	    "0: frontend should protect itself from the backend"),
	/* --- frontend directory, written by the frontend driver --- */
	ROW("state", F, S_FE, "always", XVBD_KT_STATE, 0, XVBD_STATE_MAX,
	    NULL, "frontend XenbusState"),
	ROW("ring-page-order", F, S_FE, "init", XVBD_KT_UINT, 0,
	    RING_ORDER_MAX, "0",
	    "ring size chosen: 2^order pages (<= max-ring-page-order)"),
	ROW("num-ring-pages", F, S_FE, "init", XVBD_KT_UINT, 1,
	    1u << RING_ORDER_MAX, "1",
	    "legacy: ring size chosen in pages (<= max-ring-pages)"),
	ROW("multi-queue-num-queues", F, S_FE, "init", XVBD_KT_UINT, 1,
	    QUEUES_MAX, "1",
	    "rings chosen (<= multi-queue-max-queues)"),
	ROW("ring-ref", F, S_FE, "init", XVBD_KT_RING_REF, 0, U32, NULL,
	    "grant reference of a single-page ring"),
	ROW("ring-ref%u", F, S_FE, "init", XVBD_KT_RING_REF, 0, U32, NULL,
	    "grant reference of ring page N (multi-page ring)"),
	ROW("event-channel", F, S_FE, "init", XVBD_KT_UINT, 0, U32, NULL,
	    "event channel port of the ring"),
	ROW("queue-%u/ring-ref", F, S_FE, "init", XVBD_KT_RING_REF, 0, U32,
	    NULL, "grant reference of queue N's single-page ring"),
	ROW("queue-%u/ring-ref%u", F, S_FE, "init", XVBD_KT_RING_REF, 0, U32,
	    NULL, "grant reference of page M of queue N's ring"),
	ROW("queue-%u/event-channel", F, S_FE, "init", XVBD_KT_UINT, 0, U32,
	    NULL, "event channel port of queue N"),
	ROW("protocol", F, S_FE, "init", XVBD_KT_STRING, 0, 0,
	    "x86_64-abi", "ring ABI: x86_32-abi, x86_64-abi, arm-abi"),
	ROW("feature-persistent", F, S_FE, "init", XVBD_KT_BOOL, 0, 1, "0",
	    "frontend will reuse (persistent) grants"),
	ROW("feature-large-sector-size", F, S_FE, "init", XVBD_KT_BOOL, 0, 1,
	    "0", "frontend honours sector-size other than 512"),
};

const size_t xvbd_blkif_nkeys =
	sizeof(xvbd_blkif_keys) / sizeof(xvbd_blkif_keys[0]);
