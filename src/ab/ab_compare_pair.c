/*
 * ab_compare_pair.c - the parts of a comparison beyond "different or
 * not": the paired test of an ab run experiment's ABBA pairs, the
 * equivalence test (--equivalence) and the runs a decisive experiment
 * would need.
 *
 * Pairs: ab run alternates A B, B A, ... and writes into each record its
 * experiment's id and its pair's index.  The two runs of a pair ran next
 * to each other, so the drift of the host over the experiment (page
 * cache, thermal state, other guests) is common to both and drops out of
 * their log-ratio ln(B_i / A_i), where an unpaired test counts it as
 * noise.  The pairing and the log-ratio are those of ab run's sequential
 * procedure (xvbd_ab_pair_logratio), so both judge the same numbers.
 * A metric with a value not above 0 in some pair has no ratio: its test
 * is then on the differences B_i - A_i.  On ratios, the numbers printed
 * with the verdict are the log-ratio's too (geometric means, B - A at
 * A's), so a raw mean difference of the other sign (pairs of very
 * different sizes) cannot stand beside it unexplained: it is kept
 * apart, and flagged.
 *
 * Runs needed: the exact power of the t-test (the noncentral t), never
 * below 3 runs (a verdict on fewer is weak whatever it says).  Pure
 * (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"

bool xvbd_ab_summary_logratio(const struct xvbd_ab_summary *a,
			      const struct xvbd_ab_summary *b,
			      enum xvbd_ab_metric m, double *d)
{
	if (!a->known[m] || !b->known[m] || !(a->value[m] > 0) ||
	    !(b->value[m] > 0))
		return false;
	*d = log(b->value[m] / a->value[m]);
	return true;
}

bool xvbd_ab_pair_logratio(const struct xvbd_ab_record *a,
			   const struct xvbd_ab_record *b,
			   enum xvbd_ab_metric m, double *d)
{
	struct xvbd_ab_summary sa, sb;

	if (xvbd_ab_summarize(a, &sa) || xvbd_ab_summarize(b, &sb))
		return false;
	return xvbd_ab_summary_logratio(&sa, &sb, m, d);
}

/* The run of recs with pair index pair, or n when none or twice. */
static size_t find_pair(const struct xvbd_ab_record *recs, size_t n,
			uint32_t pair)
{
	size_t i, found = n;

	for (i = 0; i < n; i++) {
		if (recs[i].pair != pair)
			continue;
		if (found < n)
			return n;
		found = i;
	}
	return found;
}

