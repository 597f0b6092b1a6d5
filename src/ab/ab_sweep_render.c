/*
 * ab_sweep_render.c - a sweep's comparison (ab_sweep.c) through the out
 * layer.
 *
 * Text is benchstat's layout: one row per metric, one column per level
 * with its centre +- half its interval (in % of the centre, so the
 * columns stay narrow whatever the metric's size), and beside each level
 * but the baseline a "vs <baseline>" column: the % with its interval and
 * the verdict (better, worse, ~ for no difference proven, weak).  Where
 * the levels do not fit 100 columns the table goes on below with the
 * metric and baseline columns again, as benchstat wraps.  The JSON form
 * has every cell as numbers and each level's comparison in full, as
 * ab compare gives two labels'.  Pure (unit-tested).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "ab_sweep_impl.h"
#include "xvbd/base/out.h"

#define CELL_MAX	64
#define JSON_DECIMALS	6
/* the out layer's table: two spaces between columns, indented two */
#define COL_GAP		2
#define TABLE_INDENT	2

const char *ab_sweep_verdict_key(enum xvbd_ab_verdict v)
{
	switch (v) {
	case XVBD_AB_V_BETTER:
		return "better";
	case XVBD_AB_V_WORSE:
		return "worse";
	case XVBD_AB_V_NO_DIFF:
		return "no-difference";
	case XVBD_AB_V_WEAK:
		return "weak";
	default:
		return "unknown";
	}
}

static const char *verdict_word(enum xvbd_ab_verdict v)
{
	switch (v) {
	case XVBD_AB_V_BETTER:
		return "better";
	case XVBD_AB_V_WORSE:
		return "worse";
	case XVBD_AB_V_NO_DIFF:
		return "~";
	default:
		return "weak";
	}
}

/* The comparison that holds the baseline's side of metric m. */
static const struct xvbd_ab_comparison *any_cmp(const struct xvbd_ab_sweep *s)
{
	return &s->cmp[s->baseline ? 0 : 1];
}

/* A metric with data in some comparison gets a row. */
static bool has_row(const struct xvbd_ab_sweep *s, const bool *shown, int m)
{
	size_t i;

	if (shown && !shown[m])
		return false;
	for (i = 0; i < s->nlevels; i++)
		if (i != s->baseline &&
		    s->cmp[i].m[m].verdict != XVBD_AB_V_UNKNOWN)
			return true;
	return false;
}

static void cell_vs(char *buf, size_t len, const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	int k;

	if (mc->verdict == XVBD_AB_V_UNKNOWN) {
		snprintf(buf, len, "-");
		return;
	}
	if (!isnan(mc->s.pct))
		k = ab_cell_pct(buf, len, mc->s.pct, &mc->s.pct_ci);
	else
		k = snprintf(buf, len, "%+.*f %s", info->decimals, mc->s.diff,
			     xvbd_q_unit(info->q));
	if (k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " %s",
			 verdict_word(mc->verdict));
}

/* The cells of one row: [0] metric, then per level centre (and vs). */
struct row {
	char cell[1 + 2 * XVBD_AB_LEVELS_MAX][CELL_MAX];
};

static void metric_row(const struct xvbd_ab_sweep *s, int m, struct row *r)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[m];
	const struct xvbd_ab_metric_cmp *b = &any_cmp(s)->m[m];
	size_t i;

	snprintf(r->cell[0], CELL_MAX, "%s %s", xvbd_q_name(info->q),
		 xvbd_q_unit(info->q));
	for (i = 0; i < s->nlevels; i++) {
		const struct xvbd_ab_metric_cmp *mc = &s->cmp[i].m[m];

		if (i == s->baseline) {
			ab_cell_centre(r->cell[1 + 2 * i], CELL_MAX, b->s.centre_a,
				    b->s.half_a, b->na, s->runs[i],
				    info->decimals);
			r->cell[2 + 2 * i][0] = '\0';
			continue;
		}
		ab_cell_centre(r->cell[1 + 2 * i], CELL_MAX, mc->s.centre_b,
			    mc->s.half_b, mc->nb, s->runs[i], info->decimals);
		cell_vs(r->cell[2 + 2 * i], CELL_MAX, mc);
	}
}

