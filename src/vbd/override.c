/*
 * override.c - per-VBD overrides: parse, validate, plan, verify, and the
 * guest-side helpers (ring memory cost, xen_blkfront.* limits, the xl
 * config line).  Pure: no xenstore, no sysfs, no libxl.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/optval.h"
#include "xvbd/vbd/override.h"

#define B	XVBD_DIR_BACKEND
#define F	XVBD_DIR_FRONTEND

const struct xvbd_ovr_key xvbd_ovr_keys[XVBD_OVR_NKEYS] = {
	[XVBD_OVR_RING_ORDER] = {
		XVBD_OVR_RING_ORDER, "ring-order", "max-ring-page-order", B,
		XVBD_OVR_NEGOTIATED, "max_ring_page_order",
		"max_ring_page_order", 0,
		"blkfront, when the backend reaches InitWait", NULL },
	[XVBD_OVR_QUEUES] = {
		XVBD_OVR_QUEUES, "queues", "multi-queue-max-queues", B,
		XVBD_OVR_NEGOTIATED, "max_queues", "max_queues", 4,
		"blkfront, when the backend reaches InitWait", NULL },
	[XVBD_OVR_INDIRECT] = {
		XVBD_OVR_INDIRECT, "indirect-segments",
		"feature-max-indirect-segments", B, XVBD_OVR_NEGOTIATED,
		NULL, "max_indirect_segments", 32,
		"blkfront, at connect", NULL },
	[XVBD_OVR_DISCARD] = {
		XVBD_OVR_DISCARD, "discard", "discard-enable", B,
		XVBD_OVR_TOOLSTACK, NULL, NULL, 0,
		"blkback, at connect (feature-discard)", NULL },
	[XVBD_OVR_TRUSTED] = {
		XVBD_OVR_TRUSTED, "trusted", "trusted", F, XVBD_OVR_TOOLSTACK,
		NULL, NULL, 0, "blkfront, at connect", NULL },
	[XVBD_OVR_DIRECT_IO_SAFE] = {
		XVBD_OVR_DIRECT_IO_SAFE, "direct-io-safe", "direct-io-safe", B,
		XVBD_OVR_TOOLSTACK, NULL, NULL, 0,
		"qdisk (QEMU) when it opens the image; blkback ignores it",
		NULL },
	[XVBD_OVR_PERSISTENT] = {
		XVBD_OVR_PERSISTENT, "persistent", "feature-persistent", B,
		XVBD_OVR_REFUSED, "feature_persistent", NULL, 0,
		"blkfront, at connect",
		"blkback rewrites feature-persistent at connect from its "
		"module parameter: persistent grants are dom0-wide only "
		"(xvbd defaults feature_persistent=N)" },
};

const struct xvbd_ovr_key *xvbd_ovr_key_find(const char *name)
{
	size_t i;

	for (i = 0; i < XVBD_OVR_NKEYS; i++)
		if (!strcmp(xvbd_ovr_keys[i].name, name) ||
		    !strcmp(xvbd_ovr_keys[i].xs_key, name))
			return &xvbd_ovr_keys[i];
	return NULL;
}

/* The blkif table row: type and the model's range. */
static const struct xvbd_blkif_key *row_of(const struct xvbd_ovr_key *k)
{
	return xvbd_blkif_key_find(k->dir, k->xs_key);
}

int xvbd_override_set_init(struct xvbd_ovr_set *set, const char *vdev,
			   char *why, size_t len)
{
	memset(set, 0, sizeof(*set));
	if (strlen(vdev) >= sizeof(set->vdev) ||
	    xvbd_vdev_parse(vdev, &set->devid)) {
		snprintf(why, len, "\"%.40s\": not a virtual device name",
			 vdev);
		return -EINVAL;
	}
	snprintf(set->vdev, sizeof(set->vdev), "%s", vdev);
	return 0;
}

const struct xvbd_ovr *xvbd_override_get(const struct xvbd_ovr_set *set,
					 enum xvbd_ovr_id id)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->items[i].key->id == id)
			return &set->items[i];
	return NULL;
}

bool xvbd_override_has(const struct xvbd_ovr_set *set,
		       enum xvbd_ovr_class cls)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->items[i].key->cls == cls)
			return true;
	return false;
}

