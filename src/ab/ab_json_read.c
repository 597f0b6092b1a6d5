/*
 * ab_json_read.c - a record file read with memory that follows what is
 * kept, never the file's size.
 *
 * yajl_tree would build a node for every value before anything is
 * checked: a 64 MiB "samples": [0,0,...] took 3 GB.  Here yajl's callback
 * parser runs over the text once and only counts and cuts: the head
 * (every top-level key before "samples") is rebuilt as a small document
 * and checked as soon as "samples" begins, then each sample is cut out,
 * made a tree, checked and freed before the next one.  A value a record
 * cannot hold (more values in the head or in a sample than the format
 * allows) stops the parse where it is met.  xvbd writes "samples" last;
 * a document with a key after it is refused.
 *
 * Cutting uses yajl_get_bytes_consumed() inside the callbacks: within
 * one yajl_parse() call it is the offset just past the token the
 * callback is about (the whole text is given in one call).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/ab/ab_record_impl.h"
#include "ab_json_impl.h"
#include "xvbd/base/jsonpath.h"
#include "xvbd/base/util.h"
#include "xvbd/workload/workload.h"

#define err_set xvbd_ab_err_set
/* Our documents nest 6 deep (record, samples, sample, vbds, vbd, blk);
 * each sample's tree is freed recursively. */
#define DEPTH_MAX		16
/*
 * Values a head can hold: its 17 keys' values and containers, the vdevs,
 * notes and facts at their limits.  Exact checks come after; this only
 * bounds the tree they run on.
 */
#define HEAD_VALUES_MAX	(64 + XVBD_AB_VDEVS_MAX + XVBD_AB_NOTES_MAX + \
			 XVBD_AB_FACTS_MAX + \
			 XVBD_AB_LAT_VALUES_MAX(XVBD_AB_VDEVS_MAX) + \
			 RESULTS_VALUES_MAX)
/*
 * The most a "results" can hold (ab_results_json.c) within the workload
 * layer's limits: per job its fields, options and three directions of
 * three latencies with their percentiles; the bins of nine histograms.
 */
#define RESULTS_JOB_VALUES	(16 + 3 * XVBD_WL_OPTS_MAX + \
				 3 * (16 + 3 * (16 + 3 * XVBD_WL_PCTS_MAX)))
#define RESULTS_VALUES_MAX	(XVBD_WL_JOBS_MAX * RESULTS_JOB_VALUES + \
				 9 * 3 * XVBD_WL_BINS_MAX + \
				 3 * XVBD_WL_BENCH_MAX * \
				 (8 + 3 * XVBD_WL_UNITS_MAX) + 4096)
/*
 * A sample holds 7 values and 14 per VBD; more than about twice that is
 * refused before a tree is made (less gets the exact check's message).
 */
#define SAMPLE_VALUES(nvdevs)	(16 + 32 * ((nvdevs) + 1))

struct reader {
	yajl_handle h;
	const char *json;
	struct xvbd_ab_record *rec;
	struct xvbd_ab_err *e;
	int rc;			/* why the parse was stopped */
	int depth;		/* 1: in the record's object */
	size_t cut;		/* where the current member/sample begins */
	char *head;		/* "{" members so far */
	size_t head_len, head_values;
	bool head_done;		/* checked: samples are being read */
	bool in_samples;	/* depth 2 is the samples array */
	bool samples_done;
	bool finishing;		/* in yajl_complete_parse: no offsets */
	size_t sample_values;
	char *tmp;		/* one sample's text */
	size_t tmp_cap;
	struct xvbd_json_path path;	/* where the parse is: for errors */
};

static size_t pos(const struct reader *r)
{
	return yajl_get_bytes_consumed(r->h);
}

static int stop(struct reader *r, int rc)
{
	r->rc = rc;
	return 0;
}

/* json[from, to) without the separator and blanks before the value. */
static const char *trim(const struct reader *r, size_t from, size_t to,
			size_t *len)
{
	const char *s = r->json + from;

	if (to < from)		/* cannot be: yajl offsets only grow */
		to = from;
	while (s < r->json + to &&
	       (*s == ',' || *s == ' ' || *s == '\t' || *s == '\n' ||
		*s == '\r'))
		s++;
	*len = (size_t)(r->json + to - s);
	return s;
}

/* A copy of json[from, to) as a NUL-terminated document in r->tmp. */
static int take(struct reader *r, size_t from, size_t to, size_t *len)
{
	const char *s = trim(r, from, to, len);

	if (*len + 1 > r->tmp_cap) {
		char *bigger = realloc(r->tmp, *len + 1);

		if (!bigger)
			return -ENOMEM;
		r->tmp = bigger;
		r->tmp_cap = *len + 1;
	}
	memcpy(r->tmp, s, *len);
	r->tmp[*len] = '\0';
	return 0;
}

static yajl_val tree_of(struct reader *r, const char *text)
{
	char errbuf[128];
	yajl_val v = yajl_tree_parse(text, errbuf, sizeof(errbuf));

	/* It parsed once already: only memory can fail here. */
	if (!v)
		stop(r, -ENOMEM);
	return v;
}