/* The geometric mean row's interval of level i as a set. */
static void geomean_ci(const struct xvbd_ab_geomean *g, size_t i,
		       struct xvbd_ab_ci *ci)
{
	ab_ci_ends(ci, g->pct_lo[i], g->pct_hi[i], XVBD_AB_CI_FEW_RUNS);
}

static void geomean_row(const struct xvbd_ab_sweep *s, struct row *r)
{
	const struct xvbd_ab_geomean *g = &s->geomean;
	struct xvbd_ab_ci ci;
	size_t i;

	snprintf(r->cell[0], CELL_MAX, "geomean of rates");
	for (i = 0; i < s->nlevels; i++) {
		snprintf(r->cell[1 + 2 * i], CELL_MAX, "%.4g", g->centre[i]);
		r->cell[2 + 2 * i][0] = '\0';
		if (i == s->baseline)
			continue;
		geomean_ci(g, i, &ci);
		ab_cell_pct(r->cell[2 + 2 * i], CELL_MAX, g->pct[i], &ci);
	}
}

/* Column c's width: its header and its cells. */
static size_t col_width(const struct xvbd_ab_sweep *s, const struct row *rows,
			size_t nrows, size_t c)
{
	size_t w, j;

	if (c == 0)
		w = strlen("METRIC");
	else if (c % 2)
		w = strlen(s->label[(c - 1) / 2]);
	else
		w = strlen("vs ") + strlen(s->label[s->baseline]);
	for (j = 0; j < nrows; j++)
		w = strlen(rows[j].cell[c]) > w ? strlen(rows[j].cell[c]) : w;
	return w;
}