int xvbd_override_parse_kv(struct xvbd_ovr_set *set, const char *kv,
			   char *why, size_t len)
{
	const struct xvbd_blkif_key *row;
	const struct xvbd_ovr_key *key;
	const char *eq = strchr(kv, '=');
	char name[48];
	uint64_t v;
	int rc;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(name)) {
		snprintf(why, len, "\"%.60s\": expected key=value", kv);
		return -EINVAL;
	}
	memcpy(name, kv, (size_t)(eq - kv));
	name[eq - kv] = '\0';
	key = xvbd_ovr_key_find(name);
	if (!key) {
		snprintf(why, len, "unknown key \"%.40s\" (known: ring-order, "
			 "queues, indirect-segments, discard, trusted, "
			 "direct-io-safe)", name);
		return -EINVAL;
	}
	if (key->cls == XVBD_OVR_REFUSED) {
		snprintf(why, len, "%s cannot be set per device: %s",
			 key->name, key->refused_why);
		return -EINVAL;
	}
	if (xvbd_override_get(set, key->id)) {
		snprintf(why, len, "%s given twice for %s", key->name,
			 set->vdev);
		return -EINVAL;
	}
	row = row_of(key);
	if (!row) {
		snprintf(why, len, "%s: not in the blkif table", key->xs_key);
		return -EINVAL;
	}
	if (row->type == XVBD_KT_BOOL) {
		bool b;
		char bwhy[XVBD_OPTVAL_WHY_MAX];

		/* on|off|yes|no|true|false|1|0: the one grammar */
		if (xvbd_optval_bool(eq + 1, &b, bwhy, sizeof(bwhy))) {
			snprintf(why, len, "%s=%.24s: %s", key->name, eq + 1,
				 bwhy);
			return -EINVAL;
		}
		v = b;
		rc = 0;
	} else {
		rc = xvbd_parse_uint(eq + 1, UINT64_MAX, &v);
	}
	if (rc || v < row->min || v > row->max) {
		snprintf(why, len, "%s=%.24s: expected a number %" PRIu64 "..%"
			 PRIu64 " (blkif %s)", key->name, eq + 1, row->min,
			 row->max, key->xs_key);
		return -EINVAL;
	}
	set->items[set->n].key = key;
	set->items[set->n].value = v;
	set->items[set->n].before.known = false;
	set->n++;
	return 0;
}

int xvbd_override_parse_vbd(struct xvbd_ovr_set *set, const char *spec,
			    char *why, size_t len)
{
	const char *colon = strchr(spec, ':'), *p;
	char vdev[XVBD_OVR_VDEV_LEN], item[96];
	size_t n;
	int rc;

	if (!colon || colon == spec || !colon[1]) {
		snprintf(why, len, "\"%.60s\": expected VDEV:key=value"
			 "[,key=value]...", spec);
		return -EINVAL;
	}
	n = (size_t)(colon - spec);
	if (n >= sizeof(vdev)) {
		snprintf(why, len, "\"%.40s...\": not a virtual device name",
			 spec);
		return -EINVAL;
	}
	memcpy(vdev, spec, n);
	vdev[n] = '\0';
	rc = xvbd_override_set_init(set, vdev, why, len);
	if (rc)
		return rc;
	for (p = colon + 1; ; p += n + 1) {
		n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(item)) {
			snprintf(why, len, "\"%.60s\": empty or overlong item",
				 spec);
			return -EINVAL;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		rc = xvbd_override_parse_kv(set, item, why, len);
		if (rc)
			return rc;
		if (!p[n])
			break;
	}
	return 0;
}

void xvbd_override_cap(struct xvbd_ovr_caps *caps, enum xvbd_ovr_id id,
		       uint64_t max, const char *source)
{
	struct xvbd_ovr_cap *c = &caps->cap[id];

	if (c->known && c->max <= max)
		return;
	c->known = true;
	c->max = max;
	snprintf(c->source, sizeof(c->source), "%s", source);
}

void xvbd_override_caps_blkback_model(struct xvbd_ovr_caps *caps)
{
	/* drivers/block/xen-blkback/common.h: MAX_INDIRECT_SEGMENTS */
	xvbd_override_cap(caps, XVBD_OVR_INDIRECT,
			  XVBD_BLKBACK_INDIRECT_SEGMENTS,
			  "Linux blkback's fixed offer");
}

