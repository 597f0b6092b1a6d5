/*
 * ab_json.c - a record's JSON form: yajl_gen out; in, the checks of the
 * head and of one sample, each on a small yajl_tree (ab_json_read.c
 * streams the document and builds those trees one at a time).
 *
 * The reader is strict because records outlive the program that wrote
 * them and get copied between machines: a document passes only with
 * exactly the keys the writer writes, each of the right JSON type and
 * range, and the semantic checks the writer applies too
 * (xvbd_ab_record_check() runs on both sides, so xvbd never writes what
 * it would refuse to read).  Counters are uint64 in the kernel; yajl_tree
 * only gives integers as long long, so every unsigned number is parsed
 * from its own digits.
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
#include "ab_results_impl.h"
#include "xvbd/base/util.h"

#define err_set xvbd_ab_err_set

/* ---- JSON out ---- */

yajl_gen_status xvbd_ab_gen_str(yajl_gen g, const char *s)
{
	return yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

yajl_gen_status xvbd_ab_gen_u64(yajl_gen g, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);

	/* yajl_gen_integer takes long long: counters may not fit. */
	return yajl_gen_number(g, buf, (size_t)n);
}

yajl_gen_status xvbd_ab_gen_key_str(yajl_gen g, const char *k,
				    const char *v)
{
	yajl_gen_status st = xvbd_ab_gen_str(g, k);

	return st ? st : xvbd_ab_gen_str(g, v);
}

yajl_gen_status xvbd_ab_gen_key_u64(yajl_gen g, const char *k, uint64_t v)
{
	yajl_gen_status st = xvbd_ab_gen_str(g, k);

	return st ? st : xvbd_ab_gen_u64(g, v);
}

/* Each field of the counters, in sysfs order (xvbd_blkback_fields). */
static const char *const vbd_keys[] = {
	"rd_req", "wr_req", "rd_sect", "wr_sect", "f_req", "ds_req", "oo_req",
	"reset", "blk", "backend_cpu_ns", "backend_reset", "file_dev",
};
#define NVBD_KEYS (sizeof(vbd_keys) / sizeof(vbd_keys[0]))
/*
 * The first four are in every record; io_ticks_ms and the two sector
 * counts came later (has_io_ticks, has_blk_sect).
 */
static const char *const blk_keys[] = {
	"rd_ios", "wr_ios", "rd_ticks_ms", "wr_ticks_ms", "io_ticks_ms",
	"rd_sectors", "wr_sectors",
};
#define NBLK_KEYS (sizeof(blk_keys) / sizeof(blk_keys[0]))
#define NBLK_REQUIRED	4
#define BLK_IO_TICKS	4

/* Whether the sample holds blk_keys[i]. */
static bool blk_has(const struct xvbd_ab_vbd_sample *v, size_t i)
{
	if (i < NBLK_REQUIRED)
		return true;
	return i == BLK_IO_TICKS ? v->has_io_ticks : v->has_blk_sect;
}

static uint64_t *vbd_counter(struct xvbd_ab_vbd_sample *v, size_t i)
{
	return (uint64_t *)((char *)&v->c + xvbd_blkback_fields[i].offset);
}

static uint64_t *blk_counter(struct xvbd_ab_vbd_sample *v, size_t i)
{
	uint64_t *const fields[NBLK_KEYS] = {
		&v->blk_rd_ios, &v->blk_wr_ios, &v->blk_rd_ticks_ms,
		&v->blk_wr_ticks_ms, &v->blk_io_ticks_ms, &v->blk_rd_sect,
		&v->blk_wr_sect,
	};

	return fields[i];
}

