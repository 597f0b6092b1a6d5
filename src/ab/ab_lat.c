/*
 * ab_lat.c - a run's latency distributions in its record (ab_lat.h):
 * the model, and its JSON out and in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/ab/ab_record_impl.h"
#include "ab_json_impl.h"

#define err_set xvbd_ab_err_set

struct xvbd_ab_lat *xvbd_ab_lat_new(size_t n)
{
	struct xvbd_ab_lat *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->vbds = calloc(n ? n : 1, sizeof(*l->vbds));
	if (!l->vbds) {
		free(l);
		return NULL;
	}
	l->n = n;
	return l;
}

void xvbd_ab_lat_free(struct xvbd_ab_lat *l)
{
	size_t i, k, d;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		for (k = 0; k < XVBD_LAT_NKINDS; k++)
			for (d = 0; d < XVBD_LAT_NDIRS; d++)
				xvbd_lathist_free(&l->vbds[i].h[k][d]);
	free(l->vbds);
	free(l);
}

int xvbd_ab_lat_add(struct xvbd_ab_lat *l, size_t i,
		    const struct xvbd_lat_result *r)
{
	struct xvbd_ab_lat_vbd *v;
	size_t k, d;

	if (i >= l->n)
		return -EINVAL;
	v = &l->vbds[i];
	for (k = 0; k < XVBD_LAT_NKINDS; k++)
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			if (xvbd_lathist_merge(&v->h[k][d], &r->h[k][d]))
				return -ENOMEM;
	v->backwards += r->backwards;
	if (v->state == XVBD_LAT_OK && r->state != XVBD_LAT_OK)
		v->state = r->state;
	return 0;
}

int xvbd_ab_lat_merged(const struct xvbd_ab_lat *l, enum xvbd_lat_kind k,
		       enum xvbd_lat_dir d, struct xvbd_lathist *h)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (xvbd_lathist_merge(h, &l->vbds[i].h[k][d]))
			return -ENOMEM;
	return 0;
}

bool xvbd_ab_lat_complete(const struct xvbd_ab_lat *l)
{
	size_t i;

	if (!l)
		return false;
	for (i = 0; i < l->n; i++)
		if (l->vbds[i].state != XVBD_LAT_OK)
			return false;
	return true;
}

/* ---- JSON out ---- */




static yajl_gen_status gen_hist(yajl_gen g, const struct xvbd_lathist *h)
{
	size_t idx = SIZE_MAX;
	yajl_gen_status st = yajl_gen_map_open(g);

	if (!st)
		st = xvbd_ab_gen_key_u64(g, "count", h->count);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "sum_ns", h->sum_ns);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "max_ns", h->max_ns);
	if (!st)
		st = xvbd_ab_gen_str(g, "buckets");
	if (!st)
		st = yajl_gen_array_open(g);
	while (!st && xvbd_lathist_next(h, &idx)) {
		st = yajl_gen_array_open(g);
		if (!st)
			st = xvbd_ab_gen_u64(g, xvbd_lathist_lower_ns(idx));
		if (!st)
			st = xvbd_ab_gen_u64(g, h->buckets[idx]);
		if (!st)
			st = yajl_gen_array_close(g);
	}
	if (!st)
		st = yajl_gen_array_close(g);
	return st ? st : yajl_gen_map_close(g);
}

static yajl_gen_status gen_vbd(yajl_gen g, const char *vdev,
			       const struct xvbd_ab_lat_vbd *v)
{
	yajl_gen_status st = yajl_gen_map_open(g);
	size_t k, d;

	if (!st)
		st = xvbd_ab_gen_str(g, "vdev");
	if (!st)
		st = xvbd_ab_gen_str(g, vdev);
	if (!st)
		st = xvbd_ab_gen_str(g, "state");
	if (!st)
		st = xvbd_ab_gen_str(g, xvbd_lat_state_name(v->state));
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "backwards", v->backwards);
	for (k = 0; !st && k < XVBD_LAT_NKINDS; k++) {
		st = xvbd_ab_gen_str(g, xvbd_lat_kind_name(k));
		if (!st)
			st = yajl_gen_map_open(g);
		for (d = 0; !st && d < XVBD_LAT_NDIRS; d++) {
			st = xvbd_ab_gen_str(g, xvbd_lat_dir_name(d));
			if (!st)
				st = gen_hist(g, &v->h[k][d]);
		}
		if (!st)
			st = yajl_gen_map_close(g);
	}
	return st ? st : yajl_gen_map_close(g);
}

