/*
 * ab_compare_text.c - a comparison of two labels as text, and the cells
 * it shares with the sweep's table (ab_sweep_render.c).
 *
 * What is read first fits a screen: what was compared and how in three
 * lines (-v: each said in full), one table of the metrics that have data
 * with the sweep's cells (each centre +- half its interval in % of it,
 * B-A % with its interval) and the verdict's words with the p that
 * decided it, the metrics without data named in one line below, then
 * the runs needed, the variable under test and the warnings.  Every line
 * fits XVBD_AB_TEXT_COLS: the out layer wraps the lines of words, and a
 * table too wide for its verdict column gives each verdict a line of its
 * own below it.  Pure (unit-tested).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "xvbd/base/out.h"

#define CELL_MAX	64
/* the out layer's table: indented two, two spaces between columns */
#define TABLE_INDENT	2
#define COL_GAP		2

/* ---- the cells (the sweep's too) ---- */

int ab_cell_centre(char *buf, size_t len, double centre, double half,
		   size_t n, size_t runs, int decimals)
{
	double rel = half / centre * 100;
	char c[32];
	int k;

	if (isnan(centre))
		return snprintf(buf, len, "-");
	/* numbers of bounded width: the columns stay narrow */
	ab_fmt_num(c, sizeof(c), centre, decimals, false);
	if (isnan(half) || !(centre > 0))
		k = snprintf(buf, len, "%s", c);
	else if (isinf(half))
		k = snprintf(buf, len, "%s (unbounded)", c);
	else if (rel < 1000)
		k = snprintf(buf, len, "%s +-%.*f%%", c, rel < 10 ? 1 : 0,
			     rel);
	else
		k = snprintf(buf, len, "%s +-%.2g%%", c, rel);
	if (k > 0 && (size_t)k < len && n != runs)
		k += snprintf(buf + k, len - (size_t)k, " n=%zu", n);
	return k;
}

int ab_cell_pct(char *buf, size_t len, double v, const struct xvbd_ab_ci *ci)
{
	char x[32], lo[32], hi[32];
	double h = (ci->hi - ci->lo) / 2;
	size_t i;
	int n;

	ab_fmt_num(x, sizeof(x), v, 1, true);
	if (ci->shape == XVBD_AB_CI_NONE)
		return snprintf(buf, len, "%s%%", x);
	if (ci->shape == XVBD_AB_CI_UNBOUNDED)
		return snprintf(buf, len, "%s%% (unbounded)", x);
	if (xvbd_ab_ci_bounded(ci) && ci->npieces == 1 &&
	    fabs((ci->hi - v) - (v - ci->lo)) <= 0.1 * h + 1e-12) {
		ab_fmt_num(hi, sizeof(hi), h, 1, false);
		return snprintf(buf, len, "%s%% +-%s", x, hi);
	}
	n = snprintf(buf, len, "%s%% ", x);
	for (i = 0; i < ci->npieces && n > 0 && (size_t)n < len; i++) {
		ab_fmt_num(lo, sizeof(lo), ci->piece_lo[i], 1, true);
		ab_fmt_num(hi, sizeof(hi), ci->piece_hi[i], 1, true);
		n += snprintf(buf + n, len - (size_t)n, "%s[%s,%s]",
			      i ? "u" : "", lo, hi);
	}
	return n;
}

int ab_cell_metric(char *buf, size_t len, int m)
{
	const char *unit = xvbd_ab_metric_unit(m);

	return snprintf(buf, len, "%s%s%s", xvbd_ab_metric_name(m),
			*unit ? " " : "", unit);
}

bool ab_metric_no_data(const struct xvbd_ab_metric_cmp *mc)
{
	return mc->verdict == XVBD_AB_V_UNKNOWN &&
	       ((!mc->na && !mc->nb) || ab_metric_all_zero(mc));
}

bool ab_metric_all_zero(const struct xvbd_ab_metric_cmp *mc)
{
	return mc->verdict == XVBD_AB_V_UNKNOWN && mc->na && mc->nb &&
	       mc->s.centre_a == 0 && mc->s.centre_b == 0;
}

