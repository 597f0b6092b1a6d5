/*
 * ab_results_read.c - a record's "results" read back from its tree
 * (the head's, ab_json_read.c): the fields of ab_results_json.c's
 * tables, each key known and of its type, counts within the workload
 * layer's limits, bins in ascending order, every double finite.  A
 * record file may come from anywhere: what the workload layer's reader
 * would refuse in fio's own output is refused here too.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"
#include "ab_json_impl.h"
#include "ab_results_impl.h"
#include "xvbd/workload/workload.h"

#define err_set xvbd_ab_err_set

/* Messages name the place: "results.fio.jobs[2].read.iops". */
struct at {
	char s[192];
};

static void at_key(struct at *dst, const struct at *parent, const char *key)
{
	snprintf(dst->s, sizeof(dst->s), "%.120s.%.30s", parent->s, key);
}

static void at_index(struct at *dst, const struct at *parent, size_t i)
{
	snprintf(dst->s, sizeof(dst->s), "%.140s[%zu]", parent->s, i);
}

static int bad(struct xvbd_ab_err *e, const struct at *a, const char *what)
{
	err_set(e, "%s: %s", a->s, what);
	return -EINVAL;
}

static yajl_val get(yajl_val obj, const char *key)
{
	size_t i;

	for (i = 0; i < obj->u.object.len; i++)
		if (!strcmp(obj->u.object.keys[i], key))
			return obj->u.object.values[i];
	return NULL;
}

static int number_u64(yajl_val v, uint64_t max, uint64_t *out)
{
	return YAJL_IS_NUMBER(v) ?
	       xvbd_parse_uint(YAJL_GET_NUMBER(v), max, out) : -EINVAL;
}

/* A finite double; >= 0 unless signed. */
static int number_dbl(yajl_val v, bool is_signed, double *out)
{
	char *end;

	if (!YAJL_IS_NUMBER(v))
		return -EINVAL;
	*out = strtod(YAJL_GET_NUMBER(v), &end);
	if (*end || !isfinite(*out) || (!is_signed && *out < 0))
		return -EINVAL;
	return 0;
}

static int fields_read(yajl_val obj, const struct at *a,
		       const struct xvbd_ab_field *f, size_t n, void *base,
		       struct xvbd_ab_err *e)
{
	char *p = base;
	uint64_t u;
	struct at w;
	size_t i;

	for (i = 0; i < n; i++) {
		yajl_val v = get(obj, f[i].key);

		at_key(&w, a, f[i].key);
		switch (f[i].type) {
		case XVBD_AB_F_U64:
			if (number_u64(v, UINT64_MAX, (uint64_t *)(p + f[i].off)))
				return bad(e, &w, "not an unsigned integer");
			break;
		case XVBD_AB_F_U32:
		case XVBD_AB_F_I32:
			if (number_u64(v, f[i].type == XVBD_AB_F_U32 ?
				       UINT32_MAX : INT32_MAX, &u))
				return bad(e, &w, "not an unsigned integer "
					   "of 32 bits");
			if (f[i].type == XVBD_AB_F_U32)
				*(uint32_t *)(p + f[i].off) = (uint32_t)u;
			else
				*(int32_t *)(p + f[i].off) = (int32_t)u;
			break;
		case XVBD_AB_F_DBL:
			if (number_dbl(v, false, (double *)(p + f[i].off)))
				return bad(e, &w, "not a finite number >= 0");
			break;
		}
	}
	return 0;
}

/* An object with only these keys (the table's, then extra), once each. */
static int keys_check(yajl_val obj, const struct at *a,
		      const struct xvbd_ab_field *f, size_t n,
		      const char *const *extra, size_t nextra,
		      size_t nrequired_extra, struct xvbd_ab_err *e)
{
	const char *keys[32];
	size_t i;

	if (n + nextra > 32)
		return -EINVAL;
	for (i = 0; i < n; i++)
		keys[i] = f[i].key;
	for (i = 0; i < nextra; i++)
		keys[n + i] = extra[i];
	/* The table's keys and the first nrequired_extra are required:
	 * put those first. */
	return xvbd_ab_json_obj_check(obj, a->s, keys, n + nextra,
				      n + nrequired_extra, e);
}

static int text(yajl_val v, const struct at *a, char **out,
		struct xvbd_ab_err *e)
{
	if (!YAJL_IS_STRING(v) || strlen(v->u.string) > XVBD_WL_TEXT_MAX)
		return bad(e, a, "not a string of at most 4096 bytes");
	*out = strdup(v->u.string);
	return *out ? 0 : -ENOMEM;
}