/* One table of the levels from[0..n-1] (the baseline first). */
static void render_chunk(struct xvbd_out *o, const struct xvbd_ab_sweep *s,
			 const struct row *rows, size_t nrows,
			 const size_t *from, size_t n, const char *key)
{
	char vs[XVBD_AB_LABEL_MAX + 8];
	size_t j, l;

	snprintf(vs, sizeof(vs), "vs %s", s->label[s->baseline]);
	xvbd_out_arr_begin(o, key);
	for (j = 0; j < nrows; j++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "metric", rows[j].cell[0]);
		xvbd_out_str(o, s->label[s->baseline],
			     rows[j].cell[1 + 2 * s->baseline]);
		for (l = 0; l < n; l++) {
			xvbd_out_str(o, s->label[from[l]],
				     rows[j].cell[1 + 2 * from[l]]);
			xvbd_out_str(o, vs, rows[j].cell[2 + 2 * from[l]]);
		}
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

/*
 * The table, wrapped: as many levels beside the metric and baseline
 * columns as fit XVBD_AB_SWEEP_TEXT_COLS, at least one.
 */
static void render_table(struct xvbd_out *o, const struct xvbd_ab_sweep *s,
			 const struct row *rows, size_t nrows)
{
	size_t from[XVBD_AB_LEVELS_MAX], n = 0, i, head, used, part = 1;
	char key[32];

	head = TABLE_INDENT + col_width(s, rows, nrows, 0) + COL_GAP +
	       col_width(s, rows, nrows, 1 + 2 * s->baseline);
	used = head;
	for (i = 0; i < s->nlevels; i++) {
		size_t w;

		if (i == s->baseline)
			continue;
		w = 2 * COL_GAP + col_width(s, rows, nrows, 1 + 2 * i) +
		    col_width(s, rows, nrows, 2 + 2 * i);
		if (n && used + w > XVBD_AB_SWEEP_TEXT_COLS) {
			snprintf(key, sizeof(key), part == 1 ? "metrics" :
				 "metrics, continued (%zu)", part);
			render_chunk(o, s, rows, nrows, from, n, key);
			part++;
			n = 0;
			used = head;
		}
		from[n++] = i;
		used += w;
	}
	snprintf(key, sizeof(key), part == 1 ? "metrics" :
		 "metrics, continued (%zu)", part);
	render_chunk(o, s, rows, nrows, from, n, key);
}

/* Three lines; -v: render_head_long. */
static void render_head_short(struct xvbd_out *o,
			      const struct xvbd_ab_sweep *s)
{
	const struct xvbd_ab_comparison *c = any_cmp(s);
	const char *base = s->label[s->baseline];
	char buf[512];
	size_t i;
	int k;

	k = snprintf(buf, sizeof(buf), "%s (%zu run%s) against", base,
		     s->runs[s->baseline], s->runs[s->baseline] == 1 ? "" :
		     "s");
	for (i = 0; i < s->nlevels && k > 0 && (size_t)k < sizeof(buf); i++)
		if (i != s->baseline)
			k += snprintf(buf + k, sizeof(buf) - (size_t)k,
				      "%s %s (%zu)", buf[k - 1] == 't' ? "" :
				      ",", s->label[i], s->runs[i]);
	if (s->experiment && k > 0 && (size_t)k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - (size_t)k, ": the %zu blocks "
			 "of %s", s->blocks, s->experiment);
	xvbd_out_str(o, "compared", buf);
	k = snprintf(buf, sizeof(buf), "%s; %g %% intervals", s->experiment ?
		     "paired t on ln(level/baseline)" :
		     c->test == XVBD_AB_TEST_MWU ?
		     "Mann-Whitney U on run summaries" :
		     "Welch's t on run summaries", s->confidence * 100);
	if (k > 0 && (size_t)k < sizeof(buf) && s->adjusted)
		snprintf(buf + k, sizeof(buf) - (size_t)k,
			 "; p Holm-adjusted over %zu tests", s->family);
	else if (k > 0 && (size_t)k < sizeof(buf) && s->family > 1)
		snprintf(buf + k, sizeof(buf) - (size_t)k,
			 "; p per test (--no-adjust)");
	xvbd_out_str(o, "test", buf);
	snprintf(buf, sizeof(buf), "centre +-half its interval; vs %s: %% "
		 "+-interval, verdict (~: no difference proven)", base);
	xvbd_out_str(o, "cells", buf);
}

static void render_head_long(struct xvbd_out *o, const struct xvbd_ab_sweep *s)
{
	const struct xvbd_ab_comparison *c = any_cmp(s);
	char buf[512];
	size_t i;
	int k = 0;

	snprintf(buf, sizeof(buf), "%s (%zu run%s)", s->label[s->baseline],
		 s->runs[s->baseline], s->runs[s->baseline] == 1 ? "" : "s");
	xvbd_out_str(o, "baseline", buf);
	buf[0] = '\0';
	for (i = 0; i < s->nlevels && k >= 0 && (size_t)k < sizeof(buf); i++)
		if (i != s->baseline)
			k += snprintf(buf + k, sizeof(buf) - (size_t)k,
				      "%s%s (%zu)", k ? ", " : "", s->label[i],
				      s->runs[i]);
	xvbd_out_str(o, "levels", buf);
	snprintf(buf, sizeof(buf), "%g %%", s->confidence * 100);
	xvbd_out_str(o, "confidence", buf);
	if (s->experiment)
		snprintf(buf, sizeof(buf), "paired t on the %zu blocks of "
			 "experiment %s: each level against %s's run of the "
			 "same block (per block ln(level/%s); centre: mean; "
			 "vs: geometric mean of level/%s)", s->blocks,
			 s->experiment, s->label[s->baseline],
			 s->label[s->baseline], s->label[s->baseline]);
	else
		snprintf(buf, sizeof(buf), "%s on run summaries, each level "
			 "against %s (%s)", xvbd_ab_test_name(c->test),
			 s->label[s->baseline], c->test == XVBD_AB_TEST_MWU ?
			 "centre: median; vs: Hodges-Lehmann ratio" :
			 "centre: mean; vs: ratio of the means, Fieller's "
			 "interval");
	xvbd_out_str(o, "test", buf);
	if (s->adjusted)
		snprintf(buf, sizeof(buf), "Holm-Bonferroni over %zu tests "
			 "(%zu levels x metrics): verdicts use the adjusted "
			 "p (--no-adjust: none); intervals are per test",
			 s->family, s->nlevels - 1);
	else
		snprintf(buf, sizeof(buf), "none (%s)", s->family > 1 ?
			 "--no-adjust: each verdict at the confidence alone" :
			 "one test");
	xvbd_out_str(o, "multiple tests", buf);
	xvbd_out_str(o, "rates", "IO/s and MB/s over each run's busy span; "
		     "CPU over the window");
	snprintf(buf, sizeof(buf), "centre +- half its %g %% interval in %% "
		 "of it; vs %s: %% with its interval, then better, worse, ~ "
		 "(no difference proven) or weak", s->confidence * 100,
		 s->label[s->baseline]);
	xvbd_out_str(o, "cells", buf);
}

static bool runs_to_tell(const struct xvbd_ab_metric_cmp *mc)
{
	return mc->runs_status == XVBD_AB_RUNS_NEEDED ||
	       mc->runs_status == XVBD_AB_RUNS_BEYOND ||
	       mc->runs_status == XVBD_AB_RUNS_RULED_OUT;
}

/* The unsettled comparisons and the runs that would settle them. */
static void render_runs_text(struct xvbd_out *o, const struct xvbd_ab_sweep *s,
			     const bool *shown)
{
	char buf[320];
	bool any = false;
	size_t i;
	int m;

	for (i = 0; i < s->nlevels; i++)
		for (m = 0; m < XVBD_AB_NMETRICS && i != s->baseline; m++)
			any |= (!shown || shown[m]) &&
			       runs_to_tell(&s->cmp[i].m[m]);
	if (!any)
		return;
	xvbd_out_arr_begin(o, "runs needed");
	for (i = 0; i < s->nlevels; i++) {
		const struct xvbd_ab_comparison *c = &s->cmp[i];
		const char *unit = s->experiment ? "blocks" : "runs per level";

		for (m = 0; m < XVBD_AB_NMETRICS && i != s->baseline; m++) {
			const struct xvbd_ab_metric_cmp *mc = &c->m[m];

			if ((shown && !shown[m]) || !runs_to_tell(mc))
				continue;
			if (mc->runs_status == XVBD_AB_RUNS_RULED_OUT)
				snprintf(buf, sizeof(buf), "%s %s: the runs "
					 "made already rule out an effect of "
					 "%g %%", s->label[i],
					 xvbd_ab_metric_name(m),
					 c->min_effect * 100);
			else if (mc->runs_status == XVBD_AB_RUNS_BEYOND)
				snprintf(buf, sizeof(buf), "%s %s: more than "
					 "%d %s to detect %g %%", s->label[i],
					 xvbd_ab_metric_name(m),
					 XVBD_STAT_RUNS_NEEDED_MAX, unit,
					 c->min_effect * 100);
			else
				snprintf(buf, sizeof(buf), "%s %s: %zu %s "
					 "would detect %g %% at %g %% power "
					 "with the variance seen (at alpha "
					 "%.2g: %s)", s->label[i],
					 xvbd_ab_metric_name(m),
					 mc->runs_needed, unit,
					 c->min_effect * 100, c->power * 100,
					 s->alpha_runs, s->adjusted ?
					 "Bonferroni over the family" :
					 "one test");
			xvbd_out_str(o, NULL, buf);
		}
	}
	xvbd_out_arr_end(o);
}

static void render_variables_text(struct xvbd_out *o,
				  const struct xvbd_ab_sweep *s)
{
	char buf[512];
	size_t i;

	xvbd_out_arr_begin(o, "variables under test");
	for (i = 0; i < s->nlevels; i++) {
		const struct xvbd_ab_comparison *c = &s->cmp[i];

		if (i == s->baseline)
			continue;
		if (c->variable >= 0) {
			const struct xvbd_ab_fpdiff *d = &c->diffs[c->variable];

			snprintf(buf, sizeof(buf), "%s: %s: %s -> %s",
				 s->label[i], d->key, d->a ? d->a : "-",
				 d->b ? d->b : "-");
		} else {
			snprintf(buf, sizeof(buf), "%s: none single (see the "
				 "warnings)", s->label[i]);
		}
		xvbd_out_str(o, NULL, buf);
	}
	xvbd_out_arr_end(o);
}

/*
 * Every warning once: the experiment's own, then each comparison's
 * (where A is the baseline and B the level) led by the levels that gave
 * it, so a warning about the baseline's runs is not said k - 1 times.
 */
static void render_warnings_text(struct xvbd_out *o,
				 const struct xvbd_ab_sweep *s)
{
	char buf[2048];
	size_t i, j, l, w;

	xvbd_out_arr_begin(o, "warnings");
	for (w = 0; w < s->nwarnings; w++)
		xvbd_out_str(o, NULL, s->warnings[w]);
	for (i = 0; i < s->nlevels; i++) {
		for (w = 0; w < s->cmp[i].nwarnings; w++) {
			const char *text = s->cmp[i].warnings[w];
			bool said = false;
			int k;

			for (j = 0; j < i && !said; j++)
				for (l = 0; l < s->cmp[j].nwarnings; l++)
					said |= !strcmp(s->cmp[j].warnings[l],
							text);
			if (said)
				continue;
			k = snprintf(buf, sizeof(buf), "%s", s->label[i]);
			for (j = i + 1; j < s->nlevels; j++)
				for (l = 0; l < s->cmp[j].nwarnings; l++)
					if (!strcmp(s->cmp[j].warnings[l],
						    text) && k > 0 &&
					    (size_t)k < sizeof(buf))
						k += snprintf(buf + k,
							sizeof(buf) - (size_t)k,
							", %s", s->label[j]);
			if (k > 0 && (size_t)k < sizeof(buf))
				snprintf(buf + k, sizeof(buf) - (size_t)k,
					 " (A %s, B the level): %s",
					 s->label[s->baseline], text);
			xvbd_out_str(o, NULL, buf);
		}
	}
	xvbd_out_arr_end(o);
}

static const struct xvbd_out_label sweep_labels[] = {
	{ "no_data", "no data" },
	{ NULL, NULL },
};

/* A metric without a row: 0 in every run of every level, or unknown. */
static void no_data(const struct xvbd_ab_sweep *s, int m, bool *none,
		    bool *zero)
{
	bool all_zero = true;
	size_t i;

	for (i = 0; i < s->nlevels; i++)
		if (i != s->baseline)
			all_zero &= ab_metric_all_zero(&s->cmp[i].m[m]);
	zero[m] = all_zero;
	none[m] = !all_zero;
}

static void render_text(struct xvbd_out *o, const struct xvbd_ab_sweep *s,
			const bool *shown)
{
	struct row *rows = calloc(XVBD_AB_NMETRICS + 1, sizeof(*rows));
	bool none[XVBD_AB_NMETRICS] = { false };
	bool zero[XVBD_AB_NMETRICS] = { false };
	size_t nrows = 0;
	int m;

	xvbd_out_labels(o, sweep_labels);
	xvbd_out_wrap(o, XVBD_AB_SWEEP_TEXT_COLS);
	if (xvbd_out_verbose(o))
		render_head_long(o, s);
	else
		render_head_short(o, s);
	if (!rows) {
		xvbd_out_str(o, "metrics", "(out of memory)");
		return;
	}
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		if (has_row(s, shown, m))
			metric_row(s, m, &rows[nrows++]);
		/* the guest's own figures only where some run has them */
		else if ((!shown || shown[m]) &&
			 !(!shown && xvbd_ab_metric_is_guest(m)))
			no_data(s, m, none, zero);
	}
	if (s->geomean.nmetrics)
		geomean_row(s, &rows[nrows++]);
	if (nrows)
		render_table(o, s, rows, nrows);
	else
		xvbd_out_str(o, "metrics", "none with data in these runs");
	free(rows);
	ab_no_data_line(o, "no_data", none, zero);
	render_runs_text(o, s, shown);
	render_variables_text(o, s);
	render_warnings_text(o, s);
}

