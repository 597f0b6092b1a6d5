/*
 * stats_render_lat.c - a VBD's backing device latency in a sample, for
 * every output of stats_render.c: text and CSV get p50, p99, p99.9 and
 * max of the device's service time (d2c) per direction in ms; JSON gets
 * both kinds whole, with their buckets; the Prometheus textfile gets
 * cumulative histograms (rows of the "latency" array, which only that
 * mode renders).
 */
#include <inttypes.h>
#include <stdio.h>

#include "xvbd/base/out.h"
#include "xvbd/base/vocab.h"
#include "xvbd/stats/stats.h"
#include "stats_impl.h"

#define NS_PER_MS	1e6
/* Prometheus le bounds: 2^k - 1 ns, k from 10 (1 us) to 36 (69 s). */
#define PROM_LE_FIRST	10
#define PROM_LE_LAST	36

static const uint32_t pct_per_million[] = { 500000, 990000, 999000 };
static const enum xvbd_q pct_ns[] = {
	XVBD_Q_P50_NS, XVBD_Q_P99_NS, XVBD_Q_P999_NS,
};

/* read_p50_ms ... read_max_ms: the text and CSV fields of a direction. */
static const enum xvbd_q flat_q[XVBD_LAT_NDIRS][4] = {
	[XVBD_LAT_READ] = { XVBD_Q_READ_P50_MS, XVBD_Q_READ_P99_MS,
			    XVBD_Q_READ_P99_9_MS, XVBD_Q_READ_MAX_MS },
	[XVBD_LAT_WRITE] = { XVBD_Q_WRITE_P50_MS, XVBD_Q_WRITE_P99_MS,
			     XVBD_Q_WRITE_P99_9_MS, XVBD_Q_WRITE_MAX_MS },
};

static void flat_dir(struct xvbd_out *o, int dir, bool known,
		     const struct xvbd_lathist *h)
{
	size_t i;

	known = known && h && h->count;
	for (i = 0; i < 3; i++)
		xvbd_out_fixed_opt(o, xvbd_q_name(flat_q[dir][i]), known,
				   known ? (double)xvbd_lathist_quantile_ns(h,
					pct_per_million[i]) / NS_PER_MS : 0, 3);
	xvbd_out_fixed_opt(o, xvbd_q_name(flat_q[dir][3]), known, known ?
			   (double)h->max_ns / NS_PER_MS : 0, 3);
}