static int array(yajl_val v, const struct at *a, size_t min, size_t max,
		 struct xvbd_ab_err *e)
{
	char what[64];

	if (YAJL_IS_ARRAY(v) && v->u.array.len >= min &&
	    v->u.array.len <= max)
		return 0;
	snprintf(what, sizeof(what), "not an array of %zu to %zu entries",
		 min, max);
	return bad(e, a, what);
}

/* [[key, value]...] */
static int opts_read(yajl_val v, const struct at *a, size_t max,
		     struct xvbd_wl_opt **out, size_t *n,
		     struct xvbd_ab_err *e)
{
	struct at w;
	size_t i;
	int rc;

	rc = array(v, a, 0, max, e);
	if (rc)
		return rc;
	*out = calloc(v->u.array.len + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < v->u.array.len; i++) {
		yajl_val pair = v->u.array.values[i];

		at_index(&w, a, i);
		if (!YAJL_IS_ARRAY(pair) || pair->u.array.len != 2)
			return bad(e, &w, "not a [key, value] pair");
		(*n)++;
		rc = text(pair->u.array.values[0], &w, &(*out)[i].key, e);
		if (!rc)
			rc = text(pair->u.array.values[1], &w, &(*out)[i].value,
				  e);
		if (rc)
			return rc;
	}
	return 0;
}

static int lat_read(yajl_val v, const struct at *a, struct xvbd_wl_lat *l,
		    struct xvbd_ab_err *e)
{
	static const char *const extra[] = { "percentiles" };
	yajl_val pcts;
	struct at w;
	size_t i;
	int rc;

	rc = keys_check(v, a, xvbd_ab_lat_fields, xvbd_ab_nlat_fields, extra,
			1, 1, e);
	if (!rc)
		rc = fields_read(v, a, xvbd_ab_lat_fields, xvbd_ab_nlat_fields,
				 l, e);
	at_key(&w, a, "percentiles");
	pcts = rc ? NULL : get(v, "percentiles");
	if (!rc)
		rc = array(pcts, &w, 0, XVBD_WL_PCTS_MAX, e);
	if (rc)
		return rc;
	l->pcts = calloc(pcts->u.array.len + 1, sizeof(*l->pcts));
	if (!l->pcts)
		return -ENOMEM;
	for (i = 0; i < pcts->u.array.len; i++) {
		yajl_val p = pcts->u.array.values[i];
		struct xvbd_wl_pct *pc = &l->pcts[i];
		struct at wi;

		at_index(&wi, &w, i);
		if (!YAJL_IS_ARRAY(p) || p->u.array.len != 2 ||
		    number_dbl(p->u.array.values[0], false, &pc->pct) ||
		    !(pc->pct > 0 && pc->pct <= 100) ||
		    number_u64(p->u.array.values[1], UINT64_MAX,
			       &pc->value_ns))
			return bad(e, &wi, "not a [percentile, ns] pair");
		l->npcts++;
	}
	return 0;
}

static int dir_read(yajl_val v, const struct at *a,
		    struct xvbd_wl_dirstat *d, struct xvbd_ab_err *e)
{
	static const char *const extra[] = { "slat_ns", "clat_ns", "lat_ns" };
	struct at w;
	int k, rc;

	rc = keys_check(v, a, xvbd_ab_dir_fields, xvbd_ab_ndir_fields, extra,
			3, 0, e);
	if (!rc)
		rc = fields_read(v, a, xvbd_ab_dir_fields, xvbd_ab_ndir_fields,
				 d, e);
	for (k = 0; !rc && k < XVBD_WL_NLATS; k++) {
		yajl_val l = get(v, xvbd_wl_lat_name(k));

		at_key(&w, a, xvbd_wl_lat_name(k));
		if (l)
			rc = lat_read(l, &w, &d->lat[k], e);
	}
	return rc;
}

static int job_read(yajl_val v, const struct at *a, struct xvbd_wl_job *j,
		    struct xvbd_ab_err *e)
{
	static const char *const extra[] = {
		"name", "options", "read", "write", "trim",
	};
	struct at w;
	int d, rc;

