/*
 * vbd.h - one VBD as xvbd sees it: the toolstack's record, snapshots of
 * the backend and frontend xenstore directories, and the blkif model's
 * verdict on them.  Shared by list and show.
 */
#ifndef XVBD_VBD_H
#define XVBD_VBD_H

#include <stdbool.h>
#include <stdint.h>

#include "xvbd/blkif.h"
#include "xvbd/cache.h"
#include "xvbd/tstack.h"
#include "xvbd/util.h"
#include "xvbd/xs.h"

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

#endif /* XVBD_VBD_H */