void ab_no_data_line(struct xvbd_out *o, const char *key,
		     const bool *none, const bool *zero)
{
	char buf[1024];
	size_t k = 0;
	int m, pass;

	buf[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		const bool *which = pass ? zero : none;
		bool first = true;

		for (m = 0; m < XVBD_AB_NMETRICS && k < sizeof(buf); m++) {
			if (!which[m])
				continue;
			if (first && pass)
				k += (size_t)snprintf(buf + k, sizeof(buf) - k,
						      "%s0 in every run: ",
						      k ? "; " : "");
			else if (!first)
				k += (size_t)snprintf(buf + k, sizeof(buf) - k,
						      ", ");
			if (k < sizeof(buf))
				k += (size_t)snprintf(buf + k, sizeof(buf) - k,
						      "%s",
						      xvbd_ab_metric_name(m));
			first = false;
		}
	}
	if (buf[0])
		xvbd_out_str(o, key, buf);
}

/* ---- the two labels' table ---- */

static const struct xvbd_out_label text_labels[] = {
	{ "a", "A" },
	{ "b", "B" },
	{ "pct", "B-A %" },
	{ "variable", "variable under test" },
	{ "adjustment", "multiple metrics" },
	{ "runs_needed", "runs needed" },
	{ "no_data", "no data" },
	{ NULL, NULL },
};

void ab_verdict_short(char *buf, size_t len,
		      const struct xvbd_ab_comparison *c,
		      const struct xvbd_ab_metric_cmp *mc)
{
	double p = c->adjusted && !isnan(mc->s.p_adj) ? mc->s.p_adj : mc->s.p;
	char pv[32];

	if (isnan(p))
		snprintf(pv, sizeof(pv), "p unknown");
	else
		snprintf(pv, sizeof(pv), "p=%.2g", p);
	switch (mc->verdict) {
	case XVBD_AB_V_BETTER:
	case XVBD_AB_V_WORSE:
		snprintf(buf, len, "%s (%s)",
			 xvbd_ab_direction(mc->metric, mc->direction > 0), pv);
		break;
	case XVBD_AB_V_NO_DIFF:
		snprintf(buf, len, "no difference proven (%s)", pv);
		break;
	case XVBD_AB_V_WEAK:
		if (mc->weak == XVBD_AB_WEAK_PAIRS)
			snprintf(buf, len, "weak: %zu pair%s, not proven",
				 mc->npairs, mc->npairs == 1 ? "" : "s");
		else
			snprintf(buf, len, "weak: %zu and %zu runs, not proven",
				 mc->na, mc->nb);
		break;
	case XVBD_AB_V_UNKNOWN:
		snprintf(buf, len, "%s", mc->unknown_why ? mc->unknown_why :
			 "unknown");
		break;
	}
}

/* The cells of a metric's row: metric, A, B, B-A %, verdict. */
struct row {
	int m;
	char cell[5][CELL_MAX + 64];
};

static void metric_row(const struct xvbd_ab_comparison *c,
		       const struct xvbd_ab_metric_cmp *mc, struct row *r)
{
	bool paired = mc->test == XVBD_AB_TEST_PAIRED;
	int d = xvbd_ab_metrics[mc->metric].decimals;

	r->m = mc->metric;
	ab_cell_metric(r->cell[0], sizeof(r->cell[0]), mc->metric);
	ab_cell_centre(r->cell[1], sizeof(r->cell[1]), mc->s.centre_a,
		       mc->s.half_a, paired ? mc->npairs : mc->na,
		       paired ? c->pairs : c->runs_a, d);
	ab_cell_centre(r->cell[2], sizeof(r->cell[2]), mc->s.centre_b,
		       mc->s.half_b, paired ? mc->npairs : mc->nb,
		       paired ? c->pairs : c->runs_b, d);
	if (!isnan(mc->s.pct))
		ab_cell_pct(r->cell[3], sizeof(r->cell[3]), mc->s.pct,
			    &mc->s.pct_ci);
	else if (!isnan(mc->s.diff) && mc->verdict != XVBD_AB_V_UNKNOWN)
		snprintf(r->cell[3], sizeof(r->cell[3]), "%+.*f %s", d,
			 mc->s.diff, xvbd_ab_metric_unit(mc->metric));
	else
		snprintf(r->cell[3], sizeof(r->cell[3]), "-");
	ab_verdict_short(r->cell[4], sizeof(r->cell[4]), c, mc);
}

