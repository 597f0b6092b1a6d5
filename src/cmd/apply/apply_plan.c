/*
 * apply_plan.c - xvbd apply's plan: JSON in, checked with the grammar
 * attach and tune use (see xvbd/cmd/apply_plan.h).  Each value goes
 * through the same parser as the command-line option it stands for, so
 * a plan accepts exactly what `xvbd attach` accepts, with the same words
 * in its errors, prefixed by the place in the plan.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "xvbd/base/jsonpath.h"
#include "xvbd/base/optval.h"
#include "xvbd/base/util.h"
#include "xvbd/dom0/image.h"
#include "xvbd/cmd/apply_plan.h"
#include "xvbd/disk/disk.h"
#include "xvbd/xen/blkif.h"

struct perr {
	char *buf;
	size_t len;
};

static int fail(struct perr *e, const char *where, const char *key,
		const char *fmt, ...) XVBD_PRINTF(4, 5);

/* "disks[1].ring_order: why" (key NULL: the place alone). */
static int fail(struct perr *e, const char *where, const char *key,
		const char *fmt, ...)
{
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(e->buf, e->len, "%s%s%s: %s", where, key ? "." : "",
		 key ? key : "", why);
	return -EINVAL;
}

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

/* An object's keys: each known and given once. */
static int check_keys(struct perr *e, const char *where, yajl_val obj,
		      bool (*known)(const char *), const char *list)
{
	size_t i, k;

	for (i = 0; i < obj->u.object.len; i++) {
		const char *key = obj->u.object.keys[i];

		if (!known(key))
			return fail(e, where, key, "unknown key (known: %s)",
				    list);
		for (k = 0; k < i; k++)
			if (!strcmp(obj->u.object.keys[k], key))
				return fail(e, where, key, "given twice");
	}
	return 0;
}

/* A string value into buf (NULL v: absent, buf untouched). */
static int get_str(struct perr *e, const char *where, const char *key,
		   yajl_val v, char *buf, size_t len)
{
	if (!v)
		return 0;
	if (!YAJL_IS_STRING(v))
		return fail(e, where, key, "a string, not %s",
			    YAJL_IS_NUMBER(v) ? "a number" :
			    YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v) ? "a boolean" :
			    "null, an array or an object");
	if (strlen(v->u.string) >= len)
		return fail(e, where, key, "longer than %zu bytes", len - 1);
	snprintf(buf, len, "%s", v->u.string);
	return 0;
}

/* A number or a string, as text for the option parser it stands for. */
static int get_word(struct perr *e, const char *where, const char *key,
		    yajl_val v, char *buf, size_t len)
{
	if (YAJL_IS_NUMBER(v)) {
		if (strlen(v->u.number.r) >= len)
			return fail(e, where, key, "\"%.24s...\": too long",
				    v->u.number.r);
		snprintf(buf, len, "%s", v->u.number.r);
		return 0;
	}
	return get_str(e, where, key, v, buf, len);
}

/* JSON's true/false, or a string in the one boolean grammar ("on"). */
static int get_onoff(struct perr *e, const char *where, const char *key,
		     yajl_val v, bool *out)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		*out = YAJL_IS_TRUE(v);
		return 0;
	}
	if (!YAJL_IS_STRING(v))
		return fail(e, where, key, "true or false (or a string such "
			    "as \"on\")");
	if (!xvbd_optval_bool(v->u.string, out, why, sizeof(why)))
		return 0;
	return fail(e, where, key, "\"%.24s\": %s", v->u.string, why);
}

