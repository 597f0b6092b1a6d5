/*
 * ab_stat.h - the statistics behind `xvbd ab`: pure math on run
 * summaries, no I/O (src/ab/ab_stat*.c, ab_seq.c; unit-tested).
 *
 * The unit of evidence is a run: each label contributes one number per
 * run and metric (its run summary).  Samples inside a run are never fed
 * here as if they were independent.
 *
 *  - fixed-N comparison of two labels: Welch's t (unequal variances;
 *    centre = mean) or Mann-Whitney U (centre = median, Hodges-Lehmann
 *    shift, no normality assumed, as benchstat does);
 *  - the sequential procedure of `ab run --until-confident`: an
 *    always-valid confidence sequence for the mean of paired differences
 *    d_i = ln(B_i / A_i) of ABBA-adjacent runs, from a mixture
 *    likelihood ratio ("safe t-test": normal mixture over the
 *    standardised effect, right-Haar prior on the unknown variance;
 *    Rouder et al. 2009 give its closed form, Lai 1976 and Perez-Ortiz,
 *    Lardy, de Heide, Grunwald 2022 show it is a test martingale under
 *    the null, in the filtration of the scale-invariant statistics).
 *    By Ville's inequality the sequence covers the true mean at every n
 *    at once with probability >= 1 - alpha: it may be looked at after
 *    every run and stopped whenever, without inflating the error rate.
 *    The model is normal d_i; tests/unit/test_ab_stat.c checks the
 *    error rate by simulation with non-normal run summaries too.
 *
 * Functions return 0, or -EINVAL for inputs they cannot work with (too
 * few values, non-finite values, confidence outside (0, 1)).
 */
#ifndef XVBD_AB_STAT_H
#define XVBD_AB_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- basics ---- */

double xvbd_stat_mean(const double *x, size_t n);
/* Sample variance (n - 1); 0 for n < 2. */
double xvbd_stat_var(const double *x, size_t n);
/* Median of x (x is not modified); NAN for n == 0. */
double xvbd_stat_median(const double *x, size_t n);

/* Student's t: CDF and quantile for df > 0 (df need not be whole). */
double xvbd_stat_t_cdf(double t, double df);
double xvbd_stat_t_quantile(double p, double df);
/* Standard normal CDF and quantile. */
double xvbd_stat_norm_cdf(double z);
double xvbd_stat_norm_quantile(double p);
/*
 * The noncentral t's CDF: P(T <= t) for T = (Z + ncp) / sqrt(V / df), Z
 * standard normal, V chi-square on df > 0 (SciPy's nct.cdf; checked
 * against it in tests/unit/test_ab_ref.c: to 1e-13 absolutely, so a
 * tiny lower tail is not precise relatively).  NAN on invalid input.
 */
double xvbd_stat_nct_cdf(double t, double df, double ncp);

/* ---- fixed-N two-sample tests (B against A) ---- */

struct xvbd_stat_cmp {
	double centre_a, centre_b;	/* mean (Welch) or median (MWU) */
	double half_a, half_b;		/* CI half-widths of the centres;
					   NAN when n < 2 */
	double diff;			/* B - A: mean difference or
					   Hodges-Lehmann shift */
	double diff_lo, diff_hi;	/* CI of diff; NAN when unknown */
	double p;			/* two-sided p-value; NAN unknown */
	double df;			/* Welch only */
	double stat;			/* Welch: t of B - A; MWU: U of B
					   (pairs b > a, ties 1/2) */
	bool significant;		/* CI excludes 0 (p < 1 - conf) */
};

/*
 * Welch's t-test and CI for mean(B) - mean(A).  na, nb >= 2.  Both sides
 * constant: p = 1 and diff = 0 when the two values are within a few ulps
 * (one value, rounded differently), else p = 0 (a certain difference).
 */
int xvbd_stat_welch(const double *a, size_t na, const double *b, size_t nb,
		    double confidence, struct xvbd_stat_cmp *out);
