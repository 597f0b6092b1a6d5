/*
 * ab_verdict.c - one metric's decision from its values: which test, its
 * verdict, the direction and scale the verdict is on, why it is weak,
 * and its intervals as confidence sets (xvbd_ab_metric_decide).  The
 * comparison of two labels calls it per metric (ab_compare.c); the
 * paired test, the equivalence and the runs needed are
 * ab_compare_pair.c's; the words are ab_compare_words.c's.
 *
 * The rules that keep the words true to the numbers live here:
 *  - one scale per verdict: the direction is the sign of the estimate
 *    the test is on (B - A for Welch, ln(B/A) for the paired t of
 *    ratios, U for Mann-Whitney), and the centres and B - A are stated
 *    on that scale (geometric means when the test is on ratios);
 *  - weak by what the test used: fewer than 3 runs on a side, or fewer
 *    than 3 pairs for the paired t, whatever the records given;
 *  - run summaries within XVBD_AB_SAME_REL of each other are one value
 *    before any test sees them (a rounding is not a difference);
 *  - intervals as sets: NONE, BOUNDED (maybe in pieces), OPEN, UNBOUNDED,
 *    so that nothing downstream prints half an interval.
 * Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"

bool xvbd_ab_ci_bounded(const struct xvbd_ab_ci *ci)
{
	return ci->shape == XVBD_AB_CI_BOUNDED && isfinite(ci->lo) &&
	       isfinite(ci->hi);
}

void ab_ci_none(struct xvbd_ab_ci *ci, enum xvbd_ab_ci_why why)
{
	memset(ci, 0, sizeof(*ci));
	ci->shape = XVBD_AB_CI_NONE;
	ci->why = why;
	ci->lo = ci->hi = NAN;
}

void ab_ci_ends(struct xvbd_ab_ci *ci, double lo, double hi,
		enum xvbd_ab_ci_why why)
{
	if (isnan(lo) || isnan(hi)) {
		ab_ci_none(ci, why);
		return;
	}
	memset(ci, 0, sizeof(*ci));
	ci->shape = isfinite(lo) && isfinite(hi) ? XVBD_AB_CI_BOUNDED :
		    XVBD_AB_CI_OPEN;
	ci->lo = ci->piece_lo[0] = lo;
	ci->hi = ci->piece_hi[0] = hi;
	ci->npieces = 1;
}

/* x -> scale * f(x): the same set in other units (f increasing). */
void ab_ci_map(struct xvbd_ab_ci *ci, double (*f)(double), double scale)
{
	size_t i;

	if (ci->shape == XVBD_AB_CI_NONE || ci->shape == XVBD_AB_CI_UNBOUNDED)
		return;
	ci->lo = scale * f(ci->lo);
	ci->hi = scale * f(ci->hi);
	for (i = 0; i < ci->npieces; i++) {
		ci->piece_lo[i] = scale * f(ci->piece_lo[i]);
		ci->piece_hi[i] = scale * f(ci->piece_hi[i]);
	}
	if (!isfinite(ci->lo) || !isfinite(ci->hi))
		ci->shape = XVBD_AB_CI_OPEN;
}

static double ratio_to_rel(double r)
{
	return r - 1;
}

/* Fieller's set of B/A as B-A %. */
static void ci_from_set(struct xvbd_ab_ci *ci, const struct xvbd_stat_set *s)
{
	size_t i;

	if (s->unbounded) {
		ab_ci_none(ci, XVBD_AB_CI_A_NEAR_0);
		ci->shape = XVBD_AB_CI_UNBOUNDED;
		return;
	}
	if (!s->n) {
		ab_ci_none(ci, XVBD_AB_CI_A_NEAR_0);
		return;
	}
	ab_ci_ends(ci, s->lo[0], s->hi[s->n - 1], XVBD_AB_CI_WHY_NONE);
	ci->npieces = s->n;
	for (i = 0; i < s->n; i++) {
		ci->piece_lo[i] = s->lo[i];
		ci->piece_hi[i] = s->hi[i];
	}
	ab_ci_map(ci, ratio_to_rel, 100);
}

int ab_sign(double x)
{
	return (x > 0) - (x < 0);
}

/* ---- one value, rounded two ways ---- */

struct snap_ref {
	double v;
	double *at;
};

static int snap_cmp(const void *x, const void *y)
{
	const struct snap_ref *p = x, *q = y;

	return (p->v > q->v) - (p->v < q->v);
}

/*
 * Values (of both sides) within XVBD_AB_SAME_REL of a run of equal ones
 * become the first of it: the smallest, so that a cluster never creeps
 * along a chain of near values.  NANs (unknown) stay.
 */
