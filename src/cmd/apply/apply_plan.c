/*
 * apply_plan.c - xvbd apply's plan: JSON in, checked with the grammar
 * attach and tune use (see xvbd/cmd/apply_plan.h).  Each disk object
 * goes through plan_disk.h (the disk layer's parser, shared with ab
 * run's experiment plans), so a plan accepts exactly what `xvbd attach`
 * accepts, with the same words in its errors, prefixed by the place in
 * the plan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "xvbd/base/optval.h"
#include "xvbd/base/util.h"
#include "xvbd/dom0/image.h"
#include "xvbd/cmd/apply_plan.h"
#include "xvbd/cmd/plan_disk.h"
#include "xvbd/cmd/plan_json.h"
#include "xvbd/disk/disk.h"
#include "xvbd/xen/blkif.h"

const char *xvbd_apply_offer_name(enum xvbd_ovr_id id)
{
	return xvbd_plan_disk_offer_name(id);
}

/* What the description says, in the plan's own fields. */
static void plan_fields(struct xvbd_apply_disk *d)
{
	const struct xvbd_disk_desc *desc = &d->desc;

	d->kind = desc->kind == XVBD_DISK_PHY ? XVBD_APPLY_PHY :
		desc->kind == XVBD_DISK_SHARE ? XVBD_APPLY_SHARE :
		XVBD_APPLY_FILE;
	snprintf(d->source, sizeof(d->source), "%.*s",
		 (int)sizeof(d->source) - 1, desc->arg);
	snprintf(d->target, sizeof(d->target), "%s", desc->target);
	d->url = desc->url;
	snprintf(d->credentials, sizeof(d->credentials), "%s",
		 desc->credentials);
	snprintf(d->share_opts, sizeof(d->share_opts), "%s",
		 desc->share_opts);
	d->readwrite = desc->readwrite;
	d->have_size = desc->have_size;
	d->size_bytes = desc->size_bytes;
	d->prealloc = desc->prealloc;
	d->cache = desc->cache;
	memcpy(d->ovr_kv, desc->offer_kv, sizeof(d->ovr_kv));
	d->ovr = desc->offers;
}

static int parse_disk(struct xvbd_plan_err *e, yajl_val obj, size_t idx,
		      struct xvbd_apply_disk *d)
{
	int err;

	snprintf(d->where, sizeof(d->where), "disks[%u]", (unsigned)idx);
	if (!YAJL_IS_OBJECT(obj))
		return xvbd_plan_fail(e, d->where, NULL, "an object {\"vdev\": ..., "
			    "\"file\": ...}");
	err = xvbd_plan_disk_keys(e, d->where, obj);
	if (err)
		return err;
	if (!xvbd_plan_member(obj, "vdev"))
		return xvbd_plan_fail(e, d->where, "vdev", "missing: apply finds a disk "
			    "again by its vdev (\"xvdb\")");
	err = xvbd_plan_str(e, d->where, "vdev", xvbd_plan_member(obj, "vdev"), d->vdev,
		      sizeof(d->vdev));
	if (err)
		return err;
	if (!strcmp(d->vdev, "auto"))
		return xvbd_plan_fail(e, d->where, "vdev", "\"auto\": not a virtual "
			    "device name (apply needs a fixed one: it finds "
			    "the disk again by it)");
	err = xvbd_plan_disk_desc(e, d->where, obj,
				  XVBD_DISK_SOURCE(XVBD_DISK_FILE) |
				  XVBD_DISK_SOURCE(XVBD_DISK_PHY) |
				  XVBD_DISK_SOURCE(XVBD_DISK_SHARE), &d->desc);
	if (err)
		return err;
	d->devid = d->desc.devid;
	plan_fields(d);
	return 0;
}

static bool known_top_key(const char *k)
{
	return !strcmp(k, "guest") || !strcmp(k, "disks");
}

/* One vdev, one target per plan: two writers (or a typo). */
static int check_twice(struct xvbd_plan_err *e, const struct xvbd_apply_plan *p)
{
	size_t i, k;

	for (i = 0; i < p->n; i++)
		for (k = 0; k < i; k++) {
			if (p->disks[k].devid == p->disks[i].devid)
				return xvbd_plan_fail(e, p->disks[i].where, "vdev",
					    "%s given twice (also %s)",
					    p->disks[i].vdev,
					    p->disks[k].where);
			if (!strcmp(p->disks[k].target, p->disks[i].target))
				return xvbd_plan_fail(e, p->disks[i].where, NULL,
					    "target %s given twice (also %s)",
					    p->disks[i].target,
					    p->disks[k].where);
		}
	return 0;
}

static int parse_root(struct xvbd_plan_err *e, yajl_val root,
		      struct xvbd_apply_plan *p)
{
	yajl_val guest, disks;
	size_t i;
	int err;

	if (!YAJL_IS_OBJECT(root))
		return xvbd_plan_fail(e, "plan", NULL, "an object {\"guest\": ..., "
			    "\"disks\": [...]}");
	err = xvbd_plan_check_keys(e, "plan", root, known_top_key, "guest, disks");
	if (err)
		return err;
	guest = xvbd_plan_member(root, "guest");
	if (!guest)
		return xvbd_plan_fail(e, "guest", NULL, "missing: the domain's name or "
			    "id");
	err = xvbd_plan_word(e, "guest", NULL, guest, p->guest, sizeof(p->guest));
	if (err)
		return err;
	if (!p->guest[0])
		return xvbd_plan_fail(e, "guest", NULL, "empty");
	disks = xvbd_plan_member(root, "disks");
	if (!disks || !YAJL_IS_ARRAY(disks))
		return xvbd_plan_fail(e, "disks", NULL, "%s: an array of disks",
			    disks ? "not an array" : "missing");
	if (disks->u.array.len > XVBD_APPLY_DISKS_MAX)
		return xvbd_plan_fail(e, "disks", NULL, "%zu disks: at most %d",
			    disks->u.array.len, XVBD_APPLY_DISKS_MAX);
	p->disks = calloc(disks->u.array.len ? disks->u.array.len : 1,
			  sizeof(*p->disks));
	if (!p->disks)
		return -ENOMEM;
	for (i = 0; i < disks->u.array.len; i++) {
		p->n++;
		err = parse_disk(e, disks->u.array.values[i], i,
				 &p->disks[i]);
		if (err)
			return err;
	}
	return check_twice(e, p);
}

int xvbd_apply_plan_parse(const char *text, size_t len,
			  struct xvbd_apply_plan *plan, char *why,
			  size_t why_len)
{
	struct xvbd_plan_err e = { why, why_len };
	yajl_val root;
	int err;

	memset(plan, 0, sizeof(*plan));
	err = xvbd_plan_tree(text, len, XVBD_APPLY_PLAN_MAX,
			     XVBD_APPLY_DEPTH_MAX, &root, why, why_len);
	if (err)
		return err;
	err = parse_root(&e, root, plan);
	yajl_tree_free(root);
	if (err == -ENOMEM)
		snprintf(why, why_len, "%s", strerror(ENOMEM));
	if (err)
		xvbd_apply_plan_free(plan);
	return err;
}

void xvbd_apply_plan_free(struct xvbd_apply_plan *plan)
{
	free(plan->disks);
	memset(plan, 0, sizeof(*plan));
}