/* Same experiment everywhere, each of A's pairs once in A and in B. */
static bool pairs_complete(const struct xvbd_ab_record *a, size_t na,
			   const struct xvbd_ab_record *b, size_t nb)
{
	const char *exp = na ? a[0].experiment : NULL;
	size_t i;

	if (!exp || na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (!a[i].experiment || strcmp(a[i].experiment, exp) ||
		    !b[i].experiment || strcmp(b[i].experiment, exp))
			return false;
	for (i = 0; i < na; i++)
		if (find_pair(a, na, a[i].pair) != i ||
		    find_pair(b, nb, a[i].pair) == nb)
			return false;
	return true;
}

bool xvbd_ab_records_paired(const struct xvbd_ab_record *a, size_t na,
			    const struct xvbd_ab_record *b, size_t nb,
			    const char **experiment)
{
	if (!a || !b || !pairs_complete(a, na, b, nb))
		return false;
	if (experiment)
		*experiment = a[0].experiment;
	return true;
}

static int pair_cmp(const void *x, const void *y)
{
	const uint32_t *p = x, *q = y;

	return (p[0] > q[0]) - (p[0] < q[0]);
}

int ab_pairing_make(const struct xvbd_ab_record *a, size_t na,
		    const struct xvbd_ab_record *b, size_t nb,
		    struct ab_pairing *p)
{
	uint32_t (*order)[2] = NULL;
	size_t k;

	memset(p, 0, sizeof(*p));
	if (!xvbd_ab_records_paired(a, na, b, nb, NULL))
		return 0;
	order = calloc(na, sizeof(*order));
	p->ia = calloc(na, sizeof(*p->ia));
	p->ib = calloc(na, sizeof(*p->ib));
	if (!order || !p->ia || !p->ib) {
		free(order);
		ab_pairing_free(p);
		return -ENOMEM;
	}
	/* by pair index: the order they ran in */
	for (k = 0; k < na; k++) {
		order[k][0] = a[k].pair;
		order[k][1] = (uint32_t)k;
	}
	qsort(order, na, sizeof(*order), pair_cmp);
	for (k = 0; k < na; k++) {
		p->ia[k] = order[k][1];
		p->ib[k] = find_pair(b, nb, order[k][0]);
	}
	p->n = na;
	free(order);
	return 0;
}

void ab_pairing_free(struct ab_pairing *p)
{
	free(p->ia);
	free(p->ib);
	memset(p, 0, sizeof(*p));
}

/* ---- the paired t ---- */

/* The t half-width of the mean of x: t_{n-1} sd / sqrt(n). */
static double mean_half(const double *x, size_t n, double confidence)
{
	return xvbd_stat_t_quantile((1 + confidence) / 2, (double)(n - 1)) *
	       sqrt(xvbd_stat_var(x, n) / (double)n);
}

/*
 * A side's centre over the pairs: its mean, or on the ratio scale its
 * geometric mean exp(mean ln x), whose interval exp(m +- h) is not
 * symmetric: the larger side, GM (e^h - 1), is given.  lx: scratch.
 */
static void pair_centre(const double *x, double *lx, size_t n, bool logs,
			double confidence, double *centre, double *half)
{
	size_t i;

	if (!logs) {
		*centre = xvbd_stat_mean(x, n);
		*half = mean_half(x, n, confidence);
		return;
	}
	for (i = 0; i < n; i++)
		lx[i] = log(x[i]);
	*centre = exp(xvbd_stat_mean(lx, n));
	*half = *centre * expm1(mean_half(lx, n, confidence));
}

static void paired_diffs(struct xvbd_ab_metric_cmp *mc,
			 const struct xvbd_stat_cmp *d)
{
	struct xvbd_stat_cmp_view *s = &mc->s;

	mc->scale = XVBD_AB_SCALE_DIFF;
	s->diff = d->diff;
	ab_ci_ends(&s->diff_ci, d->diff_lo, d->diff_hi, XVBD_AB_CI_WHY_NONE);
	s->pct = s->centre_a > 0 ? d->diff / s->centre_a * 100 : NAN;
	ab_ci_none(&s->pct_ci, XVBD_AB_CI_NO_RATIO);
	s->p = d->p;
	s->stat = d->stat;
	s->df = d->df;
	mc->direction = ab_sign(d->diff);
}

static double expm1_pct(double x)
{
	return expm1(x);
}

/*
 * On the ratio scale every number is the log-ratio's: B/A = exp(mean d)
 * with exp of its interval; B - A that ratio at A's geometric mean (the
 * difference of the geometric means, GM_A (exp(mean d) - 1)); the raw
 * differences' mean beside, to say when it points the other way.
 */
static void paired_ratios(struct xvbd_ab_metric_cmp *mc,
			  const struct xvbd_stat_cmp *lr,
			  const struct xvbd_stat_cmp *raw)
{
	struct xvbd_stat_cmp_view *s = &mc->s;
	double g = s->centre_a;

	mc->scale = XVBD_AB_SCALE_RATIO;
	s->pct = expm1(lr->diff) * 100;
	ab_ci_ends(&s->pct_ci, lr->diff_lo, lr->diff_hi, XVBD_AB_CI_WHY_NONE);
	ab_ci_map(&s->pct_ci, expm1_pct, 100);
	s->diff = g * expm1(lr->diff);
	ab_ci_ends(&s->diff_ci, lr->diff_lo, lr->diff_hi, XVBD_AB_CI_WHY_NONE);
	ab_ci_map(&s->diff_ci, expm1_pct, g);
	s->p = lr->p;
	s->stat = lr->stat;
	s->df = lr->df;
	mc->direction = ab_sign(lr->diff);
	mc->raw_diff = raw->diff;
	ab_ci_ends(&mc->raw_ci, raw->diff_lo, raw->diff_hi,
		   XVBD_AB_CI_WHY_NONE);
	mc->raw_disagrees = ab_sign(raw->diff) * mc->direction < 0;
}

int ab_metric_paired(const struct xvbd_ab_comparison *c,
		     struct xvbd_ab_metric_cmp *mc, const double *pa,
		     const double *pb, size_t np, bool *significant)
{
	double *dd = NULL, *dl = NULL, *lx = NULL;
	struct xvbd_stat_cmp raw, lr;
	bool logs;
	size_t k;
	int rc = 0;

	if (np < 2)
		return 0;
	dd = calloc(np, sizeof(*dd));
	dl = calloc(np, sizeof(*dl));
	lx = calloc(np, sizeof(*lx));
	if (!dd || !dl || !lx) {
		rc = -ENOMEM;
		goto out;
	}
	/* the log-ratio as the sequential procedure takes it */
	logs = ab_all_positive(pa, np) && ab_all_positive(pb, np);
	for (k = 0; k < np; k++) {
		dd[k] = pb[k] - pa[k];
		dl[k] = logs ? log(pb[k] / pa[k]) : 0;
	}
	rc = xvbd_stat_paired_t(dd, np, c->confidence, &raw);
	if (!rc && logs)
		rc = xvbd_stat_paired_t(dl, np, c->confidence, &lr);
	if (rc)
		goto out;
	mc->test = XVBD_AB_TEST_PAIRED;
	pair_centre(pa, lx, np, logs, c->confidence, &mc->s.centre_a,
		    &mc->s.half_a);
	pair_centre(pb, lx, np, logs, c->confidence, &mc->s.centre_b,
		    &mc->s.half_b);
	if (logs)
		paired_ratios(mc, &lr, &raw);
	else
		paired_diffs(mc, &raw);
	*significant = logs ? lr.significant : raw.significant;
	rc = 1;
out:
	free(dd);
	free(dl);
	free(lx);
	return rc;
}

/* ---- equivalence and runs needed ---- */

/* "same" when the whole interval of B/A lies inside 1 +- margin. */
static void equiv_from(struct xvbd_ab_metric_cmp *mc, double margin)
{
	const struct xvbd_ab_ci *ci = &mc->eq_ci;

	mc->equiv = xvbd_ab_ci_bounded(ci) && ci->lo > -margin * 100 &&
		    ci->hi < margin * 100 ? XVBD_AB_EQ_SAME :
		    XVBD_AB_EQ_NOT_SHOWN;
}

static double ratio_rel(double r)
{
	return r - 1;
}

/* Paired: the t of mean ln(B/A) against ln(1 - m) and ln(1 + m). */
static void equiv_paired(struct xvbd_ab_metric_cmp *mc, const double *pa,
			 const double *pb, size_t np, double m, double alpha)
{
	double *dl = calloc(np + 1, sizeof(*dl)), se;
	struct xvbd_stat_tost t;
	size_t k;

	if (!dl)
		return;
	for (k = 0; k < np; k++)
		dl[k] = log(pb[k] / pa[k]);
	se = sqrt(xvbd_stat_var(dl, np) / (double)np);
	if (!xvbd_stat_tost_t(xvbd_stat_mean(dl, np), se, (double)(np - 1),
			      log1p(-m), log1p(m), alpha, &t)) {
		mc->eq_p = t.p;
		ab_ci_ends(&mc->eq_ci, t.lo, t.hi, XVBD_AB_CI_WHY_NONE);
		ab_ci_map(&mc->eq_ci, expm1_pct, 100);
		equiv_from(mc, m);
		if (!t.equivalent)
			mc->equiv = XVBD_AB_EQ_NOT_SHOWN;
	}
	free(dl);
}

/*
 * Welch: Welch's t of mb - r ma at r = 1 -+ m, and Fieller's set at 1 - 2
 * alpha (the one those tests invert) inside the margins.
 */
static void equiv_welch(struct xvbd_ab_metric_cmp *mc, const double *xa,
			const double *xb, double m, double alpha)
{
	struct xvbd_stat_tost t;
	struct xvbd_stat_set set;

	if (xvbd_stat_tost_ratio(xa, mc->na, xb, mc->nb, 1 - m, 1 + m, alpha,
				 &t) ||
	    xvbd_stat_fieller_set(xa, mc->na, xb, mc->nb, 1 - 2 * alpha, &set))
		return;
	mc->eq_p = t.p;
	if (set.unbounded || !set.n) {
		ab_ci_none(&mc->eq_ci, XVBD_AB_CI_A_NEAR_0);
		if (set.unbounded)
			mc->eq_ci.shape = XVBD_AB_CI_UNBOUNDED;
	} else {
		ab_ci_ends(&mc->eq_ci, set.lo[0], set.hi[set.n - 1],
			   XVBD_AB_CI_WHY_NONE);
		mc->eq_ci.npieces = set.n;
		memcpy(mc->eq_ci.piece_lo, set.lo, sizeof(set.lo));
		memcpy(mc->eq_ci.piece_hi, set.hi, sizeof(set.hi));
		ab_ci_map(&mc->eq_ci, ratio_rel, 100);
	}
	equiv_from(mc, m);
	if (!t.equivalent)
		mc->equiv = XVBD_AB_EQ_NOT_SHOWN;
}

/*
 * The two one-sided tests at alpha each (Schuirmann): "same" when the
 * 1 - 2 alpha interval of B/A lies inside 1 +- margin.  Paired: the
 * t-test of the log-ratios; Welch: Welch's t of mb - r ma at either
 * bound; Mann-Whitney: the Hodges-Lehmann interval of B/A.  Never "same"
 * on a weak verdict.
 */
static void equivalence(const struct xvbd_ab_comparison *c,
			struct xvbd_ab_metric_cmp *mc, const double *xa,
			const double *xb, const double *pa, const double *pb,
			size_t np)
{
	double alpha = 1 - c->confidence, m = c->equivalence, r, lo, hi;

	mc->equiv = XVBD_AB_EQ_UNKNOWN;
	mc->eq_p = NAN;
	ab_ci_none(&mc->eq_ci, XVBD_AB_CI_WHY_NONE);
	if (!(alpha < 0.5) || mc->verdict == XVBD_AB_V_UNKNOWN)
		return;
	if (mc->test == XVBD_AB_TEST_PAIRED) {
		if (mc->scale == XVBD_AB_SCALE_RATIO && np >= 2)
			equiv_paired(mc, pa, pb, np, m, alpha);
	} else if (mc->test == XVBD_AB_TEST_WELCH) {
		if (mc->na >= 2 && mc->nb >= 2)
			equiv_welch(mc, xa, xb, m, alpha);
	} else {
		ab_mwu_ratio(xa, mc->na, xb, mc->nb, 1 - 2 * alpha, &r, &lo,
			     &hi);
		if (!isnan(r)) {
			ab_ci_ends(&mc->eq_ci, lo, hi, XVBD_AB_CI_FEW_RUNS);
			ab_ci_map(&mc->eq_ci, ratio_rel, 100);
			equiv_from(mc, m);
		}
	}
	if (mc->verdict == XVBD_AB_V_WEAK && mc->equiv == XVBD_AB_EQ_SAME)
		mc->equiv = XVBD_AB_EQ_NOT_SHOWN;
}

/* sd of ln(x); NAN unless every value is above 0 and n >= 2. */
static double sd_log(const double *x, size_t n)
{
	double *l = n >= 2 ? calloc(n, sizeof(*l)) : NULL, sd = NAN;
	size_t i;

	if (!l)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(x[i] > 0))
			goto out;
		l[i] = log(x[i]);
	}
	sd = sqrt(xvbd_stat_var(l, n));