/* ---- JSON ---- */

static void num(struct xvbd_out *o, const char *key, double v)
{
	xvbd_out_fixed_opt(o, key, !isnan(v), v, JSON_DECIMALS);
}

static void json_cell(struct xvbd_out *o, const struct xvbd_ab_sweep *s,
		      size_t i, int m)
{
	const struct xvbd_ab_metric_cmp *b = &any_cmp(s)->m[m];
	const struct xvbd_ab_metric_cmp *mc = &s->cmp[i].m[m];
	bool base = i == s->baseline;
	char text[XVBD_AB_VERDICT_TEXT_MAX];

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "label", s->label[i]);
	xvbd_out_uint(o, "n", base ? b->na : mc->nb);
	num(o, "centre", base ? b->s.centre_a : mc->s.centre_b);
	num(o, "half", base ? b->s.half_a : mc->s.half_b);
	if (!base) {
		num(o, "diff", mc->s.diff);
		ab_ci_json(o, "diff", &mc->s.diff_ci, JSON_DECIMALS, false);
		num(o, "pct", mc->s.pct);
		ab_ci_json(o, "pct", &mc->s.pct_ci, JSON_DECIMALS, true);
		xvbd_out_double_opt(o, "p", !isnan(mc->s.p), mc->s.p);
		xvbd_out_double_opt(o, "p_adj", !isnan(mc->s.p_adj),
				    mc->s.p_adj);
		xvbd_out_str(o, "verdict", ab_sweep_verdict_key(mc->verdict));
		xvbd_ab_verdict_text(&s->cmp[i], mc, text, sizeof(text));
		xvbd_out_str(o, "text", text);
		xvbd_out_uint_opt(o, "runs_needed", mc->runs_status ==
				  XVBD_AB_RUNS_NEEDED, mc->runs_needed);
		xvbd_out_str(o, "runs_needed_status",
			     ab_runs_status_name(mc->runs_status));
	}
	xvbd_out_obj_end(o);
}

