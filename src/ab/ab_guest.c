/*
 * ab_guest.c - the guest's own figures in a run's summary, the
 * workload's facts in its fingerprint, and a label's merged latency
 * distribution, all from the record's results (what the --run command
 * printed, read by the workload layer).
 *
 * fio: per direction over the jobs (xvbd_wl_fio_total: fio's own
 * figures with one job, fio's group arithmetic with more); completion
 * latency in ms.  A run's percentile is that run's own summary, as fio
 * printed it (or, with several jobs, from their summed JSON+ bins):
 * runs' percentiles are compared as any other per-run figure; the
 * label's distribution is the sum of its runs' bins (xvbd_ab_merged_clat).
 *
 * benchfmt: each (benchmark, unit) is a metric in a slot of its
 * direction, in the order the output first names them; its value in a
 * run is the mean of the lines that give it.
 * Pure: no I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_record_impl.h"

#define NS_PER_MS	1e6
#define BYTES_PER_MB	1e6
/* Jobs whose options go into the fingerprint (the rest: one fact). */
#define FP_JOBS_MAX	16

bool xvbd_ab_metric_is_guest(enum xvbd_ab_metric m)
{
	return m >= XVBD_AB_G_RD_IOPS && m < XVBD_AB_NMETRICS;
}

/* The metrics of one direction: IO/s, MB/s, clat mean, p50/p99/p99.9, max. */
static const enum xvbd_ab_metric dir_metrics[2][7] = {
	{ XVBD_AB_G_RD_IOPS, XVBD_AB_G_RD_MBS, XVBD_AB_G_RD_CLAT,
	  XVBD_AB_G_RD_P50, XVBD_AB_G_RD_P99, XVBD_AB_G_RD_P999,
	  XVBD_AB_G_RD_CLAT_MAX },
	{ XVBD_AB_G_WR_IOPS, XVBD_AB_G_WR_MBS, XVBD_AB_G_WR_CLAT,
	  XVBD_AB_G_WR_P50, XVBD_AB_G_WR_P99, XVBD_AB_G_WR_P999,
	  XVBD_AB_G_WR_CLAT_MAX },
};

static void put(struct xvbd_ab_summary *out, enum xvbd_ab_metric m,
		double v)
{
	out->value[m] = out->window[m] = v;
	out->known[m] = true;
}

static void fio_summarize(const struct xvbd_wl_fio *f,
			  struct xvbd_ab_summary *out)
{
	struct xvbd_wl_dir_total t;
	int d, p;

	for (d = 0; d < 2; d++) {
		const enum xvbd_ab_metric *m = dir_metrics[d];

		xvbd_wl_fio_total(f, d, &t);
		if (!t.active)
			continue;
		if (t.rate_known) {
			put(out, m[0], t.iops);
			put(out, m[1], t.bw_bytes / BYTES_PER_MB);
		}
		if (!t.clat_known)
			continue;
		put(out, m[2], t.clat_mean_ns / NS_PER_MS);
		for (p = 0; p < 3; p++)
			if (t.pct_known[p])
				put(out, m[3 + p], (double)t.pct_ns[p] /
				    NS_PER_MS);
		put(out, m[6], (double)t.clat_max_ns / NS_PER_MS);
	}
}

/*
 * The k-th distinct (name, unit) of direction better in b's lines (k
 * from 0): the line of its first value (*value its index), or -1.
 */
static long slot_line(const struct xvbd_wl_bench *b,
		      enum xvbd_wl_better better, size_t k, size_t *value)
{
	const char *names[XVBD_AB_BENCH_SLOTS], *units[XVBD_AB_BENCH_SLOTS];
	size_t i, v, s, nseen = 0;

	for (i = 0; i < b->nlines; i++) {
		for (v = 0; v < b->lines[i].nvalues; v++) {
			const char *name = b->lines[i].name;
			const char *unit = b->lines[i].values[v].unit;

			if (xvbd_wl_bench_better(b, unit) != better)
				continue;
			for (s = 0; s < nseen && (strcmp(names[s], name) ||
						  strcmp(units[s], unit)); s++)
				;
			if (s < nseen)
				continue;
			if (nseen == k) {
				*value = v;
				return (long)i;
			}
			/* nseen < k < XVBD_AB_BENCH_SLOTS */
			names[nseen] = name;
			units[nseen++] = unit;
		}
	}
	return -1;
}

