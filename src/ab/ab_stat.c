/*
 * ab_stat.c - fixed-N statistics for `xvbd ab compare` (see ab_stat.h):
 * basics, Welch's t, Mann-Whitney U with the Hodges-Lehmann shift,
 * Holm's adjustment and the simulation generator.  The distributions are
 * ab_stat_dist.c's, Fieller's set for a ratio ab_stat_fieller.c's.
 *
 * Pure math, no I/O.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stat_impl.h"

/* Two constant samples this many ulps apart count as the same value. */
#define CONST_SAME_ULPS	4
/* Sizes up to which the Mann-Whitney null distribution is enumerated. */
#define MWU_EXACT_MAX	20

/* ---- basics ---- */

/*
 * The sum's rounding is corrected by a second pass: the mean of n equal
 * values is that value exactly (three times 0.1 summed and divided is
 * one ulp off, and a test would then see a difference between two
 * constant samples of the same value).
 */
double xvbd_stat_mean(const double *x, size_t n)
{
	double s = 0, m, c = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		s += x[i];
	m = s / (double)n;
	for (i = 0; i < n && x[i] == x[0]; i++)
		;
	if (i == n)
		return x[0];
	if (!isfinite(m))
		return m;
	for (i = 0; i < n; i++)
		c += x[i] - m;
	return m + c / (double)n;
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

/* ---- Welch's t ---- */

static double t_half_width(double confidence, double df, double se)
{
	return xvbd_stat_t_quantile((1 + confidence) / 2, df) * se;
}

int xvbd_stat_welch(const double *a, size_t na, const double *b, size_t nb,
		    double confidence, struct xvbd_stat_cmp *out)
{
	double ma, mb, sa2, sb2, se2, half;

	if (!a || !b || !out || na < 2 || nb < 2 || ab_stat_check_conf(confidence) ||
	    !ab_stat_finite_all(a, na) || !ab_stat_finite_all(b, nb))
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
	/*
	 * Both sides constant and within a few ulps of each other: the same
	 * value reached by different roundings (a summary is a quotient of
	 * counters), not a difference that any run could measure.
	 */
	if (se2 == 0 && fabs(out->diff) <= CONST_SAME_ULPS * DBL_EPSILON *
					    fmax(fabs(ma), fabs(mb)))
		out->diff = 0;
	out->stat = se2 > 0 ? out->diff / sqrt(se2) : out->diff == 0 ? 0 :
		    copysign(INFINITY, out->diff);
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
		out->p = 2 * ab_stat_t_upper(fabs(out->diff) / sqrt(se2), out->df);
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

/*
 * The normal approximation at a shift d of B (B - d against A), for the
 * interval by inversion.  With D the sorted pairwise differences b - a,
 * U(d) = #{D > d} + #{D == d} / 2; a pair with D == d is a tie between
 * the samples, which also joins their tie groups in the variance.
 */
struct mwu_shift {
	const double *sa, *sb, *d;	/* sorted A, B, differences */
	size_t na, nb, mn;
	double tie_a, tie_b;		/* sum of t^3 - t within A, B */
	double alpha;
};

static double tie_term(double t)
{
	return t * t * t - t;
}

/* First index i with d[i] >= v (ge) or d[i] > v (!ge). */
static size_t bound_index(const double *d, size_t n, double v, bool ge)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ge ? d[mid] < v : d[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Tie sum of A together with B - d: groups tied across join. */
static double mwu_tie_sum_at(const struct mwu_shift *sh, double shift)
{
	double sum = sh->tie_a + sh->tie_b;
	size_t i = 0, j, k;

	while (i < sh->na) {
		double ca, cb = 0;

		for (k = i; k < sh->na && sh->sa[k] == sh->sa[i]; k++)
			;
		ca = (double)(k - i);
		/* b - a grows with b: the B values tied with this a */
		for (j = 0; j < sh->nb && sh->sb[j] - sh->sa[i] < shift; j++)
			;
		for (; j < sh->nb && sh->sb[j] - sh->sa[i] == shift; j++)
			cb++;
		if (cb > 0)
			sum += tie_term(ca + cb) - tie_term(ca) - tie_term(cb);
		i = k;
	}
	return sum;
}

/* Two-sided p at shift d; side 0 ties as ties, +1 / -1 each tied b
 * just below / above its a. */
static double mwu_p_side(const struct mwu_shift *sh, double shift, int side)
{
	double m = (double)sh->na, n = (double)sh->nb, tie, u, z, sigma;
	size_t ge = bound_index(sh->d, sh->mn, shift, true);
	size_t gt = bound_index(sh->d, sh->mn, shift, false);

	u = (double)(sh->mn - gt);
	tie = sh->tie_a + sh->tie_b;
	if (side < 0)
		u += (double)(gt - ge);
	if (side == 0 && gt > ge) {
		u += (double)(gt - ge) / 2;
		tie = mwu_tie_sum_at(sh, shift);
	}
	sigma = sqrt(m * n / 12 * ((m + n + 1) - tie / ((m + n) *
						     (m + n - 1))));
	if (!(sigma > 0))
		return 1;	/* every value equal */
	/* continuity correction as R's wilcox.test */
	z = u - m * n / 2;
	z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sigma;
	return fmin(1, 2 * xvbd_stat_norm_cdf(-fabs(z)));
}

/* The p least favourable to a rejection at shift d. */
static double mwu_p_least(const struct mwu_shift *sh, double shift)
{
	size_t ge = bound_index(sh->d, sh->mn, shift, true);
	size_t gt = bound_index(sh->d, sh->mn, shift, false);
	double p = mwu_p_side(sh, shift, 0);

	if (gt > ge) {
		p = fmax(p, mwu_p_side(sh, shift, 1));
		p = fmax(p, mwu_p_side(sh, shift, -1));
	}
	return p;
}

/*
 * The shifts not rejected form an interval around the Hodges-Lehmann
 * shift (p grows towards it on either side), and its ends are
 * differences D: binary search on each side.  NAN where even shifts
 * beyond every D are not rejected (too few runs).
 */
static void mwu_invert(const struct mwu_shift *sh, double *lo, double *hi)
{
	size_t mid = (sh->mn - 1) / 2, a, b;

	*lo = *hi = NAN;
	if (mwu_p_side(sh, sh->d[0], -1) >= sh->alpha ||
	    mwu_p_side(sh, sh->d[sh->mn - 1], 1) >= sh->alpha ||
	    mwu_p_least(sh, sh->d[mid]) < sh->alpha)
		return;
	for (a = 0, b = mid; a < b;) {	/* first accepted in [0, mid] */
		size_t c = a + (b - a) / 2;

		if (mwu_p_least(sh, sh->d[c]) >= sh->alpha)
			b = c;
		else
			a = c + 1;
	}
	*lo = sh->d[a];
	for (a = mid, b = sh->mn - 1; a < b;) {	/* last accepted */
		size_t c = a + (b - a + 1) / 2;

		if (mwu_p_least(sh, sh->d[c]) >= sh->alpha)
			a = c;
		else
			b = c - 1;
	}
	*hi = sh->d[a];
}

/* Sum of t^3 - t over the groups of equal values of sorted x. */
static double tie_sum_sorted(const double *x, size_t n)
{
	double sum = 0;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		for (j = i; j < n && x[j] == x[i]; j++)
			;
		sum += tie_term((double)(j - i));
	}
	return sum;
}

/*
 * Exact p of U without ties and Bauer's (1972) interval: [D_(k),
 * D_(mn+1-k)] with P(U <= k-1) <= tail covers the shift with
 * probability >= confidence.
 */
static int mwu_exact(const struct mwu_shift *sh, double u_b,
		     double confidence, struct xvbd_stat_cmp *out)
{
	size_t mn = sh->mn, u = (size_t)u_b, k;
	int64_t *counts = malloc((mn + 1) * sizeof(*counts));
	double *cdf = malloc((mn + 1) * sizeof(*cdf));
	double total = 0, below, above;
	int ret = -ENOMEM;

	if (!counts || !cdf)
		goto out;
	mwu_counts(sh->na, sh->nb, counts);
	for (k = 0; k <= mn; k++)
		total += (double)counts[k];
	for (k = 0, below = 0; k <= mn; k++) {
		below += (double)counts[k];
		cdf[k] = below / total;
	}
	below = cdf[u];
	above = 1 - (u > 0 ? cdf[u - 1] : 0);
	out->p = fmin(1, 2 * fmin(below, above));
	k = tail_index(cdf, mn + 1, (1 - confidence) / 2);
	if (k >= 1 && k <= (mn + 1) / 2) {
		out->diff_lo = sh->d[k - 1];
		out->diff_hi = sh->d[mn - k];
	} else {
		out->diff_lo = out->diff_hi = NAN;
	}
	ret = 0;
out:
	free(counts);
	free(cdf);
	return ret;
}

int xvbd_stat_mwu(const double *a, size_t na, const double *b, size_t nb,
		  double confidence, struct xvbd_stat_cmp *out)
{
	double *sa = NULL, *sb = NULL, *diffs = NULL;
	struct mwu_shift sh;
	size_t mn, i, j;
	struct mwu_ranks r;
	int ret = -ENOMEM;

	if (!a || !b || !out || na < 1 || nb < 1 || ab_stat_check_conf(confidence) ||
	    !ab_stat_finite_all(a, na) || !ab_stat_finite_all(b, nb))
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
	out->stat = r.u;

	/* Hodges-Lehmann: median of all pairwise shifts b_j - a_i. */
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			diffs[i * nb + j] = sb[j] - sa[i];
	qsort(diffs, mn, sizeof(*diffs), cmp_double);
	out->diff = median_sorted(diffs, mn);

	sh = (struct mwu_shift){
		.sa = sa, .na = na, .sb = sb, .nb = nb, .d = diffs, .mn = mn,
		.alpha = 1 - confidence,
	};
	if (!r.ties && na <= MWU_EXACT_MAX && nb <= MWU_EXACT_MAX) {
		ret = mwu_exact(&sh, r.u, confidence, out);
		if (ret)
			goto out;
	} else {
		sh.tie_a = tie_sum_sorted(sa, na);
		sh.tie_b = tie_sum_sorted(sb, nb);
		out->p = mwu_p_least(&sh, 0);
		mwu_invert(&sh, &out->diff_lo, &out->diff_hi);
	}
	out->significant = out->p < 1 - confidence;
	ret = 0;
out:
	free(sa);
	free(sb);
	free(diffs);
	return ret;
}

/* ---- multiplicity ---- */

size_t xvbd_stat_holm(const double *p, size_t n, double *adj)
{
	size_t idx[XVBD_STAT_HOLM_MAX], m = 0, i, j;
	double run = 0;

	for (i = 0; i < n; i++)
		adj[i] = NAN;
	if (n > sizeof(idx) / sizeof(idx[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!isnan(p[i]))
			idx[m++] = i;
	/* insertion sort by p: a family of a few metrics */
	for (i = 1; i < m; i++)
		for (j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	/* the k-th smallest times (m - k), made monotone, capped at 1 */
	for (i = 0; i < m; i++) {
		double v = fmin(1, (double)(m - i) * p[idx[i]]);

		run = fmax(run, v);
		adj[idx[i]] = run;
	}
	return m;
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