static int snap_same(double *a, size_t na, double *b, size_t nb)
{
	struct snap_ref *r = calloc(na + nb + 1, sizeof(*r));
	size_t n = 0, i;
	double first = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		if (!isnan(a[i]))
			r[n++] = (struct snap_ref){ a[i], &a[i] };
	for (i = 0; i < nb; i++)
		if (!isnan(b[i]))
			r[n++] = (struct snap_ref){ b[i], &b[i] };
	qsort(r, n, sizeof(*r), snap_cmp);
	for (i = 0; i < n; i++) {
		if (i == 0 || !(fabs(r[i].v - first) <= XVBD_AB_SAME_REL *
				fmax(fabs(r[i].v), fabs(first))))
			first = r[i].v;
		*r[i].at = first;
	}
	free(r);
	return 0;
}

/* ---- the test ---- */

/* MWU's ratio B/A: the Hodges-Lehmann shift of ln(x), exponentiated. */
void ab_mwu_ratio(const double *xa, size_t na, const double *xb, size_t nb,
		  double confidence, double *r, double *lo, double *hi)
{
	double *la = calloc(na + 1, sizeof(*la)), *lb = calloc(nb + 1,
							       sizeof(*lb));
	struct xvbd_stat_cmp s;
	size_t i;

	*r = *lo = *hi = NAN;
	if (!la || !lb)
		goto out;
	for (i = 0; i < na; i++) {
		if (!(xa[i] > 0))
			goto out;
		la[i] = log(xa[i]);
	}
	for (i = 0; i < nb; i++) {
		if (!(xb[i] > 0))
			goto out;
		lb[i] = log(xb[i]);
	}
	if (xvbd_stat_mwu(la, na, lb, nb, confidence, &s))
		goto out;
	*r = exp(s.diff);
	*lo = exp(s.diff_lo);	/* exp(NAN) stays NAN */
	*hi = exp(s.diff_hi);
out:
	free(la);
	free(lb);
}

bool ab_all_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(x[i] > 0))
			return false;
	return true;
}

static void view_from(struct xvbd_stat_cmp_view *s,
		      const struct xvbd_stat_cmp *st)
{
	s->centre_a = st->centre_a;
	s->half_a = st->half_a;
	s->centre_b = st->centre_b;
	s->half_b = st->half_b;
	s->diff = st->diff;
	ab_ci_ends(&s->diff_ci, st->diff_lo, st->diff_hi,
		   XVBD_AB_CI_FEW_RUNS);
	s->p = st->p;
	s->stat = st->stat;
	s->df = st->df;
}

/*
 * Mann-Whitney: a rank test, the same on any increasing scale, so its
 * direction is U's (more pairs with B above A than below); both shifts,
 * of the values and of their logarithms, agree with it whenever it
 * proves a difference.
 */
static int test_mwu(const struct xvbd_ab_comparison *c,
		    struct xvbd_ab_metric_cmp *mc, const double *xa,
		    const double *xb, bool *significant)
{
	struct xvbd_stat_cmp st;
	double r, lo, hi;
	int rc;

	rc = xvbd_stat_mwu(xa, mc->na, xb, mc->nb, c->confidence, &st);
	if (rc)
		return rc;
	view_from(&mc->s, &st);
	mc->direction = ab_sign(st.stat - (double)mc->na * (double)mc->nb / 2);
	ab_mwu_ratio(xa, mc->na, xb, mc->nb, c->confidence, &r, &lo, &hi);
	mc->s.pct = (r - 1) * 100;
	ab_ci_ends(&mc->s.pct_ci, lo, hi, ab_all_positive(xa, mc->na) &&
		   ab_all_positive(xb, mc->nb) ? XVBD_AB_CI_FEW_RUNS :
		   XVBD_AB_CI_NO_RATIO);
	ab_ci_map(&mc->s.pct_ci, ratio_to_rel, 100);
	*significant = st.significant;
	return 0;
}

/*
 * Welch: the difference of the means and, for the %, their ratio with
 * Fieller's set (the uncertainty of A's mean is part of it).  One run
 * on a side: the centres and the difference, no test.
 */