static yajl_gen_status gen_vbd(yajl_gen g, const struct xvbd_ab_vbd_sample *cv)
{
	struct xvbd_ab_vbd_sample v = *cv;
	yajl_gen_status st = yajl_gen_map_open(g);
	size_t i;

	for (i = 0; !st && i < XVBD_BLKBACK_NFIELDS; i++)
		st = xvbd_ab_gen_key_u64(g, vbd_keys[i], *vbd_counter(&v, i));
	if (!st)
		st = xvbd_ab_gen_str(g, "reset");
	if (!st)
		st = yajl_gen_bool(g, v.reset);
	if (!st)
		st = xvbd_ab_gen_str(g, "blk");
	if (!st && !v.has_blk) {
		st = yajl_gen_null(g);
	} else if (!st) {
		st = yajl_gen_map_open(g);
		for (i = 0; !st && i < NBLK_KEYS; i++)
			if (blk_has(&v, i))
				st = xvbd_ab_gen_key_u64(g, blk_keys[i],
							 *blk_counter(&v, i));
		if (!st)
			st = yajl_gen_map_close(g);
	}
	if (!st)
		st = xvbd_ab_gen_str(g, "backend_cpu_ns");
	if (!st)
		st = v.has_be ? xvbd_ab_gen_u64(g, v.be_cpu_ns) :
				 yajl_gen_null(g);
	if (!st)
		st = xvbd_ab_gen_str(g, "backend_reset");
	if (!st)
		st = yajl_gen_bool(g, v.be_reset);
	/* A file via loop only, and only from records that have it. */
	if (!st && v.has_file_dev)
		st = xvbd_ab_gen_str(g, "file_dev");
	if (!st && v.has_file_dev)
		st = yajl_gen_map_open(g);
	if (!st && v.has_file_dev)
		st = xvbd_ab_gen_key_u64(g, "rd_sectors", v.file_dev_rd_sect);
	if (!st && v.has_file_dev)
		st = xvbd_ab_gen_key_u64(g, "wr_sectors", v.file_dev_wr_sect);
	if (!st && v.has_file_dev)
		st = yajl_gen_map_close(g);
	return st ? st : yajl_gen_map_close(g);
}

/* "others": {"cpu_ns", "domains"}, null when unknown. */
static yajl_gen_status gen_others(yajl_gen g, const struct xvbd_ab_sample *s)
{
	yajl_gen_status st = xvbd_ab_gen_str(g, "others");

	if (!st && !s->has_others)
		return yajl_gen_null(g);
	if (!st)
		st = yajl_gen_map_open(g);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "cpu_ns", s->others_cpu_ns);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "domains", s->others_doms);
	return st ? st : yajl_gen_map_close(g);
}

static yajl_gen_status gen_sample(yajl_gen g, const struct xvbd_ab_sample *s,
				  size_t nvdevs)
{
	yajl_gen_status st = yajl_gen_map_open(g);
	size_t i;

	if (!st)
		st = xvbd_ab_gen_key_u64(g, "t_ns", s->t_ns);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "guest_cpu_ns", s->guest_cpu_ns);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "dom0_cpu_ns", s->dom0_cpu_ns);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "guest_vcpus", s->guest_vcpus);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "dom0_vcpus", s->dom0_vcpus);
	if (!st)
		st = xvbd_ab_gen_str(g, "vbds");
	if (!st)
		st = yajl_gen_array_open(g);
	for (i = 0; !st && i < nvdevs; i++)
		st = gen_vbd(g, &s->vbds[i]);
	if (!st)
		st = yajl_gen_array_close(g);
	if (!st)
		st = gen_others(g, s);
	return st ? st : yajl_gen_map_close(g);
}

