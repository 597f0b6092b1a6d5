/*
 * ab_stat.c - fixed-N statistics for `xvbd ab compare` (see ab_stat.h):
 * basics, Student's t and normal distributions, Welch's t, Mann-Whitney
 * U with the Hodges-Lehmann shift, and the simulation generator.
 *
 * Pure math, no I/O.  Distribution functions are computed to near double
 * precision because the sequential procedure and the benchmark invert
 * them many thousands of times: an error here would show up as a biased
 * error rate, not as a crash.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/ab/ab_stat.h"

/* Above this many degrees of freedom t and normal agree to ~1e-8. */
#define T_DF_NORMAL	1e8
#define BETA_CF_ITER_MAX	10000
#define BETA_CF_EPS	1e-16
#define T_QUANT_ITER_MAX	300
/* Sizes up to which the Mann-Whitney null distribution is enumerated. */
#define MWU_EXACT_MAX	20

/* ---- basics ---- */

double xvbd_stat_mean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double xvbd_stat_var(const double *x, size_t n)
{
	double m, s = 0, c = 0;
	size_t i;

	if (n < 2)
		return 0;
	m = xvbd_stat_mean(x, n);
	/* Two-pass with the compensation term: run summaries are large
	 * numbers (IOPS) that differ in their last digits. */
	for (i = 0; i < n; i++) {
		s += (x[i] - m) * (x[i] - m);
		c += x[i] - m;
	}
	return (s - c * c / (double)n) / (double)(n - 1);
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c)
		return NULL;
	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	return c;
}

static double median_sorted(const double *s, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return s[n / 2];
	return 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double xvbd_stat_median(const double *x, size_t n)
{
	double *s, m;

	if (n == 0)
		return NAN;
	s = sorted_copy(x, n);
	if (!s)
		return NAN;
	m = median_sorted(s, n);
	free(s);
	return m;
}

static bool all_finite(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* ---- normal distribution ---- */

double xvbd_stat_norm_cdf(double z)
{
	if (isnan(z))
		return NAN;
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * Acklam's rational approximation (relative error 1.15e-9), then one
 * Halley step against erfc, which brings it to full double precision.
 */
double xvbd_stat_norm_quantile(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00,
	};
	static const double b[] = {
		-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
		-1.328068155288572e+01,
	};
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00, 2.938163982698783e+00,
	};
	static const double d[] = {
		7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00,
	};
	const double p_low = 0.02425;
	double q, r, x, e, u;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p < p_low) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		     q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= 1 - p_low) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
		     r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
		     r + 1);
	} else {
		q = sqrt(-2 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		      q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	/* Halley refinement; compare in the tail that is far from 1, so
	 * that the residual is not lost to cancellation. */
	if (x < 0)
		e = 0.5 * erfc(-x / M_SQRT2) - p;
	else
		e = (1 - p) - 0.5 * erfc(x / M_SQRT2);
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	x = x - u / (1 + x * u / 2);
	return x;
}

/* ---- incomplete beta and Student's t ---- */

/*
 * Continued fraction of the incomplete beta function (modified Lentz),
 * converging fast for x < (a + 1) / (a + b + 2).
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d, h, num;
	int m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= BETA_CF_ITER_MAX; m++) {
		double del;
		int m2 = 2 * m;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < BETA_CF_EPS)
			break;
	}
	return h;
}

/*
 * Stirling's error term lgamma(a) - ((a - 1/2) ln a - a + ln(2 pi) / 2),
 * for a >= 15, where five terms of the series reach double precision.
 */
static double stirling_err(double a)
{
	double a2 = a * a;

	return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 -
		1.0 / (1188 * a2)) / a2) / a2) / a2) / a;
}

/*
 * lgamma(a + b) - lgamma(a).  For large a the two lgamma values are
 * huge and nearly equal (at df = 10^6 the difference loses 1e-10 to
 * cancellation); through Stirling's form only small terms remain.
 */
static double lgamma_ratio(double a, double b)
{
	if (a < 15)
		return lgamma(a + b) - lgamma(a);
	return (a - 0.5) * log1p(b / a) + b * log(a + b) - b +
	       stirling_err(a + b) - stirling_err(a);
}

