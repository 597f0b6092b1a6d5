/*
 * vbd.h - one VBD as xvbd sees it: the toolstack's record, snapshots of
 * the backend and frontend xenstore directories, and the blkif model's
 * verdict on them.  Shared by list and show.
 */
#ifndef XVBD_VBD_H
#define XVBD_VBD_H

#include <stdbool.h>
#include <stdint.h>

#include "xvbd/xen/blkif.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/xen/tstack.h"
#include "xvbd/base/util.h"
#include "xvbd/xen/xs.h"

struct xvbd_vbd_view {
	uint32_t domid;
	const struct xvbd_disk *disk;	/* borrowed */
	char *frontend_path;
	struct xvbd_kvmap backend;	/* empty if no backend record */
	struct xvbd_kvmap frontend;
	char *error_text;		/* backend driver's error node */
	enum xvbd_be_kind kind;
	/* read back from the loop device physical-device names (sysfs) */
	enum xvbd_cache dom0_cache;
	struct xvbd_blkif_eval eval;
};

/* 0 or -ENOMEM; missing nodes become warnings, not errors. */
int xvbd_vbd_load(struct xvbd_xs *xs, uint32_t domid,
		  const struct xvbd_disk *disk, struct xvbd_vbd_view *view);
void xvbd_vbd_view_free(struct xvbd_vbd_view *view);

/* A guest's disk that a block device would share data with. */
struct xvbd_vbd_user {
	uint32_t domid;
	char vdev[32];
	const char *how;	/* "", " (a partition of it)", ... */
};

/*
 * Is block device major:minor, or one that shares its blocks, some
 * guest's disk?  Overlapping: the same device, a partition of it or the
 * disk it is a partition of, or (loop devices) another loop device bound
 * to the same file.  Every guest's devices are read from what their
 * backends published (physical-device in xenstore; sysfs; the loop
 * device's backing inode), never by a stat of a guest's params, which
 * could hang on a dead file server.  1 (*user says who), 0, -errno.
 */
int xvbd_vbd_phy_user(struct xvbd_tstack *ts, struct xvbd_xs *xs,
		      unsigned major, unsigned minor,
		      struct xvbd_vbd_user *user);

#endif /* XVBD_VBD_H */
