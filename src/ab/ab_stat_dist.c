/*
 * ab_stat_dist.c - the distributions behind `xvbd ab`'s statistics (see
 * ab_stat.h): the standard normal, Student's t (central and noncentral)
 * and the regularised incomplete beta function they rest on.
 *
 * Computed to near double precision because the sequential procedure and
 * the benchmark invert them many thousands of times (an error here shows
 * as a biased error rate, not as a crash), and because the runs a design
 * needs are read off the noncentral t's power, whose step from one n to
 * the next is small.
 */
#include <errno.h>
#include <float.h>
#include <math.h>

#include "ab_stat_impl.h"

/* Above this many degrees of freedom t and normal agree to ~1e-8. */
#define T_DF_NORMAL	1e8
#define BETA_CF_ITER_MAX	10000
#define BETA_CF_EPS	1e-16
#define T_QUANT_ITER_MAX	300

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
double ab_stat_ibeta(double a, double b, double x, double y)
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
double ab_stat_t_upper(double t, double df)
{
	double t2 = t * t;

	if (df > T_DF_NORMAL)
		return 0.5 * erfc(t / M_SQRT2);
	/* x = df / (df + t^2), 1 - x = t^2 / (df + t^2), both direct. */
	return 0.5 * ab_stat_ibeta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
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
		return ab_stat_t_upper(-t, df);
	return 1 - ab_stat_t_upper(t, df);
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
	while (ab_stat_t_upper(hi, df) > q) {
		lo = hi;
		hi *= 2;
		if (!isfinite(hi))
			return INFINITY;
	}
	t = 0.5 * (lo + hi);
	for (i = 0; i < T_QUANT_ITER_MAX; i++) {
		double f = ab_stat_t_upper(t, df) - q, step, next;

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

/* ---- the noncentral t ---- */

/* Poisson terms below this share of the total are left out of the sum. */
#define NCT_TERM_EPS	1e-17
#define NCT_TERMS_MAX	200000
/*
 * Beyond this Poisson mean (delta near 1000) the sum would need tens of
 * thousands of terms; the normal approximation takes over, where a t of
 * any use is far below delta and the CDF is 0 or 1 to double precision.
 */
#define NCT_LAMBDA_MAX	5e5

/*
 * I_x(a, b) along a = a0, a0 + 1, ...: the incomplete beta at the
 * series' first term, then its recurrence I_x(a + 1, b) = I_x(a, b) -
 * g(a), g(a) = x^a y^b Gamma(a + b) / (Gamma(a + 1) Gamma(b)), g(a + 1)
 * = g(a) x (a + b) / (a + 1), and downwards the same read backwards: two
 * continued fractions per CDF instead of two per term.  Going up it
 * subtracts ever smaller terms from a falling value; its error stays
 * absolute, at the sum's own.
 */
struct ibeta_walk {
	double a, b, x, y;
	double i, g;		/* I_x(a, b) and g(a) */
};

static void walk_start(struct ibeta_walk *w, double a, double b, double x,
		       double y)
{
	w->a = a;
	w->b = b;
	w->x = x;
	w->y = y;
	w->i = ab_stat_ibeta(a, b, x, y);
	w->g = exp(a * log(x) + b * log(y) + lgamma(a + b) - lgamma(a + 1) -
		   lgamma(b));
}

static void walk_up(struct ibeta_walk *w)
{
	w->i = fmax(0, w->i - w->g);
	w->g *= w->x * (w->a + w->b) / (w->a + 1);
	w->a += 1;
}

static void walk_down(struct ibeta_walk *w)
{
	w->g *= w->a / (w->x * (w->a - 1 + w->b));
	w->a -= 1;
	w->i = fmin(1, w->i + w->g);
}

/*
 * F(t; nu, delta) for t >= 0 (Lenth 1989, AS 243, summed from the
 * Poisson mode outwards as Benton and Krishnamoorthy 2003 do, so that a
 * large delta neither underflows the first weights nor needs thousands
 * of negligible terms):
 *	Phi(-delta) + 1/2 sum_j (P_j I_x(j + 1/2, nu/2) + Q_j I_x(j + 1,
 *	nu/2)),  x = t^2 / (t^2 + nu),
 * P_j the Poisson weight of j for mean lambda = delta^2 / 2, Q_j = delta
 * e^-lambda lambda^j / (sqrt 2 Gamma(j + 3/2)).  Each side stops once
 * the weights left (a geometric tail bounds them) are below NCT_TERM_EPS.
 */
static double nct_cdf_pos(double t, double nu, double delta)
{
	double lambda = delta * delta / 2, x = t * t / (t * t + nu);
	double y = nu / (t * t + nu), j0 = floor(lambda), sum, p0, q0, p, q;
	struct ibeta_walk up1, up2, dn1, dn2;
	double j, ratio;
	int k;

	if (t == 0 || lambda == 0)
		return xvbd_stat_norm_cdf(-delta) + (lambda == 0 ?
			0.5 * ab_stat_ibeta(0.5, nu / 2, x, y) : 0);
	if (lambda > NCT_LAMBDA_MAX)
		/* Abramowitz and Stegun 26.7.10 */
		return xvbd_stat_norm_cdf((t * (1 - 1 / (4 * nu)) - delta) /
					  sqrt(1 + t * t / (2 * nu)));
	p0 = exp(-lambda + j0 * log(lambda) - lgamma(j0 + 1));
	q0 = delta / M_SQRT2 *
	     exp(-lambda + j0 * log(lambda) - lgamma(j0 + 1.5));
	walk_start(&up1, j0 + 0.5, nu / 2, x, y);
	walk_start(&up2, j0 + 1, nu / 2, x, y);
	dn1 = up1;
	dn2 = up2;
	sum = p0 * up1.i + q0 * up2.i;
	/* upwards: the weights fall by lambda / (j + 1) per step */
	p = p0;
	q = q0;
	for (j = j0 + 1, k = 0; k < NCT_TERMS_MAX; j++, k++) {
		p *= lambda / j;
		q *= lambda / (j + 0.5);
		walk_up(&up1);
		walk_up(&up2);
		sum += p * up1.i + q * up2.i;
		ratio = lambda / (j + 1);
		if (ratio < 1 && (p + fabs(q)) / (1 - ratio) < NCT_TERM_EPS)
			break;
	}
	/* downwards to 0: the weights fall by j / lambda per step */
	p = p0;
	q = q0;
	for (j = j0 - 1, k = 0; j >= 0 && k < NCT_TERMS_MAX; j--, k++) {
		p *= (j + 1) / lambda;
		q *= (j + 1.5) / lambda;
		walk_down(&dn1);
		walk_down(&dn2);
		sum += p * dn1.i + q * dn2.i;
		ratio = j / lambda;
		if ((p + fabs(q)) / (1 - ratio) < NCT_TERM_EPS)
			break;
	}
	return xvbd_stat_norm_cdf(-delta) + sum / 2;
}

double xvbd_stat_nct_cdf(double t, double df, double ncp)
{
	double f;

	if (isnan(t) || !(df > 0) || !isfinite(ncp))
		return NAN;
	if (t == INFINITY)
		return 1;
	if (t == -INFINITY)
		return 0;
	if (df > T_DF_NORMAL)
		return xvbd_stat_norm_cdf(t - ncp);
	/* F(t; nu, delta) = 1 - F(-t; nu, -delta) */
	f = t >= 0 ? nct_cdf_pos(t, df, ncp) : 1 - nct_cdf_pos(-t, df, -ncp);
	return fmin(1, fmax(0, f));
}