int xvbd_ab_lat_gen(struct yajl_gen_t *g, const struct xvbd_ab_record *rec)
{
	const struct xvbd_ab_lat *l = rec->lat;
	yajl_gen_status st;
	char err[24];
	size_t i;

	st = xvbd_ab_gen_str(g, "latency");
	if (!st)
		st = yajl_gen_map_open(g);
	if (!st)
		st = xvbd_ab_gen_str(g, "clock");
	if (!st)
		st = xvbd_ab_gen_str(g, XVBD_LAT_CLOCK);
	if (!st)
		st = xvbd_ab_gen_str(g, "relative_error");
	snprintf(err, sizeof(err), "%.6f", XVBD_LH_REL_ERROR);
	if (!st)
		st = yajl_gen_number(g, err, strlen(err));
	if (!st)
		st = xvbd_ab_gen_str(g, "vbds");
	if (!st)
		st = yajl_gen_array_open(g);
	for (i = 0; !st && i < l->n; i++)
		st = gen_vbd(g, rec->vdevs[i], &l->vbds[i]);
	if (!st)
		st = yajl_gen_array_close(g);
	if (!st)
		st = yajl_gen_map_close(g);
	return st ? -EIO : 0;
}

/* ---- JSON in ---- */

static yajl_val get(yajl_val obj, const char *key)
{
	const char *p[] = { key, NULL };

	return yajl_tree_get(obj, p, yajl_t_any);
}

/* A string value, or NULL. */
static bool str_is(yajl_val v, const char *want)
{
	const char *s = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;

	return s && !strcmp(s, want);
}

/* An unsigned number from its own digits (yajl's are long long). */
static int num(yajl_val v, uint64_t *out)
{
	const char *s = YAJL_IS_NUMBER(v) ? YAJL_GET_NUMBER(v) : NULL;

	return s && !xvbd_parse_uint(s, UINT64_MAX, out) ? 0 : -EINVAL;
}

/* Exactly these keys, nothing else. */
static bool keys_are(yajl_val obj, const char *const *keys, size_t n)
{
	size_t i, j;

	if (!YAJL_IS_OBJECT(obj) || obj->u.object.len != n)
		return false;
	for (i = 0; i < n; i++) {
		for (j = 0; j < n && strcmp(obj->u.object.keys[i], keys[j]);
		     j++)
			;
		if (j == n)
			return false;
	}
	return true;
}

static int read_hist(yajl_val v, struct xvbd_lathist *h, size_t *budget,
		     const char *where, struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "count", "sum_ns", "max_ns",
					    "buckets" };
	uint64_t count, sum, max, seen = 0, lower, n;
	unsigned __int128 min_sum = 0, max_sum = 0;
	size_t i, idx, last = 0;
	yajl_val b;

	if (!keys_are(v, keys, 4) || num(get(v, "count"), &count) ||
	    num(get(v, "sum_ns"), &sum) || num(get(v, "max_ns"), &max) ||
	    !YAJL_IS_ARRAY(b = get(v, "buckets"))) {
		err_set(e, "%s: not {count, sum_ns, max_ns, buckets}", where);
		return -EINVAL;
	}
	if (b->u.array.len > *budget) {
		err_set(e, "%s.buckets: more buckets than a record holds",
			where);
		return -EINVAL;
	}
	*budget -= b->u.array.len;
	for (i = 0; i < b->u.array.len; i++) {
		yajl_val pair = b->u.array.values[i];

		if (!YAJL_IS_ARRAY(pair) || pair->u.array.len != 2 ||
		    num(pair->u.array.values[0], &lower) ||
		    num(pair->u.array.values[1], &n) || !n) {
			err_set(e, "%s.buckets[%zu]: not [lower_ns, count > 0]",
				where, i);
			return -EINVAL;
		}
		idx = xvbd_lathist_index(lower);
		if (xvbd_lathist_lower_ns(idx) != lower || (i && idx <= last)) {
			err_set(e, "%s.buckets[%zu]: %" PRIu64 " is no bucket's "
				"lower bound after the one before", where, i,
				lower);
			return -EINVAL;
		}
		last = idx;
		if (seen > UINT64_MAX - n || (lower && n > UINT64_MAX / lower) ||
		    xvbd_lathist_add_counts(h, idx, n, lower * n)) {
			err_set(e, "%s.buckets[%zu]: count too large", where, i);
			return -EINVAL;
		}
		seen += n;
		min_sum += (unsigned __int128)lower * n;
		max_sum += (unsigned __int128)(lower +
					       (xvbd_lathist_width_ns(idx) - 1)) * n;
	}
	/* The counts, the sum and the maximum must be one distribution's
	 * (the sum was taken as the lower bounds': replaced here). */
	h->sum_ns = sum;
	if (seen != count || (count && (sum < min_sum || sum > max_sum ||
					xvbd_lathist_set_max(h, max))) ||
	    (!count && (sum || max))) {
		err_set(e, "%s: count, sum_ns, max_ns and buckets disagree",
			where);
		return -EINVAL;
	}
	return 0;
}