static void render_geomean_json(struct xvbd_out *o,
				const struct xvbd_ab_sweep *s)
{
	const struct xvbd_ab_geomean *g = &s->geomean;
	struct xvbd_ab_ci ci;
	size_t i;
	int m;

	if (!g->nmetrics) {
		xvbd_out_null(o, "geomean");
		return;
	}
	xvbd_out_obj_begin(o, "geomean");
	xvbd_out_arr_begin(o, "metrics");
	for (m = 0; m < XVBD_AB_NMETRICS; m++)
		if (g->metric[m])
			xvbd_out_str(o, NULL, xvbd_ab_metric_name(m));
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "cells");
	for (i = 0; i < s->nlevels; i++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "label", s->label[i]);
		num(o, "centre", g->centre[i]);
		if (i != s->baseline) {
			num(o, "pct", g->pct[i]);
			geomean_ci(g, i, &ci);
			ab_ci_json(o, "pct", &ci, JSON_DECIMALS, false);
		}
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}

static void render_json(struct xvbd_out *o, const struct xvbd_ab_sweep *s,
			const bool *shown)
{
	size_t i, w;
	int m;

	xvbd_out_str(o, "baseline", s->label[s->baseline]);
	xvbd_out_arr_begin(o, "levels");
	for (i = 0; i < s->nlevels; i++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "label", s->label[i]);
		xvbd_out_uint(o, "runs", s->runs[i]);
		xvbd_out_bool(o, "baseline", i == s->baseline);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_fixed_opt(o, "confidence", true, s->confidence, 6);
	xvbd_out_str(o, "experiment", s->experiment);
	xvbd_out_uint(o, "blocks", s->blocks);
	xvbd_out_uint(o, "blocks_dropped", s->dropped);
	xvbd_out_str(o, "adjust", s->adjusted ? "holm" : "none");
	xvbd_out_uint(o, "family", s->family);
	xvbd_out_double_opt(o, "alpha_runs_needed", true, s->alpha_runs);
	xvbd_out_arr_begin(o, "metrics");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		if (shown && !shown[m])
			continue;
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "metric", xvbd_ab_metric_name(m));
		xvbd_out_str(o, "unit", xvbd_ab_metric_unit(m));
		xvbd_out_arr_begin(o, "cells");
		for (i = 0; i < s->nlevels; i++)
			json_cell(o, s, i, m);
		xvbd_out_arr_end(o);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	render_geomean_json(o, s);
	xvbd_out_arr_begin(o, "comparisons");
	for (i = 0; i < s->nlevels; i++)
		if (i != s->baseline)
			xvbd_ab_comparison_render(o, NULL, &s->cmp[i], shown);
	xvbd_out_arr_end(o);
	xvbd_out_arr_begin(o, "warnings");
	for (w = 0; w < s->nwarnings; w++)
		xvbd_out_str(o, NULL, s->warnings[w]);
	xvbd_out_arr_end(o);
}

void xvbd_ab_sweep_render(struct xvbd_out *o, const char *key,
			  const struct xvbd_ab_sweep *s, const bool *shown)
{
	xvbd_out_obj_begin(o, key);
	if (xvbd_out_is_json(o))
		render_json(o, s, shown);
	else
		render_text(o, s, shown);
	xvbd_out_obj_end(o);
}
