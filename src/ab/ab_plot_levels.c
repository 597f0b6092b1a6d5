/*
 * ab_plot_levels.c - `ab plot L1 L2 L3...`: a metric against a sweep's
 * levels as an SVG picture (see ab_sweep.h).
 *
 * One row per metric: the levels along x in the order given, each with
 * every run summary as a dot, its mean as a bar and the mean's t
 * interval as a whisker, so the spread of the runs and the uncertainty
 * of the centre are both in view; the baseline's slot shaded and its
 * mean drawn across the row, dashed, so each level reads against it.
 * Rates start at 0 on every axis.  Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "ab_svg_impl.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/ab/ab_sweep.h"

#define WIDTH		960
#define MARGIN		20
#define TOP		56	/* title and legend */
#define ROW_H		250
#define ROW_H_TURNED	290	/* room below the axis for turned labels */
#define ROW_TITLE_Y	20
#define ROW_AXIS_TOP	50	/* the axis' unit above it, clear of the title */
#define PLOT_H		140	/* inside a row, above the axis */
#define PLOT_X		90
#define PLOT_W		840
/* below the axis: a level's label, its verdict; rotated past this many */
#define FLAT_LEVELS_MAX	6
/*
 * A turned label runs down-left from under its slot: at most this long,
 * and no further left than the picture (cos 30 of it across, from its
 * slot's centre); half of it down, within ROW_H_TURNED's room.
 */
#define ROTATED_PX	170
#define COS_30		0.866
#define COLOUR_RUN	"#1f77b4"
#define COLOUR_BASE	"#d95f02"

struct lvl {
	const struct xvbd_ab_level *l;
	struct xvbd_ab_summary *sum;
	double *v;		/* scratch: known values of a metric */
};

/* Level l's known values of m into l->v; their count. */
static size_t values(struct lvl *l, int m)
{
	size_t i, n = 0;

	for (i = 0; i < l->l->n; i++)
		if (l->sum[i].known[m])
			l->v[n++] = l->sum[i].value[m];
	return n;
}

/* Mean and the half-width of its t interval (NAN below 2 runs). */
static void mean_ci(const double *v, size_t n, double confidence,
		    double *mean, double *half)
{
	*mean = n ? xvbd_stat_mean(v, n) : NAN;
	*half = n >= 2 ? xvbd_stat_t_quantile(0.5 + confidence / 2,
					      (double)(n - 1)) *
			 sqrt(xvbd_stat_var(v, n) / (double)n) : NAN;
}

static bool metric_seen(struct lvl *lv, size_t k, int m)
{
	size_t i, j;

	for (i = 0; i < k; i++)
		for (j = 0; j < lv[i].l->n; j++)
			if (lv[i].sum[j].known[m] && lv[i].sum[j].value[m] > 0)
				return true;
	return false;
}

/* The top of the row's axis: every run and every interval under it. */
static double row_top(struct lvl *lv, size_t k, int m, double confidence)
{
	double top = 0, mean, half;
	size_t i, j, n;

	for (i = 0; i < k; i++) {
		n = values(&lv[i], m);
		for (j = 0; j < n; j++)
			top = lv[i].v[j] > top ? lv[i].v[j] : top;
		mean_ci(lv[i].v, n, confidence, &mean, &half);
		if (isfinite(mean + half) && mean + half > top)
			top = mean + half;
	}
	return ab_svg_nice_ceil(top);
}

static double y_of(double y0, double v, double top)
{
	return y0 - PLOT_H * (v > top ? top : v < 0 ? 0 : v) / top;
}