	rc = keys_check(v, a, xvbd_ab_job_fields, xvbd_ab_njob_fields, extra,
			5, 2, e);
	if (!rc)
		rc = fields_read(v, a, xvbd_ab_job_fields, xvbd_ab_njob_fields,
				 j, e);
	at_key(&w, a, "name");
	if (!rc)
		rc = text(get(v, "name"), &w, &j->name, e);
	at_key(&w, a, "options");
	if (!rc)
		rc = opts_read(get(v, "options"), &w, XVBD_WL_OPTS_MAX,
			       &j->opts, &j->nopts, e);
	for (d = 0; !rc && d < XVBD_WL_NDIRS; d++) {
		yajl_val dv = get(v, xvbd_wl_dir_name(d));

		at_key(&w, a, xvbd_wl_dir_name(d));
		if (dv)
			rc = dir_read(dv, &w, &j->dir[d], e);
	}
	return rc;
}

static int name_index(const char *s, const char *(*name)(int), int n)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, name(i)))
			return i;
	return -1;
}

static const char *dir_name(int i)
{
	return xvbd_wl_dir_name(i);
}

static const char *lat_name(int i)
{
	return xvbd_wl_lat_name(i);
}

/* One histogram: [[value, count]...], values strictly ascending. */
static int hist_read(yajl_val v, const struct at *a, struct xvbd_wl_fio *f,
		     struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "dir", "lat", "bins" };
	struct xvbd_wl_hist *h;
	yajl_val bins;
	struct at w;
	size_t i;
	int d, k, rc;

	rc = xvbd_ab_json_obj_check(v, a->s, keys, 3, 3, e);
	if (rc)
		return rc;
	d = name_index(YAJL_GET_STRING(get(v, "dir")), dir_name,
		       XVBD_WL_NDIRS);
	k = name_index(YAJL_GET_STRING(get(v, "lat")), lat_name,
		       XVBD_WL_NLATS);
	if (d < 0 || k < 0)
		return bad(e, a, "dir or lat not one of fio's");
	h = &f->hist[d][k];
	if (h->n)
		return bad(e, a, "a second histogram of this dir and lat");
	bins = get(v, "bins");
	at_key(&w, a, "bins");
	rc = array(bins, &w, 1, XVBD_WL_BINS_MAX, e);
	for (i = 0; !rc && i < bins->u.array.len; i++) {
		yajl_val b = bins->u.array.values[i];
		uint64_t value, count;
		struct at wi;

		at_index(&wi, &w, i);
		if (!YAJL_IS_ARRAY(b) || b->u.array.len != 2 ||
		    number_u64(b->u.array.values[0], UINT64_MAX, &value) ||
		    number_u64(b->u.array.values[1], UINT64_MAX, &count))
			return bad(e, &wi, "not a [ns, count] pair");
		if (h->n && value <= h->bins[h->n - 1].value_ns)
			return bad(e, &wi, "not after the bin before it");
		rc = xvbd_wl_hist_add(h, value, count);
		if (rc == -EOVERFLOW)
			return bad(e, &wi, "the counts overflow");
	}
	return rc;
}

static int fio_read(yajl_val v, const struct at *a, struct xvbd_wl_fio *f,
		    struct xvbd_ab_err *e)
{
	static const char *const keys[] = {
		"version", "timestamp_ms", "global_options", "jobs", "bins",
		"disks",
	};
	yajl_val arr;
	uint64_t ts = 0;
	struct at w;
	size_t i;
	int rc;