/*
 * Fieller's confidence set for mean(B) / mean(A) of independent samples
 * with unequal variances: the ratios r with
 *	(mb - r ma)^2 <= t_{df(r)}^2 (sb^2/nb + r^2 sa^2/na),
 * df(r) the Welch-Satterthwaite degrees of freedom of mb - r ma (Welch's
 * test of mb - r ma = 0 inverted, so r = 1 is in the set exactly when
 * Welch's t finds no difference).  As df moves with r the set can be
 * more than one interval (src/ab_stat_fieller.c).  For large |r| the
 * statistic tends to A's own t (df(r) -> na - 1), so the set holds
 * +-infinity exactly when A's own interval includes 0: unbounded.
 * Pieces are sorted and disjoint; an unbounded set's outer ends are
 * -INFINITY / INFINITY, and with a constant side it may have no finite
 * piece to give (n 0).
 */
#define XVBD_STAT_SET_MAX	4
struct xvbd_stat_set {
	size_t n;				/* pieces */
	bool unbounded;
	double lo[XVBD_STAT_SET_MAX], hi[XVBD_STAT_SET_MAX];
};
int xvbd_stat_fieller_set(const double *a, size_t na, const double *b,
			  size_t nb, double confidence,
			  struct xvbd_stat_set *out);
/*
 * The smallest interval holding Fieller's set (its outer ends: a
 * confidence interval at least as wide as the set), or lo = hi = NAN
 * when unbounded.  na, nb >= 2.
 */
int xvbd_stat_fieller(const double *a, size_t na, const double *b,
		      size_t nb, double confidence, double *lo, double *hi);
/*
 * Mann-Whitney U: exact p-value without ties for na, nb <= 20, normal
 * approximation with tie correction (and R's continuity correction)
 * otherwise; Hodges-Lehmann shift with its distribution-free CI from the
 * exact U quantiles (Bauer), or in the normal case by inverting the
 * same test: the shifts d for which B - d is not rejected against A.
 * A tie between the samples is counted the way least favourable to a
 * rejection (of "U with the tie", "U with b just above", "U with b just
 * below", the largest p), so the interval is closed and p < 1 -
 * confidence exactly when it excludes 0: the verdict and the interval
 * come from one rule.  NAN bounds where the sizes allow none (3 + 3 runs
 * at 95 %).  The centres are the
 * medians; half_a, half_b come from the order-statistics CI of each
 * median, which is not symmetric: the larger side is given (NAN below 6
 * runs at 95 %).  significant is p < 1 - confidence.  na, nb >= 1.
 */
int xvbd_stat_mwu(const double *a, size_t na, const double *b, size_t nb,
		  double confidence, struct xvbd_stat_cmp *out);

/*
 * Holm-Bonferroni: p-values adjusted for a family of tests, so that
 * "any adjusted p < alpha" happens with probability <= alpha when no
 * hypothesis is false, whatever their dependence.  NAN entries of p are
 * not part of the family and stay NAN in adj.  Returns the family size
 * (n <= XVBD_STAT_HOLM_MAX; larger n: 0, every adj NAN).  256: a sweep's
 * 15 levels x 14 metrics.
 */
#define XVBD_STAT_HOLM_MAX	256
size_t xvbd_stat_holm(const double *p, size_t n, double *adj);

/* ---- paired, equivalence, sizing (src/ab_stat_pair.c) ---- */

/*
 * Paired t-test: Student's one-sample t on the per-pair differences d
 * (B_i - A_i, or ln(B_i / A_i)), n - 1 df; diff is their mean with its
 * CI, stat the t, p two-sided; the centres and half-widths are NAN (the
 * caller has the sides).  Constant d: p = 1 when within a few ulps of 0
 * (measured against 1 or the largest |d|: the log-ratio of one value
 * rounded two ways), else 0.  n >= 2.
 */
int xvbd_stat_paired_t(const double *d, size_t n, double confidence,
		       struct xvbd_stat_cmp *out);

/* Two one-sided tests of equivalence (Schuirmann's TOST). */
struct xvbd_stat_tost {
	double p_low;		/* of H0 "effect <= low" */
	double p_high;		/* of H0 "effect >= high" */
	double p;		/* max of the two */
	double lo, hi;		/* the 1 - 2 alpha interval; NAN unknown */
	bool equivalent;	/* p < alpha: lo, hi inside (low, high) */
};
/*
 * For a t-distributed estimate est with standard error se on df
 * (paired: the mean of d, sd / sqrt(n), n - 1), margins low < high in
 * est's units.  alpha in (0, 0.5).
 */
