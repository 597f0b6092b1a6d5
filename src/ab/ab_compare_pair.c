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
 * is then on the differences B_i - A_i.  Pure (unit-tested).
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

/*
 * The pairs that know metric m: their differences into dd (n of them)
 * and, where every one of them has a ratio, log-ratios into dl (*nlog =
 * n; else 0).
 */
static size_t pair_values(const struct xvbd_ab_summary *sa,
			  const struct xvbd_ab_summary *sb,
			  const struct ab_pairing *pg, enum xvbd_ab_metric m,
			  double *dd, double *dl, size_t *nlog)
{
	size_t k, n = 0, nl = 0;

	for (k = 0; k < pg->n; k++) {
		const struct xvbd_ab_summary *x = &sa[pg->ia[k]];
		const struct xvbd_ab_summary *y = &sb[pg->ib[k]];

		if (!x->known[m] || !y->known[m])
			continue;
		dd[n++] = y->value[m] - x->value[m];
		nl += xvbd_ab_summary_logratio(x, y, m, &dl[nl]);
	}
	*nlog = nl == n ? n : 0;
	return n;
}

/* The mean of A's values over the pairs: the base of the % without
 * ratios. */
static double pairs_mean_a(const struct xvbd_ab_summary *sa,
			   const struct ab_pairing *pg, enum xvbd_ab_metric m)
{
	double sum = 0;
	size_t k, n = 0;

	for (k = 0; k < pg->n; k++) {
		if (!sa[pg->ia[k]].known[m])
			continue;
		sum += sa[pg->ia[k]].value[m];
		n++;
	}
	return n ? sum / (double)n : NAN;
}

int ab_metric_paired(struct xvbd_ab_metric_cmp *mc,
		     const struct xvbd_ab_summary *sa,
		     const struct xvbd_ab_summary *sb,
		     const struct ab_pairing *pg, double confidence,
		     struct xvbd_stat_cmp *st, double *r, double *lo,
		     double *hi)
{
	double *dd = calloc(pg->n + 1, sizeof(*dd));
	double *dl = calloc(pg->n + 1, sizeof(*dl));
	struct xvbd_stat_cmp diff, lr;
	size_t n, nlog;
	int rc = 0;

	if (!dd || !dl) {
		rc = -ENOMEM;
		goto out;
	}
	n = pair_values(sa, sb, pg, mc->metric, dd, dl, &nlog);
	mc->npairs = n;
	if (n < 2 || xvbd_stat_paired_t(dd, n, confidence, &diff))
		goto out;
	if (nlog && xvbd_stat_paired_t(dl, nlog, confidence, &lr))
		goto out;
	st->diff = diff.diff;
	st->diff_lo = diff.diff_lo;
	st->diff_hi = diff.diff_hi;
	if (!nlog) {
		double ma = pairs_mean_a(sa, pg, mc->metric);

		lr = diff;
		*r = ma > 0 ? 1 + diff.diff / ma : NAN;
		*lo = *hi = NAN;
	} else {
		/* the geometric mean of B/A, and its interval */
		*r = exp(lr.diff);
		*lo = exp(lr.diff_lo);
		*hi = exp(lr.diff_hi);
	}
	/* The verdict's test: the log-ratio's where it exists. */
	st->p = lr.p;
	st->stat = lr.stat;
	st->df = lr.df;
	st->significant = lr.significant;
	rc = 1;
out:
	free(dd);
	free(dl);
	return rc;
}

/* ---- equivalence and runs needed ---- */

/* "same" or "not shown" from an interval of B/A (NAN: unknown). */
static void equiv_from_ratio(struct xvbd_ab_metric_cmp *mc, double lo,
			     double hi, double margin)
{
	mc->eq_lo = (lo - 1) * 100;
	mc->eq_hi = (hi - 1) * 100;
	if (isnan(lo) || isnan(hi))
		mc->equiv = XVBD_AB_EQ_NOT_SHOWN;
	else
		mc->equiv = lo > 1 - margin && hi < 1 + margin ?
			    XVBD_AB_EQ_SAME : XVBD_AB_EQ_NOT_SHOWN;
}

static void equiv_tost(struct xvbd_ab_metric_cmp *mc,
		       const struct xvbd_stat_tost *t, bool logs)
{
	mc->eq_p = t->p;
	mc->eq_lo = ((logs ? exp(t->lo) : t->lo) - 1) * 100;
	mc->eq_hi = ((logs ? exp(t->hi) : t->hi) - 1) * 100;
	mc->equiv = t->equivalent ? XVBD_AB_EQ_SAME : XVBD_AB_EQ_NOT_SHOWN;
}