bool xvbd_ab_bench_slot(const struct xvbd_ab_record *rec,
			enum xvbd_ab_metric m, const char **name,
			const char **unit, double *mean)
{
	const struct xvbd_wl_bench *b;
	enum xvbd_wl_better better;
	double sum = 0;
	size_t k, v, i, w, n = 0;
	long at;

	if (!rec->results || rec->results->format != XVBD_WL_BENCHFMT ||
	    m < XVBD_AB_BENCH_LOWER1 || m > XVBD_AB_BENCH_HIGHER4)
		return false;
	/* (the slots, in ab.h's order: XVBD_AB_BENCH_SLOTS of each) */
	b = &rec->results->bench;
	better = m >= XVBD_AB_BENCH_HIGHER1 ? XVBD_WL_HIGHER_BETTER :
		 XVBD_WL_LOWER_BETTER;
	k = better == XVBD_WL_HIGHER_BETTER ? m - XVBD_AB_BENCH_HIGHER1 :
	    m - XVBD_AB_BENCH_LOWER1;
	at = slot_line(b, better, k, &v);
	if (at < 0)
		return false;
	*name = b->lines[at].name;
	*unit = b->lines[at].values[v].unit;
	for (i = 0; i < b->nlines; i++) {
		if (strcmp(b->lines[i].name, *name))
			continue;
		for (w = 0; w < b->lines[i].nvalues; w++) {
			if (strcmp(b->lines[i].values[w].unit, *unit))
				continue;
			sum += b->lines[i].values[w].value;
			n++;
		}
	}
	*mean = sum / (double)n;
	return true;
}

void xvbd_ab_guest_summarize(const struct xvbd_ab_record *rec,
			     struct xvbd_ab_summary *out)
{
	const char *name, *unit;
	double mean;
	int m;

	if (!rec->results)
		return;
	if (rec->results->format == XVBD_WL_FIO)
		fio_summarize(&rec->results->fio, out);
	for (m = XVBD_AB_BENCH_LOWER1; m <= XVBD_AB_BENCH_HIGHER4; m++)
		if (xvbd_ab_bench_slot(rec, m, &name, &unit, &mean))
			put(out, m, mean);
}

/* ---- the workload's facts ---- */

/* fio's options that shape the I/O a job does (the fingerprint's). */
static const char *const io_opts[] = {
	"rw", "readwrite", "bs", "blocksize", "bssplit", "iodepth",
	"numjobs", "ioengine", "direct", "buffered", "size", "filename",
	"rwmixread", "rwmixwrite", "runtime", "time_based",
};
#define NIO_OPTS	(sizeof(io_opts) / sizeof(io_opts[0]))

static const char *global_opt(const struct xvbd_wl_fio *f, const char *key)
{
	size_t i;

	for (i = f->nglobal_opts; i > 0; i--)
		if (!strcmp(f->global_opts[i - 1].key, key))
			return f->global_opts[i - 1].value;
	return NULL;
}

static int fact(struct xvbd_ab_fp *fp, const char *value, const char *fmt,
		...) XVBD_PRINTF(3, 4);
static int fact(struct xvbd_ab_fp *fp, const char *value, const char *fmt,
		...)
{
	char key[128], *v;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	/* A key fio's output could make unusable is left out. */
	if (!xvbd_ab_fact_key_valid(key))
		return 0;
	v = xvbd_escape(value);
	if (!v)
		return -ENOMEM;
	if (strlen(v) > XVBD_AB_TEXT_MAX)
		v[XVBD_AB_TEXT_MAX] = '\0';
	rc = xvbd_ab_fp_set(fp, key, "%s", v);
	free(v);
	return rc;
}

static int fio_facts(struct xvbd_ab_fp *fp, const struct xvbd_wl_fio *f)
{
	size_t j, o;
	int rc;

	rc = fact(fp, f->version, "workload.fio.version");
	if (!rc && f->njobs > FP_JOBS_MAX)
		rc = xvbd_ab_fp_set(fp, "workload.fio.jobs", "%zu", f->njobs);
	for (j = 0; !rc && j < f->njobs && j < FP_JOBS_MAX; j++) {
		for (o = 0; !rc && o < NIO_OPTS; o++) {
			/* The job's own value over the global one, as fio
			 * applies them. */
			const char *v = xvbd_wl_job_opt(&f->jobs[j], io_opts[o]);

			if (!v)
				v = global_opt(f, io_opts[o]);
			if (v)
				rc = fact(fp, v, "workload.fio.job%zu.%s", j,
					  io_opts[o]);
		}
	}
	return rc;
}

