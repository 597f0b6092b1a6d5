/*
 * ab_pvsplit.c - where a request's time went, guest against device: the
 * guest's completion latency (fio's JSON+ bins, or fio's own percentiles
 * for one run without bins) beside its disk's backing device's service
 * time (the run's d2c histogram, src/ab/ab_lat.c), per direction, at p50
 * and p99.  The difference is the time above the device: blkfront, the
 * ring, blkback, grant mapping and dom0's block queue, which no single
 * counter shows.
 *
 * The two sides must count the same requests: a run counts only when
 * its fio jobs all ran on one recorded VBD (or it recorded one VBD and
 * the jobs name no other), that VBD's latency was complete, and fio has
 * figures for the direction.  A label merges those runs exactly (bins
 * and histograms add up).  A percentile of the guest below the device's
 * is no time in the PV path but a sign of unlike sets (or of the two
 * histograms' bucket error): it is said, never shown as a negative time.
 * Pure: no I/O.
 */
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/ab/ab_record_impl.h"
#include "xvbd/base/out.h"
#include "xvbd/workload/workload.h"
#include "xvbd/base/vocab.h"

#define NS_PER_MS	1e6

static const double split_pct[XVBD_AB_PV_NPCT] = { 50, 99 };

/*
 * The recorded VBD fio's jobs ran on, or -1: every job's filename is
 * /dev/VDEV of one recorded vdev (a partition of it counts), or no job
 * names a device and the record has one VBD.
 */
static int fio_vbd(const struct xvbd_ab_record *r)
{
	const struct xvbd_wl_fio *f = &r->results->fio;
	int found = -1;
	size_t i, j;

	for (i = 0; i < f->njobs; i++) {
		const char *file = xvbd_wl_job_opt(&f->jobs[i], "filename");
		size_t len;

		if (!file)
			continue;
		if (strncmp(file, "/dev/", 5))
			return -1;
		for (j = 0; j < r->nvdevs; j++) {
			len = strlen(r->vdevs[j]);
			if (!strncmp(file + 5, r->vdevs[j], len) &&
			    (!file[5 + len] ||
			     (file[5 + len] >= '0' && file[5 + len] <= '9')))
				break;
		}
		if (j == r->nvdevs || (found >= 0 && (size_t)found != j))
			return -1;
		found = (int)j;
	}
	if (found < 0 && r->nvdevs == 1)
		found = 0;
	return found;
}

/* Run r's guest side of direction d: its bins, or (alone) its percentiles. */
static bool guest_side(const struct xvbd_ab_record *r, enum xvbd_wl_dir d,
		       struct xvbd_wl_hist *bins, double pct_ms[])
{
	static const enum xvbd_ab_metric m[2][XVBD_AB_PV_NPCT] = {
		{ XVBD_AB_G_RD_P50, XVBD_AB_G_RD_P99 },
		{ XVBD_AB_G_WR_P50, XVBD_AB_G_WR_P99 },
	};
	struct xvbd_ab_summary s;
	int p;

	if (r->results->fio.hist[d][XVBD_WL_CLAT].n)
		return !xvbd_wl_hist_merge(bins,
					   &r->results->fio.hist[d][XVBD_WL_CLAT]);
	if (!pct_ms || xvbd_ab_summarize(r, &s))
		return false;
	for (p = 0; p < XVBD_AB_PV_NPCT; p++) {
		if (!s.known[m[d][p]])
			return false;
		pct_ms[p] = s.value[m[d][p]];
	}
	return true;
}

static void split_dir(const struct xvbd_ab_record *recs, size_t n,
		      enum xvbd_wl_dir d, struct xvbd_ab_pv_dir *out)
{
	struct xvbd_wl_hist bins = { 0 };
	struct xvbd_lathist dev;
	double fio_pct[XVBD_AB_PV_NPCT];
	size_t i, with_pct = 0;
	uint64_t v;
	int p;

	memset(out, 0, sizeof(*out));
	xvbd_lathist_init(&dev);
	for (i = 0; i < n; i++) {
		const struct xvbd_ab_record *r = &recs[i];
		const struct xvbd_ab_lat_vbd *lv;
		int j;

		if (!r->results || r->results->format != XVBD_WL_FIO ||
		    !r->lat)
			continue;
		j = fio_vbd(r);
		if (j < 0)
			continue;
		lv = &r->lat->vbds[j];
		if (lv->state != XVBD_LAT_OK ||
		    !lv->h[XVBD_LAT_D2C][d].count)
			continue;
		/* Percentiles without bins: one run's only (never merged). */
		if (!guest_side(r, d, &bins, n == 1 ? fio_pct : NULL))
			continue;
		if (!r->results->fio.hist[d][XVBD_WL_CLAT].n)
			with_pct++;
		xvbd_lathist_merge(&dev, &lv->h[XVBD_LAT_D2C][d]);
		snprintf(out->vdev, sizeof(out->vdev), "%s", r->vdevs[j]);
		out->runs++;
	}
	if (!out->runs)
		goto done;
	out->known = true;
	out->guest_bins = !with_pct;
	out->device_requests = dev.count;
	out->guest_ios = bins.total;
	for (p = 0; p < XVBD_AB_PV_NPCT; p++) {
		if (with_pct)
			out->guest_ms[p] = fio_pct[p];
		else if (xvbd_wl_hist_percentile(&bins, split_pct[p], &v))
			out->guest_ms[p] = (double)v / NS_PER_MS;
		out->device_ms[p] = (double)xvbd_lathist_quantile_ns(&dev,
				(uint32_t)(split_pct[p] * 10000)) / NS_PER_MS;
	}
done:
	xvbd_wl_hist_free(&bins);
	xvbd_lathist_free(&dev);
}

