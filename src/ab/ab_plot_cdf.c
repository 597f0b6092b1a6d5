/*
 * ab_plot_cdf.c - `ab plot`'s latency rows: per direction, the two
 * labels' distributions of the backing devices' service time (d2c, all
 * their runs' requests merged: ab_lat.h) as cumulative curves over a
 * logarithmic time axis, each label's p50 and p99 marked.  Runs recorded
 * without --latency have none: no row.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "ab_plot_impl.h"
#include "ab_svg_impl.h"

#define CDF_X		80
#define CDF_W		850

static int merged(const struct xvbd_ab_record *r, size_t n,
		  enum xvbd_lat_dir d, struct xvbd_lathist *h)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].lat && xvbd_ab_lat_merged(r[i].lat, XVBD_LAT_D2C, d,
						   h))
			return -ENOMEM;
	return 0;
}

/* x of a latency on the row's log axis [lo, hi] (ns). */
static double xpos(double ns, double lo, double hi)
{
	if (ns < lo)
		ns = lo;
	return CDF_X + CDF_W * (log2(ns) - log2(lo)) / (log2(hi) - log2(lo));
}

static void curve(FILE *f, const struct xvbd_lathist *h, double lo,
		  double hi, double y0, const char *colour)
{
	size_t idx = SIZE_MAX;
	uint64_t seen = 0;
	double x, y = y0;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"%.1f,%.1f", colour, CDF_X + 0.0, y0);
	while (xvbd_lathist_next(h, &idx)) {
		/* A step at the bucket's end: all of it is below there. */
		x = xpos((double)(xvbd_lathist_lower_ns(idx) +
				  xvbd_lathist_width_ns(idx)), lo, hi);
		fprintf(f, " %.1f,%.1f", x, y);
		seen += h->buckets[idx];
		y = y0 - PLOT_H * (double)seen / (double)h->count;
		fprintf(f, " %.1f,%.1f", x, y);
	}
	fprintf(f, "\"/>\n");
}

static void mark(FILE *f, const struct xvbd_lathist *h, uint32_t q,
		 const char *name, double lo, double hi, double y0,
		 const char *colour, int k)
{
	double ns = (double)xvbd_lathist_quantile_ns(h, q);
	double x = xpos(ns, lo, hi);
	char buf[64];

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-dasharray=\"3,3\"/>\n", x, y0, x,
		y0 - PLOT_H, colour);
	snprintf(buf, sizeof(buf), "%s %.3g ms", name, ns / 1e6);
	ab_svg_text(f, x + 3, y0 - PLOT_H + 12 + 12 * k, "start",
		    "font-size=\"10\"", buf);
}

static void row(FILE *f, const struct xvbd_lathist *h, const char *dir,
		double y)
{
	static const char *const colour[2] = { PLOT_COLOUR_A, PLOT_COLOUR_B };
	/* the axis' unit above the plot, below the title's line */
	double y0 = y + ROW_H - 24, lo = 1e30, hi = 0;
	char buf[128];
	size_t k, idx;

	for (k = 0; k < 2; k++) {
		idx = SIZE_MAX;
		if (h[k].count && xvbd_lathist_next(&h[k], &idx) &&
		    (double)xvbd_lathist_lower_ns(idx) < lo)
			lo = (double)xvbd_lathist_lower_ns(idx);
		if (h[k].count && (double)h[k].max_ns > hi)
			hi = (double)h[k].max_ns;
	}
	lo = lo < 1000 ? 1000 : exp2(floor(log2(lo)));
	hi = exp2(ceil(log2(hi > lo * 2 ? hi : lo * 2)));
	snprintf(buf, sizeof(buf), "%s service time (d2c): share of requests "
		 "done by", dir);
	ab_svg_text(f, CDF_X, y + 16, "start", "font-weight=\"bold\"", buf);
	ab_svg_axis(f, CDF_X, y0, PLOT_H, 1.0, "share");
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"#444\"/>\n", CDF_X, y0, CDF_X + CDF_W, y0);
	snprintf(buf, sizeof(buf), "%.3g ms", lo / 1e6);
	ab_svg_text(f, CDF_X, y0 + 16, "start", "font-size=\"11\"", buf);
	snprintf(buf, sizeof(buf), "%.3g ms (log scale)", hi / 1e6);
	ab_svg_text(f, CDF_X + CDF_W, y0 + 16, "end", "font-size=\"11\"", buf);
	for (k = 0; k < 2; k++) {
		if (!h[k].count)
			continue;
		curve(f, &h[k], lo, hi, y0, colour[k]);
		mark(f, &h[k], 500000, k ? "B p50" : "A p50", lo, hi, y0,
		     colour[k], (int)k * 2);
		mark(f, &h[k], 990000, k ? "B p99" : "A p99", lo, hi, y0,
		     colour[k], (int)k * 2 + 1);
	}
}

size_t ab_plot_cdf_rows(const struct xvbd_ab_record *a, size_t na,
			const struct xvbd_ab_record *b, size_t nb)
{
	struct xvbd_lathist h[2];
	size_t rows = 0;
	int d;

	for (d = 0; d < XVBD_LAT_NDIRS; d++) {
		xvbd_lathist_init(&h[0]);
		xvbd_lathist_init(&h[1]);
		if (!merged(a, na, d, &h[0]) && !merged(b, nb, d, &h[1]) &&
		    (h[0].count || h[1].count))
			rows++;
		xvbd_lathist_free(&h[0]);
		xvbd_lathist_free(&h[1]);
	}
	return rows;
}

int ab_plot_cdf(FILE *f, const struct xvbd_ab_record *a, size_t na,
		const struct xvbd_ab_record *b, size_t nb, double y)
{
	struct xvbd_lathist h[2];
	int d, rc = 0;

	for (d = 0; d < XVBD_LAT_NDIRS && !rc; d++) {
		xvbd_lathist_init(&h[0]);
		xvbd_lathist_init(&h[1]);
		rc = merged(a, na, d, &h[0]);
		if (!rc)
			rc = merged(b, nb, d, &h[1]);
		if (!rc && (h[0].count || h[1].count)) {
			row(f, h, xvbd_lat_dir_name(d), y);
			y += ROW_H;
		}
		xvbd_lathist_free(&h[0]);
		xvbd_lathist_free(&h[1]);
	}
	return rc;
}