static int test_welch(const struct xvbd_ab_comparison *c,
		      struct xvbd_ab_metric_cmp *mc, const double *xa,
		      const double *xb, bool *significant)
{
	struct xvbd_stat_cmp st;
	struct xvbd_stat_set set;
	double ma = xvbd_stat_mean(xa, mc->na), mb = xvbd_stat_mean(xb, mc->nb);
	int rc;

	mc->test = XVBD_AB_TEST_WELCH;
	mc->s.pct = ma > 0 ? (mb / ma - 1) * 100 : NAN;
	ab_ci_none(&mc->s.pct_ci, ma > 0 ? XVBD_AB_CI_FEW_RUNS :
		   XVBD_AB_CI_NO_RATIO);
	if (mc->na < 2 || mc->nb < 2) {
		mc->s.centre_a = ma;
		mc->s.centre_b = mb;
		mc->s.half_a = mc->s.half_b = NAN;
		mc->s.diff = mb - ma;
		ab_ci_none(&mc->s.diff_ci, XVBD_AB_CI_FEW_RUNS);
		mc->s.p = mc->s.stat = mc->s.df = NAN;
		mc->direction = ab_sign(mc->s.diff);
		*significant = false;
		return 0;
	}
	rc = xvbd_stat_welch(xa, mc->na, xb, mc->nb, c->confidence, &st);
	if (rc)
		return rc;
	view_from(&mc->s, &st);
	mc->direction = ab_sign(st.diff);
	if (ma > 0 && !xvbd_stat_fieller_set(xa, mc->na, xb, mc->nb,
					     c->confidence, &set))
		ci_from_set(&mc->s.pct_ci, &set);
	*significant = st.significant;
	return 0;
}

static void metric_unknown(struct xvbd_ab_metric_cmp *mc, const char *why)
{
	struct xvbd_stat_cmp_view *s = &mc->s;

	s->centre_a = s->half_a = s->centre_b = s->half_b = NAN;
	s->diff = s->pct = s->p = s->stat = s->df = s->p_adj = NAN;
	ab_ci_none(&s->diff_ci, XVBD_AB_CI_WHY_NONE);
	ab_ci_none(&s->pct_ci, XVBD_AB_CI_WHY_NONE);
	mc->verdict = XVBD_AB_V_UNKNOWN;
	mc->direction = 0;
	mc->unknown_why = why;
	/* asked or not, there is nothing to judge the same */
	mc->equiv = XVBD_AB_EQ_NOT_ASKED;
	mc->eq_p = NAN;
	ab_ci_none(&mc->eq_ci, XVBD_AB_CI_WHY_NONE);
	mc->runs_needed = mc->runs_made = 0;
	mc->runs_status = XVBD_AB_RUNS_UNKNOWN;
}

static bool all_zero(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != 0)
			return false;
	return true;
}

/* The known values of each side, and the pairs that know both. */
struct known {
	double *xa, *xb, *pa, *pb;
	size_t np;
};

static int known_values(const struct xvbd_ab_values *v,
			struct xvbd_ab_metric_cmp *mc, struct known *k)
{
	double *a = calloc(v->na + 1, sizeof(*a));
	double *b = calloc(v->nb + 1, sizeof(*b));
	size_t i;
	int rc = -ENOMEM;

	k->xa = calloc(v->na + 1, sizeof(*k->xa));
	k->xb = calloc(v->nb + 1, sizeof(*k->xb));
	k->pa = calloc(v->npairs + 1, sizeof(*k->pa));
	k->pb = calloc(v->npairs + 1, sizeof(*k->pb));
	if (!a || !b || !k->xa || !k->xb || !k->pa || !k->pb)
		goto out;
	memcpy(a, v->a, v->na * sizeof(*a));
	memcpy(b, v->b, v->nb * sizeof(*b));
	rc = snap_same(a, v->na, b, v->nb);
	if (rc)
		goto out;
	for (i = 0; i < v->na; i++)
		if (!isnan(a[i]))
			k->xa[mc->na++] = a[i];
	for (i = 0; i < v->nb; i++)
		if (!isnan(b[i]))
			k->xb[mc->nb++] = b[i];
	for (i = 0; i < v->npairs; i++) {
		if (v->ia[i] >= v->na || v->ib[i] >= v->nb) {
			rc = -EINVAL;
			goto out;
		}
		if (isnan(a[v->ia[i]]) || isnan(b[v->ib[i]]))
			continue;
		k->pa[k->np] = a[v->ia[i]];
		k->pb[k->np++] = b[v->ib[i]];
	}
out:
	free(a);
	free(b);
	return rc;
}

static void known_free(struct known *k)
{
	free(k->xa);
	free(k->xb);
	free(k->pa);
	free(k->pb);
}

/*
 * The test asked for: Mann-Whitney; the paired t where at least 2 pairs
 * know the metric (with fewer there is no paired test at all, and the
 * runs are compared as independent samples); else Welch.
 */