void xvbd_ab_pv_split(const struct xvbd_ab_record *recs, size_t n,
		      struct xvbd_ab_pv_split *out)
{
	int d;

	for (d = 0; d < XVBD_LAT_NDIRS; d++)
		split_dir(recs, n, (enum xvbd_wl_dir)d, &out->dir[d]);
}

bool xvbd_ab_pv_split_any(const struct xvbd_ab_pv_split *s)
{
	return s->dir[0].known || s->dir[1].known;
}

int xvbd_ab_pv_split_text(const struct xvbd_ab_pv_dir *pd, int dir, int p,
			  char *buf, size_t len)
{
	double above = pd->guest_ms[p] - pd->device_ms[p];
	const char *name = xvbd_lat_dir_name((enum xvbd_lat_dir)dir);

	if (!pd->known || p < 0 || p >= XVBD_AB_PV_NPCT)
		return -1;
	if (above < 0) {
		snprintf(buf, len, "%s p%g: guest %.3f ms, below the device's "
			 "%.3f ms on %s: not the same requests (or within "
			 "the histograms' error), no time in the PV path to "
			 "show", name, split_pct[p], pd->guest_ms[p],
			 pd->device_ms[p], pd->vdev);
		return 0;
	}
	snprintf(buf, len, "%s p%g: guest %.3f ms, device %.3f ms on %s: "
		 "%.3f ms (%.0f %%) in the PV path (blkfront, ring, blkback, "
		 "grant mapping, dom0's queue)", name, split_pct[p],
		 pd->guest_ms[p], pd->device_ms[p], pd->vdev, above,
		 pd->guest_ms[p] > 0 ? 100 * above / pd->guest_ms[p] : 0);
	return 0;
}

void xvbd_ab_pv_split_render(struct xvbd_out *o, const char *key,
			     const struct xvbd_ab_pv_split *s)
{
	static const char *const pkey[XVBD_AB_PV_NPCT] = { "p50", "p99" };
	char line[400];
	int d, p;

	xvbd_out_obj_begin(o, key);
	for (d = 0; d < XVBD_LAT_NDIRS; d++) {
		const struct xvbd_ab_pv_dir *pd = &s->dir[d];
		const char *name = xvbd_lat_dir_name((enum xvbd_lat_dir)d);

		if (!pd->known) {
			xvbd_out_null(o, name);
			continue;
		}
		xvbd_out_obj_begin(o, name);
		xvbd_out_str(o, "vdev", pd->vdev);
		xvbd_out_uint(o, XVBD_QN(RUNS), pd->runs);
		xvbd_out_str(o, "guest_from", pd->guest_bins ?
			     "fio's JSON+ bins" : "fio's percentiles");
		xvbd_out_str(o, "device_from", "d2c");
		xvbd_out_uint(o, XVBD_QN(DEVICE_REQUESTS), pd->device_requests);
		for (p = 0; p < XVBD_AB_PV_NPCT; p++) {
			double above = pd->guest_ms[p] - pd->device_ms[p];

			xvbd_out_obj_begin(o, pkey[p]);
			xvbd_out_fixed_opt(o, XVBD_QN(GUEST_MS), true,
					   pd->guest_ms[p], 3);
			xvbd_out_fixed_opt(o, XVBD_QN(DEVICE_MS), true,
					   pd->device_ms[p], 3);
			xvbd_out_fixed_opt(o, XVBD_QN(PV_PATH_MS), above >= 0,
					   above, 3);
			xvbd_out_fixed_opt(o, XVBD_QN(PV_PATH_PCT),
					   above >= 0 && pd->guest_ms[p] > 0,
					   pd->guest_ms[p] > 0 ?
					   100 * above / pd->guest_ms[p] : 0,
					   1);
			xvbd_out_obj_end(o);
		}
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_begin(o, "lines");
	for (d = 0; d < XVBD_LAT_NDIRS; d++)
		for (p = 0; p < XVBD_AB_PV_NPCT; p++)
			if (!xvbd_ab_pv_split_text(&s->dir[d], d, p, line,
						   sizeof(line)))
				xvbd_out_str(o, NULL, line);
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}