out:
	free(l);
	return sd;
}

/* sd of the pairs' ln(B/A); NAN as sd_log. */
static double sd_log_ratio(const double *pa, const double *pb, size_t np)
{
	double *d = np >= 2 ? calloc(np, sizeof(*d)) : NULL, sd = NAN;
	size_t k;

	if (!d)
		return NAN;
	for (k = 0; k < np; k++) {
		if (!(pa[k] > 0 && pb[k] > 0))
			goto out;
		d[k] = log(pb[k] / pa[k]);
	}
	sd = sqrt(xvbd_stat_var(d, np));
out:
	free(d);
	return sd;
}

/*
 * On the log scale, where an effect of min_effect is ln(1 + min_effect)
 * whatever the metric's size, from the noncentral t: pairs for the
 * paired t, else runs per side for a two-sample t with each side's own
 * sd (Mann-Whitney needs about as many: its efficiency against the
 * t-test is 95 % for normal data).
 */
static void runs_needed(const struct xvbd_ab_comparison *c,
			struct xvbd_ab_metric_cmp *mc, const double *xa,
			const double *xb, const double *pa, const double *pb,
			size_t np)
{
	double alpha = 1 - c->confidence, effect = log1p(c->min_effect);

	if (mc->test == XVBD_AB_TEST_PAIRED) {
		mc->runs_made = np;
		mc->runs_needed = xvbd_stat_pairs_needed(alpha, c->power,
							 sd_log_ratio(pa, pb,
								      np),
							 effect);
		return;
	}
	mc->runs_made = mc->na < mc->nb ? mc->na : mc->nb;
	mc->runs_needed = xvbd_stat_runs_needed(alpha, c->power,
						sd_log(xa, mc->na),
						sd_log(xb, mc->nb), effect);
}

