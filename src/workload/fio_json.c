/*
 * fio_json.c - one fio JSON (or JSON+) document read into struct
 * xvbd_wl_fio by yajl's callback parser.
 *
 * Not yajl_tree: it keeps strings NUL-terminated (a NUL inside one would
 * pass unseen) and builds a node for every value before anything is
 * checked.  Here each value is taken or skipped as it comes, with its
 * length from yajl, and only what a record keeps is allocated, within
 * the layer's limits.  Where a value sits is a stack of contexts (struct
 * fio_doc); a known key with a value of the wrong kind stops the parse
 * with the value's place ("jobs[1].read.iops: ...").
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio_impl.h"

static int stop(struct fio_doc *d, int rc, const char *fmt, ...)
	XVBD_PRINTF(3, 4);
static int nomem(struct fio_doc *d);

/* The place of the value under the pending key, for messages. */
static void where(const struct fio_doc *d, char *buf, size_t len)
{
	enum fio_ctx c = d->stack[d->depth];
	size_t j = d->f.njobs ? d->f.njobs - 1 : 0;
	const char *key = d->key_long ? "(a long key)" : d->key;

	switch (c) {
	case CTX_JOB:
	case CTX_JOB_OPTS:
		snprintf(buf, len, "jobs[%zu].%s%.64s", j,
			 c == CTX_JOB_OPTS ? "job options." : "", key);
		break;
	case CTX_DIR:
		snprintf(buf, len, "jobs[%zu].%s.%.64s", j,
			 xvbd_wl_dir_name(d->dir), key);
		break;
	case CTX_LAT:
	case CTX_PCT:
	case CTX_BINS:
		snprintf(buf, len, "jobs[%zu].%s.%s.%s%.64s", j,
			 xvbd_wl_dir_name(d->dir), xvbd_wl_lat_name(d->kind),
			 c == CTX_PCT ? "percentile." :
			 c == CTX_BINS ? "bins." : "", key);
		break;
	case CTX_DISK:
		snprintf(buf, len, "disk_util[%zu].%.64s",
			 d->f.ndisks ? d->f.ndisks - 1 : 0, key);
		break;
	case CTX_JOBS:
		snprintf(buf, len, "jobs");
		break;
	case CTX_DISKS:
		snprintf(buf, len, "disk_util");
		break;
	default:
		snprintf(buf, len, "%.64s", *key ? key : "the document");
		break;
	}
}

/* Stop the parse: why is "<place>: <what>". */
static int stop(struct fio_doc *d, int rc, const char *fmt, ...)
{
	char place[160], what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	where(d, place, sizeof(place));
	snprintf(d->why, sizeof(d->why), "%.100s: %.140s", place, what);
	d->rc = rc;
	return 0;
}

static int nomem(struct fio_doc *d)
{
	snprintf(d->why, sizeof(d->why), "%s", strerror(ENOMEM));
	d->rc = -ENOMEM;
	return 0;
}

/* ---- numbers: yajl hands over the text; each field has one kind ---- */

