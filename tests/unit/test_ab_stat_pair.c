/*
 * Unit tests: the paired t-test, the two one-sided tests of equivalence
 * and the runs-needed sizing (ab_stat_pair.c), and the sequential stop
 * on equivalence (ab_seq.c with --equivalence).
 *
 * Hand-checked values are worked in the comments; SciPy's for many more
 * cases are in test_ab_ref.c.  The simulations (fixed seeds) are the
 * issue's acceptance test of equivalence: a true effect outside the
 * margin is called "the same" at most alpha of the time.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/ab/ab_stat.h"
#include "unit_sim.h"

static void assert_rel(double got, double want, double rel)
{
	double err = fabs(got - want);

	if (!(err <= rel * fabs(want) || err <= 1e-300)) {
		print_error("got %.17g, want %.17g (rel %.3g > %.3g)\n", got,
			    want, err / fabs(want), rel);
		fail();
	}
}

/* As test_ab_stat.c: valgrind runs a tenth of each simulation. */
/* alpha + 3 Monte Carlo standard errors of a share alpha over n */
static double mc_limit(double alpha, size_t n)
{
	return alpha + 3 * sqrt(alpha * (1 - alpha) / (double)n);
}

/*
 * d = 1, 2, 3, 4: mean 2.5, sd sqrt(5/3) = 1.29099, se 0.645497,
 * t = 3.872983 on 3 df, two-sided p = 0.0304663, 95 % CI 2.5 -+
 * 3.182446 x 0.645497 = 0.445740 .. 4.554260 (SciPy 1.10
 * ttest_1samp(range(1, 5), 0) and its confidence_interval()).
 */
static void test_paired_t(void **state)
{
	static const double d[] = { 1, 2, 3, 4 };
	const double ulp = log(0.3 / (0.1 * 3));
	const double same[] = { ulp, ulp, ulp };
	static const double shift[] = { 1, 1, 1 };
	struct xvbd_stat_cmp c;

	(void)state;
	assert_int_equal(xvbd_stat_paired_t(d, 4, 0.95, &c), 0);
	assert_rel(c.diff, 2.5, 1e-15);
	assert_rel(c.stat, 3.872983346207417, 1e-12);
	assert_rel(c.df, 3, 0);
	assert_rel(c.p, 0.030466291662170977, 1e-9);
	assert_rel(c.diff_lo, 0.445739743239121, 1e-9);
	assert_rel(c.diff_hi, 4.5542602567608785, 1e-9);
	assert_true(c.significant);
	assert_true(isnan(c.centre_a) && isnan(c.half_b));
	/*
	 * ln(B/A) of one value rounded two ways, in every pair: an ulp
	 * (ln(0.3 / (0.1 * 3)) = -1.1e-16), no effect, p 1
	 */
	assert_int_equal(xvbd_stat_paired_t(same, 3, 0.95, &c), 0);
	assert_true(c.p == 1 && c.diff == 0 && !c.significant);
	assert_int_equal(xvbd_stat_paired_t((const double[]){ 0, 0, 0 }, 3,
					    0.95, &c), 0);
	assert_true(c.p == 1 && c.diff == 0 && !c.significant);
	/* constant non-zero: certain */
	assert_int_equal(xvbd_stat_paired_t(shift, 3, 0.95, &c), 0);
	assert_true(c.p == 0 && c.significant);
	assert_int_equal(xvbd_stat_paired_t(d, 1, 0.95, &c), -EINVAL);
	assert_int_equal(xvbd_stat_paired_t(d, 4, 1, &c), -EINVAL);
	assert_int_equal(xvbd_stat_paired_t((const double[]){ 1, NAN }, 2,
					    0.95, &c), -EINVAL);
}

/*
 * est 0.01, se 0.004, 9 df, margins -+0.05, alpha 0.05:
 * p_low = P(T9 > 15) = 5.6405e-8, p_high = P(T9 > 10) = 1.78912e-6
 * (SciPy t.sf); the 90 % interval 0.01 -+ 1.833113 x 0.004 =
 * 0.00266755 .. 0.01733245.
 */