/* The table's width with its first ncols columns. */
static size_t table_width(const struct row *rows, size_t nrows, size_t ncols)
{
	static const char *const head[] = { "METRIC", "A", "B", "B-A %",
					    "VERDICT" };
	size_t w = TABLE_INDENT, c, j, cw;

	for (c = 0; c < ncols; c++) {
		cw = strlen(head[c]);
		for (j = 0; j < nrows; j++)
			if (strlen(rows[j].cell[c]) > cw)
				cw = strlen(rows[j].cell[c]);
		w += cw + (c ? COL_GAP : 0);
	}
	return w;
}

/*
 * "read_iops: B faster by 12.5 % +- 1.7 % (Welch's t, p=8.1e-08, Holm
 * p=5.6e-07)": a verdict in full, on a line of its own.
 */
static void verdict_line(char *buf, size_t len,
			 const struct xvbd_ab_comparison *c,
			 const struct xvbd_ab_metric_cmp *mc)
{
	char text[XVBD_AB_VERDICT_TEXT_MAX];
	int k;

	xvbd_ab_verdict_text(c, mc, text, sizeof(text));
	k = snprintf(buf, len, "%s: %s", xvbd_ab_metric_name(mc->metric),
		     text);
	if (k < 0 || (size_t)k >= len || mc->verdict == XVBD_AB_V_UNKNOWN ||
	    isnan(mc->s.p))
		return;
	k += snprintf(buf + k, len - (size_t)k, " (%s, p=%.2g",
		      xvbd_ab_test_name(mc->test), mc->s.p);
	if (k > 0 && (size_t)k < len && c->adjusted && !isnan(mc->s.p_adj))
		k += snprintf(buf + k, len - (size_t)k, ", Holm p=%.2g",
			      mc->s.p_adj);
	if (k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, ")");
}

static void render_table(struct xvbd_out *o, const struct xvbd_ab_comparison *c,
			 const bool *shown)
{
	struct row *rows = calloc(XVBD_AB_NMETRICS, sizeof(*rows));
	bool none[XVBD_AB_NMETRICS] = { false };
	bool zero[XVBD_AB_NMETRICS] = { false };
	size_t nrows = 0, j;
	bool column;
	int m;

	if (!rows) {
		xvbd_out_str(o, "metrics", "(out of memory)");
		return;
	}
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *mc = &c->m[m];

		if (shown && !shown[m])
			continue;
		/* The guest's own figures where some run has them. */
		if (!shown && xvbd_ab_metric_is_guest(m) && !mc->na && !mc->nb)
			continue;
		if (ab_metric_no_data(mc)) {
			zero[m] = ab_metric_all_zero(mc);
			none[m] = !zero[m];
			continue;
		}
		metric_row(c, mc, &rows[nrows++]);
	}
	/* the verdict's column when it fits, else a line per verdict */
	column = table_width(rows, nrows, 5) <= XVBD_AB_TEXT_COLS;
	if (nrows) {
		xvbd_out_arr_begin(o, "metrics");
		for (j = 0; j < nrows; j++) {
			xvbd_out_obj_begin(o, NULL);
			xvbd_out_str(o, "metric", rows[j].cell[0]);
			xvbd_out_str(o, "a", rows[j].cell[1]);
			xvbd_out_str(o, "b", rows[j].cell[2]);
			xvbd_out_str(o, "pct", rows[j].cell[3]);
			if (column)
				xvbd_out_str(o, "verdict", rows[j].cell[4]);
			xvbd_out_obj_end(o);
		}
		xvbd_out_arr_end(o);
	} else {
		xvbd_out_str(o, "metrics", "none with data in these runs");
	}
	ab_no_data_line(o, "no_data", none, zero);
	if (nrows && (!column || xvbd_out_verbose(o))) {
		char buf[2 * XVBD_AB_VERDICT_TEXT_MAX];

		xvbd_out_arr_begin(o, "verdicts");
		for (j = 0; j < nrows; j++) {
			verdict_line(buf, sizeof(buf), c, &c->m[rows[j].m]);
			xvbd_out_str(o, NULL, buf);
		}
		xvbd_out_arr_end(o);
	}
	free(rows);
}