static int num_copy(const char *s, size_t len, char *buf, size_t cap)
{
	if (len == 0 || len >= cap)
		return -ERANGE;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

/* A whole number >= 0 that fits 64 bits. */
static int num_u64(const char *s, size_t len, uint64_t *out)
{
	char buf[32];

	if (num_copy(s, len, buf, sizeof(buf)))
		return -ERANGE;
	return xvbd_parse_uint(buf, UINT64_MAX, out);
}

/* A finite number >= 0 (fio prints rates and means with decimals). */
static int num_double(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	double v;

	if (num_copy(s, len, buf, sizeof(buf)))
		return -ERANGE;
	errno = 0;
	v = strtod(buf, &end);
	if (*end || !isfinite(v) || v < 0 || errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

static int bad_number(struct fio_doc *d, const char *s, size_t len,
		      const char *want)
{
	return stop(d, -EINVAL, "not %s (\"%.*s\")", want,
		    (int)(len > 40 ? 40 : len), s);
}

#define U64(field) do {						\
	if (num_u64(s, len, &(field)))					\
		return bad_number(d, s, len, "a whole number >= 0");	\
	return 1;							\
} while (0)
#define DBL(field) do {							\
	if (num_double(s, len, &(field)))				\
		return bad_number(d, s, len, "a finite number >= 0");	\
	return 1;							\
} while (0)

static bool key_is(const struct fio_doc *d, const char *k)
{
	return !d->key_long && !strcmp(d->key, k);
}

static struct xvbd_wl_job *job_of(struct fio_doc *d)
{
	return &d->f.jobs[d->f.njobs - 1];
}

static struct xvbd_wl_lat *lat_of(struct fio_doc *d)
{
	return &job_of(d)->dir[d->dir].lat[d->kind];
}

static int number_in_job(struct fio_doc *d, const char *s, size_t len)
{
	struct xvbd_wl_job *j = job_of(d);
	uint64_t v;

	if (key_is(d, "groupid") || key_is(d, "error")) {
		/* fio's error is an errno: >= 0, as is its group number. */
		if (num_u64(s, len, &v) || v > INT32_MAX)
			return bad_number(d, s, len, "a whole number >= 0");
		if (key_is(d, "groupid"))
			j->groupid = (uint32_t)v;
		else
			j->error = (int32_t)v;
		return 1;
	}
	if (key_is(d, "job_runtime"))
		U64(j->job_runtime_ms);
	if (key_is(d, "elapsed"))
		U64(j->elapsed_s);
	return 1;
}

static int number_in_dir(struct fio_doc *d, const char *s, size_t len)
{
	struct xvbd_wl_dirstat *ds = &job_of(d)->dir[d->dir];

	if (key_is(d, "io_bytes"))
		U64(ds->io_bytes);
	if (key_is(d, "bw_bytes"))
		U64(ds->bw_bytes);
	if (key_is(d, "iops"))
		DBL(ds->iops);
	if (key_is(d, "runtime"))
		U64(ds->runtime_ms);
	if (key_is(d, "total_ios"))
		U64(ds->total_ios);
	if (key_is(d, "short_ios"))
		U64(ds->short_ios);
	if (key_is(d, "drop_ios"))
		U64(ds->drop_ios);
	return 1;
}

static int number_in_lat(struct fio_doc *d, const char *s, size_t len)
{
	struct xvbd_wl_lat *l = lat_of(d);

	if (key_is(d, "min"))
		U64(l->min_ns);
	if (key_is(d, "max"))
		U64(l->max_ns);
	if (key_is(d, "mean"))
		DBL(l->mean_ns);
	if (key_is(d, "stddev"))
		DBL(l->stddev_ns);
	if (key_is(d, "N"))
		U64(l->n);
	return 1;
}

static int number_in_pct(struct fio_doc *d, const char *s, size_t len)
{
	struct xvbd_wl_lat *l = lat_of(d);
	struct xvbd_wl_pct p, *grown;
	char *end;

	errno = 0;
	p.pct = d->key_long ? NAN : strtod(d->key, &end);
	if (d->key_long || *end || !(p.pct > 0 && p.pct <= 100))
		return stop(d, -EINVAL, "not a percentile in (0, 100]");
	if (num_u64(s, len, &p.value_ns))
		return bad_number(d, s, len, "a whole number of ns");
	if (l->npcts == XVBD_WL_PCTS_MAX)
		return stop(d, -E2BIG, "more than %d percentiles",
			    XVBD_WL_PCTS_MAX);
	grown = realloc(l->pcts, (l->npcts + 1) * sizeof(*grown));
	if (!grown)
		return nomem(d);
	l->pcts = grown;
	l->pcts[l->npcts++] = p;
	return 1;
}

static int number_in_bins(struct fio_doc *d, const char *s, size_t len)
{
	uint64_t value_ns, count;
	int rc;

	if (d->key_long || xvbd_parse_uint(d->key, UINT64_MAX, &value_ns))
		return stop(d, -EINVAL, "not a bin value in ns");
	if (num_u64(s, len, &count))
		return bad_number(d, s, len, "an I/O count");
	rc = xvbd_wl_hist_add(&d->f.hist[d->dir][d->kind], value_ns, count);
	if (rc == -E2BIG)
		return stop(d, rc, "more than %d distinct bins",
			    XVBD_WL_BINS_MAX);
	if (rc == -EOVERFLOW)
		return stop(d, rc, "the bin's count overflows");
	if (rc)
		return stop(d, rc, " ");
	return 1;
}

static int number_in_disk(struct fio_doc *d, const char *s, size_t len)
{
	struct xvbd_wl_disk *k = &d->f.disks[d->f.ndisks - 1];

	if (key_is(d, "read_ios"))
		U64(k->read_ios);
	if (key_is(d, "write_ios"))
		U64(k->write_ios);
	if (key_is(d, "read_merges"))
		U64(k->read_merges);
	if (key_is(d, "write_merges"))
		U64(k->write_merges);
	if (key_is(d, "read_ticks"))
		U64(k->read_ticks_ms);
	if (key_is(d, "write_ticks"))
		U64(k->write_ticks_ms);
	if (key_is(d, "in_queue"))
		U64(k->in_queue_ms);
	if (key_is(d, "util"))
		DBL(k->util_pct);
	return 1;
}

/* A string where this context keeps one: its place and the text. */
static int text_take(struct fio_doc *d, const char *s, size_t len,
		     char **out)
{
	char *t;

	if (len > XVBD_WL_TEXT_MAX)
		return stop(d, -E2BIG, "longer than %d bytes",
			    XVBD_WL_TEXT_MAX);
	t = malloc(len + 1);
	if (!t)
		return nomem(d);
	memcpy(t, s, len);
	t[len] = '\0';
	free(*out);
	*out = t;
	return 1;
}

static int opt_add(struct fio_doc *d, struct xvbd_wl_opt **opts,
		   size_t *n, const char *s, size_t len)
{
	struct xvbd_wl_opt *grown;

	if (d->key_long)
		return stop(d, -E2BIG, "an option name longer than %d bytes",
			    FIO_KEY_MAX - 1);
	if (*n == XVBD_WL_OPTS_MAX)
		return stop(d, -E2BIG, "more than %d options",
			    XVBD_WL_OPTS_MAX);
	grown = realloc(*opts, (*n + 1) * sizeof(*grown));
	if (!grown)
		return nomem(d);
	*opts = grown;
	grown[*n].key = strdup(d->key);
	grown[*n].value = NULL;
	if (!grown[*n].key)
		return nomem(d);
	(*n)++;
	return text_take(d, s, len, &grown[*n - 1].value);
}

/* ---- yajl's callbacks ---- */

static int on_number(void *ctx, const char *s, size_t len)
{
	struct fio_doc *d = ctx;

	switch (d->stack[d->depth]) {
	case CTX_ROOT:
		if (key_is(d, "timestamp_ms"))
			U64(d->f.timestamp_ms);
		return 1;
	case CTX_JOB:
		return number_in_job(d, s, len);
	case CTX_DIR:
		return number_in_dir(d, s, len);
	case CTX_LAT:
		return number_in_lat(d, s, len);
	case CTX_PCT:
		return number_in_pct(d, s, len);
	case CTX_BINS:
		return number_in_bins(d, s, len);
	case CTX_DISK:
		return number_in_disk(d, s, len);
	case CTX_JOB_OPTS:
		return opt_add(d, &job_of(d)->opts, &job_of(d)->nopts, s, len);
	case CTX_GLOBAL_OPTS:
		return opt_add(d, &d->f.global_opts, &d->f.nglobal_opts, s,
			       len);
	default:
		return 1;
	}
}

static int on_string(void *ctx, const unsigned char *us, size_t len)
{
	struct fio_doc *d = ctx;
	const char *s = (const char *)us;
	enum fio_ctx c = d->stack[d->depth];

	if (memchr(s, '\0', len))
		return stop(d, -EINVAL, "a NUL byte inside a string");
	if (c == CTX_ROOT && key_is(d, "fio version")) {
		d->seen_version = true;
		return text_take(d, s, len, &d->f.version);
	}
	if (c == CTX_JOB && key_is(d, "jobname"))
		return text_take(d, s, len, &job_of(d)->name);
	if (c == CTX_JOB_OPTS)
		return opt_add(d, &job_of(d)->opts, &job_of(d)->nopts, s, len);
	if (c == CTX_GLOBAL_OPTS)
		return opt_add(d, &d->f.global_opts, &d->f.nglobal_opts, s,
			       len);
	if (c == CTX_DISK && key_is(d, "name"))
		return text_take(d, s, len, &d->f.disks[d->f.ndisks - 1].name);
	if (c == CTX_PCT || c == CTX_BINS || c == CTX_DIR || c == CTX_LAT)
		return stop(d, -EINVAL, "a string where fio writes a number");
	return 1;
}

static int on_literal(void *ctx)
{
	struct fio_doc *d = ctx;
	enum fio_ctx c = d->stack[d->depth];

	if (c == CTX_PCT || c == CTX_BINS || c == CTX_DIR || c == CTX_LAT)
		return stop(d, -EINVAL, "null or a boolean where fio writes a number");
	return 1;
}

static int on_bool(void *ctx, int b)
{
	(void)b;
	return on_literal(ctx);
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
	struct fio_doc *d = ctx;

	if (memchr(s, '\0', len)) {
		d->key[0] = '\0';
		d->key_long = false;
		return stop(d, -EINVAL, "a NUL byte inside a key");
	}
	d->key_long = len >= sizeof(d->key);
	if (d->key_long)
		len = 0;
	memcpy(d->key, s, len);
	d->key[len] = '\0';
	return 1;
}

static int dir_of(const struct fio_doc *d)
{
	int i;

	for (i = 0; i < XVBD_WL_NDIRS; i++)
		if (key_is(d, xvbd_wl_dir_name(i)))
			return i;
	return -1;
}

static int lat_kind_of(const struct fio_doc *d)
{
	int i;

	for (i = 0; i < XVBD_WL_NLATS; i++)
		if (key_is(d, xvbd_wl_lat_name(i)))
			return i;
	return -1;
}

static int job_new(struct fio_doc *d)
{
	struct xvbd_wl_job *grown;

	if (d->f.njobs == XVBD_WL_JOBS_MAX)
		return stop(d, -E2BIG, "more than %d jobs", XVBD_WL_JOBS_MAX);
	grown = realloc(d->f.jobs, (d->f.njobs + 1) * sizeof(*grown));
	if (!grown)
		return nomem(d);
	d->f.jobs = grown;
	memset(&grown[d->f.njobs++], 0, sizeof(*grown));
	d->seen_maps = 0;
	return 1;
}

static int disk_new(struct fio_doc *d)
{
	struct xvbd_wl_disk *grown;

	if (d->f.ndisks == XVBD_WL_DISKS_MAX)
		return stop(d, -E2BIG, "more than %d disks",
			    XVBD_WL_DISKS_MAX);
	grown = realloc(d->f.disks, (d->f.ndisks + 1) * sizeof(*grown));
	if (!grown)
		return nomem(d);
	d->f.disks = grown;
	memset(&grown[d->f.ndisks++], 0, sizeof(*grown));
	return 1;
}

/* A latency's percentile or bins map, once per job and latency. */
static int lat_map_once(struct fio_doc *d, bool bins)
{
	uint32_t bit = 1u << ((d->dir * XVBD_WL_NLATS + d->kind) * 2 + bins);

	if (d->seen_maps & bit)
		return stop(d, -EINVAL, "a second map of this name");
	d->seen_maps |= bit;
	return 1;
}

/* The context a map opens under the pending key (CTX_SKIP: not kept). */
static int map_ctx(struct fio_doc *d, enum fio_ctx parent, enum fio_ctx *c)
{
	int i;

	*c = CTX_SKIP;
	switch (parent) {
	case CTX_ROOT:
		if (key_is(d, "global options"))
			*c = CTX_GLOBAL_OPTS;
		else if (key_is(d, "jobs") || key_is(d, "disk_util"))
			return stop(d, -EINVAL, "an object where fio writes an array");
		return 1;
	case CTX_JOBS:
		*c = CTX_JOB;
		return job_new(d);
	case CTX_DISKS:
		*c = CTX_DISK;
		return disk_new(d);
	case CTX_JOB:
		if (key_is(d, "job options")) {
			*c = CTX_JOB_OPTS;
		} else if ((i = dir_of(d)) >= 0) {
			*c = CTX_DIR;
			d->dir = i;
		}
		return 1;
	case CTX_DIR:
		if ((i = lat_kind_of(d)) >= 0) {
			*c = CTX_LAT;
			d->kind = i;
		}
		return 1;
	case CTX_PCT:
	case CTX_BINS:
	case CTX_JOB_OPTS:
	case CTX_GLOBAL_OPTS:
		return stop(d, -EINVAL, "an object where fio writes %s",
			    parent == CTX_PCT || parent == CTX_BINS ?
			    "a number" : "a string");
	case CTX_LAT:
		if (key_is(d, "percentile")) {
			*c = CTX_PCT;
			return lat_map_once(d, false);
		}
		if (key_is(d, "bins")) {
			*c = CTX_BINS;
			return lat_map_once(d, true);
		}
		return 1;
	default:
		return 1;
	}
}

static int push(struct fio_doc *d, enum fio_ctx c)
{
	/* The framing reader refuses deeper text before yajl sees it. */
	if (d->depth >= XVBD_WL_DEPTH_MAX)
		return stop(d, -EINVAL, "nested deeper than %d",
			    XVBD_WL_DEPTH_MAX);
	d->stack[++d->depth] = c;
	d->key[0] = '\0';
	d->key_long = false;
	return 1;
}

static int on_start_map(void *ctx)
{
	struct fio_doc *d = ctx;
	enum fio_ctx c;

	if (d->depth == 0) {
		/* The document itself (the framing gives one per handle). */
		d->stack[1] = CTX_ROOT;
		d->depth = 1;
		return 1;
	}
	if (!map_ctx(d, d->stack[d->depth], &c))
		return 0;
	return push(d, c);
}

static int on_start_array(void *ctx)
{
	struct fio_doc *d = ctx;
	enum fio_ctx c = CTX_SKIP;

	if (d->depth == 0)
		return stop(d, -EINVAL, "not a JSON object");
	if (d->stack[d->depth] == CTX_ROOT) {
		/* Not "client_stats" (fio --client): its "All clients"
		 * entry sums the others, which a run's totals would count
		 * twice. */
		if (key_is(d, "jobs")) {
			if (d->seen_jobs)
				return stop(d, -EINVAL, "a second list of jobs");
			d->seen_jobs = true;
			c = CTX_JOBS;
		} else if (key_is(d, "disk_util")) {
			c = CTX_DISKS;
		}
	} else {
		switch (d->stack[d->depth]) {
		case CTX_JOBS:
		case CTX_DISKS:
			return stop(d, -EINVAL, "an array where fio writes an object");
		case CTX_PCT:
		case CTX_BINS:
		case CTX_JOB_OPTS:
		case CTX_GLOBAL_OPTS:
			return stop(d, -EINVAL, "an array where fio writes a value");
		default:
			break;
		}
	}
	return push(d, c);
}

static int on_end(void *ctx)
{
	struct fio_doc *d = ctx;

	if (d->depth > 0)
		d->depth--;
	d->key[0] = '\0';
	d->key_long = false;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_literal,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

int fio_doc_begin(struct fio_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->h = yajl_alloc(&callbacks, NULL, d);
	return d->h ? 0 : -ENOMEM;
}

/* yajl's message for a syntax error, on one line. */
static void syntax_error(struct fio_doc *d)
{
	char msg[160];

	xvbd_json_syntax_error(d->h, msg, sizeof(msg));
	snprintf(d->why, sizeof(d->why), "not valid JSON (%s)", msg);
	d->rc = -EINVAL;
}

int fio_doc_feed(struct fio_doc *d, const char *buf, size_t len)
{
	yajl_status st = yajl_parse(d->h, (const unsigned char *)buf, len);

	if (st == yajl_status_ok)
		return 0;
	if (st == yajl_status_error)
		syntax_error(d);
	return d->rc ? d->rc : -EINVAL;
}

int fio_doc_end(struct fio_doc *d)
{
	yajl_status st = yajl_complete_parse(d->h);

	if (st != yajl_status_ok) {
		if (st == yajl_status_error)
			syntax_error(d);
		return d->rc ? d->rc : -EINVAL;
	}
	if (!d->seen_version) {
		snprintf(d->why, sizeof(d->why),
			 "a JSON object without \"fio version\": not fio's");
		return -EINVAL;
	}
	if (!d->f.njobs) {
		snprintf(d->why, sizeof(d->why), "fio's JSON lists no jobs");
		return -EINVAL;
	}
	return 0;
}

void fio_doc_close(struct fio_doc *d, struct xvbd_wl_fio *out)
{
	if (d->h)
		yajl_free(d->h);
	d->h = NULL;
	if (out)
		*out = d->f;
	else
		xvbd_wl_fio_free(&d->f);
	memset(&d->f, 0, sizeof(d->f));
}