static yajl_val member(yajl_val obj, const char *key)
{
	size_t i;

	for (i = 0; i < obj->u.object.len; i++)
		if (!strcmp(obj->u.object.keys[i], key))
			return obj->u.object.values[i];
	return NULL;
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
static int json_word(struct perr *e, const char *where, const char *key,
		     yajl_val v, char *buf, size_t len)
{
	bool on = false;
	int err;

	if (!strcmp(key, "prealloc") || offer_kind(key) == 1) {
		err = get_onoff(e, where, key, v, &on);
		snprintf(buf, len, "%s", on ? "on" : "off");
		return err;
	}
	if (!strcmp(key, "size") || offer_kind(key) == 0)
		return get_word(e, where, key, v, buf, len);
	return get_str(e, where, key, v, buf, len);
}

/*
 * The disk's keys through the disk layer's parser, in its order (the
 * source first), then the keys together; its errors named by the plan's
 * place and key.
 */
static int describe(struct perr *e, yajl_val obj, struct xvbd_apply_disk *d)
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
		v = member(obj, key);
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
		return fail(e, d->where, NULL, "%s", rep.why);
	plan_key(rep.what, key, sizeof(key));
	return fail(e, d->where, key, "%s", rep.why);
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

static int parse_disk(struct perr *e, yajl_val obj, size_t idx,
		      struct xvbd_apply_disk *d)
{
	static const char list[] = "vdev, file, phy, share, credentials, "
		"share_opts, size, prealloc, access, cache, ring_order, "
		"queues, indirect_segments, discard, trusted";
	int err;

	snprintf(d->where, sizeof(d->where), "disks[%u]", (unsigned)idx);
	if (!YAJL_IS_OBJECT(obj))
		return fail(e, d->where, NULL, "an object {\"vdev\": ..., "
			    "\"file\": ...}");
	err = check_keys(e, d->where, obj, known_disk_key, list);
	if (err)
		return err;
	if (!member(obj, "vdev"))
		return fail(e, d->where, "vdev", "missing: apply finds a disk "
			    "again by its vdev (\"xvdb\")");
	err = get_str(e, d->where, "vdev", member(obj, "vdev"), d->vdev,
		      sizeof(d->vdev));
	if (err)
		return err;
	if (!strcmp(d->vdev, "auto"))
		return fail(e, d->where, "vdev", "\"auto\": not a virtual "
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
static int check_twice(struct perr *e, const struct xvbd_apply_plan *p)
{
	size_t i, k;

	for (i = 0; i < p->n; i++)
		for (k = 0; k < i; k++) {
			if (p->disks[k].devid == p->disks[i].devid)
				return fail(e, p->disks[i].where, "vdev",
					    "%s given twice (also %s)",
					    p->disks[i].vdev,
					    p->disks[k].where);
			if (!strcmp(p->disks[k].target, p->disks[i].target))
				return fail(e, p->disks[i].where, NULL,
					    "target %s given twice (also %s)",
					    p->disks[i].target,
					    p->disks[k].where);
		}
	return 0;
}

static int parse_root(struct perr *e, yajl_val root,
		      struct xvbd_apply_plan *p)
{
	yajl_val guest, disks;
	size_t i;
	int err;

	if (!YAJL_IS_OBJECT(root))
		return fail(e, "plan", NULL, "an object {\"guest\": ..., "
			    "\"disks\": [...]}");
	err = check_keys(e, "plan", root, known_top_key, "guest, disks");
	if (err)
		return err;
	guest = member(root, "guest");
	if (!guest)
		return fail(e, "guest", NULL, "missing: the domain's name or "
			    "id");
	err = get_word(e, "guest", NULL, guest, p->guest, sizeof(p->guest));
	if (err)
		return err;
	if (!p->guest[0])
		return fail(e, "guest", NULL, "empty");
	disks = member(root, "disks");
	if (!disks || !YAJL_IS_ARRAY(disks))
		return fail(e, "disks", NULL, "%s: an array of disks",
			    disks ? "not an array" : "missing");
	if (disks->u.array.len > XVBD_APPLY_DISKS_MAX)
		return fail(e, "disks", NULL, "%zu disks: at most %d",
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
	struct perr e = { why, why_len };
	char errbuf[256], *copy, *nl;
	yajl_val root;
	int err;

	memset(plan, 0, sizeof(*plan));
	if (len > XVBD_APPLY_PLAN_MAX) {
		snprintf(why, why_len, "plan: larger than %d KiB",
			 XVBD_APPLY_PLAN_MAX >> 10);
		return -EFBIG;
	}
	if (memchr(text, '\0', len))
		return fail(&e, "plan", NULL, "not JSON text (a NUL byte)");
	if (xvbd_json_depth(text, len, XVBD_APPLY_DEPTH_MAX) >
	    XVBD_APPLY_DEPTH_MAX)
		return fail(&e, "plan", NULL, "nested deeper than a plan");
	/* yajl_tree keeps C strings: one cut at a \u0000 is another value. */
	err = xvbd_json_strings_whole(text, len, "plan", why, why_len);
	if (err)
		return err;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	errbuf[0] = '\0';
	root = yajl_tree_parse(copy, errbuf, sizeof(errbuf));
	free(copy);
	if (!root) {
		/* yajl's message spans lines (a caret under the spot). */
		nl = strchr(errbuf, '\n');
		if (nl)
			*nl = '\0';
		return fail(&e, "plan", NULL, "not valid JSON (%s)",
			    errbuf[0] ? errbuf : "parse error");
	}
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