static yajl_gen_status gen_record(yajl_gen g, const struct xvbd_ab_record *r)
{
	char started[32];
	yajl_gen_status st;
	size_t i;

	if (xvbd_ab_format_started(r->started_unix_ns, started,
				   sizeof(started)))
		return yajl_gen_invalid_string;
	st = yajl_gen_map_open(g);
	if (!st)
		st = xvbd_ab_gen_key_str(g, "format", XVBD_AB_FORMAT);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "version", XVBD_AB_VERSION);
	if (!st)
		st = xvbd_ab_gen_key_str(g, "id", r->id);
	if (!st)
		st = xvbd_ab_gen_key_str(g, "label", r->label);
	if (!st)
		st = xvbd_ab_gen_key_str(g, "started", started);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "started_unix_ns",
					 (uint64_t)r->started_unix_ns);
	if (!st)
		st = xvbd_ab_gen_key_str(g, "domain", r->domain);
	if (!st)
		st = xvbd_ab_gen_str(g, "vdevs");
	if (!st)
		st = yajl_gen_array_open(g);
	for (i = 0; !st && i < r->nvdevs; i++)
		st = xvbd_ab_gen_str(g, r->vdevs[i]);
	if (!st)
		st = yajl_gen_array_close(g);
	if (!st)
		st = xvbd_ab_gen_key_str(g, "mode", xvbd_ab_mode_name(r->mode));
	if (!st)
		st = xvbd_ab_gen_key_str(g, "workload", r->workload);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "workload_status",
					 (uint64_t)r->workload_status);
	/* Only ab run's runs have them: older readers never see them. */
	if (!st && r->experiment)
		st = xvbd_ab_gen_key_str(g, "experiment", r->experiment);
	if (!st && r->experiment)
		st = xvbd_ab_gen_key_u64(g, "pair", r->pair);
	if (!st && r->experiment && r->position)
		st = xvbd_ab_gen_key_u64(g, "position", r->position);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "interval_ns", r->interval_ns);
	if (!st)
		st = xvbd_ab_gen_key_u64(g, "warmup_ns", r->warmup_ns);
	if (!st)
		st = xvbd_ab_gen_str(g, "complete");
	if (!st)
		st = yajl_gen_bool(g, r->complete);
	if (!st)
		st = xvbd_ab_gen_str(g, "fingerprint");
	if (!st)
		st = yajl_gen_map_open(g);
	for (i = 0; !st && i < r->fp.n; i++)
		st = xvbd_ab_gen_key_str(g, r->fp.facts[i].key,
					 r->fp.facts[i].value);
	if (!st)
		st = yajl_gen_map_close(g);
	if (!st)
		st = xvbd_ab_gen_str(g, "notes");
	if (!st)
		st = yajl_gen_array_open(g);
	for (i = 0; !st && i < r->nnotes; i++)
		st = xvbd_ab_gen_str(g, r->notes[i]);
	if (!st)
		st = yajl_gen_array_close(g);
	/* Only runs recorded with --latency: older readers never see it. */
	if (!st && r->lat && xvbd_ab_lat_gen(g, r))
		st = yajl_gen_generation_complete;
	/* --run's only, and only from records that have it. */
	if (!st && r->results)
		st = xvbd_ab_gen_str(g, "results");
	if (!st && r->results)
		st = xvbd_ab_results_gen(g, r->results);
	if (!st)
		st = xvbd_ab_gen_str(g, "samples");
	if (!st)
		st = yajl_gen_array_open(g);
	for (i = 0; !st && i < r->nsamples; i++)
		st = gen_sample(g, &r->samples[i], r->nvdevs);
	if (!st)
		st = yajl_gen_array_close(g);
	return st ? st : yajl_gen_map_close(g);
}

int xvbd_ab_record_to_json(const struct xvbd_ab_record *rec, char **json,
			   size_t *len)
{
	const unsigned char *buf;
	size_t buf_len;
	yajl_gen g;
	int rc = 0;

	*json = NULL;
	*len = 0;
	if (xvbd_ab_record_check(rec, NULL))
		return -EINVAL;
	g = yajl_gen_alloc(NULL);
	if (!g)
		return -ENOMEM;
	yajl_gen_config(g, yajl_gen_beautify, 0);
	if (gen_record(g, rec) != yajl_gen_status_ok ||
	    yajl_gen_get_buf(g, &buf, &buf_len) != yajl_gen_status_ok) {
		rc = -ENOMEM;	/* the record was checked: only memory */
		goto out;
	}
	if (buf_len + 1 > XVBD_AB_FILE_MAX) {
		rc = -EFBIG;
		goto out;
	}
	*json = malloc(buf_len + 2);
	if (!*json) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(*json, buf, buf_len);
	(*json)[buf_len] = '\n';
	(*json)[buf_len + 1] = '\0';
	*len = buf_len + 1;
out:
	yajl_gen_free(g);
	return rc;
}

/* ---- JSON in ---- */

/* Where in the document: "samples[3].vbds[0]" (for messages). */
struct where {
	char s[128];
};