static void json_hist(struct xvbd_out *o, const char *key,
		      const struct xvbd_lathist *h)
{
	size_t i, idx = SIZE_MAX;
	bool any = h->count != 0;

	xvbd_out_obj_begin(o, key);
	xvbd_out_uint(o, XVBD_QN(COUNT), h->count);
	xvbd_out_uint_opt(o, XVBD_QN(SUM_NS), any, h->sum_ns);
	xvbd_out_uint_opt(o, XVBD_QN(MAX_NS), any, h->max_ns);
	for (i = 0; i < 3; i++)
		xvbd_out_uint_opt(o, xvbd_q_name(pct_ns[i]), any,
				  xvbd_lathist_quantile_ns(h,
							   pct_per_million[i]));
	/* [low end in ns, count] of every bucket with a count. */
	xvbd_out_arr_begin(o, "buckets");
	while (xvbd_lathist_next(h, &idx)) {
		xvbd_out_arr_begin(o, NULL);
		xvbd_out_uint(o, NULL, xvbd_lathist_lower_ns(idx));
		xvbd_out_uint(o, NULL, h->buckets[idx]);
		xvbd_out_arr_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

void stats_render_lat(struct xvbd_out *o, const struct xvbd_stats_sample *s,
		      size_t i)
{
	const struct xvbd_lat_result *r = s->lat_on ? &s->lat[i] : NULL;
	const struct xvbd_stats_vbd *v = &s->vbds[i];
	bool known = r && (v->lat_state == XVBD_LAT_OK ||
			   v->lat_state == XVBD_LAT_INCOMPLETE);
	size_t k, d;

	if (!s->lat_asked)
		return;
	if (!xvbd_out_is_json(o)) {
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			flat_dir(o, (int)d, known,
				 r ? &r->h[XVBD_LAT_D2C][d] : NULL);
		xvbd_out_str(o, "lat_state", r ? xvbd_lat_state_name(
				     v->lat_state) : "unavailable");
		return;
	}
	if (!r) {
		xvbd_out_null(o, "latency");
		return;
	}
	xvbd_out_obj_begin(o, "latency");
	xvbd_out_str(o, "state", xvbd_lat_state_name(v->lat_state));
	xvbd_out_uint(o, XVBD_QN(BACKWARDS), r->backwards);
	for (k = 0; k < XVBD_LAT_NKINDS; k++) {
		/* Not timed (no scheduler): nothing, not zero requests. */
		if (k == XVBD_LAT_I2C && !r->i2c_timed) {
			xvbd_out_null(o, xvbd_lat_kind_name(k));
			continue;
		}
		xvbd_out_obj_begin(o, xvbd_lat_kind_name(k));
		for (d = 0; d < XVBD_LAT_NDIRS; d++)
			json_hist(o, xvbd_lat_dir_name(d), &r->h[k][d]);
		xvbd_out_obj_end(o);
	}
	xvbd_out_obj_end(o);
}

/* What the sample says about latency as a whole. */
void stats_render_lat_head(struct xvbd_out *o,
			   const struct xvbd_stats_sample *s)
{
	if (!s->lat_asked || xvbd_out_mode(o) == XVBD_OUT_CSV ||
	    xvbd_out_mode(o) == XVBD_OUT_PROM)
		return;
	if (!s->lat_on) {
		xvbd_out_str(o, "latency_unavailable", s->lat_unavailable);
		return;
	}
	/* JSON: a number, under the table's name; text: a sentence */
	xvbd_stats_lat_statement(o, "latency_clock", xvbd_out_is_json(o) ?
				 XVBD_QN(RELATIVE_ERROR) :
				 "latency_relative_error",
				 "RD/WR-P*: issue to completion");
}

void xvbd_stats_lat_statement(struct xvbd_out *o, const char *clock_key,
			      const char *error_key, const char *what)
{
	char text[160];

	xvbd_out_str(o, clock_key, XVBD_LAT_CLOCK);
	if (xvbd_out_is_json(o)) {
		xvbd_out_double_opt(o, error_key, true, XVBD_LH_REL_ERROR);
		return;
	}
	snprintf(text, sizeof(text), "percentiles within %s, max exact; %s",
		 XVBD_LH_REL_ERROR_TEXT, what);
	xvbd_out_str(o, error_key, text);
}

/* A row of a VBD's series: its labels. */
static void prom_series(struct xvbd_out *o, const struct xvbd_stats_vbd *v,
			const char *dir)
{
	xvbd_out_obj_begin(o, NULL);
	xvbd_out_uint(o, "domid", v->domid);
	xvbd_out_str(o, "domain", v->domain);
	xvbd_out_str(o, "vdev", v->vdev);
	xvbd_out_uint(o, "devid", v->devid);
	xvbd_out_str(o, "direction", dir);
}

/* One cumulative bucket row: count of values <= le. */
static void prom_row(struct xvbd_out *o, const struct xvbd_stats_vbd *v,
		     const char *kind, const char *dir, const char *le,
		     uint64_t count)
{
	char key[32];

	prom_series(o, v, dir);
	xvbd_out_str(o, "le", le);
	snprintf(key, sizeof(key), "%s_le_count", kind);
	xvbd_out_uint(o, key, count);
	xvbd_out_obj_end(o);
}

static void prom_hist(struct xvbd_out *o, const struct xvbd_stats_vbd *v,
		      const char *kind, const char *dir,
		      const struct xvbd_lathist *h)
{
	uint64_t below = 0;
	size_t idx = 0, stop;
	unsigned e;
	char le[32], key[32];

	for (e = PROM_LE_FIRST; e <= PROM_LE_LAST; e++) {
		/* Values < 2^e ns are those <= 2^e - 1: exact, in ns. */
		stop = xvbd_lathist_index(UINT64_C(1) << e);
		for (; h->buckets && idx < stop; idx++)
			below += h->buckets[idx];
		snprintf(le, sizeof(le), "%" PRIu64 ".%09" PRIu64,
			 ((UINT64_C(1) << e) - 1) / 1000000000u,
			 ((UINT64_C(1) << e) - 1) % 1000000000u);
		prom_row(o, v, kind, dir, le, below);
	}
	prom_row(o, v, kind, dir, "+Inf", h->count);
	prom_series(o, v, dir);
	snprintf(key, sizeof(key), "%s_sum_ns", kind);
	xvbd_out_uint(o, key, h->sum_ns);
	snprintf(key, sizeof(key), "%s_count", kind);
	xvbd_out_uint(o, key, h->count);
	xvbd_out_obj_end(o);
}

void stats_render_lat_prom(struct xvbd_out *o,
			   const struct xvbd_stats_sample *s)
{
	size_t i, k, d;

	if (!s->lat_on || xvbd_out_mode(o) != XVBD_OUT_PROM)
		return;
	xvbd_out_arr_begin(o, "latency");
	for (i = 0; i < s->nvbds; i++) {
		if (s->vbds[i].lat_state != XVBD_LAT_OK &&
		    s->vbds[i].lat_state != XVBD_LAT_INCOMPLETE)
			continue;
		for (k = 0; k < XVBD_LAT_NKINDS; k++)
			for (d = 0; d < XVBD_LAT_NDIRS; d++)
				if (k == XVBD_LAT_D2C ||
				    s->lat_total[i].i2c_timed)
				prom_hist(o, &s->vbds[i], xvbd_lat_kind_name(k),
					  xvbd_lat_dir_name(d),
					  &s->lat_total[i].h[k][d]);
	}
	xvbd_out_arr_end(o);
}