void xvbd_override_caps_backend(struct xvbd_ovr_caps *caps,
				const struct xvbd_kvmap *backend)
{
	static const enum xvbd_ovr_id ids[] = {
		XVBD_OVR_RING_ORDER, XVBD_OVR_QUEUES, XVBD_OVR_INDIRECT,
	};
	char source[64];
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct xvbd_ovr_key *k = &xvbd_ovr_keys[ids[i]];
		const char *v = xvbd_kvmap_get(backend, k->xs_key);
		uint64_t n;

		/* An absent key is the protocol's default (blkif.h). */
		if (!v)
			v = row_of(k) ? row_of(k)->default_value : NULL;
		if (!v || xvbd_parse_uint(v, UINT32_MAX, &n))
			continue;
		snprintf(source, sizeof(source), "backend %s", k->xs_key);
		xvbd_override_cap(caps, ids[i], n, source);
	}
}

int xvbd_override_validate(const struct xvbd_ovr_set *set,
			   const struct xvbd_ovr_caps *caps, char *why,
			   size_t len)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct xvbd_ovr *o = &set->items[i];
		const struct xvbd_ovr_cap *c = &caps->cap[o->key->id];

		if (o->key->cls == XVBD_OVR_REFUSED) {
			snprintf(why, len, "%s: %s: %s", set->vdev,
				 o->key->name, o->key->refused_why);
			return -EINVAL;
		}
		if (o->key->cls != XVBD_OVR_NEGOTIATED || !c->known)
			continue;
		if (o->value > c->max) {
			snprintf(why, len, "%s: %s=%" PRIu64 " is above what "
				 "the backend offers (%" PRIu64 ", %s): an "
				 "override can only lower it", set->vdev,
				 o->key->name, o->value, c->max, c->source);
			return -ERANGE;
		}
	}
	return 0;
}

char *xvbd_override_join(const char *dir, const char *key)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, key) < 0)
		return NULL;
	return path;
}

