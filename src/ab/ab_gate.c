/*
 * ab_gate.c - `--fail-if-worse P`: the comparisons' verdicts as an exit
 * code a pipeline can stop on (see ab_sweep.h).
 *
 * A failure needs both: the estimate worse by at least P % in the
 * metric's own better direction, and the verdict "worse" at the stated
 * confidence (after Holm's adjustment, so that a gate over many metrics
 * and levels does not fail on chance).  Either alone is not enough: a
 * proven 1 % slowdown is below what the pipeline said it cares about,
 * and an unproven 30 % one is noise until more runs show it; the latter
 * is told ("not proven"), with the runs that would settle it in the
 * comparison itself.  Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "xvbd/ab/ab_sweep.h"
#include "xvbd/base/out.h"

void xvbd_ab_gate_free(struct xvbd_ab_gate *g)
{
	if (!g)
		return;
	free(g->hits);
	memset(g, 0, sizeof(*g));
}

/* The % by which B is worse than A: the metric's better direction. */
static double worse_pct(const struct xvbd_ab_metric_cmp *mc)
{
	return xvbd_ab_metrics[mc->metric].higher_is_better ? -mc->s.pct :
							      mc->s.pct;
}

static int add_hit(struct xvbd_ab_gate *g, const struct xvbd_ab_comparison *c,
		   const struct xvbd_ab_metric_cmp *mc)
{
	struct xvbd_ab_gate_hit *h;

	h = realloc(g->hits, (g->nhits + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	g->hits = h;
	h = &g->hits[g->nhits++];
	h->level = c->label_b;
	h->baseline = c->label_a;
	h->metric = mc->metric;
	h->pct = mc->s.pct;
	/* the interval's outer ends, when it has two finite ones */
	h->pct_lo = xvbd_ab_ci_bounded(&mc->s.pct_ci) ? mc->s.pct_ci.lo : NAN;
	h->pct_hi = xvbd_ab_ci_bounded(&mc->s.pct_ci) ? mc->s.pct_ci.hi : NAN;
	h->verdict = mc->verdict;
	h->proven = mc->verdict == XVBD_AB_V_WORSE;
	return 0;
}

/* The failures first, each group in the comparisons' order. */
static void failures_first(struct xvbd_ab_gate_hit *h, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && h[j].proven && !h[j - 1].proven; j--) {
			struct xvbd_ab_gate_hit t = h[j];

			h[j] = h[j - 1];
			h[j - 1] = t;
		}
}

int xvbd_ab_gate_judge(const struct xvbd_ab_comparison *const *cmp,
		       size_t n, const bool *shown, double threshold_pct,
		       struct xvbd_ab_gate *out)
{
	size_t i;
	int m, rc = 0;

	memset(out, 0, sizeof(*out));
	if (!cmp || !(threshold_pct > 0) || !isfinite(threshold_pct))
		return -EINVAL;
	out->threshold_pct = threshold_pct;
	for (i = 0; i < n && !rc; i++) {
		if (!cmp[i])
			continue;
		for (m = 0; m < XVBD_AB_NMETRICS && !rc; m++) {
			const struct xvbd_ab_metric_cmp *mc = &cmp[i]->m[m];

			if ((shown && !shown[m]) ||
			    mc->verdict == XVBD_AB_V_UNKNOWN ||
			    isnan(mc->s.pct) ||
			    !(worse_pct(mc) >= threshold_pct))
				continue;
			rc = add_hit(out, cmp[i], mc);
		}
	}
	if (rc) {
		xvbd_ab_gate_free(out);
		return rc;
	}
	failures_first(out->hits, out->nhits);
	for (i = 0; i < out->nhits; i++) {
		out->nfailed += out->hits[i].proven;
		out->nunproven += !out->hits[i].proven;
	}
	return 0;
}

static const char *why_not(enum xvbd_ab_verdict v)
{
	switch (v) {
	case XVBD_AB_V_WEAK:
		return "weak: too few runs to prove anything";
	case XVBD_AB_V_NO_DIFF:
		return "no difference proven";
	default:
		return "not proven";
	}
}

int xvbd_ab_gate_text(const struct xvbd_ab_gate *g,
		      const struct xvbd_ab_gate_hit *h, double confidence,
		      char *buf, size_t len)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[h->metric];
	char iv[96] = "", lo[32], hi[32];
	int n;

	if (!isnan(h->pct_lo) && !isnan(h->pct_hi)) {
		ab_fmt_num(lo, sizeof(lo), h->pct_lo, 1, true);
		ab_fmt_num(hi, sizeof(hi), h->pct_hi, 1, true);
		snprintf(iv, sizeof(iv), " (%g %% interval %s to %s %%)",
			 confidence * 100, lo, hi);
	}
	if (h->proven)
		n = snprintf(buf, len, "%s %s: %+.1f %%%s against %s: worse by "
			     "at least %g %% and proven at %g %%: fails the "
			     "gate", h->level, xvbd_q_name(info->q), h->pct, iv,
			     h->baseline, g->threshold_pct, confidence * 100);
	else
		n = snprintf(buf, len, "%s %s: %+.1f %%%s against %s: worse by "
			     "at least %g %% but %s at %g %%: not proven, "
			     "the gate passes it", h->level,
			     xvbd_q_name(info->q),
			     h->pct, iv, h->baseline, g->threshold_pct,
			     why_not(h->verdict), confidence * 100);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

void xvbd_ab_gate_render(struct xvbd_out *o, const char *key,
			 const struct xvbd_ab_gate *g)
{
	size_t i;

	xvbd_out_obj_begin(o, key);
	xvbd_out_double_opt(o, "fail_if_worse_pct", true, g->threshold_pct);
	xvbd_out_bool(o, "failed", g->nfailed > 0);
	xvbd_out_uint(o, "exit", g->nfailed ? XVBD_AB_GATE_EXIT : 0);
	xvbd_out_uint(o, "failures", g->nfailed);
	xvbd_out_uint(o, "not_proven", g->nunproven);
	xvbd_out_arr_begin(o, "hits");
	for (i = 0; i < g->nhits; i++) {
		const struct xvbd_ab_gate_hit *h = &g->hits[i];

		xvbd_out_obj_begin(o, NULL);
		xvbd_out_str(o, "level", h->level);
		xvbd_out_str(o, "baseline", h->baseline);
		xvbd_out_str(o, "metric", xvbd_ab_metric_name(h->metric));
		xvbd_out_double_opt(o, "pct", true, h->pct);
		xvbd_out_double_opt(o, "pct_lo", !isnan(h->pct_lo), h->pct_lo);
		xvbd_out_double_opt(o, "pct_hi", !isnan(h->pct_hi), h->pct_hi);
		xvbd_out_str(o, "verdict", ab_verdict_name(h->verdict));
		xvbd_out_bool(o, "fails", h->proven);
		xvbd_out_obj_end(o);
	}
	xvbd_out_arr_end(o);
	xvbd_out_obj_end(o);
}
