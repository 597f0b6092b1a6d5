/*
 * fio_model.c - what a fio report holds, freed, summed and looked up:
 * the JSON+ histograms and a run's figures over its jobs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/workload/workload.h"

static const char *const dir_names[XVBD_WL_NDIRS] = {
	"read", "write", "trim",
};
static const char *const lat_names[XVBD_WL_NLATS] = {
	"slat_ns", "clat_ns", "lat_ns",
};
const double xvbd_wl_total_pcts[3] = { 50.0, 99.0, 99.9 };

const char *xvbd_wl_dir_name(enum xvbd_wl_dir d)
{
	return d < XVBD_WL_NDIRS ? dir_names[d] : "?";
}

const char *xvbd_wl_lat_name(enum xvbd_wl_lat_kind k)
{
	return k < XVBD_WL_NLATS ? lat_names[k] : "?";
}

void xvbd_wl_opts_free(struct xvbd_wl_opt *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(o[i].key);
		free(o[i].value);
	}
	free(o);
}

void xvbd_wl_hist_free(struct xvbd_wl_hist *h)
{
	free(h->bins);
	memset(h, 0, sizeof(*h));
}

void xvbd_wl_fio_free(struct xvbd_wl_fio *f)
{
	size_t i;
	int d, k;

	for (i = 0; i < f->njobs; i++) {
		struct xvbd_wl_job *j = &f->jobs[i];

		free(j->name);
		xvbd_wl_opts_free(j->opts, j->nopts);
		for (d = 0; d < XVBD_WL_NDIRS; d++)
			for (k = 0; k < XVBD_WL_NLATS; k++)
				free(j->dir[d].lat[k].pcts);
	}
	free(f->jobs);
	xvbd_wl_opts_free(f->global_opts, f->nglobal_opts);
	for (d = 0; d < XVBD_WL_NDIRS; d++)
		for (k = 0; k < XVBD_WL_NLATS; k++)
			xvbd_wl_hist_free(&f->hist[d][k]);
	for (i = 0; i < f->ndisks; i++)
		free(f->disks[i].name);
	free(f->disks);
	free(f->version);
	memset(f, 0, sizeof(*f));
}

const char *xvbd_wl_job_opt(const struct xvbd_wl_job *j, const char *key)
{
	size_t i;

	/* The last one: fio keeps the last value of a repeated option. */
	for (i = j->nopts; i > 0; i--)
		if (!strcmp(j->opts[i - 1].key, key))
			return j->opts[i - 1].value;
	return NULL;
}

bool xvbd_wl_fio_failed(const struct xvbd_wl_fio *f, char *why,
			size_t whylen)
{
	size_t i;

	for (i = 0; i < f->njobs; i++) {
		const struct xvbd_wl_job *j = &f->jobs[i];

		if (!j->error)
			continue;
		snprintf(why, whylen, "fio job '%.64s' failed: error %d (%s)",
			 j->name ? j->name : "?", j->error, strerror(j->error));
		return true;
	}
	return false;
}