/*
 * Settled, ruled out (no difference proven, and the interval of B-A %
 * already excludes both -min_effect and +min_effect: an effect that
 * large would have been seen), or the count.
 */
enum xvbd_ab_runs ab_runs_status(const struct xvbd_ab_comparison *c,
				 const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_ci *ci = &mc->s.pct_ci;
	double e = c->min_effect * 100;

	switch (mc->verdict) {
	case XVBD_AB_V_UNKNOWN:
		return XVBD_AB_RUNS_UNKNOWN;
	case XVBD_AB_V_BETTER:
	case XVBD_AB_V_WORSE:
		return XVBD_AB_RUNS_SETTLED;
	case XVBD_AB_V_NO_DIFF:
		if (xvbd_ab_ci_bounded(ci) && ci->lo > -e && ci->hi < e)
			return XVBD_AB_RUNS_RULED_OUT;
		break;
	case XVBD_AB_V_WEAK:
		break;
	}
	if (!mc->runs_needed)
		return XVBD_AB_RUNS_UNKNOWN;
	return mc->runs_needed == SIZE_MAX ? XVBD_AB_RUNS_BEYOND :
	       XVBD_AB_RUNS_NEEDED;
}

int ab_metric_extras(const struct xvbd_ab_comparison *c,
		     struct xvbd_ab_metric_cmp *mc, const double *xa,
		     const double *xb, const double *pa, const double *pb,
		     size_t np)
{
	mc->equiv = XVBD_AB_EQ_NOT_ASKED;
	mc->eq_p = NAN;
	ab_ci_none(&mc->eq_ci, XVBD_AB_CI_WHY_NONE);
	if (c->equivalence > 0)
		equivalence(c, mc, xa, xb, pa, pb, np);
	runs_needed(c, mc, xa, xb, pa, pb, np);
	mc->runs_status = ab_runs_status(c, mc);
	return 0;
}
