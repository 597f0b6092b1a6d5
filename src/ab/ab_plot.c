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
#include "ab_compare_impl.h"
#include "ab_plot_impl.h"
#include "ab_svg_impl.h"

#define WIDTH		960
#define MARGIN		20
#define TOP		76	/* title, what is drawn, legend */
/*
 * A row: the metric's name, its verdict with B/A %, each panel's title,
 * then the panels (the axis' unit above each, clear of the titles) and
 * their labels below the axis.
 */
#define METRIC_ROW_H	220
#define ROW_TITLE_Y	18
#define ROW_VERDICT_Y	36
#define ROW_PANEL_Y	56
#define ROW_AXIS_TOP	76	/* METRIC_PLOT_H above the axis at y0 */
#define METRIC_PLOT_H	110
#define DOTS_X		80	/* left panel: runs */
#define DOTS_W		220
#define SERIES_X	390	/* right panel: time series */
#define SERIES_W	540
#define COLOUR_A	PLOT_COLOUR_A
#define COLOUR_B	PLOT_COLOUR_B
/* The verdict's test and Holm over the metrics drawn: ab compare's. */
#define PLOT_CONFIDENCE	0.95
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
		y = y0 - METRIC_PLOT_H * s->sum[i].value[m] / top;
		/* Spread the dots a little so equal values stay visible. */
		dx = ((double)(i % 7) - 3) * 5;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
			"fill-opacity=\"0.7\"><title>", x + dx, y, s->colour);
		ab_svg_esc(f, s->r[i].id);
		fprintf(f, ": %.*f %s</title></circle>\n",
			xvbd_ab_metrics[m].decimals, s->sum[i].value[m],
			xvbd_ab_metric_unit(m));
	}
	if (k) {
		double y = y0 - METRIC_PLOT_H * centre(v, k, test) / top;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			x - 28, y, x + 28, y, s->colour);
	} else {
		ab_svg_text(f, x, y0 - METRIC_PLOT_H / 2.0, "middle",
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
		y = y0 - METRIC_PLOT_H * iv.value[m] / top;
		/* A step per interval: the rate held over its time. */
		/* A wide and pale, B dashed over it: equal runs show both */
		if (!open)
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
				"%s points=\"", s->colour, s->name[0] == 'A' ?
				"stroke-width=\"4\" stroke-opacity=\"0.5\"" :
				"stroke-width=\"1.5\" "
				"stroke-dasharray=\"6 3\"");
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

/*
 * "B/A +12.5 % +- 1.7 %: B faster (Welch's t, Holm p=5.6e-07)": the
 * metric's verdict as ab compare of the metrics drawn says it.
 */
static void verdict_words(char *buf, size_t len,
			  const struct xvbd_ab_comparison *c,
			  const struct xvbd_ab_metric_cmp *mc)
{
	char pct[XVBD_AB_VERDICT_TEXT_MAX], v[XVBD_AB_VERDICT_TEXT_MAX];

	if (mc->verdict == XVBD_AB_V_UNKNOWN) {
		snprintf(buf, len, "no verdict: %s", mc->unknown_why ?
			 mc->unknown_why : "unknown");
		return;
	}
	if (isnan(mc->s.pct) || ab_fmt_signed(pct, sizeof(pct), mc->s.pct,
					      &mc->s.pct_ci, "%", 1))
		snprintf(pct, sizeof(pct), "unknown");
	ab_verdict_short(v, sizeof(v), c, mc);
	/* a cut line is still a line: the label is fitted after */
	if (snprintf(buf, len, "B/A %s: %s, %s at %g %%", pct, v,
		     xvbd_ab_test_name(mc->test), c->confidence * 100) < 0)
		buf[0] = '\0';
}

/*
 * One number per run, no time series: the run's length, its latency
 * percentiles (from the whole run's histogram) and the workload's own
 * results (its summary at the end).
 */
static bool per_run_only(int m)
{
	return m == XVBD_AB_SECONDS || m == XVBD_AB_BUSY_SECONDS ||
	       (m >= XVBD_AB_RD_P50_MS && m <= XVBD_AB_WR_MAX_MS) ||
	       xvbd_ab_metric_is_guest(m);
}

static int row(FILE *f, struct side *sd, int m, double y,
	       enum xvbd_ab_test test, const struct xvbd_ab_comparison *c)
{
	double y0 = y + ROW_AXIS_TOP + METRIC_PLOT_H, top = 0, stop = 0;
	double t_max_s = 0;
	char buf[3 * XVBD_AB_VERDICT_TEXT_MAX];
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

	snprintf(buf, sizeof(buf), "%s (%s)", xvbd_ab_metric_name(m),
		 xvbd_ab_metric_unit(m));
	ab_svg_label(f, MARGIN, y + ROW_TITLE_Y, "start", 14, true,
		     WIDTH - 2 * MARGIN, buf);
	verdict_words(buf, sizeof(buf), c, &c->m[m]);
	ab_svg_label(f, MARGIN, y + ROW_VERDICT_Y, "start", 12, false,
		     WIDTH - 2 * MARGIN, buf);

	ab_svg_label(f, DOTS_X, y + ROW_PANEL_Y, "start", 11, false,
		     SERIES_X - DOTS_X - 60, "each run, its centre a bar");
	ab_svg_axis(f, DOTS_X, y0, METRIC_PLOT_H, top, xvbd_ab_metric_unit(m));
	for (k = 0; k < 2; k++) {
		double x = DOTS_X + DOTS_W * (k ? 0.72 : 0.32);

		rc = dots(f, &sd[k], m, x, y0, top, test);
		if (rc)
			return rc;
		snprintf(buf, sizeof(buf), "%s (%zu)", sd[k].name, sd[k].n);
		ab_svg_label(f, x, y0 + 16, "middle", 13, false, DOTS_W / 2.0,
			     buf);
	}

	if (per_run_only(m)) {
		ab_svg_label(f, SERIES_X, y0 - METRIC_PLOT_H / 2.0, "start", 12,
			     false, SERIES_W, "no time series: one number "
			     "per run");
		return 0;
	}
	snprintf(buf, sizeof(buf), "A: %s, B: %s (B dashed)",
		 sd[0].r[sd[0].series].id, sd[1].r[sd[1].series].id);
	ab_svg_label(f, SERIES_X, y + ROW_PANEL_Y, "start", 11, false,
		     SERIES_W, buf);
	ab_svg_axis(f, SERIES_X, y0, METRIC_PLOT_H, stop,
		    xvbd_ab_metric_unit(m));
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"#444\"/>\n", SERIES_X, y0, SERIES_X + SERIES_W, y0);
	snprintf(buf, sizeof(buf), "%.0f s", t_max_s);
	ab_svg_label(f, SERIES_X + SERIES_W, y0 + 16, "end", 11, false, 80,
		     buf);
	ab_svg_label(f, SERIES_X, y0 + 16, "start", 11, false, 80, "0 s");
	for (k = 0; k < 2; k++) {
		rc = series(f, &sd[k], m, t_max_s, stop, y0);
		if (rc)
			return rc;
	}
	return 0;
}