static int run_test(const struct xvbd_ab_comparison *c,
		    struct xvbd_ab_metric_cmp *mc, const struct known *k,
		    bool *significant)
{
	int rc;

	mc->test = c->test;
	mc->scale = XVBD_AB_SCALE_DIFF;
	if (c->test == XVBD_AB_TEST_MWU)
		return test_mwu(c, mc, k->xa, k->xb, significant);
	if (c->test == XVBD_AB_TEST_PAIRED) {
		mc->npairs = k->np;
		rc = ab_metric_paired(c, mc, k->pa, k->pb, k->np, significant);
		if (rc)
			return rc == 1 ? 0 : rc;
	}
	return test_welch(c, mc, k->xa, k->xb, significant);
}

static void judge(struct xvbd_ab_metric_cmp *mc, bool significant)
{
	bool better = xvbd_ab_metrics[mc->metric].higher_is_better;

	if (mc->test == XVBD_AB_TEST_PAIRED)
		mc->weak = mc->npairs < XVBD_AB_MIN_RUNS ? XVBD_AB_WEAK_PAIRS :
			   XVBD_AB_WEAK_NO;
	else
		mc->weak = mc->na < XVBD_AB_MIN_RUNS ||
			   mc->nb < XVBD_AB_MIN_RUNS ? XVBD_AB_WEAK_RUNS :
			   XVBD_AB_WEAK_NO;
	if (mc->weak != XVBD_AB_WEAK_NO)
		mc->verdict = XVBD_AB_V_WEAK;
	else if (!significant || !mc->direction)
		mc->verdict = XVBD_AB_V_NO_DIFF;
	else
		mc->verdict = (mc->direction > 0) == better ?
			      XVBD_AB_V_BETTER : XVBD_AB_V_WORSE;
}

static void decide_reset(struct xvbd_ab_metric_cmp *mc)
{
	enum xvbd_ab_metric m = mc->metric;

	memset(mc, 0, sizeof(*mc));
	mc->metric = m;
	mc->s.p_adj = mc->raw_diff = mc->eq_p = NAN;
	ab_ci_none(&mc->s.diff_ci, XVBD_AB_CI_WHY_NONE);
	ab_ci_none(&mc->s.pct_ci, XVBD_AB_CI_WHY_NONE);
	ab_ci_none(&mc->raw_ci, XVBD_AB_CI_WHY_NONE);
	ab_ci_none(&mc->eq_ci, XVBD_AB_CI_WHY_NONE);
}

/* The options a caller other than xvbd_ab_compare_with may pass. */
static bool options_ok(const struct xvbd_ab_comparison *c)
{
	return c->confidence > 0 && c->confidence < 1 &&
	       c->equivalence >= 0 && c->equivalence < 1 &&
	       c->min_effect > 0 && c->min_effect < 1 &&
	       c->power > 0.5 && c->power < 1 &&
	       (c->test == XVBD_AB_TEST_WELCH || c->test == XVBD_AB_TEST_MWU ||
		c->test == XVBD_AB_TEST_PAIRED);
}

int xvbd_ab_metric_decide(const struct xvbd_ab_comparison *c,
			  const struct xvbd_ab_values *v,
			  struct xvbd_ab_metric_cmp *mc)
{
	struct known k = { 0 };
	bool significant = false;
	int rc;

	if (!c || !v || !mc || !options_ok(c) || (v->na && !v->a) ||
	    (v->nb && !v->b) || (v->npairs && (!v->ia || !v->ib)) ||
	    (unsigned)mc->metric >= XVBD_AB_NMETRICS)
		return -EINVAL;
	decide_reset(mc);
	rc = known_values(v, mc, &k);
	if (rc)
		goto out;
	if (!mc->na || !mc->nb) {
		metric_unknown(mc, !mc->na && !mc->nb ?
			       "unknown on both sides" : !mc->na ?
			       "unknown in A's runs" : "unknown in B's runs");
		goto out;
	}
	if (all_zero(k.xa, mc->na) && all_zero(k.xb, mc->nb)) {
		/* e.g. writes of a read-only workload: nothing to test */
		metric_unknown(mc, "none in any run");
		mc->s.centre_a = mc->s.centre_b = mc->s.diff = 0;
		goto out;
	}
	rc = run_test(c, mc, &k, &significant);
	if (rc == -EINVAL) {
		/* e.g. a value no test can take */
		metric_unknown(mc, "no test possible on these runs");
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	judge(mc, significant);
	rc = ab_metric_extras(c, mc, k.xa, k.xb, k.pa, k.pb, k.np);
out:
	known_free(&k);
	return rc;
}
