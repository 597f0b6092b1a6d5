/*
 * ab_stat_pair.c - the paired t-test of ABBA pairs, the two one-sided
 * tests of equivalence and the runs a design needs: pure math on run
 * summaries beside ab_stat.c (whose t distribution they use).
 *
 * Paired: adjacent runs of one pair share the drift of the host (page
 * cache, thermal state, other guests), so their difference d_i = B_i -
 * A_i (or log-ratio ln(B_i / A_i)) leaves it out, where two independent
 * samples carry it as noise.  The test is Student's one-sample t on the
 * d_i with n - 1 degrees of freedom.
 *
 * Equivalence (Schuirmann's TOST): "the same within the margins" is
 * shown when both one-sided tests reject at alpha, which is the same as
 * the 1 - 2 alpha interval lying inside the margins.  Both tests at
 * alpha, not alpha / 2: the two nulls are disjoint, so at most one of
 * them is true and the error rate stays alpha.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "ab_stat_impl.h"

/*
 * Constant d within a few ulps of 0 (of 1: the log-ratio of one value
 * rounded two ways, as a run summary is a quotient of counters) is
 * rounding, not an effect, as ab_stat.c's Welch for two constant sides.
 */
#define CONST_SAME_ULPS	4

/* P(T > t), T Student's t on df: the CDF's tail by symmetry (no 1 - x
 * for the small p of a large t). */
static double t_sf(double t, double df)
{
	return xvbd_stat_t_cdf(-t, df);
}

int xvbd_stat_paired_t(const double *d, size_t n, double confidence,
		       struct xvbd_stat_cmp *out)
{
	double m, se, half, scale = 1;
	size_t i;

	if (!d || !out || n < 2 || !ab_stat_finite_all(d, n) ||
	    !(confidence > 0 && confidence < 1))
		return -EINVAL;
	m = xvbd_stat_mean(d, n);
	se = sqrt(xvbd_stat_var(d, n) / (double)n);
	for (i = 0; i < n; i++)
		scale = fmax(scale, fabs(d[i]));
	out->centre_a = out->centre_b = NAN;
	out->half_a = out->half_b = NAN;
	out->df = (double)(n - 1);
	if (se == 0 && fabs(m) <= CONST_SAME_ULPS * DBL_EPSILON * scale)
		m = 0;
	out->diff = m;
	if (se == 0) {
		out->stat = m == 0 ? 0 : copysign(INFINITY, m);
		out->p = m == 0 ? 1 : 0;
		out->diff_lo = out->diff_hi = m;
	} else {
		out->stat = m / se;
		out->p = fmin(1, 2 * t_sf(fabs(out->stat), out->df));
		half = xvbd_stat_t_quantile((1 + confidence) / 2, out->df) *
		       se;
		out->diff_lo = m - half;
		out->diff_hi = m + half;
	}
	out->significant = out->diff_lo > 0 || out->diff_hi < 0;
	return 0;
}

int xvbd_stat_tost_t(double est, double se, double df, double low,
		     double high, double alpha, struct xvbd_stat_tost *out)
{
	double half;

	if (!out || !isfinite(est) || !isfinite(se) || se < 0 ||
	    !(df > 0) || !(low < high) || !(alpha > 0 && alpha < 0.5))
		return -EINVAL;
	if (se == 0) {
		/* no noise: the estimate is the value */
		out->p_low = est > low ? 0 : 1;
		out->p_high = est < high ? 0 : 1;
		out->lo = out->hi = est;
	} else {
		/* H0 "at most low" rejected by a large t above low, and
		 * "at least high" by a large t below high. */
		out->p_low = t_sf((est - low) / se, df);
		out->p_high = t_sf((high - est) / se, df);
		half = xvbd_stat_t_quantile(1 - alpha, df) * se;
		out->lo = est - half;
		out->hi = est + half;
	}
	out->p = fmax(out->p_low, out->p_high);
	out->equivalent = out->p < alpha;
	return 0;
}

/*
 * One side of the ratio TOST: t of mb - r ma with Welch's standard error
 * and Welch-Satterthwaite df, the statistic Fieller's interval inverts.
 */
static double ratio_sf(double ma, double mb, double va, double vb,
		       double dfa, double dfb, double r, bool upper)
{
	double vr = r * r * va, v = vb + vr, df, t;

	if (v == 0)
		return (upper ? mb - r * ma > 0 : mb - r * ma < 0) ? 0 : 1;
	df = v * v / (vb * vb / dfb + vr * vr / dfa);
	t = (mb - r * ma) / sqrt(v);
	return t_sf(upper ? t : -t, df);
}

int xvbd_stat_tost_ratio(const double *a, size_t na, const double *b,
			 size_t nb, double r_low, double r_high, double alpha,
			 struct xvbd_stat_tost *out)
{
	double ma, mb, va, vb;