int xvbd_stat_tost_t(double est, double se, double df, double low,
		     double high, double alpha, struct xvbd_stat_tost *out);
/*
 * For mean(B) / mean(A) of independent samples, margins r_low < r_high
 * (ratios, e.g. 0.98 and 1.02): each side's t is Welch's for mb - r ma
 * (the test Fieller's interval inverts), lo, hi Fieller's interval at
 * 1 - 2 alpha; not equivalent when that is unbounded.  na, nb >= 2.
 */
int xvbd_stat_tost_ratio(const double *a, size_t na, const double *b,
			 size_t nb, double r_low, double r_high, double alpha,
			 struct xvbd_stat_tost *out);

/*
 * The power of the two-sided level-alpha t-test whose statistic is
 * noncentral t on df with noncentrality ncp: P(|T| > t_{1-alpha/2,df}).
 */
double xvbd_stat_t_power(double alpha, double df, double ncp);
/*
 * The runs a design needs to detect effect (same units as the sds, e.g.
 * ln(1.05) with sds of ln(x)) with the given power by a two-sided
 * level-alpha t-test: the smallest n >= XVBD_STAT_RUNS_NEEDED_MIN whose
 * exact power (the noncentral t's) reaches it.
 *  - pairs: the paired t on n pairs of sd sd, n - 1 df, noncentrality
 *    effect sqrt(n) / sd;
 *  - runs: n per side of the two-sample t, 2n - 2 df, noncentrality
 *    effect sqrt(n / (sd_a^2 + sd_b^2)) (the pooled t's; Welch's df are
 *    fewer when the sds differ, so read it as a floor then).
 * Never below 3: below that every verdict is weak.  SIZE_MAX beyond
 * XVBD_STAT_RUNS_NEEDED_MAX; 0 on invalid input.  (The benchmark's
 * xvbd_seq_fixed_pairs() keeps the classic t-quantile formula.)
 */
#define XVBD_STAT_RUNS_NEEDED_MIN	3
#define XVBD_STAT_RUNS_NEEDED_MAX	100000
size_t xvbd_stat_pairs_needed(double alpha, double power, double sd,
			      double effect);
size_t xvbd_stat_runs_needed(double alpha, double power, double sd_a,
			     double sd_b, double effect);

/* ---- the sequential procedure ---- */

/*
 * Mixture likelihood ratio (e-value) of the one-sample t-test of
 * "mean 0" after n values with t-statistic t (df n - 1), mixing
 * parameter g (prior variance of the standardised effect):
 *	(1 + n g)^(-1/2) *
 *	((1 + t^2/(n-1)) / (1 + t^2/((n-1)(1 + n g))))^(n/2)
 * (checked against the Bayes factor by 2-D quadrature in the unit
 * test).  It is (1 + n g)^(-1/2) < 1 at t = 0, grows with |t| and is
 * bounded by (1 + n g)^((n-1)/2), its value at t = +-INFINITY.  n >= 2,
 * g > 0; NAN otherwise.
 */
double xvbd_seq_evalue(double t, size_t n, double g);

struct xvbd_seq_params {
	double alpha;		/* error rate, e.g. 0.05 */
	double g;		/* mixing parameter; 0 -> XVBD_SEQ_G_DEFAULT */
	double min_effect;	/* relative, e.g. 0.05 for 5 %; > 0 */
	/*
	 * Relative, in [0, 1): "equivalent" when the sequence lies inside
	 * (ln(1 - equivalence), ln(1 + equivalence)), B/A within +-P %;
	 * 0: inside +-ln(1 + min_effect), as without --equivalence.
	 */
	double equivalence;
	size_t max_pairs;	/* stop unsettled after this many pairs; >= 2 */
};