/* Messages only: bounded so that a place always fits (keys are short). */
static void where_key(struct where *dst, const struct where *parent,
		      const char *key)
{
	snprintf(dst->s, sizeof(dst->s), "%.100s%s%.20s", parent->s,
		 parent->s[0] ? "." : "", key);
}

static void where_index(struct where *dst, const struct where *parent,
			size_t i)
{
	snprintf(dst->s, sizeof(dst->s), "%.100s[%zu]", parent->s, i);
}

/* An object with exactly these keys, each once. */
/*
 * v is an object with no key outside keys[0..nkeys), none twice, and
 * each of the first nrequired.
 */
static int obj_check_opt(yajl_val v, const struct where *w,
			 const char *const *keys, size_t nkeys,
			 size_t nrequired, struct xvbd_ab_err *e)
{
	size_t i, j, k;

	if (!YAJL_IS_OBJECT(v)) {
		err_set(e, "%s: not an object", w->s[0] ? w->s : "document");
		return -EINVAL;
	}
	for (i = 0; i < v->u.object.len; i++) {
		const char *key = v->u.object.keys[i];

		for (k = 0; k < nkeys && strcmp(keys[k], key); k++)
			;
		if (k == nkeys) {
			char *esc = xvbd_escape(key);

			err_set(e, "%s%sunknown key \"%.64s\"", w->s,
				w->s[0] ? ": " : "", esc ? esc : "?");
			free(esc);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(v->u.object.keys[j], key)) {
				err_set(e, "%s%s\"%s\" twice", w->s,
					w->s[0] ? ": " : "", key);
				return -EINVAL;
			}
		}
	}
	for (k = 0; k < nrequired; k++) {
		for (i = 0; i < v->u.object.len &&
			    strcmp(v->u.object.keys[i], keys[k]); i++)
			;
		if (i == v->u.object.len) {
			err_set(e, "%s%smissing \"%s\"", w->s,
				w->s[0] ? ": " : "", keys[k]);
			return -EINVAL;
		}
	}
	return 0;
}

int xvbd_ab_json_obj_check(yajl_val v, const char *where,
			   const char *const *keys, size_t nkeys,
			   size_t nrequired, struct xvbd_ab_err *e)
{
	struct where w;

	snprintf(w.s, sizeof(w.s), "%.120s", where);
	return obj_check_opt(v, &w, keys, nkeys, nrequired, e);
}

static int obj_check(yajl_val v, const struct where *w,
		     const char *const *keys, size_t nkeys,
		     struct xvbd_ab_err *e)
{
	return obj_check_opt(v, w, keys, nkeys, nkeys, e);
}

/* Value of key in an object checked by obj_check(). */
static yajl_val obj_get(yajl_val v, const char *key)
{
	size_t i;

	for (i = 0; i < v->u.object.len; i++)
		if (!strcmp(v->u.object.keys[i], key))
			return v->u.object.values[i];
	return NULL;
}

static int get_u64(yajl_val obj, const struct where *parent, const char *key,
		   uint64_t max, uint64_t *out, struct xvbd_ab_err *e)
{
	yajl_val v = obj_get(obj, key);
	struct where w;
	int rc;

	where_key(&w, parent, key);
	if (!YAJL_IS_NUMBER(v)) {
		err_set(e, "%s: not an unsigned integer", w.s);
		return -EINVAL;
	}
	/* The number's own digits: long long cannot hold every counter. */
	rc = xvbd_parse_uint(YAJL_GET_NUMBER(v), max, out);
	if (rc == -ERANGE)
		err_set(e, "%s: out of range (at most %" PRIu64 ")", w.s, max);
	else if (rc)
		err_set(e, "%s: not an unsigned integer", w.s);
	return rc ? -EINVAL : 0;
}

static int get_bool(yajl_val obj, const struct where *parent, const char *key,
		    bool *out, struct xvbd_ab_err *e)
{
	yajl_val v = obj_get(obj, key);
	struct where w;

	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		*out = YAJL_IS_TRUE(v);
		return 0;
	}
	where_key(&w, parent, key);
	err_set(e, "%s: not true or false", w.s);
	return -EINVAL;
}