/* ---- what was compared and how ---- */

static void test_words(char *buf, size_t len,
		       const struct xvbd_ab_comparison *c)
{
	int k;

	if (c->test == XVBD_AB_TEST_PAIRED)
		k = snprintf(buf, len, "paired t on ln(B/A)");
	else
		k = snprintf(buf, len, "%s on run summaries",
			     xvbd_ab_test_name(c->test));
	if (k > 0 && (size_t)k < len)
		k += snprintf(buf + k, len - (size_t)k, "; %g %% intervals",
			      c->confidence * 100);
	if (k > 0 && (size_t)k < len && c->adjusted)
		k += snprintf(buf + k, len - (size_t)k, "; p Holm-adjusted "
			      "over %zu metrics", c->family);
	else if (k > 0 && (size_t)k < len && c->family > 1)
		k += snprintf(buf + k, len - (size_t)k, "; p per metric "
			      "(--no-adjust)");
	if (k > 0 && (size_t)k < len && c->equivalence > 0)
		snprintf(buf + k, len - (size_t)k, "; same within +-%g %%: "
			 "two one-sided tests", c->equivalence * 100);
}

/* Three lines; the rest of what the verbose form says is in -v. */
static void render_head_short(struct xvbd_out *o,
			      const struct xvbd_ab_comparison *c)
{
	char buf[512];

	if (c->test != XVBD_AB_TEST_PAIRED)
		snprintf(buf, sizeof(buf), "A %s (%zu run%s), B %s (%zu run%s)",
			 c->label_a, c->runs_a, c->runs_a == 1 ? "" : "s",
			 c->label_b, c->runs_b, c->runs_b == 1 ? "" : "s");
	else if (c->runs_a == c->pairs && c->runs_b == c->pairs)
		snprintf(buf, sizeof(buf), "A %s, B %s: the %zu ABBA pairs of "
			 "%s", c->label_a, c->label_b, c->pairs,
			 c->experiment);
	else
		snprintf(buf, sizeof(buf), "A %s, B %s: %zu ABBA pairs of %s "
			 "(of %zu and %zu runs)", c->label_a, c->label_b,
			 c->pairs, c->experiment, c->runs_a, c->runs_b);
	xvbd_out_str(o, "compared", buf);
	test_words(buf, sizeof(buf), c);
	xvbd_out_str(o, "test", buf);
	xvbd_out_str(o, "rates", "IO/s and MB/s over each run's busy span; "
		     "CPU over the window (-v: more)");
}

static void render_test_text(struct xvbd_out *o,
			     const struct xvbd_ab_comparison *c, char *buf,
			     size_t len)
{
	if (c->test == XVBD_AB_TEST_PAIRED)
		snprintf(buf, len, "paired t on the %zu ABBA pairs of "
			 "experiment %s (per pair ln(B/A); centre: geometric "
			 "mean over the pairs; B-A: at A's; B-A %%: geometric "
			 "mean of B/A; a metric with a value of 0: on B-A, "
			 "centre: mean)", c->pairs, c->experiment);
	else
		snprintf(buf, len, "%s", c->test == XVBD_AB_TEST_MWU ?
			 "Mann-Whitney U on run summaries (centre: "
			 "median; B-A: Hodges-Lehmann shift)" :
			 "Welch's t on run summaries (centre: mean; "
			 "B-A %: Fieller's interval)");
	xvbd_out_str(o, "test", buf);
	if (c->equivalence > 0) {
		snprintf(buf, len, "+-%g %%: two one-sided tests at %g %% "
			 "each, \"same\" when the %g %% interval of B-A %% "
			 "lies inside", c->equivalence * 100,
			 (1 - c->confidence) * 100,
			 (2 * c->confidence - 1) * 100);
		xvbd_out_str(o, "equivalence", buf);
	}
}

