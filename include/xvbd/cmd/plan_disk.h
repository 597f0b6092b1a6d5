/*
 * plan_disk.h - a disk as a JSON plan writes it: apply's disk object
 * ({"vdev": "xvdb", "file": PATH, "cache": "none", "ring_order": 1}),
 * read the same way by every plan that names a disk (apply's "disks",
 * ab run's experiment levels): the keys checked, each value through the
 * disk layer's one parser (xvbd/disk/disk.h) in the layer's order, then
 * the keys together.  Errors name the place in the plan
 * ("levels[1].disk.cahce: unknown key").  Pure apart from libxlutil.
 */
#ifndef XVBD_CMD_PLAN_DISK_H
#define XVBD_CMD_PLAN_DISK_H

#include <yajl/yajl_tree.h>

#include "xvbd/cmd/plan_json.h"
#include "xvbd/disk/disk.h"
#include "xvbd/vbd/override.h"

/* The keys, as a plan spells them ('_' for '-'), for "known: ..." */
#define XVBD_PLAN_DISK_KEYS	"vdev, file, phy, share, credentials, "	\
	"share_opts, size, prealloc, access, cache, ring_order, queues, "	\
	"indirect_segments, discard, trusted"

/* obj (at where) is an object whose keys are all disk keys, each once. */
int xvbd_plan_disk_keys(struct xvbd_plan_err *e, const char *where,
			yajl_val obj);
/*
 * obj's keys through the disk layer's parser into desc (a grammar of
 * plain keys taking sources), then checked together.  0 or -EINVAL
 * (e: "where.key: why", the key as the plan spells it).
 */
int xvbd_plan_disk_desc(struct xvbd_plan_err *e, const char *where,
			yajl_val obj, unsigned sources,
			struct xvbd_disk_desc *desc);
/* A plan's name of an offer key ("ring_order"); NULL: not an offer. */
const char *xvbd_plan_disk_offer_name(enum xvbd_ovr_id id);

#endif /* XVBD_CMD_PLAN_DISK_H */