/* The head so far, as a record with no samples: checked into r->rec. */
static int finish_head(struct reader *r, bool samples_seen)
{
	/* No comma before samples when it is the first key. */
	const char *end = !samples_seen ? "}" :
			  r->head_len > 1 ? ",\"samples\":[]}" :
			  "\"samples\":[]}";
	size_t n = strlen(end);
	char *doc = realloc(r->head, r->head_len + n + 1);
	yajl_val root;
	int rc;

	if (!doc)
		return stop(r, -ENOMEM);
	r->head = doc;
	memcpy(doc + r->head_len, end, n + 1);
	r->head_done = true;
	root = tree_of(r, doc);
	if (!root)
		return 0;
	rc = xvbd_ab_json_read_head(root, r->rec, r->e);
	yajl_tree_free(root);
	return rc ? stop(r, rc) : 1;
}

/* Member json[r->cut, end) ("key": value) into the head. */
static int add_member(struct reader *r, size_t end)
{
	size_t len;
	const char *s = trim(r, r->cut, end, &len);
	char *bigger = realloc(r->head, r->head_len + len + 2);

	if (!bigger)
		return stop(r, -ENOMEM);
	r->head = bigger;
	if (r->head_len > 1)
		r->head[r->head_len++] = ',';
	memcpy(r->head + r->head_len, s, len);
	r->head_len += len;
	r->head[r->head_len] = '\0';
	r->cut = end;
	return 1;
}

static int add_sample(struct reader *r, size_t end)
{
	struct xvbd_ab_record *rec = r->rec;
	struct xvbd_ab_sample *s;
	yajl_val v;
	size_t len;
	int rc;

	if (rec->nsamples == rec->cap_samples) {
		size_t cap = rec->cap_samples ? rec->cap_samples * 2 : 64;

		s = realloc(rec->samples, cap * sizeof(*s));
		if (!s)
			return stop(r, -ENOMEM);
		rec->samples = s;
		rec->cap_samples = cap;
	}
	rc = take(r, r->cut, end, &len);
	r->cut = end;
	r->sample_values = 0;
	if (rc)
		return stop(r, rc);
	v = tree_of(r, r->tmp);
	if (!v)
		return 0;
	s = &rec->samples[rec->nsamples];
	memset(s, 0, sizeof(*s));
	rc = xvbd_ab_json_read_sample(v, rec->nsamples, rec->nvdevs, s, r->e);
	yajl_tree_free(v);
	/* Counted even when it failed: the record's free frees its vbds. */
	rec->nsamples++;
	return rc ? stop(r, rc) : 1;
}

/* A value begins (a scalar: begins and ends). */
static int value(struct reader *r)
{
	if (r->depth == 0) {
		err_set(r->e, "not a JSON object");
		return stop(r, -EINVAL);
	}
	if (r->in_samples && r->depth >= 2) {
		if (++r->sample_values > SAMPLE_VALUES(r->rec->nvdevs)) {
			err_set(r->e, "samples[%zu]: more values than a sample"
				" of %zu vdevs holds", r->rec->nsamples,
				r->rec->nvdevs);
			return stop(r, -EINVAL);
		}
		return 1;
	}
	if (r->in_samples)	/* the samples array itself */
		return 1;
	if (++r->head_values > HEAD_VALUES_MAX) {
		err_set(r->e, "more values than a record's head holds "
			"(%zu)", (size_t)HEAD_VALUES_MAX);
		return stop(r, -EINVAL);
	}
	return 1;
}

/* A value ended at depth r->depth (after the end of its container). */
static int value_end(struct reader *r)
{
	if (r->in_samples && r->depth == 2)
		return add_sample(r, pos(r));
	if (!r->in_samples && r->depth == 1)
		return add_member(r, pos(r));
	return 1;
}

/*
 * Only a number cut off by the end of the text reaches a callback from
 * yajl_complete_parse (a whole record ends with its '}' in yajl_parse):
 * the text is truncated, which yajl reports next.
 */
#define SKIP_WHEN_FINISHING(r)	do { if ((r)->finishing) return 1; } while (0)

static int on_scalar(void *ctx)
{
	struct reader *r = ctx;

	int rc;

	SKIP_WHEN_FINISHING(r);
	if (r->in_samples && r->depth == 1) {
		err_set(r->e, "samples: not an array");
		return stop(r, -EINVAL);
	}
	rc = value(r) ? value_end(r) : 0;
	xvbd_json_path_scalar(&r->path);
	return rc;
}

static int on_null(void *ctx)
{
	return on_scalar(ctx);
}

static int on_bool(void *ctx, int b)
{
	(void)b;
	return on_scalar(ctx);
}

static int on_number(void *ctx, const char *s, size_t len)
{
	(void)s;
	(void)len;
	return on_scalar(ctx);
}

/*
 * The trees the head and the samples are read from keep C strings: each
 * string and key is checked whole here, where yajl gives its length.
 */