/* A copy of a string value (its content is checked later). */
static int get_str(yajl_val obj, const struct where *parent, const char *key,
		   char **out, struct xvbd_ab_err *e)
{
	yajl_val v = obj_get(obj, key);
	struct where w;

	if (!YAJL_IS_STRING(v)) {
		where_key(&w, parent, key);
		err_set(e, "%s: not a string", w.s);
		return -EINVAL;
	}
	*out = strdup(v->u.string);
	return *out ? 0 : -ENOMEM;
}

static int get_arr(yajl_val obj, const struct where *parent, const char *key,
		   yajl_val *out, struct xvbd_ab_err *e)
{
	yajl_val v = obj_get(obj, key);
	struct where w;

	if (!YAJL_IS_ARRAY(v)) {
		where_key(&w, parent, key);
		err_set(e, "%s: not an array", w.s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * The ring threads' CPU time: absent in records written before it was
 * recorded, null where no thread was found; unknown either way.
 */
static int read_backend(yajl_val v, const struct where *w,
			struct xvbd_ab_vbd_sample *out, struct xvbd_ab_err *e)
{
	yajl_val ns = obj_get(v, "backend_cpu_ns");
	int rc = 0;

	out->has_be = ns && !YAJL_IS_NULL(ns);
	if (out->has_be)
		rc = get_u64(v, w, "backend_cpu_ns", UINT64_MAX,
			     &out->be_cpu_ns, e);
	if (!rc && obj_get(v, "backend_reset"))
		rc = get_bool(v, w, "backend_reset", &out->be_reset, e);
	return rc;
}

/* The device holding a loop's file: {"rd_sectors", "wr_sectors"}. */
static int read_file_dev(yajl_val v, const struct where *w,
			 struct xvbd_ab_vbd_sample *out, struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "rd_sectors", "wr_sectors" };
	yajl_val f = obj_get(v, "file_dev");
	struct where wf;
	int rc;

	if (!f)
		return 0;
	where_key(&wf, w, "file_dev");
	rc = obj_check(f, &wf, keys, 2, e);
	if (!rc)
		rc = get_u64(f, &wf, "rd_sectors", UINT64_MAX,
			     &out->file_dev_rd_sect, e);
	if (!rc)
		rc = get_u64(f, &wf, "wr_sectors", UINT64_MAX,
			     &out->file_dev_wr_sect, e);
	out->has_file_dev = !rc;
	return rc;
}

static int read_vbd(yajl_val v, const struct where *w,
		    struct xvbd_ab_vbd_sample *out, struct xvbd_ab_err *e)
{
	yajl_val blk;
	struct where wb;
	size_t i;
	int rc;

	/* The backend's two and file_dev are absent in records of earlier
	 * versions (file_dev also for other backends). */
	rc = obj_check_opt(v, w, vbd_keys, NVBD_KEYS, NVBD_KEYS - 3, e);
	for (i = 0; !rc && i < XVBD_BLKBACK_NFIELDS; i++)
		rc = get_u64(v, w, vbd_keys[i], UINT64_MAX,
			     vbd_counter(out, i), e);
	if (!rc)
		rc = get_bool(v, w, "reset", &out->reset, e);
	if (!rc)
		rc = read_backend(v, w, out, e);
	if (!rc)
		rc = read_file_dev(v, w, out, e);
	if (rc)
		return rc;
	blk = obj_get(v, "blk");
	if (YAJL_IS_NULL(blk))
		return 0;
	where_key(&wb, w, "blk");
	rc = obj_check_opt(blk, &wb, blk_keys, NBLK_KEYS, NBLK_REQUIRED, e);
	if (rc)
		return rc;
	out->has_io_ticks = obj_get(blk, "io_ticks_ms");
	out->has_blk_sect = obj_get(blk, "rd_sectors") &&
			    obj_get(blk, "wr_sectors");
	if (!out->has_blk_sect &&
	    (obj_get(blk, "rd_sectors") || obj_get(blk, "wr_sectors"))) {
		err_set(e, "%s: rd_sectors and wr_sectors go together", wb.s);
		return -EINVAL;
	}
	/* ios and sectors are unsigned long, the ticks 32-bit. */
	for (i = 0; !rc && i < NBLK_KEYS; i++)
		if (blk_has(out, i))
			rc = get_u64(blk, &wb, blk_keys[i],
				     i < 2 || i > BLK_IO_TICKS ? UINT64_MAX :
				     UINT32_MAX, blk_counter(out, i), e);
	out->has_blk = !rc;
	return rc;
}

/* Every other domain's CPU: absent or null is unknown. */
static int read_others(yajl_val v, const struct where *w,
		       struct xvbd_ab_sample *s, struct xvbd_ab_err *e)
{
	static const char *const keys[] = { "cpu_ns", "domains" };
	yajl_val o = obj_get(v, "others");
	struct where wo;
	uint64_t n;
	int rc;

	if (!o || YAJL_IS_NULL(o))
		return 0;
	where_key(&wo, w, "others");
	rc = obj_check(o, &wo, keys, 2, e);
	if (!rc)
		rc = get_u64(o, &wo, "cpu_ns", UINT64_MAX, &s->others_cpu_ns,
			     e);
	if (!rc && !(rc = get_u64(o, &wo, "domains", UINT32_MAX, &n, e)))
		s->others_doms = (uint32_t)n;
	s->has_others = !rc;
	return rc;
}

static int read_sample(yajl_val v, const struct where *w, size_t nvdevs,
		       struct xvbd_ab_sample *s, struct xvbd_ab_err *e)
{
	static const char *const keys[] = {
		"t_ns", "guest_cpu_ns", "dom0_cpu_ns", "guest_vcpus",
		"dom0_vcpus", "vbds", "others",
	};
	yajl_val vbds;
	struct where wv, wi;
	uint64_t n;
	size_t i;
	int rc;

	/* "others" is absent from records written before it. */
	rc = obj_check_opt(v, w, keys, sizeof(keys) / sizeof(keys[0]),
			   sizeof(keys) / sizeof(keys[0]) - 1, e);
	if (!rc)
		rc = read_others(v, w, s, e);
	if (!rc)
		rc = get_u64(v, w, "t_ns", UINT64_MAX, &s->t_ns, e);
	if (!rc)
		rc = get_u64(v, w, "guest_cpu_ns", UINT64_MAX,
			     &s->guest_cpu_ns, e);
	if (!rc)
		rc = get_u64(v, w, "dom0_cpu_ns", UINT64_MAX, &s->dom0_cpu_ns,
			     e);
	if (!rc && !(rc = get_u64(v, w, "guest_vcpus", UINT32_MAX, &n, e)))
		s->guest_vcpus = (uint32_t)n;
	if (!rc && !(rc = get_u64(v, w, "dom0_vcpus", UINT32_MAX, &n, e)))
		s->dom0_vcpus = (uint32_t)n;
	if (!rc)
		rc = get_arr(v, w, "vbds", &vbds, e);
	if (rc)
		return rc;
	where_key(&wv, w, "vbds");
	if (vbds->u.array.len != nvdevs) {
		err_set(e, "%s: %zu entries for %zu vdevs", wv.s,
			vbds->u.array.len, nvdevs);
		return -EINVAL;
	}
	s->vbds = calloc(nvdevs, sizeof(*s->vbds));
	if (!s->vbds)
		return -ENOMEM;
	for (i = 0; !rc && i < nvdevs; i++) {
		where_index(&wi, &wv, i);
		rc = read_vbd(vbds->u.array.values[i], &wi, &s->vbds[i], e);
	}
	return rc;
}

static int read_strings(yajl_val arr, const struct where *w, size_t max,
			char ***out, size_t *n, struct xvbd_ab_err *e)
{
	size_t i, len = arr->u.array.len;
	struct where wi;

	if (len > max) {
		err_set(e, "%s: more than %zu entries", w->s, max);
		return -EINVAL;
	}
	*out = calloc(len ? len : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		yajl_val v = arr->u.array.values[i];

		if (!YAJL_IS_STRING(v)) {
			where_index(&wi, w, i);
			err_set(e, "%s: not a string", wi.s);
			return -EINVAL;
		}
		(*out)[i] = strdup(v->u.string);
		if (!(*out)[i])
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

static int read_fingerprint(yajl_val v, struct xvbd_ab_fp *fp,
			    struct xvbd_ab_err *e)
{
	size_t i;

	if (!YAJL_IS_OBJECT(v)) {
		err_set(e, "fingerprint: not an object");
		return -EINVAL;
	}
	if (v->u.object.len > XVBD_AB_FACTS_MAX) {
		err_set(e, "fingerprint: more than %d facts",
			XVBD_AB_FACTS_MAX);
		return -EINVAL;
	}
	for (i = 0; i < v->u.object.len; i++) {
		const char *key = v->u.object.keys[i];
		yajl_val val = v->u.object.values[i];
		int rc;

		if (!xvbd_ab_fact_key_valid(key)) {
			char *esc = xvbd_escape(key);

			err_set(e, "fingerprint: \"%.64s\": not a fact name",
				esc ? esc : "?");
			free(esc);
			return -EINVAL;
		}
		if (xvbd_ab_fp_get(fp, key)) {
			err_set(e, "fingerprint: \"%s\" twice", key);
			return -EINVAL;
		}
		if (!YAJL_IS_STRING(val)) {
			err_set(e, "fingerprint.%s: not a string", key);
			return -EINVAL;
		}
		if (!xvbd_ab_printable(val->u.string, XVBD_AB_TEXT_MAX)) {
			err_set(e, "fingerprint.%s: not printable text of at "
				"most %d bytes", key, XVBD_AB_TEXT_MAX);
			return -EINVAL;
		}
		/* Printable already: set adds no escapes. */
		rc = xvbd_ab_fp_set(fp, key, "%s", val->u.string);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_mode(yajl_val obj, enum xvbd_ab_mode *mode,
		     struct xvbd_ab_err *e)
{
	yajl_val v = obj_get(obj, "mode");

	if (!YAJL_IS_STRING(v)) {
		err_set(e, "mode: not a string");
		return -EINVAL;
	}
	if (!xvbd_ab_mode_parse(v->u.string, mode))
		return 0;
	err_set(e, "mode: not duration, run or until-shutdown");
	return -EINVAL;
}

static const char *const record_keys[] = {
	"format", "version", "id", "label", "started", "started_unix_ns",
	"domain", "vdevs", "mode", "workload", "workload_status",
	"interval_ns", "warmup_ns", "complete", "fingerprint", "notes",
	"samples", "experiment", "pair", "position", "results", "latency",
};
#define NRECORD_KEYS (sizeof(record_keys) / sizeof(record_keys[0]))
/* The last five: experiment, pair and position only in ab run's records
 * (position only in those written since sweeps), results only in --run's
 * records written since it was kept, latency only in runs recorded with
 * --latency. */
#define NRECORD_KEYS_REQUIRED (NRECORD_KEYS - 5)

bool xvbd_ab_json_record_key(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < NRECORD_KEYS; i++)
		if (strlen(record_keys[i]) == len &&
		    !memcmp(record_keys[i], key, len))
			return true;
	return false;
}

int xvbd_ab_json_read_head(yajl_val root, struct xvbd_ab_record *rec,
			   struct xvbd_ab_err *e)
{
	const struct where top = { "" };
	struct where w;
	const char *format;
	char started[32];
	yajl_val arr;
	uint64_t v;
	int rc;

	if (!YAJL_IS_OBJECT(root)) {
		err_set(e, "not a JSON object");
		return -EINVAL;
	}
	/* Format and version first: a newer record says so, not "unknown
	 * key". */
	format = YAJL_GET_STRING(obj_get(root, "format"));
	if (!format || strcmp(format, XVBD_AB_FORMAT)) {
		err_set(e, "format: not \"%s\"", XVBD_AB_FORMAT);
		return -EINVAL;
	}
	if (!YAJL_IS_NUMBER(obj_get(root, "version")) ||
	    strcmp(YAJL_GET_NUMBER(obj_get(root, "version")), "1")) {
		err_set(e, "version: not %d (written by another xvbd "
			"version?)", XVBD_AB_VERSION);
		return -EINVAL;
	}
	rc = obj_check_opt(root, &top, record_keys, NRECORD_KEYS,
			   NRECORD_KEYS_REQUIRED, e);
	if (!rc)
		rc = get_str(root, &top, "id", &rec->id, e);
	if (!rc)
		rc = get_str(root, &top, "label", &rec->label, e);
	if (!rc && !(rc = get_u64(root, &top, "started_unix_ns", INT64_MAX,
				  &v, e)))
		rec->started_unix_ns = (int64_t)v;
	if (!rc && !YAJL_IS_STRING(obj_get(root, "started"))) {
		err_set(e, "started: not a string");
		rc = -EINVAL;
	}
	if (!rc && (xvbd_ab_format_started(rec->started_unix_ns, started,
				   sizeof(started)) ||
		    strcmp(started, obj_get(root, "started")->u.string))) {
		err_set(e, "started: does not match started_unix_ns");
		rc = -EINVAL;
	}
	if (!rc)
		rc = get_str(root, &top, "domain", &rec->domain, e);
	if (!rc && !(rc = get_arr(root, &top, "vdevs", &arr, e))) {
		where_key(&w, &top, "vdevs");
		rc = read_strings(arr, &w, XVBD_AB_VDEVS_MAX, &rec->vdevs,
				  &rec->nvdevs, e);
	}
	if (!rc)
		rc = read_mode(root, &rec->mode, e);
	if (!rc)
		rc = get_str(root, &top, "workload", &rec->workload, e);
	if (!rc && !(rc = get_u64(root, &top, "workload_status", 255, &v, e)))
		rec->workload_status = (int)v;
	if (!rc && obj_get(root, "experiment"))
		rc = get_str(root, &top, "experiment", &rec->experiment, e);
	if (!rc && obj_get(root, "pair") &&
	    !(rc = get_u64(root, &top, "pair", XVBD_AB_PAIR_MAX, &v, e)))
		rec->pair = (uint32_t)v;
	if (!rc && obj_get(root, "position") &&
	    !(rc = get_u64(root, &top, "position", XVBD_AB_LEVELS_MAX, &v, e)))
		rec->position = (uint32_t)v;
	if (!rc)
		rc = get_u64(root, &top, "interval_ns", XVBD_AB_INTERVAL_MAX_NS,
			     &rec->interval_ns, e);
	if (!rc)
		rc = get_u64(root, &top, "warmup_ns", XVBD_AB_WARMUP_MAX_NS,
			     &rec->warmup_ns, e);
	if (!rc)
		rc = get_bool(root, &top, "complete", &rec->complete, e);
	if (!rc)
		rc = read_fingerprint(obj_get(root, "fingerprint"), &rec->fp,
				      e);
	if (!rc && !(rc = get_arr(root, &top, "notes", &arr, e))) {
		where_key(&w, &top, "notes");
		rc = read_strings(arr, &w, XVBD_AB_NOTES_MAX, &rec->notes,
				  &rec->nnotes, e);
	}
	if (!rc && obj_get(root, "results"))
		rc = xvbd_ab_results_read(obj_get(root, "results"),
					  &rec->results, e);
	if (!rc)
		rc = get_arr(root, &top, "samples", &arr, e);
	/* After vdevs: one entry per vdev. */
	if (!rc && obj_get(root, "latency"))
		rc = xvbd_ab_lat_read(obj_get(root, "latency"), rec, e);
	if (rc)
		return rc;
	/* The vdev count is known only once vdevs passed its checks. */
	rc = xvbd_ab_record_check_head(rec, e);
	if (rc)
		return rc;
	/* The samples are the caller's (ab_json_read.c): one at a time. */
	return 0;
}

int xvbd_ab_json_read_sample(yajl_val v, size_t index, size_t nvdevs,
			     struct xvbd_ab_sample *s, struct xvbd_ab_err *e)
{
	struct where w;

	where_index(&w, &(const struct where){ "samples" }, index);
	return read_sample(v, &w, nvdevs, s, e);
}