int xvbd_override_plan(struct xvbd_ovr_plan *plan,
		       const struct xvbd_ovr_set *set,
		       const char *backend_path, const char *frontend_path)
{
	struct xvbd_ovr_write *grown;
	size_t i;

	grown = realloc(plan->w, (plan->n + set->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	plan->w = grown;
	for (i = 0; i < set->n; i++) {
		const struct xvbd_ovr *o = &set->items[i];
		struct xvbd_ovr_write *w = &plan->w[plan->n];
		const char *dir = o->key->dir == XVBD_DIR_BACKEND ?
				  backend_path : frontend_path;

		memset(w, 0, sizeof(*w));
		w->key = o->key;
		snprintf(w->vdev, sizeof(w->vdev), "%s", set->vdev);
		snprintf(w->value, sizeof(w->value), "%" PRIu64, o->value);
		w->path = xvbd_override_join(dir, o->key->xs_key);
		if (!w->path)
			return -ENOMEM;
		plan->n++;
	}
	return 0;
}

void xvbd_override_plan_free(struct xvbd_ovr_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		free(plan->w[i].path);
	free(plan->w);
	plan->w = NULL;
	plan->n = 0;
}

void xvbd_override_plan_render(struct xvbd_out *o,
			       const struct xvbd_ovr_plan *plan)
{
	size_t i;

	xvbd_out_arr_begin(o, "writes");
	for (i = 0; i < plan->n; i++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "vdev", plan->w[i].vdev);
		xvbd_out_str(o, "path", plan->w[i].path);
		xvbd_out_str(o, "value", plan->w[i].value);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

/* ---- verification ---- */

static struct xvbd_opt opt_of(const char *v, uint64_t max)
{
	struct xvbd_opt o = { 0 };

	if (v && !xvbd_parse_uint(v, max, &o.v))
		o.known = true;
	return o;
}

static bool has_rings(const struct xvbd_kvmap *fe)
{
	return xvbd_kvmap_get(fe, "ring-ref") ||
	       xvbd_kvmap_get(fe, "ring-ref0") ||
	       xvbd_kvmap_get(fe, "queue-0/ring-ref") ||
	       xvbd_kvmap_get(fe, "queue-0/ring-ref0");
}

/* The frontend's choice for a negotiated key, as blkif.h spells it. */
static struct xvbd_opt fe_choice(const struct xvbd_kvmap *fe,
				 enum xvbd_ovr_id id)
{
	struct xvbd_opt o = { 0 };

	if (id == XVBD_OVR_RING_ORDER) {
		o = opt_of(xvbd_kvmap_get(fe, "ring-page-order"), 16);
		/* No ring-page-order beside published rings: one page. */
		if (!o.known && has_rings(fe)) {
			o.known = true;
			o.v = 0;
		}
	} else if (id == XVBD_OVR_QUEUES) {
		o = opt_of(xvbd_kvmap_get(fe, "multi-queue-num-queues"),
			   UINT32_MAX);
		if (!o.known && has_rings(fe)) {
			o.known = true;
			o.v = 1;
		}
	}
	return o;
}

static void verify_negotiated(const struct xvbd_ovr *o,
			      const struct xvbd_kvmap *fe,
			      struct xvbd_ovr_result *r)
{
	const struct xvbd_ovr_key *k = o->key;

	if (!r->now.known || r->now.v != o->value) {
		r->status = XVBD_OVR_NOT_APPLIED;
		snprintf(r->why, sizeof(r->why), "backend %s is %s now, "
			 "not %" PRIu64 " (rewritten by the backend?)",
			 k->xs_key, r->now.known ? "different" : "absent",
			 o->value);
		return;
	}
	if (k->id == XVBD_OVR_INDIRECT) {
		r->status = XVBD_OVR_APPLIED;
		snprintf(r->why, sizeof(r->why), "offered %" PRIu64 "; "
			 "blkfront does not publish its choice: the guest's "
			 "queue/max_segments shows it (min with xen_blkfront."
			 "%s)", o->value, k->guest_param);
		return;
	}
	r->choice = fe_choice(fe, k->id);
	if (!r->choice.known) {
		r->status = XVBD_OVR_NOT_APPLIED;
		snprintf(r->why, sizeof(r->why), "the frontend published no "
			 "ring: its choice is unknown");
	} else if (r->choice.v > o->value) {
		r->status = XVBD_OVR_NOT_APPLIED;
		snprintf(r->why, sizeof(r->why), "the frontend chose %"
			 PRIu64 ": it read %s before the override", r->choice.v,
			 k->xs_key);
	} else if (r->choice.v < o->value) {
		r->status = XVBD_OVR_APPLIED;
		snprintf(r->why, sizeof(r->why), "the frontend chose %"
			 PRIu64 ", below the offer: its own limit "
			 "(xen_blkfront.%s%s) is lower", r->choice.v,
			 k->guest_param, k->id == XVBD_OVR_QUEUES ?
			 " or vCPUs" : "");
	} else {
		r->status = XVBD_OVR_APPLIED;
	}
}

static void verify_toolstack(const struct xvbd_ovr *o,
			     const struct xvbd_kvmap *be,
			     struct xvbd_ovr_result *r)
{
	const char *fd;

	if (!r->now.known || r->now.v != o->value) {
		r->status = XVBD_OVR_NOT_APPLIED;
		snprintf(r->why, sizeof(r->why), "%s is %s now, not %" PRIu64,
			 o->key->xs_key, r->now.known ? "different" : "absent",
			 o->value);
		return;
	}
	r->status = XVBD_OVR_APPLIED;
	if (o->key->id != XVBD_OVR_DISCARD) {
		if (o->key->id == XVBD_OVR_DIRECT_IO_SAFE)
			snprintf(r->why, sizeof(r->why), "read by %s",
				 o->key->read_by);
		return;
	}
	/* blkback offers feature-discard only if discard-enable allows. */
	fd = xvbd_kvmap_get(be, "feature-discard");
	r->choice = opt_of(fd, 1);
	if (o->value == 0 && r->choice.known && r->choice.v == 1) {
		r->status = XVBD_OVR_NOT_APPLIED;
		snprintf(r->why, sizeof(r->why), "the backend offers "
			 "feature-discard=1: discard-enable was not read "
			 "before connect");
	} else if (o->value == 1 && !(r->choice.known && r->choice.v)) {
		snprintf(r->why, sizeof(r->why), "no feature-discard: the "
			 "backing device cannot discard");
	}
}

size_t xvbd_override_verify(const struct xvbd_ovr_set *set,
			    const struct xvbd_kvmap *backend,
			    const struct xvbd_kvmap *frontend,
			    struct xvbd_ovr_result *res)
{
	size_t i, failed = 0;

	for (i = 0; i < set->n; i++) {
		const struct xvbd_ovr *o = &set->items[i];
		struct xvbd_ovr_result *r = &res[i];
		const struct xvbd_kvmap *dir = o->key->dir == XVBD_DIR_BACKEND ?
					       backend : frontend;

		memset(r, 0, sizeof(*r));
		r->key = o->key;
		r->value = o->value;
		r->before = o->before;
		r->now = opt_of(xvbd_kvmap_get(dir, o->key->xs_key),
				UINT32_MAX);
		if (o->key->cls == XVBD_OVR_NEGOTIATED)
			verify_negotiated(o, frontend, r);
		else
			verify_toolstack(o, backend, r);
		if (r->status == XVBD_OVR_NOT_APPLIED)
			failed++;
	}
	return failed;
}

const char *xvbd_override_status_name(enum xvbd_ovr_status status)
{
	switch (status) {
	case XVBD_OVR_APPLIED:
		return "applied";
	case XVBD_OVR_NOT_APPLIED:
		return "not applied";
	case XVBD_OVR_WRITTEN:
		return "written";
	}
	return "?";
}

void xvbd_override_result_render(struct xvbd_out *o, const char *vdev,
				 const struct xvbd_ovr_result *r)
{
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "vdev", vdev);
	xvbd_out_str(o, "key", r->key->name);
	xvbd_out_str(o, "xs_key", r->key->xs_key);
	xvbd_out_uint(o, "value", r->value);
	xvbd_out_uint_opt(o, "before", r->before.known, r->before.v);
	xvbd_out_uint_opt(o, "chosen", r->choice.known, r->choice.v);
	xvbd_out_str(o, "result", xvbd_override_status_name(r->status));
	xvbd_out_str(o, "why", r->why[0] ? r->why : NULL);
	xvbd_out_obj_end(o);
}

/* ---- guest side ---- */

void xvbd_override_ring_cost(unsigned order, uint64_t rings,
			     uint64_t segments, struct xvbd_ovr_cost *cost)
{
	/* BLKIF_MAX_SEGMENTS_PER_REQUEST; 512 segments per indirect page */
	uint64_t segs = segments > 11 ? segments : 11;
	uint64_t indirect = segments > 11 ? (segments + 511) / 512 : 0;

	if (order > 4)
		order = 4;
	cost->rings = rings;
	cost->requests_per_ring = 32ull << order;
	cost->pages_per_request = segs + indirect;
	cost->bytes = rings * cost->requests_per_ring *
		      cost->pages_per_request * 4096;
}

void xvbd_override_guest_limits(const char *cmdline,
				struct xvbd_guest_limits *gl)
{
	static const char prefix[] = "xen_blkfront.";
	const char *p = cmdline;
	size_t i;

	memset(gl, 0, sizeof(*gl));
	while (p && *p) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (n > sizeof(prefix) - 1 &&
		    !strncmp(p, prefix, sizeof(prefix) - 1)) {
			const char *name = p + sizeof(prefix) - 1;

			for (i = 0; i < XVBD_OVR_NKEYS; i++) {
				const char *gp = xvbd_ovr_keys[i].guest_param;
				size_t gl_len = gp ? strlen(gp) : 0;
				char val[24];
				size_t vlen;

				if (!gp || strncmp(name, gp, gl_len) ||
				    name[gl_len] != '=')
					continue;
				vlen = n - (size_t)(name + gl_len + 1 - p);
				if (vlen >= sizeof(val))
					continue;
				memcpy(val, name + gl_len + 1, vlen);
				val[vlen] = '\0';
				/* the kernel takes the last one */
				gl->v[i] = opt_of(val, UINT32_MAX);
			}
		}
		p += n;
	}
}

uint64_t xvbd_override_guest_limit(const struct xvbd_guest_limits *gl,
				   enum xvbd_ovr_id id)
{
	if (gl && gl->v[id].known)
		return gl->v[id].v;
	return xvbd_ovr_keys[id].guest_default;
}

/* Is p..p+n the token "xen_blkfront.<param>=..." for a key we set? */
static bool token_replaced(const char *p, size_t n, const bool *setting)
{
	static const char prefix[] = "xen_blkfront.";
	size_t i;

	if (n <= sizeof(prefix) - 1 || strncmp(p, prefix, sizeof(prefix) - 1))
		return false;
	p += sizeof(prefix) - 1;
	for (i = 0; i < XVBD_OVR_NKEYS; i++) {
		const char *gp = xvbd_ovr_keys[i].guest_param;

		if (setting[i] && gp && !strncmp(p, gp, strlen(gp)) &&
		    p[strlen(gp)] == '=')
			return true;
	}
	return false;
}

int xvbd_override_guest_cmdline(const char *cmdline,
				const struct xvbd_ovr_set *sets, size_t nsets,
				char **out, char *why, size_t len)
{
	uint64_t want[XVBD_OVR_NKEYS] = { 0 };
	bool setting[XVBD_OVR_NKEYS] = { false };
	struct xvbd_guest_limits gl;
	const char *p = cmdline ? cmdline : "";
	size_t i, j, cap;
	char *buf, *q;

	for (i = 0; p[i]; i++)
		if (p[i] == '"' || p[i] == '\\' || p[i] == '\'' ||
		    !isprint((unsigned char)p[i])) {
			snprintf(why, len, "the kernel command line has quotes"
				 ", backslashes or control characters: edit "
				 "it by hand");
			return -EINVAL;
		}
	for (i = 0; i < nsets; i++)
		for (j = 0; j < sets[i].n; j++) {
			const struct xvbd_ovr *o = &sets[i].items[j];
			enum xvbd_ovr_id id = o->key->id;

			if (o->key->cls != XVBD_OVR_NEGOTIATED ||
			    !o->key->guest_param)
				continue;
			if (!setting[id] || o->value > want[id])
				want[id] = o->value;
			setting[id] = true;
		}
	/* Only raise: a guest that already allows the value keeps its own. */
	xvbd_override_guest_limits(p, &gl);
	for (i = 0; i < XVBD_OVR_NKEYS; i++)
		if (setting[i] && want[i] <= xvbd_override_guest_limit(&gl, i))
			setting[i] = false;
	cap = strlen(p) + 1 + XVBD_OVR_NKEYS * 64;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	q = buf;
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (n && !token_replaced(p, n, setting)) {
			if (q != buf)
				*q++ = ' ';
			memcpy(q, p, n);
			q += n;
		}
		p += n;
	}
	for (i = 0; i < XVBD_OVR_NKEYS; i++) {
		if (!setting[i])
			continue;
		q += sprintf(q, "%sxen_blkfront.%s=%" PRIu64,
			     q != buf ? " " : "", xvbd_ovr_keys[i].guest_param,
			     want[i]);
	}
	*q = '\0';
	*out = buf;
	return 0;
}

