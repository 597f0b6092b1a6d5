/*
 * ab_sweep_fam.c - a sweep's k - 1 comparisons judged as one family:
 * Holm over every level x metric with a p-value, the runs a settled
 * experiment would need at the family's level, and the geometric mean
 * row of the rates.
 *
 * Why Holm over levels x metrics: with 3 levels and 8 metrics each at
 * 95 %, an experiment in which no level differs says "different"
 * somewhere in most runs of it (1 - 0.95^24 = 0.71).  Holm keeps that
 * chance within 5 % whatever the dependence between the tests (the
 * levels share the baseline's runs; IO/s and MB/s move together), and
 * rejects at least what Bonferroni would.  The intervals stay per test,
 * as the output says.
 *
 * Runs needed: sized at Bonferroni's alpha / family.  Holm's first step
 * is that level and every later step more lenient, so a comparison
 * sized there keeps its power after the adjustment; sized at alpha it
 * would not (the tests the gate and the reader rely on would be
 * under-powered by the family's size).  Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"
#include "ab_sweep_impl.h"

#define FAMILY_MAX	((XVBD_AB_LEVELS_MAX - 1) * XVBD_AB_NMETRICS)

static bool shown_m(const bool *shown, int m)
{
	return !shown || shown[m];
}

/* Holm over the levels x metrics shown; verdicts it overturns, said. */
static void holm(struct xvbd_ab_sweep *s, const bool *shown, bool adjust)
{
	double p[FAMILY_MAX], adj[FAMILY_MAX];
	double alpha = 1 - s->confidence;
	size_t i, n = 0;
	int m;

	for (i = 0; i < s->nlevels; i++) {
		if (i == s->baseline)
			continue;
		for (m = 0; m < XVBD_AB_NMETRICS; m++)
			p[n++] = shown_m(shown, m) ? s->cmp[i].m[m].s.p : NAN;
	}
	s->family = xvbd_stat_holm(p, n, adj);
	s->adjusted = adjust && s->family > 1;
	n = 0;
	for (i = 0; i < s->nlevels; i++) {
		struct xvbd_ab_comparison *c = &s->cmp[i];

		if (i == s->baseline)
			continue;
		c->family = s->family;
		c->adjusted = s->adjusted;
		c->family_levels = s->nlevels - 1;
		for (m = 0; m < XVBD_AB_NMETRICS; m++, n++) {
			struct xvbd_ab_metric_cmp *mc = &c->m[m];

			mc->s.p_adj = adj[n];
			if (!s->adjusted || isnan(adj[n]) ||
			    (mc->verdict != XVBD_AB_V_BETTER &&
			     mc->verdict != XVBD_AB_V_WORSE) ||
			    adj[n] < alpha)
				continue;
			mc->verdict = XVBD_AB_V_NO_DIFF;
			mc->holm = true;
			mc->runs_status = ab_runs_status(c, mc);
		}
	}
}

/* sd of ln(x[0..n-1]), the logs taken in place; NAN unless n >= 2 and
 * every value is above 0. */
static double sd_log(double *x, size_t n)
{
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return NAN;
		x[i] = log(x[i]);
	}
	return sqrt(xvbd_stat_var(x, n));
}

struct level_sums {
	const struct xvbd_ab_level *l;
	struct xvbd_ab_summary *sum;
};

/* Level i's run of block b, or NULL. */
static const struct xvbd_ab_summary *in_block(const struct level_sums *ls,
					      uint32_t b)
{
	size_t j;

	for (j = 0; j < ls->l->n; j++)
		if (ls->l->recs[j].pair == b)
			return &ls->sum[j];
	return NULL;
}

/*
 * The runs (pairs, when paired) that would detect c->min_effect at
 * c->power at level alpha with the variance these runs show; 0 when
 * unknown, SIZE_MAX beyond the sizing's bound.
 */