	if (!a || !b || !out || na < 2 || nb < 2 || !ab_stat_finite_all(a, na) ||
	    !ab_stat_finite_all(b, nb) || !(r_low > 0 && r_low < r_high) ||
	    !isfinite(r_high) || !(alpha > 0 && alpha < 0.5))
		return -EINVAL;
	ma = xvbd_stat_mean(a, na);
	mb = xvbd_stat_mean(b, nb);
	va = xvbd_stat_var(a, na) / (double)na;
	vb = xvbd_stat_var(b, nb) / (double)nb;
	out->p_low = ratio_sf(ma, mb, va, vb, (double)(na - 1),
			      (double)(nb - 1), r_low, true);
	out->p_high = ratio_sf(ma, mb, va, vb, (double)(na - 1),
			       (double)(nb - 1), r_high, false);
	out->p = fmax(out->p_low, out->p_high);
	/* Fieller's at 1 - 2 alpha: the interval the two tests invert. */
	if (xvbd_stat_fieller(a, na, b, nb, 1 - 2 * alpha, &out->lo,
			      &out->hi))
		out->lo = out->hi = NAN;
	/*
	 * Unbounded (A's mean not told from 0): the set of ratios not
	 * rejected is no interval, so no equivalence is shown.
	 */
	out->equivalent = out->p < alpha && !isnan(out->lo);
	return 0;
}

/*
 * The power of a two-sided level-alpha t-test whose statistic is
 * noncentral t on df with noncentrality ncp: either tail beyond the
 * critical value (the far one counts too: it is a rejection, if the
 * wrong way round).
 */
double xvbd_stat_t_power(double alpha, double df, double ncp)
{
	double tc;

	if (!(alpha > 0 && alpha < 1) || !(df > 0) || isnan(ncp))
		return NAN;
	if (isinf(ncp))
		return 1;
	tc = xvbd_stat_t_quantile(1 - alpha / 2, df);
	return fmin(1, 1 - xvbd_stat_nct_cdf(tc, df, ncp) +
		       xvbd_stat_nct_cdf(-tc, df, ncp));
}

/*
 * The smallest n >= XVBD_STAT_RUNS_NEEDED_MIN whose exact power reaches
 * power: df_of(n) degrees of freedom, noncentrality sqrt(n / k), k the
 * variance of the estimate at n = 1 over the effect squared.  The power
 * grows with n (both the noncentrality and the df do), so the search
 * walks from the normal approximation's n, which is at most a step or
 * two off, down or up to the first n that reaches it.
 */
static bool powered(double alpha, double power, double k,
		    double (*df_of)(size_t), size_t n)
{
	return xvbd_stat_t_power(alpha, df_of(n), sqrt((double)n / k)) >=
	       power;
}

static size_t size_t_test(double alpha, double power, double k,
			  double (*df_of)(size_t))
{
	double z = xvbd_stat_norm_quantile(1 - alpha / 2) +
		   xvbd_stat_norm_quantile(power), n0;
	size_t n;

	if (k == 0)
		return XVBD_STAT_RUNS_NEEDED_MIN;
	n0 = floor(z * z * k);
	if (!(n0 <= (double)XVBD_STAT_RUNS_NEEDED_MAX))
		return SIZE_MAX;
	n = n0 < XVBD_STAT_RUNS_NEEDED_MIN ? XVBD_STAT_RUNS_NEEDED_MIN :
	    (size_t)n0;
	if (powered(alpha, power, k, df_of, n)) {
		while (n > XVBD_STAT_RUNS_NEEDED_MIN &&
		       powered(alpha, power, k, df_of, n - 1))
			n--;
		return n;
	}
	for (n++; n <= XVBD_STAT_RUNS_NEEDED_MAX; n++)
		if (powered(alpha, power, k, df_of, n))
			return n;
	return SIZE_MAX;
}

static bool sizing_ok(double alpha, double power, double effect)
{
	return alpha > 0 && alpha < 1 && power > 0.5 && power < 1 &&
	       effect > 0 && isfinite(effect);
}

static double df_paired(size_t n)
{
	return (double)n - 1;
}

static double df_two_sample(size_t n)
{
	return 2 * (double)n - 2;
}

size_t xvbd_stat_pairs_needed(double alpha, double power, double sd,
			      double effect)
{
	if (!sizing_ok(alpha, power, effect) || !isfinite(sd) || sd < 0)
		return 0;
	return size_t_test(alpha, power, sd * sd / (effect * effect),
			   df_paired);
}

size_t xvbd_stat_runs_needed(double alpha, double power, double sd_a,
			     double sd_b, double effect)
{
	if (!sizing_ok(alpha, power, effect) || !isfinite(sd_a) ||
	    !isfinite(sd_b) || sd_a < 0 || sd_b < 0)
		return 0;
	return size_t_test(alpha, power,
			   (sd_a * sd_a + sd_b * sd_b) / (effect * effect),
			   df_two_sample);
}