/* -v: each of the three lines said in full. */
static void render_head_long(struct xvbd_out *o,
			     const struct xvbd_ab_comparison *c)
{
	char buf[320];

	snprintf(buf, sizeof(buf), "%s (%zu run%s)", c->label_a,
		 c->runs_a, c->runs_a == 1 ? "" : "s");
	xvbd_out_str(o, "a", buf);
	snprintf(buf, sizeof(buf), "%s (%zu run%s)", c->label_b,
		 c->runs_b, c->runs_b == 1 ? "" : "s");
	xvbd_out_str(o, "b", buf);
	snprintf(buf, sizeof(buf), "%g %%", c->confidence * 100);
	xvbd_out_str(o, "confidence", buf);
	render_test_text(o, c, buf, sizeof(buf));
	if (c->adjusted)
		snprintf(buf, sizeof(buf), "Holm-Bonferroni over %zu "
			 "metrics: verdicts use the adjusted p "
			 "(--no-adjust: none); intervals are per metric",
			 c->family);
	else
		snprintf(buf, sizeof(buf), "none (%s)", c->family > 1 ?
			 "--no-adjust: each verdict at the confidence "
			 "alone" : "one metric");
	xvbd_out_str(o, "adjustment", buf);
	xvbd_out_str(o, "rates", "IO/s and MB/s over each run's busy "
		     "span (first to last interval with I/O; over the "
		     "window: ab show, ab export); CPU over the window");
	snprintf(buf, sizeof(buf), "centre +- half its %g %% interval in %% "
		 "of it (n= when not every run has the metric); B-A %% with "
		 "its interval; the verdict with the p that decided it",
		 c->confidence * 100);
	xvbd_out_str(o, "cells", buf);
}

/* ---- after the table ---- */

/* "read_mb_per_s: same within +-2 % (90 % interval -0.8 to +1.1 %, p=0.01)" */
static void equiv_line(char *buf, size_t len,
		       const struct xvbd_ab_comparison *c,
		       const struct xvbd_ab_metric_cmp *mc)
{
	char iv[XVBD_AB_VERDICT_TEXT_MAX], p[32] = "";
	int n;

	if (!isnan(mc->eq_p))
		snprintf(p, sizeof(p), ", p=%.2g", mc->eq_p);
	n = snprintf(buf, len, "%s: %s within +-%g %%",
		     xvbd_ab_metric_name(mc->metric),
		     mc->equiv == XVBD_AB_EQ_SAME ? "same" :
		     mc->equiv == XVBD_AB_EQ_NOT_SHOWN ?
		     "not shown to be the same" : "no equivalence test",
		     c->equivalence * 100);
	if (n < 0 || (size_t)n >= len ||
	    ab_fmt_ci(iv, sizeof(iv), &mc->eq_ci, "%", 1))
		return;
	snprintf(buf + n, len - (size_t)n, " (%g %% interval %s%s)",
		 (2 * c->confidence - 1) * 100, iv, p);
}

static bool runs_to_tell(const struct xvbd_ab_metric_cmp *mc)
{
	return mc->runs_status == XVBD_AB_RUNS_NEEDED ||
	       mc->runs_status == XVBD_AB_RUNS_BEYOND ||
	       mc->runs_status == XVBD_AB_RUNS_RULED_OUT;
}

/*
 * One metric's runs-needed line: the count, or that it is beyond reach,
 * or that the runs made already rule the effect out; a count no larger
 * than the runs made says that their interval left the effect open.
 */
static void runs_line(char *buf, size_t len,
		      const struct xvbd_ab_comparison *c,
		      const struct xvbd_ab_metric_cmp *mc, bool verbose)
{
	const char *name = xvbd_ab_metric_name(mc->metric);
	const char *unit = mc->test == XVBD_AB_TEST_PAIRED ? "pairs" :
			   "runs per side";
	char iv[XVBD_AB_VERDICT_TEXT_MAX];
	int n;

	if (ab_fmt_ci(iv, sizeof(iv), &mc->s.pct_ci, "%", 1))
		iv[0] = '\0';
	if (mc->runs_status == XVBD_AB_RUNS_RULED_OUT) {
		n = snprintf(buf, len, "%s: the runs made already rule out "
			     "an effect of %g %%", name, c->min_effect * 100);
		/* the table has the interval; -v says it again here */
		if (verbose && n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, " (their %g %% "
				 "interval of B-A %%: %s)",
				 c->confidence * 100, iv);
		return;
	}
	if (mc->runs_status == XVBD_AB_RUNS_BEYOND) {
		snprintf(buf, len, "%s: more than %d %s to detect %g %%", name,
			 XVBD_STAT_RUNS_NEEDED_MAX, unit, c->min_effect * 100);
		return;
	}
	n = snprintf(buf, len, "%s: %zu %s would detect %g %% at %g %% power "
		     "with the variance seen", name, mc->runs_needed, unit,
		     c->min_effect * 100, c->power * 100);
	if (n > 0 && (size_t)n < len && mc->runs_needed <= mc->runs_made)
		snprintf(buf + n, len - (size_t)n, " (no more than the %zu "
			 "made: their interval, %s, neither shows a "
			 "difference nor rules out %g %%)", mc->runs_made,
			 *iv ? iv : "none", c->min_effect * 100);
}