	rc = xvbd_ab_json_obj_check(v, a->s, keys, 6, 6, e);
	at_key(&w, a, "version");
	if (!rc)
		rc = text(get(v, "version"), &w, &f->version, e);
	at_key(&w, a, "timestamp_ms");
	if (!rc && number_u64(get(v, "timestamp_ms"), UINT64_MAX, &ts))
		rc = bad(e, &w, "not an unsigned integer");
	f->timestamp_ms = ts;
	at_key(&w, a, "global_options");
	if (!rc)
		rc = opts_read(get(v, "global_options"), &w, XVBD_WL_OPTS_MAX,
			       &f->global_opts, &f->nglobal_opts, e);
	at_key(&w, a, "jobs");
	arr = get(v, "jobs");
	if (!rc)
		rc = array(arr, &w, 1, XVBD_WL_JOBS_MAX, e);
	if (!rc) {
		f->jobs = calloc(arr->u.array.len, sizeof(*f->jobs));
		if (!f->jobs)
			return -ENOMEM;
	}
	for (i = 0; !rc && i < arr->u.array.len; i++) {
		struct at wi;

		at_index(&wi, &w, i);
		f->njobs++;
		rc = job_read(arr->u.array.values[i], &wi, &f->jobs[i], e);
	}
	at_key(&w, a, "bins");
	arr = rc ? NULL : get(v, "bins");
	if (!rc)
		rc = array(arr, &w, 0, XVBD_WL_NDIRS * XVBD_WL_NLATS, e);
	for (i = 0; !rc && i < arr->u.array.len; i++) {
		struct at wi;

		at_index(&wi, &w, i);
		rc = hist_read(arr->u.array.values[i], &wi, f, e);
	}
	at_key(&w, a, "disks");
	arr = rc ? NULL : get(v, "disks");
	if (!rc)
		rc = array(arr, &w, 0, XVBD_WL_DISKS_MAX, e);
	if (!rc) {
		f->disks = calloc(arr->u.array.len + 1, sizeof(*f->disks));
		if (!f->disks)
			return -ENOMEM;
	}
	for (i = 0; !rc && i < arr->u.array.len; i++) {
		static const char *const extra[] = { "name" };
		yajl_val dv = arr->u.array.values[i];
		struct at wi;

		at_index(&wi, &w, i);
		f->ndisks++;
		rc = keys_check(dv, &wi, xvbd_ab_disk_fields,
				xvbd_ab_ndisk_fields, extra, 1, 1, e);
		if (!rc)
			rc = fields_read(dv, &wi, xvbd_ab_disk_fields,
					 xvbd_ab_ndisk_fields, &f->disks[i], e);
		if (!rc)
			rc = text(get(dv, "name"), &wi, &f->disks[i].name, e);
	}
	return rc;
}

static int line_read(yajl_val v, const struct at *a,
		     struct xvbd_wl_bench_line *l, struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "name", "iterations", "values" };
	yajl_val vals;
	struct at w;
	size_t i;
	int rc;

	rc = xvbd_ab_json_obj_check(v, a->s, keys, 3, 3, e);
	at_key(&w, a, "name");
	if (!rc)
		rc = text(get(v, "name"), &w, &l->name, e);
	if (!rc && strncmp(l->name, "Benchmark", 9))
		rc = bad(e, &w, "not a benchmark's name");
	at_key(&w, a, "iterations");
	if (!rc && number_u64(get(v, "iterations"), UINT64_MAX, &l->iterations))
		rc = bad(e, &w, "not an unsigned integer");
	at_key(&w, a, "values");
	vals = rc ? NULL : get(v, "values");
	if (!rc)
		rc = array(vals, &w, 1, XVBD_WL_UNITS_MAX, e);
	if (rc)
		return rc;
	l->values = calloc(vals->u.array.len, sizeof(*l->values));
	if (!l->values)
		return -ENOMEM;
	for (i = 0; i < vals->u.array.len; i++) {
		yajl_val p = vals->u.array.values[i];
		struct at wi;

		at_index(&wi, &w, i);
		if (!YAJL_IS_ARRAY(p) || p->u.array.len != 2 ||
		    number_dbl(p->u.array.values[0], true,
			       &l->values[i].value))
			return bad(e, &wi, "not a [value, unit] pair");
		l->nvalues++;
		rc = text(p->u.array.values[1], &wi, &l->values[i].unit, e);
		if (rc)
			return rc;
	}
	return 0;
}

static int bench_read(yajl_val v, const struct at *a,
		      struct xvbd_wl_bench *b, struct xvbd_ab_err *e)
{
	static const char *const keys[] = {
		"config", "units", "lines", "refused", "first_refused",
	};
	yajl_val arr;
	char *first = NULL;
	uint64_t nbad = 0;
	struct at w;
	size_t i;
	int rc;

