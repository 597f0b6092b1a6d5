/*
 * apply_plan.h - the plan of `xvbd apply`: a guest and its disks, read
 * from JSON (yajl), each disk's keys through the disk layer's one parser
 * (xvbd/disk/disk.h: the grammar attach's options and ab run's --disk
 * go through too), before xvbd connects to anything.
 *
 *	{ "guest": "NAME" | ID,
 *	  "disks": [ { "vdev": "xvdb",
 *		       "file": PATH, "size": "64M", "prealloc": false,
 *		     | "phy": DEV
 *		     | "share": URL, "credentials": FILE, "share_opts": O,
 *		       "access": "rw" | "ro", "cache": "host" | "none",
 *		       "ring_order": N, "queues": N, "indirect_segments": N,
 *		       "discard": BOOL, "trusted": BOOL }, ... ] }
 *
 * Errors name the place in the plan ("disks[1].ring_ordr: unknown key").
 * Pure: no xenstore, no libxl, no file is opened (unit tested; xl disk
 * specs are read by libxlutil).
 */
#ifndef XVBD_APPLY_PLAN_H
#define XVBD_APPLY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xvbd/disk/disk.h"
#include "xvbd/dom0/cache.h"
#include "xvbd/dom0/share.h"
#include "xvbd/vbd/override.h"

/* A plan is a short text: bounded so a hostile file is refused cheaply. */
#define XVBD_APPLY_PLAN_MAX	(256 * 1024)
#define XVBD_APPLY_DISKS_MAX	64
/* root, disks, disk: anything deeper is not a plan */
#define XVBD_APPLY_DEPTH_MAX	4

enum xvbd_apply_kind { XVBD_APPLY_FILE, XVBD_APPLY_PHY, XVBD_APPLY_SHARE };

/* The offer keys a plan may set, in the override layer's order. */
#define XVBD_APPLY_NOFFERS	5

struct xvbd_apply_disk {
	char where[24];			/* "disks[1]" */
	char vdev[XVBD_OVR_VDEV_LEN];
	uint32_t devid;
	enum xvbd_apply_kind kind;
	char source[XVBD_PATH_MAX];	/* the path or URL as written */
	/* what libxl's record of the disk holds (its params): the path, or
	 * the image below the share's mount point */
	char target[XVBD_PATH_MAX];
	struct xvbd_share_url url;
	char credentials[XVBD_PATH_MAX];
	char share_opts[512];
	bool readwrite;
	bool have_size;
	uint64_t size_bytes;
	bool prealloc;
	enum xvbd_cache cache;		/* XVBD_CACHE_NA for phy */
	/* offers as attach's --ring-order etc. take them ("key=value",
	 * empty when the plan leaves the key out) and as parsed */
	char ovr_kv[XVBD_OVR_NKEYS][48];
	struct xvbd_ovr_set ovr;
	/* the disk as the disk layer describes it: what apply attaches */
	struct xvbd_disk_desc desc;
};

struct xvbd_apply_plan {
	char guest[256];		/* name or id, as written */
	struct xvbd_apply_disk *disks;
	size_t n;
};

/*
 * text[0..len) -> plan.  0, or -EINVAL (why: "PLACE: what is wrong"),
 * -EFBIG, -ENOMEM.  On error the plan is empty.
 */
int xvbd_apply_plan_parse(const char *text, size_t len,
			  struct xvbd_apply_plan *plan, char *why,
			  size_t why_len);
void xvbd_apply_plan_free(struct xvbd_apply_plan *plan);
/* The plan's name of an offer key ("ring_order"); NULL: not an offer. */
const char *xvbd_apply_offer_name(enum xvbd_ovr_id id);

#endif