static int bench_facts(struct xvbd_ab_fp *fp, const struct xvbd_wl_bench *b)
{
	struct xvbd_ab_record one = { 0 };
	struct xvbd_wl_results r = { .format = XVBD_WL_BENCHFMT };
	const char *name, *unit;
	char both[512];
	double mean;
	size_t i;
	int m, rc = 0;

	r.bench = *b;
	one.results = &r;
	for (m = XVBD_AB_BENCH_LOWER1; !rc && m <= XVBD_AB_BENCH_HIGHER4; m++) {
		if (!xvbd_ab_bench_slot(&one, m, &name, &unit, &mean))
			continue;
		snprintf(both, sizeof(both), "%.255s %.64s", name, unit);
		/* the records' fact key since benchfmt came: kept */
		rc = fact(fp, both, "workload.bench.%s-%d",
			  m < XVBD_AB_BENCH_HIGHER1 ? "lower" : "higher",
			  (m - XVBD_AB_BENCH_LOWER1) % XVBD_AB_BENCH_SLOTS + 1);
	}
	for (i = 0; !rc && i < b->nconfig; i++)
		rc = fact(fp, b->config[i].value, "workload.bench.config.%s",
			  b->config[i].key);
	return rc;
}

int xvbd_ab_fp_add_results(struct xvbd_ab_fp *fp,
			   const struct xvbd_wl_results *r)
{
	if (!r)
		return 0;
	if (r->format == XVBD_WL_FIO)
		return fio_facts(fp, &r->fio);
	if (r->format == XVBD_WL_BENCHFMT)
		return bench_facts(fp, &r->bench);
	return 0;
}

/* ---- the workload facts that differ ---- */

static bool is_workload_fact(const char *key)
{
	return !strncmp(key, XVBD_AB_FP_WORKLOAD_PREFIX,
			strlen(XVBD_AB_FP_WORKLOAD_PREFIX));
}

/* "rw=randread bs=1k" of one side's differing facts, into buf at *at. */
static void side_text(const struct xvbd_ab_fpdiff *d, size_t n, bool b_side,
		      char *buf, size_t len, size_t *at)
{
	size_t i;

	for (i = 0; i < n && *at < len; i++) {
		const char *v = b_side ? d[i].b : d[i].a;
		const char *short_key = strrchr(d[i].key, '.') + 1;
		int w;

		if (!is_workload_fact(d[i].key))
			continue;
		w = snprintf(buf + *at, len - *at, "%s%s=%s",
			     *at && buf[*at - 1] != ' ' ? " " : "", short_key,
			     v ? v : "(none)");
		*at += w > 0 ? (size_t)w : 0;
	}
}

int xvbd_ab_workload_diff_text(const struct xvbd_ab_fp *a,
			       const struct xvbd_ab_fp *b, char *buf,
			       size_t len)
{
	struct xvbd_ab_fpdiff *d = NULL;
	size_t n = 0, i, at = 0, nw = 0;
	int rc, w;

	rc = xvbd_ab_fp_diff(a, b, &d, &n);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		nw += is_workload_fact(d[i].key);
	if (!nw) {
		free(d);
		return -ENOENT;
	}
	w = snprintf(buf, len, "the workload's own parameters differ: A ran ");
	at = w > 0 ? (size_t)w : 0;
	side_text(d, n, false, buf, len, &at);
	if (at < len) {
		w = snprintf(buf + at, len - at, ", B ");
		at += w > 0 ? (size_t)w : 0;
	}
	side_text(d, n, true, buf, len, &at);
	if (at < len) {
		w = snprintf(buf + at, len - at, ": %s",
			     xvbd_ab_fp_distorts("workload.fio.job0.rw"));
		at += w > 0 ? (size_t)w : 0;
	}
	free(d);
	return at >= len ? -ENOSPC : 0;
}

/* ---- a label's merged distribution ---- */

int xvbd_ab_merged_clat(const struct xvbd_ab_record *recs, size_t n,
			enum xvbd_wl_dir dir, struct xvbd_wl_hist *out,
			size_t *nruns)
{
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	*nruns = 0;
	for (i = 0; i < n; i++) {
		const struct xvbd_wl_results *r = recs[i].results;

		if (!r || r->format != XVBD_WL_FIO ||
		    !r->fio.hist[dir][XVBD_WL_CLAT].n)
			continue;
		rc = xvbd_wl_hist_merge(out, &r->fio.hist[dir][XVBD_WL_CLAT]);
		if (rc) {
			xvbd_wl_hist_free(out);
			return rc;
		}
		(*nruns)++;
	}
	return 0;
}