/*
 * g = 2: a prior sd of 1.4 on the standardised effect.  Tuned with
 * bench/ab-sequential at min effect 5 %: where a fixed design needs 10
 * or more pairs, g = 2 spends within 5 % of the fewest runs any g in
 * 0.5..8 spends at 2x the minimum effect.  A larger g lets the sequence
 * close after fewer pairs (the e-value's bound grows with g) but widens
 * it later (the (1 + n g)^(-1/2) cost), so experiments without a
 * difference take longer to settle; a smaller g the reverse.  See
 * bench/README.md.
 */
#define XVBD_SEQ_G_DEFAULT	2.0

enum xvbd_seq_decision {
	XVBD_SEQ_CONTINUE,	/* not settled: run another pair */
	XVBD_SEQ_DIFFERENT,	/* the sequence excludes "no difference" */
	XVBD_SEQ_EQUIVALENT,	/* the sequence lies inside +-min_effect */
	XVBD_SEQ_EXHAUSTED,	/* max_pairs reached, not settled */
};
const char *xvbd_seq_decision_name(enum xvbd_seq_decision d);

struct xvbd_seq_state {
	size_t n;		/* pairs so far */
	double mean, sd;	/* of d_i = ln(B_i / A_i); sd NAN below 2 */
	double lo, hi;		/* always-valid CS of the mean of d:
				   NAN, NAN before 2 pairs; -INFINITY,
				   INFINITY while no finite radius exists
				   (the e-value's bound (1 + n g)^((n-1)/2)
				   is below 1/alpha: n <= 3 at g = 2) */
	enum xvbd_seq_decision decision;
};

/*
 * Decide after n pairs of log-ratios d[0..n-1] (n may be 0 or 1:
 * CONTINUE).  The sequence is mean +- c_n sd / sqrt(n), c_n the |t| at
 * which the e-value reaches 1/alpha (solved in closed form).  DIFFERENT
 * when it excludes 0, EQUIVALENT when it lies inside
 * (ln(1/(1+min_effect)), ln(1+min_effect)) (with p->equivalence:
 * (ln(1-equivalence), ln(1+equivalence))); when both hold (a real
 * difference below the minimum effect) DIFFERENT, and lo, hi say how
 * small it is.  Otherwise EXHAUSTED at n >= max_pairs, else CONTINUE.
 * A verdict is wrong only if the sequence ever misses the true mean:
 * probability <= alpha over the whole experiment.
 */
int xvbd_seq_decide(const double *d, size_t n,
		    const struct xvbd_seq_params *p,
		    struct xvbd_seq_state *out);

/*
 * What the cap allows, for the warning before and during a run: the
 * pairs after which the sequence's radius at log-ratio sd is below
 * ln(1 + min_effect) (needed to settle "equivalent" at no effect, or
 * "different" at the minimum effect; SIZE_MAX beyond
 * XVBD_SEQ_SETTLE_MAX, 0 on invalid input); the largest sd for which
 * that happens within max_pairs; and the radius (in ln units) at
 * max_pairs.
 */
#define XVBD_SEQ_SETTLE_MAX	100000
size_t xvbd_seq_pairs_to_settle(const struct xvbd_seq_params *p, double sd);
double xvbd_seq_sd_settles(const struct xvbd_seq_params *p);
double xvbd_seq_radius_at_cap(const struct xvbd_seq_params *p, double sd);

/*
 * Fixed-N comparator for the benchmark: pairs a paired t-test needs for
 * power (1 - beta) at effect ln(1 + min_effect), given the log-ratio
 * standard deviation sd, at two-sided level alpha: the smallest n with
 * n >= ((t_{1-alpha/2,n-1} + t_{1-beta,n-1}) sd / ln(1 + min_effect))^2,
 * at least 2.  0 on invalid input.
 */
size_t xvbd_seq_fixed_pairs(double alpha, double beta, double sd,
			    double min_effect);

/* ---- a deterministic generator for simulations and benchmarks ---- */

struct xvbd_rng {
	uint64_t s[4];
};

void xvbd_rng_seed(struct xvbd_rng *r, uint64_t seed);
uint64_t xvbd_rng_next(struct xvbd_rng *r);
double xvbd_rng_uniform(struct xvbd_rng *r);		/* [0, 1) */
double xvbd_rng_normal(struct xvbd_rng *r);		/* N(0, 1), polar */

#endif /* XVBD_AB_STAT_H */