/*
 * Regularised incomplete beta I_x(a, b); y = 1 - x is passed by the
 * caller, who can often compute it without cancellation.  Either a or
 * b may be large, not both (the t distribution has b = 1/2).
 */
static double ibeta(double a, double b, double x, double y)
{
	double lfront;

	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	/* ln x from whichever of x, y is the accurate small one */
	lfront = a * (x > 0.5 ? log1p(-y) : log(x)) +
		 b * (y > 0.5 ? log1p(-x) : log(y));
	if (a >= b)
		lfront += lgamma_ratio(a, b) - lgamma(b);
	else
		lfront += lgamma_ratio(b, a) - lgamma(a);
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * beta_cf(a, b, x) / a;
	return 1 - exp(lfront) * beta_cf(b, a, y) / b;
}

/* P(T > t) for t >= 0. */
static double t_upper(double t, double df)
{
	double t2 = t * t;

	if (df > T_DF_NORMAL)
		return 0.5 * erfc(t / M_SQRT2);
	/* x = df / (df + t^2), 1 - x = t^2 / (df + t^2), both direct. */
	return 0.5 * ibeta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

double xvbd_stat_t_cdf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (t == INFINITY)
		return 1;
	if (t == -INFINITY)
		return 0;
	if (t < 0)
		return t_upper(-t, df);
	return 1 - t_upper(t, df);
}

static double t_pdf(double t, double df)
{
	if (df > T_DF_NORMAL)
		return exp(-t * t / 2) / sqrt(2 * M_PI);
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) -
		   0.5 * log(df * M_PI) - (df + 1) / 2 * log1p(t * t / df));
}

/*
 * Solve P(T > t) = q for t > 0: a bracket grown from the normal
 * quantile, then Newton steps that fall back to bisection whenever they
 * leave the bracket.  Robust for tiny fractional df (Cauchy-like tails)
 * and for huge df alike.
 */
static double t_upper_inverse(double q, double df)
{
	double lo = 0, hi, t;
	int i;

	hi = -xvbd_stat_norm_quantile(q);
	if (hi < 1)
		hi = 1;
	while (t_upper(hi, df) > q) {
		lo = hi;
		hi *= 2;
		if (!isfinite(hi))
			return INFINITY;
	}
	t = 0.5 * (lo + hi);
	for (i = 0; i < T_QUANT_ITER_MAX; i++) {
		double f = t_upper(t, df) - q, step, next;

		if (f == 0)
			break;
		if (f > 0)
			lo = t;
		else
			hi = t;
		/* d/dt P(T > t) = -pdf(t) */
		step = f / t_pdf(t, df);
		next = t + step;
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (fabs(next - t) <= 4 * DBL_EPSILON * fabs(next) ||
		    hi - lo <= 4 * DBL_EPSILON * hi) {
			t = next;
			break;
		}
		t = next;
	}
	return t;
}

double xvbd_stat_t_quantile(double p, double df)
{
	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	if (df == 1)	/* Cauchy: tan(pi (p - 1/2)), without p - 1/2 */
		return p < 0.5 ? -1 / tan(M_PI * p) : 1 / tan(M_PI * (1 - p));
	if (df == 2)
		return (2 * p - 1) / sqrt(2 * p * (1 - p));
	if (p > 0.5)
		return t_upper_inverse(1 - p, df);
	return -t_upper_inverse(p, df);
}

/* ---- Welch's t ---- */

static int check_conf(double confidence)
{
	return isfinite(confidence) && confidence > 0 && confidence < 1 ?
	       0 : -EINVAL;
}

static double t_half_width(double confidence, double df, double se)
{
	return xvbd_stat_t_quantile((1 + confidence) / 2, df) * se;
}