static int whole(struct reader *r, const unsigned char *s, size_t len,
		 bool key)
{
	if (!xvbd_json_str_check(&r->path, "record", s, len, key, r->e->msg,
				 sizeof(r->e->msg)))
		return 1;
	return stop(r, -EINVAL);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct reader *r = ctx;

	SKIP_WHEN_FINISHING(r);
	return whole(r, s, len, false) ? on_scalar(ctx) : 0;
}

static int on_start(void *ctx, bool array)
{
	struct reader *r = ctx;

	SKIP_WHEN_FINISHING(r);
	if (r->depth == 0) {
		if (array) {
			err_set(r->e, "not a JSON object");
			return stop(r, -EINVAL);
		}
		r->head = strdup("{");
		if (!r->head)
			return stop(r, -ENOMEM);
		r->head_len = 1;
		r->depth = 1;
		xvbd_json_path_open(&r->path, false);
		r->cut = pos(r);
		return 1;
	}
	if (r->in_samples && r->depth == 1 && !array) {
		err_set(r->e, "samples: not an array");
		return stop(r, -EINVAL);
	}
	if (!value(r))
		return 0;
	r->depth++;
	xvbd_json_path_open(&r->path, array);
	if (r->in_samples && r->depth == 2)
		r->cut = pos(r);	/* samples[0] begins after the '[' */
	return 1;
}

static int on_start_map(void *ctx)
{
	return on_start(ctx, false);
}

static int on_start_array(void *ctx)
{
	return on_start(ctx, true);
}

static int on_end(void *ctx)
{
	struct reader *r = ctx;

	SKIP_WHEN_FINISHING(r);
	r->depth--;
	xvbd_json_path_close(&r->path);
	if (r->in_samples && r->depth == 1) {
		r->in_samples = false;
		r->samples_done = true;
		r->cut = pos(r);
		return 1;
	}
	if (r->depth == 0)
		return r->head_done ? 1 : finish_head(r, false);
	return value_end(r);
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
	struct reader *r = ctx;

	SKIP_WHEN_FINISHING(r);
	xvbd_json_path_key(&r->path, key, len);
	if (!whole(r, key, len, true))
		return 0;
	if (r->depth != 1)
		return 1;
	if (r->samples_done) {
		/* The head had every key once: this one is twice, or not
		 * a record's (xvbd writes samples last). */
		char *copy = strndup((const char *)key, len);
		char *esc = copy ? xvbd_escape(copy) : NULL;

		if (xvbd_ab_json_record_key((const char *)key, len))
			err_set(r->e, "\"%s\" twice", esc ? esc : "?");
		else
			err_set(r->e, "unknown key \"%.64s\"", esc ? esc : "?");
		free(esc);
		free(copy);
		return stop(r, -EINVAL);
	}
	if (len != strlen("samples") || memcmp(key, "samples", len))
		return 1;
	/* Everything the samples are checked against is known now. */
	if (!finish_head(r, true))
		return 0;
	r->in_samples = true;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

/* yajl's message for a syntax error, on one line. */
static void syntax_error(struct reader *r)
{
	char msg[160];

	xvbd_json_syntax_error(r->h, msg, sizeof(msg));
	err_set(r->e, "not valid JSON (%s)", msg);
}

int xvbd_ab_record_from_json(const char *json, size_t len,
			     struct xvbd_ab_record *rec, struct xvbd_ab_err *e)
{
	struct reader r = { .json = json, .rec = rec, .e = e };
	yajl_status st;
	int rc;

	memset(rec, 0, sizeof(*rec));
	if (len > XVBD_AB_FILE_MAX) {
		err_set(e, "larger than %d MiB", XVBD_AB_FILE_MAX >> 20);
		return -EFBIG;
	}
	if (memchr(json, '\0', len)) {
		err_set(e, "not JSON text (contains a NUL byte)");
		return -EINVAL;
	}
	/* Before anything else, as before yajl_tree: the first thing said. */
	if (xvbd_json_depth(json, len, DEPTH_MAX) > DEPTH_MAX) {
		err_set(e, "nested deeper than a record");
		return -EINVAL;
	}
	r.h = yajl_alloc(&callbacks, NULL, &r);
	if (!r.h) {
		err_set(e, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	st = yajl_parse(r.h, (const unsigned char *)json, len);
	if (st == yajl_status_ok) {
		r.finishing = true;
		st = yajl_complete_parse(r.h);
	}
	if (st == yajl_status_error)
		syntax_error(&r);
	rc = st == yajl_status_ok ? 0 : r.rc ? r.rc : -EINVAL;
	if (!rc && !r.head_done) {
		err_set(e, "not a JSON object");
		rc = -EINVAL;
	}
	if (!rc)
		rc = xvbd_ab_record_check(rec, e);
	yajl_free(r.h);
	free(r.head);
	free(r.tmp);
	if (rc == -ENOMEM)
		err_set(e, "%s", strerror(ENOMEM));
	if (rc)
		xvbd_ab_record_free(rec);
	return rc;
}