/* The index of value_ns in h, or where it would go. */
static size_t hist_find(const struct xvbd_wl_hist *h, uint64_t value_ns)
{
	size_t lo = 0, hi = h->n;

	/* fio writes bins in ascending order: the last one first. */
	if (h->n && h->bins[h->n - 1].value_ns < value_ns)
		return h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->bins[mid].value_ns < value_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int xvbd_wl_hist_add(struct xvbd_wl_hist *h, uint64_t value_ns,
		     uint64_t count)
{
	size_t i = hist_find(h, value_ns);
	struct xvbd_wl_bin *grown;

	if (h->total + count < h->total)
		return -EOVERFLOW;
	if (i < h->n && h->bins[i].value_ns == value_ns) {
		h->bins[i].count += count;
		h->total += count;
		return 0;
	}
	if (h->n == XVBD_WL_BINS_MAX)
		return -E2BIG;
	grown = realloc(h->bins, (h->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	h->bins = grown;
	memmove(&grown[i + 1], &grown[i], (h->n - i) * sizeof(*grown));
	grown[i].value_ns = value_ns;
	grown[i].count = count;
	h->n++;
	h->total += count;
	return 0;
}

int xvbd_wl_hist_merge(struct xvbd_wl_hist *dst,
		       const struct xvbd_wl_hist *src)
{
	size_t i;
	int rc;

	for (i = 0; i < src->n; i++) {
		rc = xvbd_wl_hist_add(dst, src->bins[i].value_ns,
				      src->bins[i].count);
		if (rc)
			return rc;
	}
	return 0;
}

bool xvbd_wl_hist_percentile(const struct xvbd_wl_hist *h, double pct,
			     uint64_t *value_ns)
{
	/* fio's calc_clat_percentiles(): the running sum against
	 * pct / 100 x N in long double, so that the bin is fio's own. */
	long double want = (long double)pct / 100.0 * (long double)h->total;
	uint64_t sum = 0;
	size_t i;

	if (!h->total || !(pct > 0 && pct <= 100))
		return false;
	for (i = 0; i < h->n; i++) {
		sum += h->bins[i].count;
		if ((long double)sum >= want) {
			*value_ns = h->bins[i].value_ns;
			return true;
		}
	}
	*value_ns = h->bins[h->n - 1].value_ns;
	return true;
}

/* A printed percentile of a latency, if fio printed that one. */
static bool printed_pct(const struct xvbd_wl_lat *l, double pct,
			uint64_t *value_ns)
{
	size_t i;

	for (i = 0; i < l->npcts; i++) {
		/* fio prints "99.900000": equal within its 6 decimals */
		double d = l->pcts[i].pct - pct;

		if (d < 5e-7 && d > -5e-7) {
			*value_ns = l->pcts[i].value_ns;
			return true;
		}
	}
	return false;
}

/* Runtime over groups: jobs of a group side by side, groups in turn. */
static uint64_t total_runtime(const struct xvbd_wl_fio *f, enum xvbd_wl_dir d)
{
	uint64_t sum = 0;
	size_t i, k;

	for (i = 0; i < f->njobs; i++) {
		uint64_t longest = 0;
		bool first = true;

		for (k = 0; k < i && first; k++)
			first = f->jobs[k].groupid != f->jobs[i].groupid;
		if (!first)
			continue;
		for (k = i; k < f->njobs; k++)
			if (f->jobs[k].groupid == f->jobs[i].groupid &&
			    f->jobs[k].dir[d].runtime_ms > longest)
				longest = f->jobs[k].dir[d].runtime_ms;
		sum += longest;
	}
	return sum;
}

static void total_clat(const struct xvbd_wl_fio *f, enum xvbd_wl_dir d,
		       struct xvbd_wl_dir_total *t)
{
	const struct xvbd_wl_hist *h = &f->hist[d][XVBD_WL_CLAT];
	long double weighted = 0;
	size_t i, p;

	for (i = 0; i < f->njobs; i++) {
		const struct xvbd_wl_lat *l = &f->jobs[i].dir[d].lat[XVBD_WL_CLAT];

		if (!l->n)
			continue;
		weighted += (long double)l->mean_ns * l->n;
		t->clat_n += l->n;
		if (l->max_ns > t->clat_max_ns)
			t->clat_max_ns = l->max_ns;
	}
	t->clat_known = t->clat_n > 0;
	if (!t->clat_known)
		return;
	t->clat_mean_ns = (double)(weighted / t->clat_n);
	for (p = 0; p < 3; p++) {
		const struct xvbd_wl_lat *l = &f->jobs[0].dir[d].lat[XVBD_WL_CLAT];

		if (f->njobs == 1 &&
		    printed_pct(l, xvbd_wl_total_pcts[p], &t->pct_ns[p])) {
			t->pct_known[p] = true;
		} else if (h->total) {
			t->pct_known[p] = xvbd_wl_hist_percentile(
				h, xvbd_wl_total_pcts[p], &t->pct_ns[p]);
			t->pct_from_bins = true;
		}
	}
}

void xvbd_wl_fio_total(const struct xvbd_wl_fio *f, enum xvbd_wl_dir d,
		       struct xvbd_wl_dir_total *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < f->njobs; i++) {
		const struct xvbd_wl_dirstat *s = &f->jobs[i].dir[d];

		t->ios += s->total_ios;
		t->bytes += s->io_bytes;
		t->short_ios += s->short_ios;
		t->drop_ios += s->drop_ios;
	}
	t->active = t->ios > 0 || t->bytes > 0;
	if (!t->active)
		return;
	t->runtime_ms = total_runtime(f, d);
	t->rate_known = t->runtime_ms > 0;
	if (f->njobs == 1 && t->rate_known) {
		/* fio's own figures, as it printed them */
		t->iops = f->jobs[0].dir[d].iops;
		t->bw_bytes = (double)f->jobs[0].dir[d].bw_bytes;
	} else if (t->rate_known) {
		/* as fio's group report: I/O over the longest runtime */
		t->iops = 1000.0 * (double)t->ios / (double)t->runtime_ms;
		t->bw_bytes = 1000.0 * (double)t->bytes / (double)t->runtime_ms;
	}
	total_clat(f, d, t);
}