static int read_state(yajl_val v, enum xvbd_lat_state *s)
{
	const char *t = YAJL_GET_STRING(v);
	int i;

	for (i = XVBD_LAT_OK; t && i <= XVBD_LAT_INCOMPLETE; i++) {
		if (!strcmp(t, xvbd_lat_state_name(i))) {
			*s = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int read_vbd(yajl_val v, const char *vdev, size_t i,
		    struct xvbd_ab_lat_vbd *out, size_t *budget,
		    struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "vdev", "state", "backwards",
					    "d2c", "i2c" };
	static const char *const dirs[] = { "read", "write" };
	char where[96];
	size_t k, d;
	int rc;

	if (!keys_are(v, keys, 5) || !str_is(get(v, "vdev"), vdev) ||
	    read_state(get(v, "state"), &out->state) ||
	    num(get(v, "backwards"), &out->backwards)) {
		err_set(e, "latency.vbds[%zu]: not {vdev: \"%s\", state, "
			"backwards, d2c, i2c}", i, vdev);
		return -EINVAL;
	}
	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		yajl_val kv = get(v, xvbd_lat_kind_name(k));

		if (!keys_are(kv, dirs, 2)) {
			err_set(e, "latency.vbds[%zu].%s: not {read, write}",
				i, xvbd_lat_kind_name(k));
			return -EINVAL;
		}
		for (d = 0; d < XVBD_LAT_NDIRS; d++) {
			snprintf(where, sizeof(where), "latency.vbds[%zu].%s.%s",
				 i, xvbd_lat_kind_name(k), dirs[d]);
			rc = read_hist(get(kv, dirs[d]), &out->h[k][d], budget,
				       where, e);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int xvbd_ab_lat_read(const void *val, struct xvbd_ab_record *rec,
		     struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "clock", "relative_error",
					    "vbds" };
	yajl_val v = (yajl_val)val, vbds;
	size_t budget = XVBD_AB_LAT_BUCKETS_MAX, i;
	struct xvbd_ab_lat *l;
	int rc = 0;

	if (!keys_are(v, keys, 3) || !str_is(get(v, "clock"), XVBD_LAT_CLOCK) ||
	    !YAJL_IS_NUMBER(get(v, "relative_error")) ||
	    !YAJL_IS_ARRAY(vbds = get(v, "vbds")) ||
	    vbds->u.array.len != rec->nvdevs) {
		err_set(e, "latency: not {clock: \"%s\", relative_error, "
			"vbds: one per vdev}", XVBD_LAT_CLOCK);
		return -EINVAL;
	}
	l = xvbd_ab_lat_new(rec->nvdevs);
	if (!l)
		return -ENOMEM;
	for (i = 0; !rc && i < rec->nvdevs; i++)
		rc = read_vbd(vbds->u.array.values[i], rec->vdevs[i], i,
			      &l->vbds[i], &budget, e);
	if (rc) {
		xvbd_ab_lat_free(l);
		return rc;
	}
	xvbd_ab_lat_free(rec->lat);
	rec->lat = l;
	return 0;
}
