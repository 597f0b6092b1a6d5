/*
 * ab_plot.c - two labels' runs as an SVG picture (see ab_plot.h).
 *
 * Written into a memory stream; the command writes the file atomically.
 * Plain SVG 1.1: shapes, text, no script, no style sheet, no external
 * reference, so any browser shows it and it cannot do anything else.
 * Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_plot.h"
#include "xvbd/ab/ab_stat.h"
#include "ab_svg_impl.h"

#define WIDTH		960
#define TOP		70	/* title and legend */
#define ROW_H		190
#define PLOT_H		130	/* inside a row, above the axis */
#define DOTS_X		80	/* left panel: runs */
#define DOTS_W		220
#define SERIES_X	390	/* right panel: time series */
#define SERIES_W	540
#define COLOUR_A	"#1f77b4"
#define COLOUR_B	"#d95f02"
#define NS_PER_S	1e9

struct side {
	const struct xvbd_ab_record *r;
	size_t n;
	struct xvbd_ab_summary *sum;
	size_t series;
	const char *colour;
	const char *name;		/* "A" or "B" */
};

static double centre(const double *x, size_t n, enum xvbd_ab_test test)
{
	return test == XVBD_AB_TEST_MWU ? xvbd_stat_median(x, n) :
					  xvbd_stat_mean(x, n);
}

/* Left panel: every run of a side as a dot, and the side's centre. */
static int dots(FILE *f, const struct side *s, int m, double x, double y0,
		double top, enum xvbd_ab_test test)
{
	double *v = calloc(s->n, sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		double y, dx;

		if (!s->sum[i].known[m])
			continue;
		v[k++] = s->sum[i].value[m];
		y = y0 - PLOT_H * s->sum[i].value[m] / top;
		/* Spread the dots a little so equal values stay visible. */
		dx = ((double)(i % 7) - 3) * 5;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
			"fill-opacity=\"0.7\"><title>", x + dx, y, s->colour);
		ab_svg_esc(f, s->r[i].id);
		fprintf(f, ": %.*f %s</title></circle>\n",
			xvbd_ab_metrics[m].decimals, s->sum[i].value[m],
			xvbd_ab_metrics[m].unit);
	}
	if (k) {
		double y = y0 - PLOT_H * centre(v, k, test) / top;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			x - 28, y, x + 28, y, s->colour);
	} else {
		ab_svg_text(f, x, y0 - PLOT_H / 2.0, "middle",
			    "font-size=\"11\"", "no data");
	}
	free(v);
	return 0;
}

/* Right panel: one run's per-interval rates; a gap where left out. */
static int series(FILE *f, const struct side *s, int m, double t_max_s,
		  double top, double y0)
{
	const struct xvbd_ab_record *r = &s->r[s->series];
	struct xvbd_ab_interval iv;
	bool open = false;
	size_t i;
	int rc;

	for (i = 1; i < r->nsamples; i++) {
		double x0, x1, y;

		rc = xvbd_ab_interval_get(r, i, &iv);
		if (rc)
			return rc;
		if (iv.status != XVBD_AB_IV_OK || !iv.known[m]) {
			if (open)
				fputs("\"/>\n", f);
			open = false;
			continue;
		}
		x0 = SERIES_X + SERIES_W * ((double)(iv.t_ns - iv.dt_ns) /
					    NS_PER_S) / t_max_s;
		x1 = SERIES_X + SERIES_W * ((double)iv.t_ns / NS_PER_S) /
		     t_max_s;
		y = y0 - PLOT_H * iv.value[m] / top;
		/* A step per interval: the rate held over its time. */
		if (!open)
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
				"stroke-width=\"1.5\" points=\"", s->colour);
		fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		open = true;
	}
	if (open)
		fputs("\"/>\n", f);
	return 0;
}

static double series_max(const struct side *s, int m, double *t_max_s)
{
	const struct xvbd_ab_record *r = &s->r[s->series];
	struct xvbd_ab_interval iv;
	double max = 0;
	size_t i;

	for (i = 1; i < r->nsamples; i++) {
		if (xvbd_ab_interval_get(r, i, &iv))
			break;
		if (iv.status == XVBD_AB_IV_OK && iv.known[m] &&
		    iv.value[m] > max)
			max = iv.value[m];
	}
	if (r->nsamples > 1) {
		double t = (double)r->samples[r->nsamples - 1].t_ns / NS_PER_S;

		if (t > *t_max_s)
			*t_max_s = t;
	}
	return max;
}

/* Some run has the metric, and above 0 (no writes: no row). */
static bool metric_seen(const struct side *s, int m)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->sum[i].known[m] && s->sum[i].value[m] > 0)
			return true;
	return false;
}