int xvbd_stat_welch(const double *a, size_t na, const double *b, size_t nb,
		    double confidence, struct xvbd_stat_cmp *out)
{
	double ma, mb, sa2, sb2, se2, half;

	if (!a || !b || !out || na < 2 || nb < 2 || check_conf(confidence) ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	ma = xvbd_stat_mean(a, na);
	mb = xvbd_stat_mean(b, nb);
	sa2 = xvbd_stat_var(a, na) / (double)na;	/* squared SEs */
	sb2 = xvbd_stat_var(b, nb) / (double)nb;
	se2 = sa2 + sb2;

	out->centre_a = ma;
	out->centre_b = mb;
	out->half_a = t_half_width(confidence, (double)(na - 1), sqrt(sa2));
	out->half_b = t_half_width(confidence, (double)(nb - 1), sqrt(sb2));
	out->diff = mb - ma;
	if (se2 == 0) {
		/* Both sides constant: nothing to estimate, the difference
		 * is what it is (t infinite unless the means agree). */
		out->df = (double)(na + nb - 2);
		out->p = out->diff == 0 ? 1 : 0;
		out->diff_lo = out->diff_hi = out->diff;
	} else {
		/* Welch-Satterthwaite */
		out->df = se2 * se2 / (sa2 * sa2 / (double)(na - 1) +
				       sb2 * sb2 / (double)(nb - 1));
		out->p = 2 * t_upper(fabs(out->diff) / sqrt(se2), out->df);
		if (out->p > 1)
			out->p = 1;
		half = t_half_width(confidence, out->df, sqrt(se2));
		out->diff_lo = out->diff - half;
		out->diff_hi = out->diff + half;
	}
	out->significant = out->diff_lo > 0 || out->diff_hi < 0;
	return 0;
}

/* ---- Mann-Whitney U ---- */

/*
 * Null distribution of U for sizes m, n without ties: c[u] = number of
 * the C(m+n, m) equally likely arrangements with U = u, the coefficients
 * of the Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i))
 * / (1 - q^i).  Terms above degree m n are dropped on the way: the
 * division is a causal power-series step, so they never feed back.
 * At m = n = 20 the largest count is below 2^38.
 */
static void mwu_counts(size_t m, size_t n, int64_t *c)
{
	size_t len = m * n + 1, i, k;

	memset(c, 0, len * sizeof(*c));
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		for (k = len - 1; k >= n + i && k < len; k--)
			c[k] -= c[k - n - i];
		for (k = i; k < len; k++)
			c[k] += c[k - i];
	}
}

/* The largest k with P(X <= k - 1) <= tail, where cdf_at[i] = P(X <= i);
 * 0 when even P(X <= 0) exceeds tail. */
static size_t tail_index(const double *cdf_at, size_t len, double tail)
{
	size_t k = 0;

	while (k < len && cdf_at[k] <= tail)
		k++;
	return k;
}

/*
 * Distribution-free CI of the median: [x_(k), x_(n+1-k)] covers it with
 * probability 1 - 2 P(Bin(n, 1/2) <= k - 1).  Reported as the larger
 * distance from the median (the interval is not symmetric), NAN when n
 * is too small for the confidence (n < 6 at 95 %).
 */
static double median_half_width(const double *s, size_t n, double conf)
{
	double tail = (1 - conf) / 2, cum = 0, med, lo, hi;
	size_t k = 0;

	while (k < n) {
		/* log-space pmf: 2^-n underflows past n = 1074 */
		cum += exp(lgamma((double)n + 1) - lgamma((double)k + 1) -
			   lgamma((double)(n - k) + 1) - (double)n * M_LN2);
		if (cum > tail)
			break;
		k++;
	}
	if (k == 0 || k > n / 2)
		return NAN;
	med = median_sorted(s, n);
	lo = s[k - 1];
	hi = s[n - k];
	return fmax(med - lo, hi - med);
}

struct mwu_ranks {
	double u;		/* U of b: pairs b > a, ties count 1/2 */
	double tie_sum;		/* sum of t^3 - t over tie groups */
	bool ties;
};

static void mwu_rank(const double *sa, size_t na, const double *sb,
		     size_t nb, struct mwu_ranks *r)
{
	size_t i = 0, j = 0, pos = 0;
	double rank_b = 0;

	r->tie_sum = 0;
	r->ties = false;
	while (i < na || j < nb) {
		double v;
		size_t ca = 0, cb = 0, t;

		if (j >= nb || (i < na && sa[i] <= sb[j]))
			v = sa[i];
		else
			v = sb[j];
		while (i < na && sa[i] == v)
			i++, ca++;
		while (j < nb && sb[j] == v)
			j++, cb++;
		t = ca + cb;
		/* average rank of positions pos+1 .. pos+t */
		rank_b += (double)cb * ((double)pos + ((double)t + 1) / 2);
		if (t > 1) {
			r->ties = true;
			r->tie_sum += (double)t * t * t - (double)t;
		}
		pos += t;
	}
	r->u = rank_b - (double)nb * ((double)nb + 1) / 2;
}

