/*
 * ab_compare_render.c - a comparison (ab_compare.c) through the out
 * layer: one function describes it for text and JSON.  The text form
 * puts each centre with its interval and run count in one cell
 * ("1523.0 +- 40.0 (n=5)") and says the verdict with its test; the JSON
 * form gives the same numbers as numbers, with the same decimals.  Pure
 * (unit-tested).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/base/out.h"

static const struct xvbd_out_label cmp_labels[] = {
	{ "a", "A" },
	{ "b", "B" },
	{ "diff", "B-A" },
	{ "pct", "B-A %" },
	{ "variable", "variable under test" },
	{ "adjustment", "multiple metrics" },
	{ "runs_needed", "runs needed" },
	{ NULL, NULL },
};

static const char *test_key(enum xvbd_ab_test t)
{
	switch (t) {
	case XVBD_AB_TEST_MWU:
		return "mwu";
	case XVBD_AB_TEST_PAIRED:
		return "paired";
	default:
		return "welch";
	}
}

static const char *equiv_name(enum xvbd_ab_equiv e)
{
	switch (e) {
	case XVBD_AB_EQ_SAME:
		return "same";
	case XVBD_AB_EQ_NOT_SHOWN:
		return "not-shown";
	case XVBD_AB_EQ_UNKNOWN:
		return "unknown";
	default:
		return NULL;
	}
}

/* The runs needed are told only where the runs did not settle it. */
static bool wants_runs(const struct xvbd_ab_metric_cmp *mc)
{
	return (mc->verdict == XVBD_AB_V_NO_DIFF ||
		mc->verdict == XVBD_AB_V_WEAK) && mc->runs_needed &&
	       mc->runs_needed <= XVBD_STAT_RUNS_NEEDED_MAX;
}

static const char *verdict_name(enum xvbd_ab_verdict v)
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
	case XVBD_AB_V_UNKNOWN:
		break;
	}
	return "unknown";
}

/* "1523.0 +- 40.0 (n=5)" */
static void fmt_centre(char *buf, size_t len, double centre, double half,
		       size_t n, int decimals)
{
	if (isnan(centre))
		snprintf(buf, len, "- (n=%zu)", n);
	else if (isnan(half))
		snprintf(buf, len, "%.*f (n=%zu)", decimals, centre, n);
	else
		snprintf(buf, len, "%.*f +- %.*f (n=%zu)", decimals, centre,
			 decimals, half, n);
}

/* "+187.0 +- 52.0 IO/s", "+12.3 % (+8.9 to +15.8) %", "+187.0 IO/s" */
static void fmt_signed(char *buf, size_t len, double v, double lo, double hi,
		       const char *unit, int decimals)
{
	/* "+12.3 % +- 3.4 %" reads as relative; "+187.0 +- 52.0 IO/s" */
	const char *pct = strcmp(unit, "%") ? "" : " %";
	double h = (hi - lo) / 2;

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "%+.*f %s", decimals, v, unit);
	else if (fabs((hi - v) - (v - lo)) <= 0.1 * h + 1e-12)
		snprintf(buf, len, "%+.*f%s +- %.*f %s", decimals, v, pct,
			 decimals, h, unit);
	else
		snprintf(buf, len, "%+.*f%s (%+.*f to %+.*f) %s", decimals, v,
			 pct, decimals, lo, decimals, hi, unit);
}

static void fmt_p(char *buf, size_t len, double p)
{
	/* two significant digits at any size: 3e-18 is not 0 */
	if (isnan(p))
		snprintf(buf, len, "p unknown");
	else
		snprintf(buf, len, "p=%.2g", p);
}

