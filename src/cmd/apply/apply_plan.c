/*
 * apply_plan.c - xvbd apply's plan: JSON in, checked with the grammar
 * attach and tune use (see xvbd/cmd/apply_plan.h).  Each value goes
 * through the same parser as the command-line option it stands for, so
 * a plan accepts exactly what `xvbd attach` accepts, with the same words
 * in its errors, prefixed by the place in the plan.
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
#include "xvbd/cmd/plan_json.h"
#include "xvbd/disk/disk.h"
#include "xvbd/xen/blkif.h"

/* Plan key -> override key (the plan spells attach's options with _). */
static const struct {
	const char *name;
	enum xvbd_ovr_id id;
	bool boolean;
} offers[XVBD_APPLY_NOFFERS] = {
	{ "ring_order", XVBD_OVR_RING_ORDER, false },
	{ "queues", XVBD_OVR_QUEUES, false },
	{ "indirect_segments", XVBD_OVR_INDIRECT, false },
	{ "discard", XVBD_OVR_DISCARD, true },
	{ "trusted", XVBD_OVR_TRUSTED, true },
};

const char *xvbd_apply_offer_name(enum xvbd_ovr_id id)
{
	size_t i;

	for (i = 0; i < XVBD_APPLY_NOFFERS; i++)
		if (offers[i].id == id)
			return offers[i].name;
	return NULL;
}

static const char *const disk_keys[] = {
	"vdev", "file", "phy", "share", "credentials", "share_opts", "size",
	"prealloc", "access", "cache", NULL,
};

static bool known_disk_key(const char *k)
{
	size_t i;

	for (i = 0; disk_keys[i]; i++)
		if (!strcmp(disk_keys[i], k))
			return true;
	for (i = 0; i < XVBD_APPLY_NOFFERS; i++)
		if (!strcmp(offers[i].name, k))
			return true;
	return false;
}

/* A plan's spelling of a disk key: ring-order -> ring_order. */
static void plan_key(const char *key, char *buf, size_t len)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		buf[i] = key[i] == '-' ? '_' : key[i];
	buf[i] = '\0';
}

/* The plan's offer key name: 1 boolean, 0 a number, -1 not an offer. */
static int offer_kind(const char *name)
{
	size_t i;

	for (i = 0; i < XVBD_APPLY_NOFFERS; i++)
		if (!strcmp(offers[i].name, name))
			return offers[i].boolean;
	return -1;
}

/*
 * One key's JSON value as the text the disk layer's parser takes: a
 * string, a number (size, the numeric offers), or a boolean (prealloc,
 * the boolean offers; "on"/"off" too).
 */
static int json_word(struct xvbd_plan_err *e, const char *where, const char *key,
		     yajl_val v, char *buf, size_t len)
{
	bool on = false;
	int err;

	if (!strcmp(key, "prealloc") || offer_kind(key) == 1) {
		err = xvbd_plan_onoff(e, where, key, v, &on);
		snprintf(buf, len, "%s", on ? "on" : "off");
		return err;
	}
	if (!strcmp(key, "size") || offer_kind(key) == 0)
		return xvbd_plan_word(e, where, key, v, buf, len);
	return xvbd_plan_str(e, where, key, v, buf, len);
}

/*
 * The disk's keys through the disk layer's parser, in its order (the
 * source first), then the keys together; its errors named by the plan's
 * place and key.
 */
static int describe(struct xvbd_plan_err *e, yajl_val obj, struct xvbd_apply_disk *d)
{
	struct xvbd_disk_desc *desc = &d->desc;
	struct xvbd_report rep;
	char key[32], word[XVBD_DISK_ARG_MAX];
	size_t k;
	yajl_val v;
	int err;

	xvbd_report_init(&rep, NULL, NULL);
	xvbd_disk_desc_init(desc, XVBD_DISK_WORDS_KEYS,
			    XVBD_DISK_SOURCE(XVBD_DISK_FILE) |
			    XVBD_DISK_SOURCE(XVBD_DISK_PHY) |
			    XVBD_DISK_SOURCE(XVBD_DISK_SHARE));
	for (k = 0; xvbd_disk_keys[k]; k++) {
		plan_key(xvbd_disk_keys[k], key, sizeof(key));
		v = xvbd_plan_member(obj, key);
		if (!v)
			continue;
		err = json_word(e, d->where, key, v, word, sizeof(word));
		if (err)
			return err;
		if (xvbd_disk_desc_set(desc, key, word, &rep))
			goto refused;
	}
	if (!xvbd_disk_desc_check(desc, &rep))
		return 0;
refused:
	if (!rep.has_what)
		return xvbd_plan_fail(e, d->where, NULL, "%s", rep.why);
	plan_key(rep.what, key, sizeof(key));
	return xvbd_plan_fail(e, d->where, key, "%s", rep.why);
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
	static const char list[] = "vdev, file, phy, share, credentials, "
		"share_opts, size, prealloc, access, cache, ring_order, "
		"queues, indirect_segments, discard, trusted";
	int err;

	snprintf(d->where, sizeof(d->where), "disks[%u]", (unsigned)idx);
	if (!YAJL_IS_OBJECT(obj))
		return xvbd_plan_fail(e, d->where, NULL, "an object {\"vdev\": ..., "
			    "\"file\": ...}");
	err = xvbd_plan_check_keys(e, d->where, obj, known_disk_key, list);
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
	err = describe(e, obj, d);
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