static void test_tost_t(void **state)
{
	struct xvbd_stat_tost t;

	(void)state;
	assert_int_equal(xvbd_stat_tost_t(0.01, 0.004, 9, -0.05, 0.05, 0.05,
					  &t), 0);
	assert_rel(t.p_high, 1.78911871596237e-06, 1e-9);
	assert_rel(t.p_low, 5.6405110542452807e-08, 1e-8);
	assert_true(t.p == t.p_high);
	assert_rel(t.lo, 0.002667548269385466, 1e-9);
	assert_rel(t.hi, 0.017332451730614533, 1e-9);
	assert_true(t.equivalent);
	/* the interval pokes out of the margin: not shown */
	assert_int_equal(xvbd_stat_tost_t(0.04, 0.01, 9, -0.05, 0.05, 0.05,
					  &t), 0);
	assert_true(t.hi > 0.05 && !t.equivalent && t.p > 0.05);
	/* no noise: the value decides */
	assert_int_equal(xvbd_stat_tost_t(0.01, 0, 9, -0.05, 0.05, 0.05, &t),
			 0);
	assert_true(t.equivalent && t.p == 0);
	assert_int_equal(xvbd_stat_tost_t(0.06, 0, 9, -0.05, 0.05, 0.05, &t),
			 0);
	assert_false(t.equivalent);
	assert_int_equal(xvbd_stat_tost_t(0, 1, 9, 0.05, -0.05, 0.05, &t),
			 -EINVAL);
	assert_int_equal(xvbd_stat_tost_t(0, 1, 9, -0.05, 0.05, 0.5, &t),
			 -EINVAL);
}

/*
 * The ratio TOST and Fieller's interval at 1 - 2 alpha are one rule:
 * "same" exactly when the interval lies inside the margins, over many
 * random samples near the margins.
 */
static void test_tost_ratio_one_rule(void **state)
{
	struct xvbd_rng r;
	size_t i, k, same = 0, inside = 0;

	(void)state;
	xvbd_rng_seed(&r, 5);
	for (i = 0; i < 2000; i++) {
		double a[6], b[6], f = 1 + 0.04 * (xvbd_rng_uniform(&r) - 0.5);
		struct xvbd_stat_tost t;
		bool in;

		for (k = 0; k < 6; k++) {
			a[k] = 100 * (1 + 0.02 * xvbd_rng_normal(&r));
			b[k] = 100 * f * (1 + 0.02 * xvbd_rng_normal(&r));
		}
		assert_int_equal(xvbd_stat_tost_ratio(a, 6, b, 6, 0.98, 1.02,
						      0.05, &t), 0);
		in = t.lo > 0.98 && t.hi < 1.02;
		if (t.equivalent != in)
			print_error("case %zu: p %g, interval %g..%g\n", i,
				    t.p, t.lo, t.hi);
		assert_true(t.equivalent == in);
		same += t.equivalent;
		inside += in;
	}
	print_message("ratio TOST: %zu of 2000 same\n", same);
	assert_true(same > 100 && same < 1900);
	assert_int_equal(xvbd_stat_tost_ratio((const double[]){ 1, 2 }, 2,
					      (const double[]){ 1, 2 }, 2,
					      1.02, 0.98, 0.05, NULL),
			 -EINVAL);
}

/*
 * sd 0.1 a side, effect ln(1.05) = 0.04879, 5 %, power 80 %: the normal
 * approximation 2 (1.959964 + 0.841621)^2 0.01 / 0.04879^2 = 65.9; the
 * exact power of the two-sample t (noncentral t on 2n - 2 df) is 0.7945
 * at 66 and 0.8005 at 67 (SciPy).  Paired, sd 0.1 of the log-ratios:
 * 0.7885 at 34 pairs, 0.8007 at 35.
 */
static void test_runs_needed(void **state)
{
	double eff = log1p(0.05);

	(void)state;
	assert_int_equal(xvbd_stat_runs_needed(0.05, 0.8, 0.1, 0.1, eff), 67);
	assert_int_equal(xvbd_stat_pairs_needed(0.05, 0.8, 0.1, eff), 35);
	assert_true(fabs(xvbd_stat_t_power(0.05, 132, eff * sqrt(67 / 0.02)) -
			 0.8004898863358159) < 1e-8);
	/* more noise, more runs; a bigger effect, fewer */
	assert_true(xvbd_stat_runs_needed(0.05, 0.8, 0.2, 0.1, eff) > 67);
	assert_true(xvbd_stat_runs_needed(0.05, 0.8, 0.1, 0.1, 2 * eff) < 67);
	/*
	 * Never below 3 (a verdict on fewer is weak), constant sides too;
	 * beyond the cap SIZE_MAX; nonsense 0
	 */
	assert_int_equal(xvbd_stat_runs_needed(0.05, 0.8, 1e-6, 0, eff), 3);
	assert_int_equal(xvbd_stat_runs_needed(0.05, 0.8, 0, 0, eff), 3);
	assert_int_equal(xvbd_stat_pairs_needed(0.05, 0.8, 1e-6, eff), 3);
	assert_int_equal(xvbd_stat_runs_needed(0.05, 0.8, 100, 100, eff),
			 SIZE_MAX);
	assert_int_equal(xvbd_stat_runs_needed(0.05, 0.8, NAN, 0.1, eff), 0);
	assert_int_equal(xvbd_stat_runs_needed(0.05, 0.4, 0.1, 0.1, eff), 0);
	assert_int_equal(xvbd_stat_pairs_needed(0.05, 0.8, -1, eff), 0);
	/* a huge noncentrality is power 1, at once */
	assert_true(xvbd_stat_t_power(1e-5, 2, 1e12) == 1);
}

