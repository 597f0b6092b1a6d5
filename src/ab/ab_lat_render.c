/*
 * ab_lat_render.c - runs' latency distributions, merged (exactly: the
 * histograms add up) per VBD, kind and direction, as `ab show` prints
 * them: count, p50, p99, p99.9, max and mean, with the runs merged and
 * those whose latency was not complete.  Text labels are the caller's
 * (cmd_ab_show.c): the out layer has one table for a document.
 */
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/base/out.h"
#include "xvbd/stats/stats.h"
#include "xvbd/base/vocab.h"

static const uint32_t pct[] = { 500000, 990000, 999000 };
static const enum xvbd_q pct_ns[] = {
	XVBD_Q_P50_NS, XVBD_Q_P99_NS, XVBD_Q_P999_NS,
};
static const enum xvbd_q pct_ms[] = {
	XVBD_Q_P50_MS, XVBD_Q_P99_MS, XVBD_Q_P99_9_MS,
};


/* The merged histogram of vdev over the runs that recorded it. */
static void merge_vdev(const struct xvbd_ab_record *recs, size_t n,
		       const char *vdev, enum xvbd_lat_kind k,
		       enum xvbd_lat_dir d, struct xvbd_lathist *h,
		       size_t *runs, size_t *incomplete)
{
	size_t i, j;

	*runs = *incomplete = 0;
	for (i = 0; i < n; i++) {
		const struct xvbd_ab_lat *l = recs[i].lat;

		for (j = 0; l && j < recs[i].nvdevs; j++) {
			if (strcmp(recs[i].vdevs[j], vdev))
				continue;
			xvbd_lathist_merge(h, &l->vbds[j].h[k][d]);
			(*runs)++;
			if (l->vbds[j].state != XVBD_LAT_OK)
				(*incomplete)++;
		}
	}
}

static void row(struct xvbd_out *o, const char *vdev, enum xvbd_lat_kind k,
		enum xvbd_lat_dir d, const struct xvbd_lathist *h, size_t runs,
		size_t incomplete)
{
	bool any = h->count != 0, json = xvbd_out_is_json(o);
	size_t i;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "vdev", vdev);
	xvbd_out_str(o, "kind", xvbd_lat_kind_name(k));
	xvbd_out_str(o, "direction", xvbd_lat_dir_name(d));
	xvbd_out_uint(o, XVBD_QN(RUNS), runs);
	xvbd_out_uint(o, XVBD_QN(INCOMPLETE), incomplete);
	xvbd_out_uint(o, XVBD_QN(COUNT), h->count);
	for (i = 0; i < 3; i++) {
		uint64_t v = any ? xvbd_lathist_quantile_ns(h, pct[i]) : 0;

		if (json)
			xvbd_out_uint_opt(o, xvbd_q_name(pct_ns[i]), any, v);
		else
			xvbd_out_fixed_opt(o, xvbd_q_name(pct_ms[i]), any,
					   (double)v / 1e6,
					   3);
	}
	if (json) {
		xvbd_out_uint_opt(o, XVBD_QN(MAX_NS), any, h->max_ns);
		xvbd_out_uint_opt(o, XVBD_QN(SUM_NS), any, h->sum_ns);
	} else {
		xvbd_out_fixed_opt(o, XVBD_QN(MAX_MS),
				   any, (double)h->max_ns / 1e6, 3);
		xvbd_out_fixed_opt(o, XVBD_QN(MEAN_MS), any,
				   xvbd_lathist_mean_ns(h) / 1e6, 3);
	}
	xvbd_out_obj_end(o);
}

void xvbd_ab_lat_render(struct xvbd_out *o, const char *key,
			const struct xvbd_ab_record *recs, size_t n)
{
	const char *seen[XVBD_AB_LAT_VDEVS_SHOWN];
	size_t nseen = 0, i, j, s, runs, incomplete;
	struct xvbd_lathist h;
	int k, d;

	xvbd_out_obj_begin(o, key);
	xvbd_stats_lat_statement(o, "clock", xvbd_out_is_json(o) ?
				 XVBD_QN(RELATIVE_ERROR) : "latency_error",
				 "d2c: issue to completion, i2c: insertion "
				 "to completion");
	xvbd_out_arr_begin(o, "vbds");
	for (i = 0; i < n; i++) {
		for (j = 0; recs[i].lat && j < recs[i].nvdevs; j++) {
			for (s = 0; s < nseen; s++)
				if (!strcmp(seen[s], recs[i].vdevs[j]))
					break;
			if (s < nseen || nseen == XVBD_AB_LAT_VDEVS_SHOWN)
				continue;
			seen[nseen++] = recs[i].vdevs[j];
			for (k = 0; k < XVBD_LAT_NKINDS; k++) {
				for (d = 0; d < XVBD_LAT_NDIRS; d++) {
					xvbd_lathist_init(&h);
					merge_vdev(recs, n, recs[i].vdevs[j], k,
						   d, &h, &runs, &incomplete);
					row(o, recs[i].vdevs[j], k, d, &h, runs,
					    incomplete);
					xvbd_lathist_free(&h);
				}
			}
		}
	}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}
