/*
 * ab_compare_render.c - a comparison (ab_compare.c) through the out
 * layer: the JSON form here, every number as a number with more digits
 * than the text's; the text form is ab_compare_text.c's.  Pure
 * (unit-tested).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "xvbd/base/out.h"

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

const char *ab_verdict_name(enum xvbd_ab_verdict v)
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

	xvbd_out_str(o, "verdict", ab_verdict_name(mc->verdict));
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
	xvbd_out_str(o, "metric", xvbd_q_name(info->q));
	xvbd_out_str(o, "unit", xvbd_q_unit(info->q));
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
	size_t i;
	int m;

	xvbd_out_obj_begin(o, key);
	if (!xvbd_out_is_json(o)) {
		ab_compare_text(o, c, shown_metrics);
		xvbd_out_obj_end(o);
		return;
	}
	render_head_json(o, c);
	xvbd_out_arr_begin(o, "metrics");
	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		if (shown_metrics && !shown_metrics[m])
			continue;
		/* The guest's own figures where some run has them. */
		if (!shown_metrics && xvbd_ab_metric_is_guest(m) &&
		    !c->m[m].na && !c->m[m].nb)
			continue;
		render_metric_json(o, c, &c->m[m]);
	}
	xvbd_out_arr_end(o);
	render_diffs_json(o, c);
	xvbd_out_arr_begin(o, "warnings");
	ab_raw_notes(o, c, shown_metrics);
	for (i = 0; i < c->nwarnings; i++)
		xvbd_out_str(o, NULL, c->warnings[i]);
	xvbd_out_arr_end(o);
	render_interf_json(o, c);
	xvbd_out_obj_end(o);
}