static size_t runs_needed(const struct xvbd_ab_comparison *c,
			  const struct xvbd_ab_metric_cmp *mc,
			  const struct level_sums *base,
			  const struct level_sums *lvl, double alpha,
			  double *buf_a, double *buf_b)
{
	enum xvbd_ab_metric m = mc->metric;
	size_t j, na = 0, nb = 0;

	if (mc->test == XVBD_AB_TEST_PAIRED) {
		for (j = 0; j < lvl->l->n; j++) {
			const struct xvbd_ab_summary *a =
				in_block(base, lvl->l->recs[j].pair);

			if (a && xvbd_ab_summary_logratio(a, &lvl->sum[j], m,
							  &buf_a[na]))
				na++;
		}
		return na >= 2 ? xvbd_stat_pairs_needed(alpha, c->power,
				sqrt(xvbd_stat_var(buf_a, na)),
				log1p(c->min_effect)) : 0;
	}
	for (j = 0; j < base->l->n; j++)
		if (base->sum[j].known[m])
			buf_a[na++] = base->sum[j].value[m];
	for (j = 0; j < lvl->l->n; j++)
		if (lvl->sum[j].known[m])
			buf_b[nb++] = lvl->sum[j].value[m];
	return xvbd_stat_runs_needed(alpha, c->power, sd_log(buf_a, na),
				     sd_log(buf_b, nb), log1p(c->min_effect));
}

static int summarize_all(const struct xvbd_ab_level *used, size_t k,
			 struct level_sums *ls)
{
	size_t i, j;
	int rc = 0;

	for (i = 0; i < k && !rc; i++) {
		ls[i].l = &used[i];
		ls[i].sum = calloc(used[i].n, sizeof(*ls[i].sum));
		if (!ls[i].sum)
			return -ENOMEM;
		for (j = 0; j < used[i].n && !rc; j++)
			rc = xvbd_ab_summarize(&used[i].recs[j], &ls[i].sum[j]);
	}
	return rc;
}

static void free_sums(struct level_sums *ls, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		free(ls[i].sum);
}

int ab_sweep_family(struct xvbd_ab_sweep *s, const struct xvbd_ab_level *used,
		    const struct xvbd_ab_sweep_opts *opts)
{
	struct level_sums ls[XVBD_AB_LEVELS_MAX] = { { 0 } };
	double *buf_a = NULL, *buf_b = NULL;
	size_t i, most = 0;
	int rc = 0, m;

	holm(s, opts->shown, !opts->no_adjust);
	s->alpha_runs = 1 - s->confidence;
	if (!s->adjusted)
		return 0;
	s->alpha_runs /= (double)s->family;
	for (i = 0; i < s->nlevels; i++)
		most = used[i].n > most ? used[i].n : most;
	buf_a = calloc(most, sizeof(*buf_a));
	buf_b = calloc(most, sizeof(*buf_b));
	if (!buf_a || !buf_b) {
		rc = -ENOMEM;
		goto out;
	}
	rc = summarize_all(used, s->nlevels, ls);
	for (i = 0; i < s->nlevels && !rc; i++) {
		if (i == s->baseline)
			continue;
		for (m = 0; m < XVBD_AB_NMETRICS; m++) {
			struct xvbd_ab_metric_cmp *mc = &s->cmp[i].m[m];

			if (mc->verdict == XVBD_AB_V_UNKNOWN)
				continue;
			mc->runs_needed = runs_needed(&s->cmp[i], mc,
						      &ls[s->baseline], &ls[i],
						      s->alpha_runs, buf_a,
						      buf_b);
			mc->runs_status = ab_runs_status(&s->cmp[i], mc);
		}
	}
out:
	free_sums(ls, s->nlevels);
	free(buf_a);
	free(buf_b);
	return rc;
}

/* ---- the geometric mean of the rates ---- */