/*
 * The two one-sided tests at alpha each (Schuirmann): "same" when the
 * 1 - 2 alpha interval of B/A lies inside 1 +- margin.  Paired: the
 * t-test of the log-ratios against ln(1 - margin) and ln(1 + margin);
 * Welch: Welch's t of mb - r ma at either bound (Fieller's interval is
 * its inversion); Mann-Whitney: the Hodges-Lehmann interval of B/A.
 */
static void equivalence(const struct xvbd_ab_comparison *c,
			struct xvbd_ab_metric_cmp *mc, const double *xa,
			const double *xb, const double *dl, size_t nlog)
{
	double alpha = 1 - c->confidence, m = c->equivalence, r, lo, hi;
	struct xvbd_stat_tost t;

	mc->equiv = XVBD_AB_EQ_UNKNOWN;
	mc->eq_p = mc->eq_lo = mc->eq_hi = NAN;
	if (!(alpha < 0.5) || mc->verdict == XVBD_AB_V_UNKNOWN)
		return;
	if (mc->test == XVBD_AB_TEST_PAIRED) {
		double se = sqrt(xvbd_stat_var(dl, nlog) / (double)nlog);

		if (nlog >= 2 && !xvbd_stat_tost_t(xvbd_stat_mean(dl, nlog),
						   se, (double)(nlog - 1),
						   log1p(-m), log1p(m), alpha,
						   &t))
			equiv_tost(mc, &t, true);
	} else if (mc->test == XVBD_AB_TEST_WELCH) {
		if (mc->na >= 2 && mc->nb >= 2 &&
		    !xvbd_stat_tost_ratio(xa, mc->na, xb, mc->nb, 1 - m,
					  1 + m, alpha, &t))
			equiv_tost(mc, &t, false);
	} else {
		ab_mwu_ratio(xa, mc->na, xb, mc->nb, 1 - 2 * alpha, &r, &lo,
			     &hi);
		if (!isnan(r))
			equiv_from_ratio(mc, lo, hi, m);
	}
	/* below 3 runs a side every verdict is weak, this one too */
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

/*
 * On the log scale, where an effect of min_effect is ln(1 + min_effect)
 * whatever the metric's size: pairs for the paired t (the sizing ab
 * run's benchmark uses), else runs per side for a two-sample t with
 * each side's own sd (Mann-Whitney needs about as many: its efficiency
 * against the t-test is 95 % for normal data).
 */
static size_t runs_needed(const struct xvbd_ab_comparison *c,
			  const struct xvbd_ab_metric_cmp *mc,
			  const double *xa, const double *xb,
			  const double *dl, size_t nlog)
{
	double alpha = 1 - c->confidence;

	if (mc->test == XVBD_AB_TEST_PAIRED)
		return nlog >= 2 ?
		       xvbd_seq_fixed_pairs(alpha, 1 - c->power,
					    sqrt(xvbd_stat_var(dl, nlog)),
					    c->min_effect) : 0;
	return xvbd_stat_runs_needed(alpha, c->power, sd_log(xa, mc->na),
				     sd_log(xb, mc->nb),
				     log1p(c->min_effect));
}

int ab_metric_extras(const struct xvbd_ab_comparison *c,
		     struct xvbd_ab_metric_cmp *mc, const double *xa,
		     const double *xb, const struct xvbd_ab_summary *sa,
		     const struct xvbd_ab_summary *sb,
		     const struct ab_pairing *pg)
{
	double *dd = calloc(pg->n + 1, sizeof(*dd));
	double *dl = calloc(pg->n + 1, sizeof(*dl));
	size_t nlog = 0;

	if (!dd || !dl) {
		free(dd);
		free(dl);
		return -ENOMEM;
	}
	if (mc->test == XVBD_AB_TEST_PAIRED)
		pair_values(sa, sb, pg, mc->metric, dd, dl, &nlog);
	mc->equiv = XVBD_AB_EQ_NOT_ASKED;
	mc->eq_p = mc->eq_lo = mc->eq_hi = NAN;
	if (c->equivalence > 0)
		equivalence(c, mc, xa, xb, dl, nlog);
	mc->runs_needed = mc->verdict == XVBD_AB_V_UNKNOWN ? 0 :
			  runs_needed(c, mc, xa, xb, dl, nlog);
	free(dd);
	free(dl);
	return 0;
}