/*
 * The size is what it claims: with the runs it names, Welch's t at 5 %
 * finds the minimum effect in about 80 % of experiments (the sizing is
 * the pooled t's exact power; Welch's on equal sds is a hair below: at
 * least 78 %).
 */
static void test_sim_runs_needed_power(void **state)
{
	const size_t nsim = sim_count(4000);
	const double sd = 0.08, eff = log1p(0.05);
	size_t n = xvbd_stat_runs_needed(0.05, 0.8, sd, sd, eff), i, k, hit = 0;
	struct xvbd_rng r;
	double *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	xvbd_rng_seed(&r, 17);
	for (i = 0; i < nsim; i++) {
		struct xvbd_stat_cmp c;

		for (k = 0; k < n; k++) {
			a[k] = sd * xvbd_rng_normal(&r);
			b[k] = eff + sd * xvbd_rng_normal(&r);
		}
		assert_int_equal(xvbd_stat_welch(a, n, b, n, 0.95, &c), 0);
		hit += c.significant;
	}
	print_message("%zu runs a side: %zu of %zu found 5 %%\n", n, hit, nsim);
	assert_true((double)hit >= 0.78 * (double)nsim);
	/* paired: the noncentral t is the paired t's own power, exactly */
	k = n;
	n = xvbd_stat_pairs_needed(0.05, 0.8, sd, eff);
	assert_true(n <= k);	/* fits in a[] */
	for (i = hit = 0; i < nsim; i++) {
		struct xvbd_stat_cmp c;

		for (k = 0; k < n; k++)
			a[k] = eff + sd * xvbd_rng_normal(&r);
		assert_int_equal(xvbd_stat_paired_t(a, n, 0.95, &c), 0);
		hit += c.significant;
	}
	print_message("%zu pairs: %zu of %zu found 5 %%\n", n, hit, nsim);
	assert_true((double)hit >= 0.78 * (double)nsim);
	free(a);
	free(b);
}

/*
 * Equivalence's error rate (fixed seed): log-ratios of n pairs with a
 * true effect outside +-P must be called "the same" in at most alpha
 * (+ Monte Carlo error) of experiments.  At 2 x P (the case)
 * hardly ever; at the margin itself, where the rate is largest, about
 * alpha: a test built on the 1 - alpha interval instead would be too
 * strict there, one on the point estimate far too lax.
 */
static size_t sim_paired_same(struct xvbd_rng *r, size_t nsim, double eff,
			      double sd, double margin)
{
	size_t i, k, same = 0;

	for (i = 0; i < nsim; i++) {
		double d[10], se;
		struct xvbd_stat_tost t;

		for (k = 0; k < 10; k++)
			d[k] = eff + sd * xvbd_rng_normal(r);
		se = sqrt(xvbd_stat_var(d, 10) / 10);
		assert_int_equal(xvbd_stat_tost_t(xvbd_stat_mean(d, 10), se,
						  9, log1p(-margin),
						  log1p(margin), 0.05, &t), 0);
		same += t.equivalent;
	}
	return same;
}

static void test_sim_equivalence_error(void **state)
{
	const size_t nsim = sim_count(20000);
	const double P = 0.02, limit = mc_limit(0.05, nsim);
	struct xvbd_rng r;
	size_t at2p, edge, zero;

	(void)state;
	xvbd_rng_seed(&r, 26);
	/* sd 0.02 of ln(B/A), 10 pairs: close to the margin's size */
	at2p = sim_paired_same(&r, nsim, log1p(2 * P), 0.02, P);
	edge = sim_paired_same(&r, nsim, log1p(P), 0.02, P);
	zero = sim_paired_same(&r, nsim, 0, 0.02, P);
	print_message("paired TOST +-2 %%: same at 4 %% %.4f, at 2 %% %.4f "
		      "(limit %.4f), at 0 %.4f\n", (double)at2p / (double)nsim,
		      (double)edge / (double)nsim, limit,
		      (double)zero / (double)nsim);
	assert_true((double)at2p / (double)nsim <= limit);
	assert_true((double)edge / (double)nsim <= limit);
	/* not a test that never says "same": at the margin about alpha */
	assert_true((double)edge / (double)nsim >= 0.03);
	assert_true((double)zero / (double)nsim > 0.5);
}