/* Metric m is a rate shown with every level's centre above 0. */
static bool geomean_metric(const struct xvbd_ab_sweep *s, const bool *shown,
			   int m)
{
	size_t i;

	if (!xvbd_ab_metric_is_rate((enum xvbd_ab_metric)m) ||
	    !shown_m(shown, m))
		return false;
	for (i = 0; i < s->nlevels; i++) {
		const struct xvbd_ab_metric_cmp *mc = &s->cmp[i].m[m];

		if (i == s->baseline)
			continue;
		if (mc->verdict == XVBD_AB_V_UNKNOWN ||
		    !(mc->s.centre_a > 0) || !(mc->s.centre_b > 0) ||
		    isnan(mc->s.pct))
			return false;
	}
	return true;
}

/*
 * Level i's interval of the geometric mean ratio: the paired t of the
 * per-block means of ln(level / baseline) over the rates in the row,
 * from the blocks where every one of them has a ratio.
 */
static void geomean_interval(struct xvbd_ab_sweep *s, size_t i,
			     const struct level_sums *base,
			     const struct level_sums *lvl, double *g)
{
	struct xvbd_stat_cmp st;
	size_t j, n = 0;
	int m;

	s->geomean.pct_lo[i] = s->geomean.pct_hi[i] = NAN;
	for (j = 0; j < lvl->l->n; j++) {
		const struct xvbd_ab_summary *a =
			in_block(base, lvl->l->recs[j].pair);
		double sum = 0, d;
		bool all = a != NULL;

		for (m = 0; m < XVBD_AB_NMETRICS && all; m++) {
			if (!s->geomean.metric[m])
				continue;
			all = xvbd_ab_summary_logratio(a, &lvl->sum[j],
						       (enum xvbd_ab_metric)m,
						       &d);
			sum += d;
		}
		if (all)
			g[n++] = sum / (double)s->geomean.nmetrics;
	}
	if (n < 2 || xvbd_stat_paired_t(g, n, s->confidence, &st))
		return;
	s->geomean.pct_lo[i] = expm1(st.diff_lo) * 100;
	s->geomean.pct_hi[i] = expm1(st.diff_hi) * 100;
}

int ab_sweep_geomean(struct xvbd_ab_sweep *s,
		     const struct xvbd_ab_level *used, const bool *shown)
{
	struct xvbd_ab_geomean *g = &s->geomean;
	struct level_sums ls[XVBD_AB_LEVELS_MAX] = { { 0 } };
	size_t i, first = s->baseline ? 0 : 1, most = 0;
	double *buf = NULL;
	int rc = 0, m;

	for (m = 0; m < XVBD_AB_NMETRICS; m++) {
		g->metric[m] = geomean_metric(s, shown, m);
		g->nmetrics += g->metric[m];
	}
	/* one rate's geometric mean is that rate: no row (benchstat) */
	if (g->nmetrics < 2) {
		memset(g, 0, sizeof(*g));
		return 0;
	}
	for (i = 0; i < s->nlevels; i++) {
		double lc = 0, lr = 0;

		for (m = 0; m < XVBD_AB_NMETRICS; m++) {
			const struct xvbd_ab_metric_cmp *mc =
				&s->cmp[i == s->baseline ? first : i].m[m];

			if (!g->metric[m])
				continue;
			lc += log(i == s->baseline ? mc->s.centre_a :
				  mc->s.centre_b);
			lr += i == s->baseline ? 0 : log1p(mc->s.pct / 100);
		}
		g->centre[i] = exp(lc / (double)g->nmetrics);
		g->pct[i] = expm1(lr / (double)g->nmetrics) * 100;
		g->pct_lo[i] = g->pct_hi[i] = NAN;
		most = used[i].n > most ? used[i].n : most;
	}
	if (!s->experiment)
		return 0;
	buf = calloc(most, sizeof(*buf));
	rc = buf ? summarize_all(used, s->nlevels, ls) : -ENOMEM;
	for (i = 0; i < s->nlevels && !rc; i++)
		if (i != s->baseline)
			geomean_interval(s, i, &ls[s->baseline], &ls[i], buf);
	free_sums(ls, s->nlevels);
	free(buf);
	return rc;
}