/* The table's VERDICT cell: the direction and the test behind it. */
static void fmt_verdict(char *buf, size_t len,
			const struct xvbd_ab_comparison *c,
			const struct xvbd_ab_metric_cmp *mc)
{
	char p[64];

	fmt_p(p, sizeof(p), mc->s.p);
	if (c->adjusted && !isnan(mc->s.p_adj))
		snprintf(p + strlen(p), sizeof(p) - strlen(p), ", Holm p=%.2g",
			 mc->s.p_adj);
	switch (mc->verdict) {
	case XVBD_AB_V_BETTER:
	case XVBD_AB_V_WORSE:
		snprintf(buf, len, "%s (%s, %s)",
			 xvbd_ab_direction(mc->metric, mc->test ==
					   XVBD_AB_TEST_PAIRED &&
					   !isnan(mc->s.pct) ? mc->s.pct > 0 :
					   mc->s.diff > 0),
			 xvbd_ab_test_name(mc->test), p);
		break;
	case XVBD_AB_V_NO_DIFF:
		snprintf(buf, len, "no difference proven at %g %% (%s, %s)",
			 c->confidence * 100, xvbd_ab_test_name(mc->test), p);
		break;
	case XVBD_AB_V_WEAK:
		snprintf(buf, len, "weak: %zu and %zu runs, not proven",
			 mc->na, mc->nb);
		break;
	case XVBD_AB_V_UNKNOWN:
		snprintf(buf, len, "%s", mc->text);
		break;
	}
}

static void render_metric_text(struct xvbd_out *o,
			       const struct xvbd_ab_comparison *c,
			       const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	char buf[192];

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "metric", info->name);
	fmt_centre(buf, sizeof(buf), mc->s.centre_a, mc->s.half_a, mc->na,
		   info->decimals);
	xvbd_out_str(o, "a", buf);
	fmt_centre(buf, sizeof(buf), mc->s.centre_b, mc->s.half_b, mc->nb,
		   info->decimals);
	xvbd_out_str(o, "b", buf);
	fmt_signed(buf, sizeof(buf), mc->s.diff, mc->s.diff_lo, mc->s.diff_hi,
		   info->unit, info->decimals);
	xvbd_out_str(o, "diff", buf);
	fmt_signed(buf, sizeof(buf), mc->s.pct, mc->s.pct_lo, mc->s.pct_hi,
		   "%", 1);
	xvbd_out_str(o, "pct", buf);
	fmt_verdict(buf, sizeof(buf), c, mc);
	xvbd_out_str(o, "verdict", buf);
	xvbd_out_obj_end(o);
}

#define JSON_DECIMALS	6

static void num(struct xvbd_out *o, const char *key, double v, int decimals)
{
	xvbd_out_fixed_opt(o, key, !isnan(v), v, decimals);
}

static void render_metric_json(struct xvbd_out *o,
			       const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	/*
	 * Scripts recompute from these: more digits than the text table's
	 * (whose rounding to the metric's decimals is for reading).
	 */
	int d = JSON_DECIMALS;

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "metric", info->name);
	xvbd_out_str(o, "unit", info->unit);
	xvbd_out_uint(o, "n_a", mc->na);
	num(o, "a", mc->s.centre_a, d);
	num(o, "a_half", mc->s.half_a, d);
	xvbd_out_uint(o, "n_b", mc->nb);
	num(o, "b", mc->s.centre_b, d);
	num(o, "b_half", mc->s.half_b, d);
	num(o, "diff", mc->s.diff, d);
	num(o, "diff_lo", mc->s.diff_lo, d);
	num(o, "diff_hi", mc->s.diff_hi, d);
	num(o, "pct", mc->s.pct, d);
	num(o, "pct_lo", mc->s.pct_lo, d);
	num(o, "pct_hi", mc->s.pct_hi, d);
	xvbd_out_double_opt(o, "p", !isnan(mc->s.p), mc->s.p);
	xvbd_out_double_opt(o, "stat", !isnan(mc->s.stat), mc->s.stat);
	xvbd_out_double_opt(o, "df", !isnan(mc->s.df), mc->s.df);
	xvbd_out_double_opt(o, "p_adj", !isnan(mc->s.p_adj), mc->s.p_adj);
	xvbd_out_str(o, "verdict", verdict_name(mc->verdict));
	xvbd_out_str(o, "text", mc->text);
	xvbd_out_str(o, "test", test_key(mc->test));
	if (mc->test == XVBD_AB_TEST_PAIRED)
		xvbd_out_uint(o, "n_pairs", mc->npairs);
	if (mc->equiv != XVBD_AB_EQ_NOT_ASKED) {
		xvbd_out_str(o, "equivalence", equiv_name(mc->equiv));
		xvbd_out_double_opt(o, "equivalence_p", !isnan(mc->eq_p),
				    mc->eq_p);
		num(o, "equivalence_lo", mc->eq_lo, d);
		num(o, "equivalence_hi", mc->eq_hi, d);
	}
	if (wants_runs(mc))
		xvbd_out_uint(o, "runs_needed", mc->runs_needed);
	else
		xvbd_out_null(o, "runs_needed");
	xvbd_out_obj_end(o);
}