/* ---- xl config text ---- */

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * Does the line start (after blanks) with "key" then blanks and '='?
 * *value_at points past the '=' and following blanks.
 */
static bool line_assigns(const char *line, const char *end, const char *key,
			 const char **value_at)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) <= klen || strncmp(p, key, klen) ||
	    is_ident(p[klen]))
		return false;
	p += klen;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != '=')
		return false;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*value_at = p;
	return true;
}

int xvbd_cfgtext_set_string(const char *text, const char *key,
			    const char *value, char **out, char *why,
			    size_t len)
{
	const char *line, *last_val = NULL, *str_end = NULL, *p;
	size_t tlen = strlen(text), vlen = strlen(value), i;
	unsigned lineno = 0, last_line = 0;
	char quote, *buf;

	for (i = 0; i < vlen; i++)
		if (value[i] == '"' || value[i] == '\\' ||
		    !isprint((unsigned char)value[i])) {
			snprintf(why, len, "new %s has quotes, backslashes or "
				 "control characters", key);
			return -EINVAL;
		}
	for (line = text; *line; ) {
		const char *eol = strchr(line, '\n');
		const char *v;

		if (!eol)
			eol = text + tlen;
		lineno++;
		if (line_assigns(line, eol, key, &v)) {
			last_val = v;
			last_line = lineno;
		}
		line = *eol ? eol + 1 : eol;
	}
	if (last_val) {
		/* One plain string literal, then blanks, ';' or a comment. */
		const char *eol = strchr(last_val, '\n');

		if (!eol)
			eol = text + tlen;
		quote = *last_val;
		if (quote == '"' || quote == '\'') {
			for (p = last_val + 1; p < eol && *p != quote &&
			     *p != '\\'; p++)
				;
			if (p < eol && *p == quote)
				str_end = p + 1;
		}
		for (p = str_end; p && p < eol && (*p == ' ' || *p == '\t' ||
						   *p == ';'); p++)
			;
		if (!str_end || (p < eol && *p != '#')) {
			snprintf(why, len, "%s= on line %u is not one plain "
				 "string: edit it by hand", key, last_line);
			return -EINVAL;
		}
	}
	buf = malloc(tlen + strlen(key) + vlen + 16);
	if (!buf)
		return -ENOMEM;
	if (last_val) {
		size_t head = (size_t)(last_val - text);

		memcpy(buf, text, head);
		sprintf(buf + head, "\"%s\"%s", value, str_end);
	} else {
		sprintf(buf, "%s%s%s = \"%s\"\n", text,
			tlen && text[tlen - 1] != '\n' ? "\n" : "", key,
			value);
	}
	*out = buf;
	return 0;
}