/*
 * The equivalence and runs-needed lines of the metrics shown; no
 * runs-needed list when every verdict settled.
 */
static void render_extras(struct xvbd_out *o,
			  const struct xvbd_ab_comparison *c,
			  const bool *shown, bool equiv)
{
	char buf[512];
	bool any = equiv;
	int m;

	for (m = 0; m < XVBD_AB_NMETRICS && !any; m++)
		any = (!shown || shown[m]) && runs_to_tell(&c->m[m]);
	if (!any)
		return;
	xvbd_out_arr_begin(o, equiv ? "equivalence" : "runs_needed");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *mc = &c->m[m];

		if ((shown && !shown[m]) || mc->verdict == XVBD_AB_V_UNKNOWN)
			continue;
		if (equiv && mc->equiv != XVBD_AB_EQ_NOT_ASKED)
			equiv_line(buf, sizeof(buf), c, mc);
		else if (!equiv && runs_to_tell(mc))
			runs_line(buf, sizeof(buf), c, mc, xvbd_out_verbose(o));
		else
			continue;
		xvbd_out_str(o, NULL, buf);
	}
	xvbd_out_arr_end(o);
}

/*
 * A paired metric whose raw mean difference points the other way from
 * its verdict on ln(B/A): said with the metric, before the warnings.
 */
void ab_raw_notes(struct xvbd_out *o, const struct xvbd_ab_comparison *c,
		  const bool *shown)
{
	char raw[XVBD_AB_VERDICT_TEXT_MAX], pct[XVBD_AB_VERDICT_TEXT_MAX];
	char buf[768];
	int m;

	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *mc = &c->m[m];

		if ((shown && !shown[m]) || !mc->raw_disagrees)
			continue;
		ab_fmt_signed(raw, sizeof(raw), mc->raw_diff, &mc->raw_ci,
			      xvbd_ab_metric_unit(m),
			      xvbd_ab_metrics[m].decimals);
		ab_fmt_signed(pct, sizeof(pct), mc->s.pct, &mc->s.pct_ci, "%",
			      1);
		snprintf(buf, sizeof(buf), "%s: the pairs' raw differences "
			 "B-A average %s, the other way from the paired "
			 "test's ln(B/A), %s: the pairs differ in size and "
			 "the largest decide the raw mean; the verdict, its "
			 "centres and B-A are on the ratio scale",
			 xvbd_ab_metric_name(m), raw, pct);
		xvbd_out_str(o, NULL, buf);
	}
}

void ab_compare_text(struct xvbd_out *o, const struct xvbd_ab_comparison *c,
		     const bool *shown)
{
	char buf[256];
	size_t i;

	xvbd_out_labels(o, text_labels);
	xvbd_out_wrap(o, XVBD_AB_TEXT_COLS);
	if (xvbd_out_verbose(o))
		render_head_long(o, c);
	else
		render_head_short(o, c);
	render_table(o, c, shown);
	if (c->equivalence > 0)
		render_extras(o, c, shown, true);
	render_extras(o, c, shown, false);
	if (c->variable >= 0) {
		const struct xvbd_ab_fpdiff *d = &c->diffs[c->variable];

		snprintf(buf, sizeof(buf), "%s: A %s, B %s", d->key,
			 d->a ? d->a : "-", d->b ? d->b : "-");
		xvbd_out_str(o, "variable", buf);
	}
	xvbd_out_arr_begin(o, "warnings");
	ab_raw_notes(o, c, shown);
	for (i = 0; i < c->nwarnings; i++)
		xvbd_out_str(o, NULL, c->warnings[i]);
	xvbd_out_arr_end(o);
}