static void render_diffs_json(struct xvbd_out *o,
			      const struct xvbd_ab_comparison *c)
{
	size_t i;

	xvbd_out_str(o, "variable", c->variable >= 0 ?
		     c->diffs[c->variable].key : NULL);
	xvbd_out_arr_begin(o, "differences");
	for (i = 0; i < c->ndiffs; i++) {
		const struct xvbd_ab_fpdiff *d = &c->diffs[i];

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "key", d->key);
		xvbd_out_str(o, "a", d->a);
		xvbd_out_str(o, "b", d->b);
		xvbd_out_str(o, "role", (long)i == c->variable ? "variable" :
			     d->follows ? "follows" : "confounder");
		xvbd_out_str(o, "follows", d->follows);
		xvbd_out_str(o, "distorts", d->distorts);
		xvbd_out_bool(o, "not_taken", d->not_taken);
		xvbd_out_str(o, "refused_by", d->refused_by);
		xvbd_out_str(o, "parameter", d->parameter);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

static void render_head_json(struct xvbd_out *o,
			     const struct xvbd_ab_comparison *c)
{
	xvbd_out_str(o, "a", c->label_a);
	xvbd_out_uint(o, "runs_a", c->runs_a);
	xvbd_out_str(o, "b", c->label_b);
	xvbd_out_uint(o, "runs_b", c->runs_b);
	xvbd_out_fixed_opt(o, "confidence", true, c->confidence, 6);
	xvbd_out_str(o, "test", test_key(c->test));
	xvbd_out_uint(o, "pairs", c->pairs);
	xvbd_out_str(o, "experiment", c->experiment);
	xvbd_out_str(o, "adjust", c->adjusted ? "holm" : "none");
	xvbd_out_uint(o, "family", c->family);
	xvbd_out_str(o, "rates_over", "busy span");
	/* a script reading the verdicts needs no warning's words */
	xvbd_out_bool(o, "sequential_stop", c->sequential_stop);
	if (c->equivalence > 0)
		xvbd_out_fixed_opt(o, "equivalence_pct", true,
				   c->equivalence * 100, 6);
	xvbd_out_fixed_opt(o, "min_effect_pct", true, c->min_effect * 100, 6);
	xvbd_out_fixed_opt(o, "power", true, c->power, 6);
}

static void render_test_text(struct xvbd_out *o,
			     const struct xvbd_ab_comparison *c, char *buf,
			     size_t len)
{
	if (c->test == XVBD_AB_TEST_PAIRED)
		snprintf(buf, len, "paired t on the %zu ABBA pairs of "
			 "experiment %s (per pair ln(B/A); centre: mean; B-A: "
			 "mean of the pairs' differences; B-A %%: geometric "
			 "mean of B/A)", c->pairs, c->experiment);
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

static void render_head_text(struct xvbd_out *o,
			     const struct xvbd_ab_comparison *c)
{
	char buf[256];

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
}

/* "read-mbs: same within +-2 % (90 % interval -0.8 to +1.1 %, p=0.01)" */
static void equiv_line(char *buf, size_t len,
		       const struct xvbd_ab_comparison *c,
		       const struct xvbd_ab_metric_cmp *mc)
{
	int n;

	n = snprintf(buf, len, "%s: %s within +-%g %%",
		     xvbd_ab_metrics[mc->metric].name,
		     mc->equiv == XVBD_AB_EQ_SAME ? "same" :
		     mc->equiv == XVBD_AB_EQ_NOT_SHOWN ?
		     "not shown to be the same" : "no equivalence test",
		     c->equivalence * 100);
	if (n < 0 || (size_t)n >= len || isnan(mc->eq_lo) ||
	    isnan(mc->eq_hi))
		return;
	n += snprintf(buf + n, len - (size_t)n, " (%g %% interval %+.1f to "
		      "%+.1f %%", (2 * c->confidence - 1) * 100, mc->eq_lo,
		      mc->eq_hi);
	if ((size_t)n < len && !isnan(mc->eq_p))
		n += snprintf(buf + n, len - (size_t)n, ", p=%.2g", mc->eq_p);
	if ((size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ")");
}

static bool runs_to_tell(const struct xvbd_ab_metric_cmp *mc)
{
	return (mc->verdict == XVBD_AB_V_NO_DIFF ||
		mc->verdict == XVBD_AB_V_WEAK) && mc->runs_needed;
}

/*
 * The equivalence and runs-needed lines of the metrics shown; no
 * runs-needed list when every verdict settled (the output as before).
 */
static void render_extras_text(struct xvbd_out *o,
			       const struct xvbd_ab_comparison *c,
			       const bool *shown, bool equiv)
{
	char buf[256];
	bool any = equiv;
	int m;

	for (m = 0; m < XVBD_AB_NMETRICS && !any; m++)
		any = (!shown || shown[m]) && runs_to_tell(&c->m[m]);
	if (!any)
		return;
	xvbd_out_arr_begin(o, equiv ? "equivalence" : "runs_needed");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *mc = &c->m[m];
		const char *unit = mc->test == XVBD_AB_TEST_PAIRED ? "pairs" :
				   "runs per side";

		if ((shown && !shown[m]) || mc->verdict == XVBD_AB_V_UNKNOWN)
			continue;
		if (equiv && mc->equiv != XVBD_AB_EQ_NOT_ASKED) {
			equiv_line(buf, sizeof(buf), c, mc);
		} else if (!equiv && wants_runs(mc)) {
			snprintf(buf, sizeof(buf), "%s: %zu %s would detect "
				 "%g %% at %g %% power with the variance seen",
				 xvbd_ab_metrics[m].name, mc->runs_needed,
				 unit, c->min_effect * 100,
				 c->power * 100);
		} else if (!equiv && runs_to_tell(mc)) {
			snprintf(buf, sizeof(buf), "%s: more than %d %s to "
				 "detect %g %%", xvbd_ab_metrics[m].name,
				 XVBD_STAT_RUNS_NEEDED_MAX, unit,
				 c->min_effect * 100);
		} else {
			continue;
		}
		xvbd_out_str(o, NULL, buf);
	}
	xvbd_out_arr_end(o);
}

/* The runs flagged for interference, with their figures. */
static void render_interf_json(struct xvbd_out *o,
			       const struct xvbd_ab_comparison *c)
{
	size_t i;

	xvbd_out_fixed_opt(o, "interference_cpu_pct", true,
			   c->interference_cpu * 100.0, 1);
	xvbd_out_arr_begin(o, "interference");
	for (i = 0; i < c->ninterf; i++) {
		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "side", c->interf[i].side);
		xvbd_out_str(o, "run", c->interf[i].id);
		xvbd_ab_interf_render(o, "figures", &c->interf[i].f);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
}

void xvbd_ab_comparison_render(struct xvbd_out *o, const char *key,
			       const struct xvbd_ab_comparison *c,
			       const bool *shown_metrics)
{
	bool json = xvbd_out_is_json(o);
	char buf[256];
	size_t i;
	int m;

	xvbd_out_labels(o, cmp_labels);
	xvbd_out_obj_begin(o, key);
	if (json)
		render_head_json(o, c);
	else
		render_head_text(o, c);
	xvbd_out_arr_begin(o, "metrics");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		if (shown_metrics && !shown_metrics[m])
			continue;
		/* The guest's own figures where some run has them. */
		if (!shown_metrics && xvbd_ab_metric_is_guest(m) &&
		    !c->m[m].na && !c->m[m].nb)
			continue;
		if (json)
			render_metric_json(o, &c->m[m]);
		else
			render_metric_text(o, c, &c->m[m]);
	}
	xvbd_out_arr_end(o);
	if (!json && c->equivalence > 0)
		render_extras_text(o, c, shown_metrics, true);
	if (!json)
		render_extras_text(o, c, shown_metrics, false);
	if (json) {
		render_diffs_json(o, c);
	} else if (c->variable >= 0) {
		const struct xvbd_ab_fpdiff *d = &c->diffs[c->variable];

		snprintf(buf, sizeof(buf), "%s: A %s, B %s", d->key,
			 d->a ? d->a : "-", d->b ? d->b : "-");
		xvbd_out_str(o, "variable", buf);
	}
	xvbd_out_arr_begin(o, "warnings");
	for (i = 0; i < c->nwarnings; i++)
		xvbd_out_str(o, NULL, c->warnings[i]);
	xvbd_out_arr_end(o);
	if (json)
		render_interf_json(o, c);
	xvbd_out_obj_end(o);
}