/* One level's slot: dots, mean bar, interval whisker, label. */
static void slot(FILE *f, struct lvl *l, int m, double x, double w,
		 double y0, double top, bool base, double confidence,
		 size_t k, const char *vs)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[m];
	const char *colour = base ? COLOUR_BASE : COLOUR_RUN;
	double mean, half;
	size_t i, n = values(l, m);
	char buf[160];

	if (base)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%d\" fill=\"#f3e6dc\"/>\n", x - w / 2,
			y0 - PLOT_H, w, PLOT_H);
	for (i = 0; i < n; i++) {
		double dx = ((double)(i % 5) - 2) * fmin(4, w / 20);

		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			"fill=\"%s\" fill-opacity=\"0.6\"><title>%.*f %s"
			"</title></circle>\n", x + dx, y_of(y0, l->v[i], top),
			colour, info->decimals, l->v[i], xvbd_q_unit(info->q));
	}
	mean_ci(l->v, n, confidence, &mean, &half);
	if (n)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			x - w / 4, y_of(y0, mean, top), x + w / 4,
			y_of(y0, mean, top), colour);
	if (isfinite(half)) {
		double hi = y_of(y0, mean + half, top);
		double lo = y_of(y0, mean - half, top);

		fprintf(f, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
			"%.1fH%.1f\" stroke=\"#222\" fill=\"none\"/>\n",
			x - 5, hi, x + 5, x, hi, lo, x - 5, lo, x + 5);
	}
	snprintf(buf, sizeof(buf), "%s (%zu)", l->l->label, n);
	if (k > FLAT_LEVELS_MAX) {
		/* the runs are the dots above: room for the label and its % */
		snprintf(buf, sizeof(buf), "%s %s", l->l->label,
			 base ? "base" : vs);
		fprintf(f, "<g transform=\"translate(%.1f %.1f) "
			"rotate(-30)\">", x, y0 + 14);
		ab_svg_label(f, 0, 0, "end", 11, false,
			     fmin(ROTATED_PX, (x - 4) / COS_30),
			     buf);
		fputs("</g>\n", f);
		return;
	}
	ab_svg_label(f, x, y0 + 16, "middle", 12, false, w - 6, buf);
	ab_svg_label(f, x, y0 + 30, "middle", 11, false, w - 6,
		     base ? "baseline" : vs);
}

/* "+12.5% +-1.7 better": level i's cell of the sweep's table. */
static void vs_text(char *buf, size_t len, const struct xvbd_ab_sweep *sw,
		    size_t i, int m)
{
	const struct xvbd_ab_metric_cmp *mc = &sw->cmp[i].m[m];
	int k;

	if (!sw->nlevels || i == sw->baseline ||
	    mc->verdict == XVBD_AB_V_UNKNOWN || isnan(mc->s.pct)) {
		snprintf(buf, len, "-");
		return;
	}
	k = ab_cell_pct(buf, len, mc->s.pct, &mc->s.pct_ci);
	if (k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " %s",
			 mc->verdict == XVBD_AB_V_BETTER ? "better" :
			 mc->verdict == XVBD_AB_V_WORSE ? "worse" :
			 mc->verdict == XVBD_AB_V_NO_DIFF ? "~" : "weak");
}

static void row(FILE *f, struct lvl *lv, size_t k, size_t baseline, int m,
		double y, double confidence, const struct xvbd_ab_sweep *sw)
{
	double y0 = y + ROW_AXIS_TOP + PLOT_H;
	double top = row_top(lv, k, m, confidence);
	double w = PLOT_W / (double)k, mean, half;
	char title[160], vs[64];
	size_t i, n;

	snprintf(title, sizeof(title), "%s (%s): each level against %s",
		 xvbd_ab_metric_name(m), xvbd_ab_metric_unit(m),
		 lv[baseline].l->label);
	ab_svg_label(f, MARGIN, y + ROW_TITLE_Y, "start", 14, true,
		     WIDTH - 2 * MARGIN, title);
	ab_svg_axis(f, PLOT_X, y0, PLOT_H, top, xvbd_ab_metric_unit(m));
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		"stroke=\"#444\"/>\n", PLOT_X, y0, PLOT_X + PLOT_W, y0);
	for (i = 0; i < k; i++) {
		vs_text(vs, sizeof(vs), sw, i, m);
		slot(f, &lv[i], m, PLOT_X + w * ((double)i + 0.5), w, y0, top,
		     i == baseline, confidence, k, vs);
	}
	n = values(&lv[baseline], m);
	mean_ci(lv[baseline].v, n, confidence, &mean, &half);
	if (n)
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-dasharray=\"6 4\"/>\n", PLOT_X,
			y_of(y0, mean, top), PLOT_X + PLOT_W,
			y_of(y0, mean, top), COLOUR_BASE);
}