/* The same for two independent sides (Welch / Fieller) at 2 x P. */
static void test_sim_equivalence_ratio_error(void **state)
{
	/* Fieller's interval is a root search: fewer experiments */
	const size_t nsim = sim_count(5000);
	const double P = 0.02, limit = mc_limit(0.05, nsim);
	struct xvbd_rng r;
	size_t i, k, at2p = 0, edge = 0;

	(void)state;
	xvbd_rng_seed(&r, 62);
	for (i = 0; i < 2 * nsim; i++) {
		double a[8], b[8], f = i < nsim ? 1 + 2 * P : 1 + P;
		struct xvbd_stat_tost t;

		for (k = 0; k < 8; k++) {
			a[k] = 1000 * (1 + 0.02 * xvbd_rng_normal(&r));
			b[k] = 1000 * f * (1 + 0.02 * xvbd_rng_normal(&r));
		}
		assert_int_equal(xvbd_stat_tost_ratio(a, 8, b, 8, 1 - P, 1 + P,
						      0.05, &t), 0);
		if (i < nsim)
			at2p += t.equivalent;
		else
			edge += t.equivalent;
	}
	print_message("ratio TOST +-2 %%: same at 4 %% %.4f, at 2 %% %.4f "
		      "(limit %.4f)\n", (double)at2p / (double)nsim,
		      (double)edge / (double)nsim, limit);
	assert_true((double)at2p / (double)nsim <= limit);
	assert_true((double)edge / (double)nsim <= limit);
	assert_true((double)edge / (double)nsim >= 0.03);
}

/*
 * ab run --until-confident --equivalence P: the always-valid sequence
 * stops on "equivalent" when it lies inside +-P %.  With a true effect
 * of 2 x P, watched after every pair up to 60, it may do so at most
 * alpha of the time (Ville: the sequence misses the truth that rarely);
 * with no effect and P = 15 % while the minimum effect is 1 %, it
 * settles "equivalent" most of the time (it could not within +-1 %).
 */
static enum xvbd_seq_decision sim_seq(struct xvbd_rng *r, double eff,
				      double sd,
				      const struct xvbd_seq_params *p)
{
	double d[60];
	struct xvbd_seq_state s = { 0 };
	size_t n;

	for (n = 1; n <= p->max_pairs; n++) {
		d[n - 1] = eff + sd * xvbd_rng_normal(r);
		assert_int_equal(xvbd_seq_decide(d, n, p, &s), 0);
		if (s.decision != XVBD_SEQ_CONTINUE)
			break;
	}
	return s.decision;
}

static void test_sim_seq_equivalence(void **state)
{
	const size_t nsim = sim_count(4000);
	struct xvbd_seq_params p = {
		.alpha = 0.05, .min_effect = 0.01, .equivalence = 0.05,
		.max_pairs = 60,
	};
	struct xvbd_rng r;
	size_t i, wrong = 0, settled = 0;

	(void)state;
	xvbd_rng_seed(&r, 2626);
	for (i = 0; i < nsim; i++)
		wrong += sim_seq(&r, log1p(2 * p.equivalence), 0.05, &p) ==
			 XVBD_SEQ_EQUIVALENT;
	p.equivalence = 0.15;
	for (i = 0; i < nsim; i++)
		settled += sim_seq(&r, 0, 0.05, &p) == XVBD_SEQ_EQUIVALENT;
	print_message("sequential +-5 %%: equivalent at 10 %% %.4f (limit "
		      "%.4f); +-15 %% at 0: %.4f\n",
		      (double)wrong / (double)nsim, mc_limit(0.05, nsim),
		      (double)settled / (double)nsim);
	assert_true((double)wrong / (double)nsim <= mc_limit(0.05, nsim));
	assert_true((double)settled / (double)nsim > 0.9);
	p.equivalence = 1;
	assert_int_equal(xvbd_seq_decide((const double[]){ 0, 0 }, 2, &p,
					 &(struct xvbd_seq_state){ 0 }),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired_t),
		cmocka_unit_test(test_tost_t),
		cmocka_unit_test(test_tost_ratio_one_rule),
		cmocka_unit_test(test_runs_needed),
		cmocka_unit_test(test_sim_runs_needed_power),
		cmocka_unit_test(test_sim_equivalence_error),
		cmocka_unit_test(test_sim_equivalence_ratio_error),
		cmocka_unit_test(test_sim_seq_equivalence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