	rc = xvbd_ab_json_obj_check(v, a->s, keys, 5, 5, e);
	at_key(&w, a, "config");
	if (!rc)
		rc = opts_read(get(v, "config"), &w, XVBD_WL_CONFIG_MAX,
			       &b->config, &b->nconfig, e);
	at_key(&w, a, "units");
	arr = rc ? NULL : get(v, "units");
	if (!rc)
		rc = array(arr, &w, 0, 4 * XVBD_WL_UNITS_MAX, e);
	if (!rc) {
		b->units = calloc(arr->u.array.len + 1, sizeof(*b->units));
		if (!b->units)
			return -ENOMEM;
	}
	for (i = 0; !rc && i < arr->u.array.len; i++) {
		yajl_val p = arr->u.array.values[i];
		const char *better;
		struct at wi;

		at_index(&wi, &w, i);
		better = YAJL_IS_ARRAY(p) && p->u.array.len == 2 ?
			 YAJL_GET_STRING(p->u.array.values[1]) : NULL;
		if (!better || (strcmp(better, "higher") &&
				strcmp(better, "lower")))
			return bad(e, &wi, "not a [unit, higher|lower] pair");
		b->units[i].better = strcmp(better, "higher") ?
				     XVBD_WL_LOWER_BETTER :
				     XVBD_WL_HIGHER_BETTER;
		b->nunits++;
		rc = text(p->u.array.values[0], &wi, &b->units[i].unit, e);
	}
	at_key(&w, a, "lines");
	arr = rc ? NULL : get(v, "lines");
	if (!rc)
		rc = array(arr, &w, 1, XVBD_WL_BENCH_MAX, e);
	if (!rc) {
		b->lines = calloc(arr->u.array.len, sizeof(*b->lines));
		if (!b->lines)
			return -ENOMEM;
	}
	for (i = 0; !rc && i < arr->u.array.len; i++) {
		struct at wi;

		at_index(&wi, &w, i);
		b->nlines++;
		rc = line_read(arr->u.array.values[i], &wi, &b->lines[i], e);
	}
	at_key(&w, a, "refused");
	if (!rc && number_u64(get(v, "refused"), SIZE_MAX, &nbad))
		rc = bad(e, &w, "not an unsigned integer");
	b->nbad = (size_t)nbad;
	at_key(&w, a, "first_refused");
	if (!rc)
		rc = text(get(v, "first_refused"), &w, &first, e);
	if (!rc)
		snprintf(b->first_bad, sizeof(b->first_bad), "%s", first);
	free(first);
	return rc;
}

static int results_read(yajl_val v, struct xvbd_wl_results *r,
			struct xvbd_ab_err *e)
{
	static const char *const keys[] = {
		"mode", "format", "output_bytes", "why", "quiet", "fio",
		"benchfmt",
	};
	static const struct at top = { "results" };
	const char *mode, *format;
	struct at w;
	int rc;

	rc = xvbd_ab_json_obj_check(v, top.s, keys, 7, 3, e);
	if (rc)
		return rc;
	mode = YAJL_GET_STRING(get(v, "mode"));
	format = YAJL_GET_STRING(get(v, "format"));
	if (!mode || xvbd_wl_results_mode_parse(mode, &r->mode))
		return bad(e, &top, "mode: not auto, fio, benchfmt or none");
	if (format && !strcmp(format, "fio"))
		r->format = XVBD_WL_FIO;
	else if (format && !strcmp(format, "benchfmt"))
		r->format = XVBD_WL_BENCHFMT;
	else if (!format || strcmp(format, "absent"))
		return bad(e, &top, "format: not fio, benchfmt or absent");
	at_key(&w, &top, "output_bytes");
	if (number_u64(get(v, "output_bytes"), UINT64_MAX, &r->output_bytes))
		return bad(e, &w, "not an unsigned integer");
	/* Each format with its own part, and only that. */
	if (!get(v, "why") != (r->format != XVBD_WL_ABSENT) ||
	    !get(v, "quiet") != (r->format != XVBD_WL_ABSENT) ||
	    !get(v, "fio") != (r->format != XVBD_WL_FIO) ||
	    !get(v, "benchfmt") != (r->format != XVBD_WL_BENCHFMT))
		return bad(e, &top, "its parts do not match its format");
	if (r->format == XVBD_WL_ABSENT) {
		const char *why = YAJL_GET_STRING(get(v, "why"));
		yajl_val q = get(v, "quiet");

		if (!why || !xvbd_ab_printable(why, XVBD_WL_WHY_MAX - 1))
			return bad(e, &top, "why: not a line of printable text");
		if (!YAJL_IS_TRUE(q) && !YAJL_IS_FALSE(q))
			return bad(e, &top, "quiet: not true or false");
		snprintf(r->why, sizeof(r->why), "%s", why);
		r->quiet = YAJL_IS_TRUE(q);
		return 0;
	}
	if (r->format == XVBD_WL_FIO) {
		at_key(&w, &top, "fio");
		return fio_read(get(v, "fio"), &w, &r->fio, e);
	}
	at_key(&w, &top, "benchfmt");
	return bench_read(get(v, "benchfmt"), &w, &r->bench, e);
}

int xvbd_ab_results_read(yajl_val v, struct xvbd_wl_results **out,
			 struct xvbd_ab_err *e)
{
	struct xvbd_wl_results *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	rc = results_read(v, r, e);
	if (rc == -ENOMEM)
		err_set(e, "%s", strerror(ENOMEM));
	if (rc) {
		xvbd_wl_results_free(r);
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}
