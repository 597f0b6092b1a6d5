/*
 * ab_seq.c - the sequential procedure of `xvbd ab run --until-confident`
 * (see ab_stat.h): the mixture e-value of the one-sample t-test, the
 * always-valid confidence sequence it gives, the stopping decision, and
 * the fixed-N sample size the benchmark compares it with.
 *
 * The e-value is the Bayes factor of Rouder et al. (2009) with a fixed
 * g: a normal prior N(0, g) on the standardised effect mean/sd and the
 * right-Haar prior 1/sigma on the scale.  With that prior on the
 * nuisance scale the Bayes factor is a test martingale under "mean 0"
 * (Lai 1976; Perez-Ortiz, Lardy, de Heide, Grunwald 2022, "E-statistics,
 * group invariance and anytime valid testing"), so by Ville's inequality
 * P(it ever reaches 1/alpha) <= alpha however often it is looked at.
 * Testing "mean = mu" for every mu and keeping the mu not rejected gives
 * the confidence sequence.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "xvbd/ab/ab_stat.h"

double xvbd_seq_evalue(double t, size_t n, double g)
{
	double nu = (double)n - 1, big_g, u, le;

	if (n < 2 || isnan(t) || !isfinite(g) || g <= 0)
		return NAN;
	big_g = 1 + (double)n * g;
	if (isinf(t))
		/* the supremum: no amount of evidence in n values goes
		 * beyond (1 + n g)^((n - 1) / 2) */
		return exp((nu / 2) * log(big_g));
	u = t * t;
	le = -0.5 * log(big_g) +
	     ((double)n / 2) * (log1p(u / nu) - log1p(u / (nu * big_g)));
	return exp(le);
}

/*
 * The radius c_n in units of the standard error: the |t| at which the
 * e-value reaches 1/alpha.  The e-value is increasing in t^2, and the
 * equation is solved in closed form:  with G = 1 + n g and
 * R = exp((2 / n) (ln(1/alpha) + ln(G) / 2)),
 *	(1 + u / nu) = R (1 + u / (nu G))  =>  u = nu (R - 1) G / (G - R).
 * Infinite when R >= G: the e-value is bounded by G^((n - 1) / 2), and
 * with so few values even an infinite t could not reach 1/alpha.
 */
static double seq_radius(size_t n, double g, double alpha)
{
	double nu = (double)n - 1, big_g = 1 + (double)n * g;
	double lr = (2 / (double)n) * (-log(alpha) + 0.5 * log(big_g));
	double r = exp(lr);

	if (r >= big_g)
		return INFINITY;
	return sqrt(nu * expm1(lr) * big_g / (big_g - r));
}

const char *xvbd_seq_decision_name(enum xvbd_seq_decision d)
{
	switch (d) {
	case XVBD_SEQ_CONTINUE:
		return "continue";
	case XVBD_SEQ_DIFFERENT:
		return "different";
	case XVBD_SEQ_EQUIVALENT:
		return "equivalent";
	case XVBD_SEQ_EXHAUSTED:
		return "exhausted";
	}
	return "unknown";
}

static int check_params(const struct xvbd_seq_params *p)
{
	if (!p || !isfinite(p->alpha) || p->alpha <= 0 || p->alpha >= 1)
		return -EINVAL;
	if (!isfinite(p->g) || p->g < 0)
		return -EINVAL;
	if (!isfinite(p->min_effect) || p->min_effect <= 0)
		return -EINVAL;
	if (!(p->equivalence >= 0 && p->equivalence < 1))
		return -EINVAL;
	if (p->max_pairs < 2)
		return -EINVAL;
	return 0;
}

int xvbd_seq_decide(const double *d, size_t n,
		    const struct xvbd_seq_params *p,
		    struct xvbd_seq_state *out)
{
	double g, c, half, low, high;
	size_t i;

	if (!out || check_params(p) || (n && !d))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -EINVAL;
	g = p->g > 0 ? p->g : XVBD_SEQ_G_DEFAULT;

	out->n = n;
	out->mean = n ? xvbd_stat_mean(d, n) : NAN;
	out->sd = n >= 2 ? sqrt(xvbd_stat_var(d, n)) : NAN;
	out->lo = out->hi = NAN;
	out->decision = XVBD_SEQ_CONTINUE;
	/* One value says nothing about the scale: the martingale is 1. */
	if (n < 2)
		return 0;

