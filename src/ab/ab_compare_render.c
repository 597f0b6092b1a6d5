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

#include "ab_compare_impl.h"
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
			 xvbd_ab_direction(mc->metric, mc->direction > 0),
			 xvbd_ab_test_name(mc->test), p);
		break;
	case XVBD_AB_V_NO_DIFF:
		snprintf(buf, len, "no difference proven at %g %% (%s, %s)",
			 c->confidence * 100, xvbd_ab_test_name(mc->test), p);
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

/* Paired: the centres are over the pairs the test used. */
static size_t centre_n(const struct xvbd_ab_metric_cmp *mc, size_t n)
{
	return mc->test == XVBD_AB_TEST_PAIRED ? mc->npairs : n;
}

static void render_metric_text(struct xvbd_out *o,
			       const struct xvbd_ab_comparison *c,
			       const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	char buf[XVBD_AB_VERDICT_TEXT_MAX];

	xvbd_out_obj_begin(o, NULL);
	xvbd_out_str(o, "metric", info->name);
	ab_fmt_centre(buf, sizeof(buf), mc->s.centre_a, mc->s.half_a,
		      centre_n(mc, mc->na), info->decimals);
	xvbd_out_str(o, "a", buf);
	ab_fmt_centre(buf, sizeof(buf), mc->s.centre_b, mc->s.half_b,
		      centre_n(mc, mc->nb), info->decimals);
	xvbd_out_str(o, "b", buf);
	ab_fmt_signed(buf, sizeof(buf), mc->s.diff, &mc->s.diff_ci,
		      info->unit, info->decimals);
	xvbd_out_str(o, "diff", buf);
	ab_fmt_signed(buf, sizeof(buf), mc->s.pct, &mc->s.pct_ci, "%", 1);
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

const char *ab_ci_shape_name(const struct xvbd_ab_ci *ci)
{
	switch (ci->shape) {
	case XVBD_AB_CI_BOUNDED:
		return "bounded";
	case XVBD_AB_CI_OPEN:
		return "open";
	case XVBD_AB_CI_UNBOUNDED:
		return "unbounded";
	default:
		return "none";
	}
}

/* Beyond this the fixed writer gives up: the ends go at full precision. */
#define JSON_FIXED_MAX	1e15

/* One end as a number, as precise as the others. */
static void end_json(struct xvbd_out *o, const char *key, double v,
		     bool fixed, int d)
{
	if (fixed)
		num(o, key, v, d);
	else
		xvbd_out_double_opt(o, key, true, v);
}

/*
 * An interval's two ends, KEY_lo and KEY_hi: both numbers (the outer ends
 * when in pieces) or both null, never one alone; KEY_interval its shape.
 */
void ab_ci_json(struct xvbd_out *o, const char *key,
		const struct xvbd_ab_ci *ci, int d, bool shape)
{
	bool both = xvbd_ab_ci_bounded(ci);
	bool fixed = both && fabs(ci->lo) < JSON_FIXED_MAX &&
		     fabs(ci->hi) < JSON_FIXED_MAX;
	char k[64];

	snprintf(k, sizeof(k), "%s_lo", key);
	if (both)
		end_json(o, k, ci->lo, fixed, d);
	else
		xvbd_out_null(o, k);
	snprintf(k, sizeof(k), "%s_hi", key);
	if (both)
		end_json(o, k, ci->hi, fixed, d);
	else
		xvbd_out_null(o, k);
	if (!shape)
		return;
	snprintf(k, sizeof(k), "%s_interval", key);
	xvbd_out_str(o, k, ab_ci_shape_name(ci));
}

/* A set in pieces, each [lo, hi] (bounded: every end a number). */
static void pieces_json(struct xvbd_out *o, const char *key,
			const struct xvbd_ab_ci *ci, int d)
{
	bool fixed = fabs(ci->lo) < JSON_FIXED_MAX &&
		     fabs(ci->hi) < JSON_FIXED_MAX;
	size_t i;

	if (!xvbd_ab_ci_bounded(ci) || ci->npieces < 2) {
		xvbd_out_null(o, key);
		return;
	}
	xvbd_out_arr_begin(o, key);
	for (i = 0; i < ci->npieces; i++) {
		xvbd_out_arr_begin(o, NULL);
		end_json(o, NULL, ci->piece_lo[i], fixed, d);
		end_json(o, NULL, ci->piece_hi[i], fixed, d);
		xvbd_out_arr_end(o);
	}
	xvbd_out_arr_end(o);
}

const char *ab_runs_status_name(enum xvbd_ab_runs r)
{
	switch (r) {
	case XVBD_AB_RUNS_SETTLED:
		return "settled";
	case XVBD_AB_RUNS_RULED_OUT:
		return "ruled-out";
	case XVBD_AB_RUNS_NEEDED:
		return "needed";
	case XVBD_AB_RUNS_BEYOND:
		return "beyond-cap";
	default:
		return "unknown";
	}
}

static void render_verdict_json(struct xvbd_out *o,
				const struct xvbd_ab_comparison *c,
				const struct xvbd_ab_metric_cmp *mc)
{
	char text[XVBD_AB_VERDICT_TEXT_MAX];

	xvbd_out_str(o, "verdict", verdict_name(mc->verdict));
	xvbd_out_str(o, "direction", mc->verdict == XVBD_AB_V_UNKNOWN ?
		     NULL : mc->direction > 0 ? "higher" : mc->direction < 0 ?
		     "lower" : "none");
	xvbd_out_str(o, "scale", mc->scale == XVBD_AB_SCALE_RATIO ? "ratio" :
		     "difference");
	xvbd_out_str(o, "weak", mc->weak == XVBD_AB_WEAK_PAIRS ? "pairs" :
		     mc->weak == XVBD_AB_WEAK_RUNS ? "runs" : NULL);
	xvbd_ab_verdict_text(c, mc, text, sizeof(text));
	xvbd_out_str(o, "text", text);
	xvbd_out_str(o, "test", test_key(mc->test));
}

static void render_metric_json(struct xvbd_out *o,
			       const struct xvbd_ab_comparison *c,
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
	ab_ci_json(o, "diff", &mc->s.diff_ci, d, true);
	num(o, "pct", mc->s.pct, d);
	ab_ci_json(o, "pct", &mc->s.pct_ci, d, true);
	pieces_json(o, "pct_pieces", &mc->s.pct_ci, d);
	xvbd_out_double_opt(o, "p", !isnan(mc->s.p), mc->s.p);
	xvbd_out_double_opt(o, "stat", !isnan(mc->s.stat), mc->s.stat);
	xvbd_out_double_opt(o, "df", !isnan(mc->s.df), mc->s.df);
	xvbd_out_double_opt(o, "p_adj", !isnan(mc->s.p_adj), mc->s.p_adj);
	render_verdict_json(o, c, mc);
	if (mc->test == XVBD_AB_TEST_PAIRED)
		xvbd_out_uint(o, "n_pairs", mc->npairs);
	if (mc->scale == XVBD_AB_SCALE_RATIO) {
		num(o, "raw_diff", mc->raw_diff, d);
		ab_ci_json(o, "raw_diff", &mc->raw_ci, d, false);
		xvbd_out_bool(o, "raw_disagrees", mc->raw_disagrees);
	}
	if (mc->equiv != XVBD_AB_EQ_NOT_ASKED) {
		xvbd_out_str(o, "equivalence", equiv_name(mc->equiv));
		xvbd_out_double_opt(o, "equivalence_p", !isnan(mc->eq_p),
				    mc->eq_p);
		ab_ci_json(o, "equivalence", &mc->eq_ci, d, false);
	}
	xvbd_out_uint_opt(o, "runs_needed", mc->runs_status ==
			  XVBD_AB_RUNS_NEEDED, mc->runs_needed);
	xvbd_out_str(o, "runs_needed_status",
		     ab_runs_status_name(mc->runs_status));
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

static void render_head_text(struct xvbd_out *o,
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
}

/* "read-mbs: same within +-2 % (90 % interval -0.8 to +1.1 %, p=0.01)" */
static void equiv_line(char *buf, size_t len,
		       const struct xvbd_ab_comparison *c,
		       const struct xvbd_ab_metric_cmp *mc)
{
	char iv[XVBD_AB_VERDICT_TEXT_MAX], p[32] = "";
	int n;

	if (!isnan(mc->eq_p))
		snprintf(p, sizeof(p), ", p=%.2g", mc->eq_p);
	n = snprintf(buf, len, "%s: %s within +-%g %%",
		     xvbd_ab_metrics[mc->metric].name,
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
		      const struct xvbd_ab_metric_cmp *mc)
{
	const char *name = xvbd_ab_metrics[mc->metric].name;
	const char *unit = mc->test == XVBD_AB_TEST_PAIRED ? "pairs" :
			   "runs per side";
	char iv[XVBD_AB_VERDICT_TEXT_MAX];
	int n;

	if (ab_fmt_ci(iv, sizeof(iv), &mc->s.pct_ci, "%", 1))
		iv[0] = '\0';
	if (mc->runs_status == XVBD_AB_RUNS_RULED_OUT) {
		snprintf(buf, len, "%s: the runs made already rule out an "
			 "effect of %g %% (their %g %% interval of B-A %%: "
			 "%s)", name, c->min_effect * 100,
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
static void render_extras_text(struct xvbd_out *o,
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
			runs_line(buf, sizeof(buf), c, mc);
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
static void render_raw_notes(struct xvbd_out *o,
			     const struct xvbd_ab_comparison *c,
			     const bool *shown)
{
	char raw[XVBD_AB_VERDICT_TEXT_MAX], pct[XVBD_AB_VERDICT_TEXT_MAX], buf[768];
	int m;

	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		const struct xvbd_ab_metric_cmp *mc = &c->m[m];
		const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[m];

		if ((shown && !shown[m]) || !mc->raw_disagrees)
			continue;
		ab_fmt_signed(raw, sizeof(raw), mc->raw_diff, &mc->raw_ci,
			      info->unit, info->decimals);
		ab_fmt_signed(pct, sizeof(pct), mc->s.pct, &mc->s.pct_ci, "%",
			      1);
		snprintf(buf, sizeof(buf), "%s: the pairs' raw differences "
			 "B-A average %s, the other way from the paired "
			 "test's ln(B/A), %s: the pairs differ in size and "
			 "the largest decide the raw mean; the verdict, its "
			 "centres and B-A are on the ratio scale", info->name,
			 raw, pct);
		xvbd_out_str(o, NULL, buf);
	}
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
			render_metric_json(o, c, &c->m[m]);
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
	render_raw_notes(o, c, shown_metrics);
	for (i = 0; i < c->nwarnings; i++)
		xvbd_out_str(o, NULL, c->warnings[i]);
	xvbd_out_arr_end(o);
	if (json)
		render_interf_json(o, c);
	xvbd_out_obj_end(o);
}