int xvbd_stat_mwu(const double *a, size_t na, const double *b, size_t nb,
		  double confidence, struct xvbd_stat_cmp *out)
{
	double *sa = NULL, *sb = NULL, *diffs = NULL, *cdf = NULL;
	int64_t *counts = NULL;
	double m = (double)na, n = (double)nb, mu, tail, sigma, z;
	size_t mn, i, j, k;
	struct mwu_ranks r;
	bool exact;
	int ret = -ENOMEM;

	if (!a || !b || !out || na < 1 || nb < 1 || check_conf(confidence) ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	mn = na * nb;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	diffs = malloc(mn * sizeof(*diffs));
	if (!sa || !sb || !diffs)
		goto out;

	out->centre_a = median_sorted(sa, na);
	out->centre_b = median_sorted(sb, nb);
	out->half_a = median_half_width(sa, na, confidence);
	out->half_b = median_half_width(sb, nb, confidence);
	out->df = NAN;

	mwu_rank(sa, na, sb, nb, &r);
	mu = m * n / 2;
	tail = (1 - confidence) / 2;
	exact = !r.ties && na <= MWU_EXACT_MAX && nb <= MWU_EXACT_MAX;
	/* na + nb >= 2, so the tie term's divisor is not 0 */
	sigma = sqrt(m * n / 12 *
		     ((m + n + 1) - r.tie_sum / ((m + n) * (m + n - 1))));

	/* Hodges-Lehmann: median of all pairwise shifts b_j - a_i. */
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			diffs[i * nb + j] = sb[j] - sa[i];
	qsort(diffs, mn, sizeof(*diffs), cmp_double);
	out->diff = median_sorted(diffs, mn);

	if (exact) {
		double total = 0, below, above;
		size_t u = (size_t)r.u;

		counts = malloc((mn + 1) * sizeof(*counts));
		cdf = malloc((mn + 1) * sizeof(*cdf));
		if (!counts || !cdf)
			goto out;
		mwu_counts(na, nb, counts);
		for (k = 0; k <= mn; k++)
			total += (double)counts[k];
		for (k = 0, below = 0; k <= mn; k++) {
			below += (double)counts[k];
			cdf[k] = below / total;
		}
		below = cdf[u];
		above = 1 - (u > 0 ? cdf[u - 1] : 0);
		out->p = fmin(1, 2 * fmin(below, above));
		/* Bauer (1972): [D_(k), D_(mn+1-k)] with P(U <= k-1) <=
		 * tail covers the shift with probability >= confidence. */
		k = tail_index(cdf, mn + 1, tail);
	} else {
		if (sigma > 0) {
			/* continuity correction as R's wilcox.test */
			z = r.u - mu;
			z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sigma;
			out->p = fmin(1, 2 * xvbd_stat_norm_cdf(-fabs(z)));
			z = floor(mu + 0.5 + xvbd_stat_norm_quantile(tail) *
				  sigma);
			k = z >= 1 ? (size_t)z : 0;
		} else {
			out->p = 1;	/* every value equal */
			k = 0;
		}
	}
	if (k >= 1 && k <= (mn + 1) / 2) {
		out->diff_lo = diffs[k - 1];
		out->diff_hi = diffs[mn - k];
	} else {
		out->diff_lo = out->diff_hi = NAN;
	}
	out->significant = out->p < 1 - confidence;
	ret = 0;
out:
	free(sa);
	free(sb);
	free(diffs);
	free(counts);
	free(cdf);
	return ret;
}

/* ---- generator: xoshiro256** seeded through splitmix64 ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void xvbd_rng_seed(struct xvbd_rng *r, uint64_t seed)
{
	int i;

	/* splitmix64 never yields four zero words: the state is valid. */
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t xvbd_rng_next(struct xvbd_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double xvbd_rng_uniform(struct xvbd_rng *r)
{
	return (double)(xvbd_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Marsaglia's polar method; the second value is dropped so that the
 * state stays the four words of the header. */
double xvbd_rng_normal(struct xvbd_rng *r)
{
	double u, v, s;

	do {
		u = 2 * xvbd_rng_uniform(r) - 1;
		v = 2 * xvbd_rng_uniform(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}