	c = seq_radius(n, g, p->alpha);
	half = isinf(c) ? INFINITY : c * out->sd / sqrt((double)n);
	out->lo = out->mean - half;
	out->hi = out->mean + half;
	/*
	 * --equivalence P: "same within +-P %" of B/A, the margin ab
	 * compare's equivalence test uses; else the minimum effect's.
	 */
	high = log1p(p->equivalence > 0 ? p->equivalence : p->min_effect);
	low = p->equivalence > 0 ? log1p(-p->equivalence) : -high;
	/*
	 * Both can hold (a real difference smaller than the minimum
	 * effect); "different" wins, the bounds tell its size.  Either
	 * claim is wrong only when the sequence misses the true mean, which
	 * happens with probability <= alpha over the whole run.
	 */
	if (out->lo > 0 || out->hi < 0)
		out->decision = XVBD_SEQ_DIFFERENT;
	else if (out->lo > low && out->hi < high)
		out->decision = XVBD_SEQ_EQUIVALENT;
	else if (n >= p->max_pairs)
		out->decision = XVBD_SEQ_EXHAUSTED;
	return 0;
}

/*
 * Smallest n with n >= ((t_{1-alpha/2, n-1} + t_{1-beta, n-1}) / delta)^2,
 * delta = ln(1 + min_effect) / sd: the usual paired t-test sizing with
 * t quantiles at the design's own degrees of freedom (the z version
 * undersizes small designs, which would flatter the sequential
 * procedure in the benchmark).  The z-based size is a lower bound, so
 * the search starts there.
 */
size_t xvbd_seq_fixed_pairs(double alpha, double beta, double sd,
			    double min_effect)
{
	double delta, n0, need;
	size_t n;

	if (!isfinite(alpha) || alpha <= 0 || alpha >= 1 ||
	    !isfinite(beta) || beta <= 0 || beta >= 1 ||
	    !isfinite(sd) || sd <= 0 ||
	    !isfinite(min_effect) || min_effect <= 0)
		return 0;
	delta = log1p(min_effect) / sd;
	n0 = xvbd_stat_norm_quantile(1 - alpha / 2) +
	     xvbd_stat_norm_quantile(1 - beta);
	n0 = ceil(n0 * n0 / (delta * delta));
	if (!(n0 < 1e15))
		return SIZE_MAX;
	n = n0 < 2 ? 2 : (size_t)n0;
	for (;; n++) {
		double df = (double)(n - 1);

		need = xvbd_stat_t_quantile(1 - alpha / 2, df) +
		       xvbd_stat_t_quantile(1 - beta, df);
		need = need * need / (delta * delta);
		if ((double)n >= need)
			return n;
	}
}

/*
 * At the cap the sequence is mean +- c_N sd / sqrt(N); it can settle
 * either way only once that radius is below ln(1 + min_effect): the
 * smallest such N, a floor on what an experiment with this noise needs
 * (half the time the sd comes out larger).  c_n / sqrt(n) falls with n,
 * so the first n that fits is the answer.
 */
size_t xvbd_seq_pairs_to_settle(const struct xvbd_seq_params *p, double sd)
{
	double g, bound;
	size_t n;

	if (check_params(p) || !isfinite(sd) || sd < 0)
		return 0;
	g = p->g > 0 ? p->g : XVBD_SEQ_G_DEFAULT;
	bound = log1p(p->min_effect);
	for (n = 2; n <= XVBD_SEQ_SETTLE_MAX; n++)
		if (seq_radius(n, g, p->alpha) * sd / sqrt((double)n) < bound)
			return n;
	return SIZE_MAX;
}

double xvbd_seq_sd_settles(const struct xvbd_seq_params *p)
{
	double g, c;

	if (check_params(p))
		return NAN;
	g = p->g > 0 ? p->g : XVBD_SEQ_G_DEFAULT;
	c = seq_radius(p->max_pairs, g, p->alpha);
	return isinf(c) ? 0 : log1p(p->min_effect) *
			      sqrt((double)p->max_pairs) / c;
}

double xvbd_seq_radius_at_cap(const struct xvbd_seq_params *p, double sd)
{
	double g;

	if (check_params(p) || !isfinite(sd) || sd < 0)
		return NAN;
	g = p->g > 0 ? p->g : XVBD_SEQ_G_DEFAULT;
	return seq_radius(p->max_pairs, g, p->alpha) * sd /
	       sqrt((double)p->max_pairs);
}
