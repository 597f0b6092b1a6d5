/*
 * disk_dom.c - the domain a disk is attached to (its creation identity,
 * its lock), and the handle of the disk at a vdev now: from libxl's
 * record, what its backend published and the loop device, never from a
 * look at its target (a share whose server died would hang it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xvbd/base/lock.h"
#include "xvbd/dom0/loop.h"
#include "xvbd/dom0/sysfs.h"
#include "xvbd/xen/xs.h"
#include "disk_impl.h"

int xvbd_disk_dom_init(const struct xvbd_disk_env *env, uint32_t domid,
		       const char *name, struct xvbd_disk_dom *dom)
{
	struct xvbd_dominfo info;
	int err;

	memset(dom, 0, sizeof(*dom));
	dom->domid = domid;
	dom->lock_fd = -1;
	snprintf(dom->name, sizeof(dom->name), "%s", name);
	err = xvbd_tstack_domain_info(env->ts, domid, &info);
	if (err) {
		xvbd_report_err(env->rep, "domain", "%s: %s", name,
				err == -ENOENT ? "gone" : strerror(-err));
		return XVBD_EXIT_FAIL;
	}
	memcpy(dom->uuid, info.uuid, sizeof(dom->uuid));
	return 0;
}

void disk_waiting(void *arg, const char *whom, const char *path)
{
	xvbd_report_say(arg, XVBD_SAY_NOTE, NULL, "waiting for %s (lock %s)",
			whom, path);
}

int xvbd_disk_lock(const struct xvbd_disk_env *env, struct xvbd_disk_dom *dom,
		   unsigned timeout_s, bool tell)
{
	char subject[320], why[XVBD_PATH_MAX + 400];
	int fd;

	if (dom->lock_fd >= 0)
		return 0;
	fd = xvbd_domain_lock_why(dom->domid, dom->name, timeout_s,
				  tell ? disk_waiting : NULL, env->rep,
				  subject, sizeof(subject), why, sizeof(why));
	if (fd < 0) {
		xvbd_report_err(env->rep, subject, "%s", why);
		return XVBD_EXIT_FAIL;
	}
	dom->lock_fd = fd;
	return 0;
}

void xvbd_disk_unlock(struct xvbd_disk_dom *dom)
{
	xvbd_domain_unlock(dom->domid, dom->lock_fd);
	dom->lock_fd = -1;
}

bool disk_loop_of(const char *physical_device, struct xvbd_disk_loop *loop)
{
	unsigned major, minor;
	struct xvbd_loop lo;

	if (!physical_device ||
	    xvbd_sysfs_parse_devnum(physical_device, &major, &minor) ||
	    !xvbd_loop_find_dev(major, minor, &lo))
		return false;
	disk_loop_from(&lo, loop);
	return true;
}

void disk_loop_from(const struct xvbd_loop *lo, struct xvbd_disk_loop *out)
{
	*out = (struct xvbd_disk_loop){
		.nr = lo->nr, .major = lo->major, .minor = lo->minor,
		.file_major = lo->file_major, .file_minor = lo->file_minor,
		.file_ino = lo->file_ino, .diskseq = lo->diskseq,
		.direct_io = lo->direct_io, .size_bytes = lo->size_bytes,
	};
}

/* Which source the disk at target, with or without a loop, is. */
static void kind_of(struct xvbd_disk_handle *h, bool have_physical)
{
	char name[128], point[XVBD_PATH_MAX], source[XVBD_PATH_MAX + 300];

	if (xvbd_share_of_target(h->target, name, sizeof(name)) == 1) {
		h->kind = XVBD_DISK_SHARE;
		snprintf(h->share_name, sizeof(h->share_name), "%s", name);
		snprintf(point, sizeof(point), "%s/%s", XVBD_SHARE_DIR, name);
		if (xvbd_mount_lookup(point, source, sizeof(source), NULL,
				      0) == 1)
			snprintf(h->share, sizeof(h->share), "%s", source);
		return;
	}
	h->kind = h->have_loop ? XVBD_DISK_FILE : have_physical ?
		XVBD_DISK_PHY : XVBD_DISK_SPEC;
}

void disk_handle_of(const struct xvbd_disk_env *env,
		    const struct xvbd_disk_dom *dom,
		    const struct xvbd_disk *disk, struct xvbd_disk_handle *h)
{
	char *phys;

	memset(h, 0, sizeof(*h));
	h->domid = dom->domid;
	memcpy(h->dom_uuid, dom->uuid, sizeof(h->dom_uuid));
	snprintf(h->domain, sizeof(h->domain), "%s", dom->name);
	snprintf(h->vdev, sizeof(h->vdev), "%s", disk->vdev);
	h->devid = disk->devid;
	snprintf(h->target, sizeof(h->target), "%s",
		 disk->target ? disk->target : "");
	h->readwrite = disk->readwrite;
	snprintf(h->backend_path, sizeof(h->backend_path), "%s",
		 disk->backend_path ? disk->backend_path : "");
	h->added = true;
	phys = disk->backend_path ?
		xvbd_xs_read_dir_key(env->xs, disk->backend_path,
				     "physical-device") : NULL;
	h->have_loop = disk_loop_of(phys, &h->loop);
	kind_of(h, phys != NULL);
	free(phys);
	h->cache = !h->have_loop ? XVBD_CACHE_NA : h->loop.direct_io ?
		XVBD_CACHE_NONE : XVBD_CACHE_HOST;
	if (h->have_loop) {
		h->size_known = true;
		h->size_bytes = h->loop.size_bytes;
	}
}

int xvbd_disk_find(const struct xvbd_disk_env *env,
		   const struct xvbd_disk_dom *dom, uint32_t devid,
		   struct xvbd_disk_handle *h)
{
	struct xvbd_disk *disks = NULL, *disk = NULL;
	size_t n = 0;
	int err;

	memset(h, 0, sizeof(*h));
	err = xvbd_tstack_disk_find(env->ts, dom->domid, devid, &disks, &n,
				    &disk);
	if (err)
		return err;
	disk_handle_of(env, dom, disk, h);
	xvbd_tstack_disks_free(disks, n);
	return 0;
}