/* The title, what the marks are, and the legend of the two sides. */
static void head(FILE *f, const struct side *sd,
		 const struct xvbd_ab_plot_opts *opts, size_t height)
{
	char line[512];
	size_t k;

	snprintf(line, sizeof(line), "xvbd ab plot: A = %s (%zu runs), "
		 "B = %s (%zu runs)", sd[0].r[0].label, sd[0].n,
		 sd[1].r[0].label, sd[1].n);
	ab_svg_begin(f, WIDTH, height, line);
	snprintf(line, sizeof(line), "dots: one run summary each (Delta "
		 "counter / Delta time over the run); bar: %s; lines: one "
		 "run's intervals, gaps where left out",
		 opts->test == XVBD_AB_TEST_MWU ? "median" : "mean");
	ab_svg_label(f, MARGIN, 46, "start", 11, false, WIDTH - 2 * MARGIN,
		     line);
	for (k = 0; k < 2; k++) {
		double x = MARGIN + (double)k * (WIDTH - 2 * MARGIN) / 2;

		fprintf(f, "<rect x=\"%.0f\" y=\"56\" width=\"12\" "
			"height=\"12\" fill=\"%s\"/>\n", x, sd[k].colour);
		snprintf(line, sizeof(line), "%s: %s", sd[k].name,
			 sd[k].r[0].label);
		ab_svg_label(f, x + 18, 67, "start", 13, false,
			     (WIDTH - 2 * MARGIN) / 2 - 30, line);
	}
}

/* The verdicts of the metrics drawn: ab compare A B --metric those. */
static int compare(const struct side *sd, const bool *shown,
		   enum xvbd_ab_test test, struct xvbd_ab_comparison *c)
{
	struct xvbd_ab_compare_opts co = {
		.confidence = PLOT_CONFIDENCE, .test = test,
	};
	int rc;

	rc = xvbd_ab_compare_with(sd[0].r, sd[0].n, sd[1].r, sd[1].n, &co, c);
	return rc ? rc : xvbd_ab_compare_adjust(c, shown, true);
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
	struct xvbd_ab_comparison cmp = { .variable = -1 };
	bool shown[XVBD_AB_NMETRICS];
	char *buf = NULL;
	size_t size = 0, i, k, nrows = 0, ncdf;
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
	ncdf = ab_plot_cdf_rows(a, na, b, nb);
	/* nothing to draw: the command says so rather than draw it */
	if (!nrows && !ncdf) {
		rc = -ENODATA;
		goto out;
	}
	rc = nrows ? compare(sd, shown, opts->test, &cmp) : 0;
	if (rc)
		goto out;
	f = open_memstream(&buf, &size);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	head(f, sd, opts, TOP + nrows * METRIC_ROW_H + ncdf * ROW_H + 10);
	for (m = 0, k = 0; m < XVBD_AB_NMETRICS && !rc; m++) {
		if (!shown[m])
			continue;
		rc = row(f, sd, m, TOP + (double)(k++ * METRIC_ROW_H),
			 opts->test, &cmp);
	}
	/* With --latency: the two distributions, whole, after the rows. */
	if (!rc && ncdf)
		rc = ab_plot_cdf(f, a, na, b, nb,
				 TOP + (double)(k * METRIC_ROW_H));
	rc = ab_svg_end(f, rc, &buf, &size, svg, len);
	f = NULL;
out:
	if (f)
		fclose(f);
	free(buf);
	free(sd[0].sum);
	free(sd[1].sum);
	xvbd_ab_comparison_free(&cmp);
	return rc;
}