static int row(FILE *f, struct side *sd, int m, double y,
	       enum xvbd_ab_test test)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[m];
	double y0 = y + ROW_H - 35, top = 0, stop = 0, t_max_s = 0;
	char buf[256];
	size_t i, k;
	int rc;

	for (k = 0; k < 2; k++)
		for (i = 0; i < sd[k].n; i++)
			if (sd[k].sum[i].known[m] &&
			    sd[k].sum[i].value[m] > top)
				top = sd[k].sum[i].value[m];
	top = ab_svg_nice_ceil(top);
	for (k = 0; k < 2; k++) {
		double v = series_max(&sd[k], m, &t_max_s);

		stop = v > stop ? v : stop;
	}
	stop = ab_svg_nice_ceil(stop);
	if (!(t_max_s > 0))
		t_max_s = 1;

	snprintf(buf, sizeof(buf), "%s: runs", info->label);
	ab_svg_text(f, DOTS_X, y + 16, "start", "font-weight=\"bold\"", buf);
	ab_svg_axis(f, DOTS_X, y0, PLOT_H, top, info->unit);
	for (k = 0; k < 2; k++) {
		double x = DOTS_X + DOTS_W * (k ? 0.72 : 0.32);

		rc = dots(f, &sd[k], m, x, y0, top, test);
		if (rc)
			return rc;
		snprintf(buf, sizeof(buf), "%s (%zu)", sd[k].name, sd[k].n);
		ab_svg_text(f, x, y0 + 16, "middle", NULL, buf);
	}

	snprintf(buf, sizeof(buf), "over time: A run %s, B run %s",
		 sd[0].r[sd[0].series].id, sd[1].r[sd[1].series].id);
	ab_svg_text(f, SERIES_X, y + 16, "start", "font-weight=\"bold\"", buf);
	ab_svg_axis(f, SERIES_X, y0, PLOT_H, stop, info->unit);
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"#444\"/>\n", SERIES_X, y0, SERIES_X + SERIES_W, y0);
	snprintf(buf, sizeof(buf), "%.0f s", t_max_s);
	ab_svg_text(f, SERIES_X + SERIES_W, y0 + 16, "end", "font-size=\"11\"",
		    buf);
	ab_svg_text(f, SERIES_X, y0 + 16, "start", "font-size=\"11\"", "0 s");
	for (k = 0; k < 2; k++) {
		rc = series(f, &sd[k], m, t_max_s, stop, y0);
		if (rc)
			return rc;
	}
	return 0;
}

int xvbd_ab_plot_svg(const struct xvbd_ab_record *a, size_t na,
		     const struct xvbd_ab_record *b, size_t nb,
		     const struct xvbd_ab_plot_opts *opts, char **svg,
		     size_t *len)
{
	struct side sd[2] = {
		{ .r = a, .n = na, .colour = COLOUR_A, .name = "A" },
		{ .r = b, .n = nb, .colour = COLOUR_B, .name = "B" },
	};
	bool shown[XVBD_AB_NMETRICS];
	char *buf = NULL, line[512];
	size_t size = 0, i, k, nrows = 0;
	FILE *f = NULL;
	int rc = 0, m;

	*svg = NULL;
	*len = 0;
	if (!a || !b || !na || !nb || !opts || opts->series_a >= na ||
	    opts->series_b >= nb)
		return -EINVAL;
	sd[0].series = opts->series_a;
	sd[1].series = opts->series_b;
	for (k = 0; k < 2; k++) {
		sd[k].sum = calloc(sd[k].n, sizeof(*sd[k].sum));
		if (!sd[k].sum) {
			rc = -ENOMEM;
			goto out;
		}
		for (i = 0; i < sd[k].n && !rc; i++)
			rc = xvbd_ab_summarize(&sd[k].r[i], &sd[k].sum[i]);
		if (rc)
			goto out;
	}
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		shown[m] = (!opts->metrics || opts->metrics[m]) &&
			   (metric_seen(&sd[0], m) || metric_seen(&sd[1], m));
		nrows += shown[m];
	}
	f = open_memstream(&buf, &size);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	snprintf(line, sizeof(line), "xvbd ab plot: A = %s (%zu runs), "
		 "B = %s (%zu runs)", a[0].label, na, b[0].label, nb);
	ab_svg_begin(f, WIDTH, TOP + nrows * ROW_H + 10, line);
	snprintf(line, sizeof(line), "dots: one run summary each "
		 "(Delta counter / Delta time over the run); bar: %s; lines: "
		 "per-interval rates of one run, gaps where left out",
		 opts->test == XVBD_AB_TEST_MWU ? "median" : "mean");
	ab_svg_text(f, 20, 46, "start", "font-size=\"11\"", line);
	for (k = 0; k < 2; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"54\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/>\n", 20 + (int)k * 300, sd[k].colour);
		snprintf(line, sizeof(line), "%s: %s", sd[k].name,
			 sd[k].r[0].label);
		ab_svg_text(f, 38 + (int)k * 300, 65, "start", NULL, line);
	}
	if (!nrows)
		ab_svg_text(f, 20, TOP + 20, "start", NULL,
			    "no metric is above 0 in any run");
	for (m = 0, k = 0; m < XVBD_AB_NMETRICS && !rc; m++) {
		if (!shown[m])
			continue;
		rc = row(f, sd, m, TOP + (double)(k++ * ROW_H), opts->test);
	}
	rc = ab_svg_end(f, rc, &buf, &size, svg, len);
	f = NULL;
out:
	if (f)
		fclose(f);
	free(buf);
	free(sd[0].sum);
	free(sd[1].sum);
	return rc;
}
