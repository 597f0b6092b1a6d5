/*
 * cache.h - whether dom0's page cache serves a file-backed VBD's I/O:
 * the mode `xvbd attach --cache` asks for, and the mode read back from
 * the loop device a backend uses.
 *
 *   host  a buffered loop device: the image file's pages stay in dom0's
 *         page cache, so a guest's second read of the same data may never
 *         reach the disk under the file (what Xen's block script and
 *         xvbd-block do; the default)
 *   none  a loop device with direct I/O (LO_FLAGS_DIRECT_IO): every guest
 *         request reaches the file system, like a phy disk
 *   n/a   no loop device (phy of a real device, qdisk, not connected)
 *
 * How the hotplug script learns the mode: libxl runs the disk's "script"
 * with only add|remove and XENBUS_PATH, and writes the backend directory
 * itself, so xvbd cannot add a key there before the script runs.  The
 * mode is therefore in the script's name: one program, installed as
 * xvbd-block (host) and as xvbd-block-direct (none, a symbolic link).
 * (libxl's direct-io-safe key only gives a backend permission to use
 * O_DIRECT, so it cannot ask for it.)
 *
 * The read-back goes to the device, never to what xvbd was told: the
 * backend's physical-device key names the loop device (written by the
 * hotplug script in dom0's backend directory) and sysfs says whether it
 * does direct I/O.  list and show use it (through the vbd view), and so
 * does xvbd-block-direct to check its own bind; it is what the A/B
 * fingerprint's vbd.<vdev>.dom0_cache is made of.
 */
#ifndef XVBD_CACHE_H
#define XVBD_CACHE_H

#include <stddef.h>

#include "xvbd/dom0/sysfs.h"

/* The hotplug program's names, one per mode (make install puts both). */
#define XVBD_BLOCK_SCRIPT		"xvbd-block"
#define XVBD_BLOCK_DIRECT_SCRIPT	"xvbd-block-direct"

enum xvbd_cache {
	XVBD_CACHE_HOST,
	XVBD_CACHE_NONE,
	XVBD_CACHE_NA,
};

/* "host" | "none" -> mode (what --cache takes); -EINVAL otherwise. */
int xvbd_cache_parse(const char *s, enum xvbd_cache *out);
/* "host", "none", "n/a" */
const char *xvbd_cache_name(enum xvbd_cache c);

/*
 * The mode a hotplug program binds loop devices with, by the name it was
 * run as (argv[0] or the backend's script key, any directory):
 * xvbd-block -> host, xvbd-block-direct -> none, anything else -> n/a.
 */
enum xvbd_cache xvbd_cache_of_script(const char *path);

/*
 * The mode of the device a backend's physical-device key names ("7:2",
 * lower-case hex, as the hotplug scripts write it): host or none for a
 * bound loop device (its loop/dio attribute), n/a for anything else (no
 * key, not a loop device, unreadable).
 */
enum xvbd_cache xvbd_cache_of_device(struct xvbd_sysfs *sys,
				     const char *physical_device);

/*
 * Can the regular file at path be read with O_DIRECT (what a loop device
 * with direct I/O does)?  0, or -errno with a reason in why: tmpfs and
 * some network file systems cannot.  Opens the file read-only, nothing
 * else.
 */
int xvbd_cache_check_direct(const char *path, char *why, size_t len);

#endif /* XVBD_CACHE_H */