static void legend(FILE *f, const struct xvbd_ab_level *lv,
		   size_t baseline, double confidence)
{
	char line[256];

	snprintf(line, sizeof(line), "dots: runs; bar: mean; whisker: its %g "
		 "%% t interval; dashed: %s's mean; below: B/A %% against it, "
		 "verdict (~: no difference)", confidence * 100,
		 lv[baseline].label);
	ab_svg_label(f, MARGIN, 44, "start", 11, false, WIDTH - 2 * MARGIN,
		     line);
}

int xvbd_ab_plot_seen(const struct xvbd_ab_level *lv, size_t k, bool *seen)
{
	struct xvbd_ab_summary sum;
	size_t i, j;
	int m, rc;

	memset(seen, 0, XVBD_AB_NMETRICS * sizeof(*seen));
	for (i = 0; i < k; i++) {
		for (j = 0; j < lv[i].n; j++) {
			rc = xvbd_ab_summarize(&lv[i].recs[j], &sum);
			if (rc)
				return rc;
			for (m = 0; m < XVBD_AB_NMETRICS; m++)
				seen[m] |= sum.known[m] && sum.value[m] > 0;
		}
	}
	return 0;
}

int xvbd_ab_plot_levels_svg(const struct xvbd_ab_level *lv, size_t k,
			    size_t baseline, const bool *metrics,
			    double confidence, char **svg, size_t *len)
{
	struct lvl l[XVBD_AB_LEVELS_MAX] = { { 0 } };
	struct xvbd_ab_sweep_opts so = { .cmp.test = XVBD_AB_TEST_WELCH };
	struct xvbd_ab_sweep *sw = NULL;
	bool shown[XVBD_AB_NMETRICS];
	size_t size = 0, i, j, nrows = 0, r = 0, row_h;
	char *buf = NULL, title[256];
	FILE *f = NULL;
	int rc = 0, m;

	*svg = NULL;
	*len = 0;
	if (!lv || k < 2 || k > XVBD_AB_LEVELS_MAX || baseline >= k ||
	    !(confidence > 0 && confidence < 1))
		return -EINVAL;
	for (i = 0; i < k && !rc; i++) {
		if (!lv[i].n || !lv[i].recs) {
			rc = -EINVAL;
			break;
		}
		l[i].l = &lv[i];
		l[i].sum = calloc(lv[i].n, sizeof(*l[i].sum));
		l[i].v = calloc(lv[i].n, sizeof(*l[i].v));
		if (!l[i].sum || !l[i].v)
			rc = -ENOMEM;
		for (j = 0; j < lv[i].n && !rc; j++)
			rc = xvbd_ab_summarize(&lv[i].recs[j], &l[i].sum[j]);
	}
	if (rc)
		goto out;
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		shown[m] = (!metrics || metrics[m]) && metric_seen(l, k, m);
		nrows += shown[m];
	}
	/* nothing to draw: the command says so rather than draw it */
	if (!nrows) {
		rc = -ENODATA;
		goto out;
	}
	/* the verdicts of `ab compare` of these levels and metrics */
	sw = calloc(1, sizeof(*sw));
	if (!sw) {
		rc = -ENOMEM;
		goto out;
	}
	so.cmp.confidence = confidence;
	so.shown = shown;
	rc = xvbd_ab_sweep_compare(lv, k, baseline, &so, sw);
	if (rc)
		goto out;
	f = open_memstream(&buf, &size);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	snprintf(title, sizeof(title), "xvbd ab plot: %zu levels against %s",
		 k, lv[baseline].label);
	row_h = k > FLAT_LEVELS_MAX ? ROW_H_TURNED : ROW_H;
	ab_svg_begin(f, WIDTH, TOP + nrows * row_h, title);
	legend(f, lv, baseline, confidence);
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		if (shown[m])
			row(f, l, k, baseline, m, TOP + (double)(r++ * row_h),
			    confidence, sw);
	rc = ab_svg_end(f, rc, &buf, &size, svg, len);
	f = NULL;
out:
	if (f)
		fclose(f);
	free(buf);
	for (i = 0; i < k; i++) {
		free(l[i].sum);
		free(l[i].v);
	}
	xvbd_ab_sweep_free(sw);
	free(sw);
	return rc;
}
