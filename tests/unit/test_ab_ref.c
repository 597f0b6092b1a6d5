/*
 * Unit test: `ab compare`'s numbers against an independent
 * implementation.  The references in ab_ref_cases.h were computed with
 * SciPy by tests/unit/ab_ref_gen.py (which says what each one is); here
 * each case's runs become records (a run summary of one decimal is
 * reproduced exactly: a request count over 10 s), ab compare runs on
 * them with Welch's t and with Mann-Whitney U, and every number of the
 * read_iops line is checked: Welch's t, df and p, the centres'
 * half-widths, the difference and its interval, Fieller's interval of
 * the ratio (or its absence), U and its p, the Hodges-Lehmann shift and
 * its interval, the medians' half-widths.  A second table checks the
 * paired analysis of one ab run experiment's pairs (the paired t of
 * ln(B/A): t, df, p, the geometric mean's % and its interval; the mean
 * difference's interval), the equivalence test (its p and 90 % interval,
 * paired and by Welch's ratio test) and the runs needed.  The largest
 * relative error per quantity is printed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"
#include "ab_testrec.h"

#define REF_MAXRUNS	40

struct ref_case {
	const char *name;
	size_t na, nb;
	double a[REF_MAXRUNS], b[REF_MAXRUNS];
	double w_t, w_df, w_p, w_diff, w_lo, w_hi, half_a, half_b;
	double f_lo, f_hi;		/* ratio B/A; NAN: no interval */
	double u, u_p, hl, hl_lo, hl_hi, med_half_a, med_half_b;
	int exact;
};

struct ref_pair_case {
	const char *name;
	int paired;		/* runs of one experiment, pair i = run i */
	double margin;		/* --equivalence, relative */
	size_t na, nb;
	double a[REF_MAXRUNS], b[REF_MAXRUNS];
	/*
	 * paired only (NAN otherwise): on the ratio scale, the geometric
	 * means, B-A at A's, and the raw differences' mean
	 */
	double t, df, p, pct, pct_lo, pct_hi, gm_a, gm_b, diff, diff_lo,
	       diff_hi, raw, raw_lo, raw_hi;
	double eq_p, eq_lo, eq_hi;	/* TOST p, 90 % interval in % */
	size_t runs;			/* runs (pairs) for 5 % at 80 % */
};

/* Fieller's whole set: pieces (ratios B/A), or unbounded. */
struct ref_set_case {
	const char *name;
	size_t na, nb;
	double a[REF_MAXRUNS], b[REF_MAXRUNS];
	int unbounded;
	size_t n;
	double lo[4], hi[4];
};

/* A design's runs needed (paired: pairs, sd_a the log-ratios' sd). */
struct ref_runs_case {
	int paired;
	double alpha, power, sd_a, sd_b, effect;
	size_t n;
	double power_n, power_below;	/* at n and n - 1 (NAN: n is 3) */
};

#include "ab_ref_cases.h"

enum qty {
	Q_T, Q_DF, Q_P, Q_DIFF, Q_DIFF_CI, Q_HALF, Q_FIELLER,
	Q_U, Q_U_P, Q_HL, Q_HL_CI, Q_MED_HALF,
	Q_PT, Q_PDF, Q_PP, Q_PPCT, Q_PPCT_CI, Q_PGM, Q_PDIFF, Q_PDIFF_CI,
	Q_PRAW, Q_PRAW_CI, Q_EQ_P, Q_EQ_CI, Q_RUNS, Q_SET, Q_NCT, Q_POWER,
	Q_N,
};

static const char *const qty_name[Q_N] = {
	"Welch t", "Welch df", "Welch p", "B-A (means)", "B-A interval",
	"centre half-widths (t)", "Fieller ratio interval", "MWU U",
	"MWU p", "Hodges-Lehmann shift", "Hodges-Lehmann interval",
	"median half-widths", "paired t", "paired df", "paired p",
	"paired % (geometric)", "paired % interval",
	"paired geometric means", "paired B-A (at A's)",
	"paired B-A interval", "paired raw B-A", "paired raw B-A interval",
	"TOST p", "TOST 90 % interval", "runs needed",
	"Fieller's set, its pieces", "noncentral t CDF",
	"t-test power (noncentral t)",
};

/* Tolerated relative error: double-precision work on both sides. */
static const double qty_tol[Q_N] = {
	1e-9, 1e-9, 1e-9, 1e-12, 1e-9, 1e-9, 1e-9, 0, 1e-9, 1e-12, 1e-12,
	1e-12, 1e-9, 0, 1e-9, 1e-9, 1e-9, 1e-12, 1e-9, 1e-9, 1e-12, 1e-9,
	1e-9, 1e-9, 0, 1e-9, 1e-9, 1e-9,
};

struct label {
	struct trec run[REF_MAXRUNS];
	struct xvbd_ab_record rec[REF_MAXRUNS];
	char ids[REF_MAXRUNS][32];
};

static struct label lab_a, lab_b;
static double max_rel[Q_N];
static size_t checked[Q_N];

static void make_label(struct label *l, const char *name, const double *v,
		       size_t n)
{
	size_t i, k;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++) {
		struct trec *t = &l->run[i];

		snprintf(l->ids[i], sizeof(l->ids[i]), "%s-%zu", name, i);
		trec_init(t, name, l->ids[i], 1);
		trec_fact(t, "workload", "fio");
		for (k = 0; k <= 10; k++) {
			uint64_t req = (uint64_t)(v[i] * (double)k + 0.5);

			trec_add(t, k * 1000, req, 0, req * 8, 0, k * 300,
				 k * 100);
		}
		l->rec[i] = t->r;
	}
}

/* got against want: both NAN (no value), or within the tolerance. */
static void check(const struct ref_case *rc, enum qty q, double got,
		  double want)
{
	double err;

	if (isnan(want) || isnan(got)) {
		if (isnan(want) != isnan(got))
			print_error("%s: %s: got %.17g, want %.17g\n",
				    rc->name, qty_name[q], got, want);
		assert_true(isnan(want) == isnan(got));
		return;
	}
	err = fabs(got - want) / (want != 0 ? fabs(want) : 1);
	if (err > max_rel[q])
		max_rel[q] = err;
	checked[q]++;
	if (err > qty_tol[q])
		print_error("%s: %s: got %.17g, want %.17g (rel %.3g)\n",
			    rc->name, qty_name[q], got, want, err);
	assert_true(err <= qty_tol[q]);
}

static void check_welch(const struct ref_case *rc)
{
	struct xvbd_ab_comparison c;
	const struct xvbd_stat_cmp_view *s;

	assert_int_equal(xvbd_ab_compare(lab_a.rec, rc->na, lab_b.rec, rc->nb,
					 0.95, XVBD_AB_TEST_WELCH, &c), 0);
	s = &c.m[XVBD_AB_RD_IOPS].s;
	/* both sides constant: a convention, not SciPy's (NAN there) */
	if (!isnan(rc->w_t)) {
		check(rc, Q_T, s->stat, rc->w_t);
		check(rc, Q_DF, s->df, rc->w_df);
		check(rc, Q_P, s->p, rc->w_p);
	}
	check(rc, Q_DIFF, s->diff, rc->w_diff);
	check(rc, Q_DIFF_CI, s->diff_ci.lo, rc->w_lo);
	check(rc, Q_DIFF_CI, s->diff_ci.hi, rc->w_hi);
	check(rc, Q_HALF, s->half_a, rc->half_a);
	check(rc, Q_HALF, s->half_b, rc->half_b);
	check(rc, Q_FIELLER, 1 + s->pct_ci.lo / 100, rc->f_lo);
	check(rc, Q_FIELLER, 1 + s->pct_ci.hi / 100, rc->f_hi);
	xvbd_ab_comparison_free(&c);
}

static void check_mwu(const struct ref_case *rc)
{
	struct xvbd_ab_comparison c;
	const struct xvbd_stat_cmp_view *s;

	assert_int_equal(xvbd_ab_compare(lab_a.rec, rc->na, lab_b.rec, rc->nb,
					 0.95, XVBD_AB_TEST_MWU, &c), 0);
	s = &c.m[XVBD_AB_RD_IOPS].s;
	check(rc, Q_U, s->stat, rc->u);
	check(rc, Q_U_P, s->p, rc->u_p);
	check(rc, Q_HL, s->diff, rc->hl);
	check(rc, Q_HL_CI, s->diff_ci.lo, rc->hl_lo);
	check(rc, Q_HL_CI, s->diff_ci.hi, rc->hl_hi);
	check(rc, Q_MED_HALF, s->half_a, rc->med_half_a);
	check(rc, Q_MED_HALF, s->half_b, rc->med_half_b);
	xvbd_ab_comparison_free(&c);
}

static void test_against_scipy(void **state)
{
	size_t i, q, ties = 0, small = 0, constant = 0, unequal = 0;

	(void)state;
	assert_true(REF_NCASES >= 40);
	for (i = 0; i < REF_NCASES; i++) {
		const struct ref_case *rc = &ref_cases[i];

		make_label(&lab_a, "A", rc->a, rc->na);
		make_label(&lab_b, "B", rc->b, rc->nb);
		check_welch(rc);
		check_mwu(rc);
		ties += !rc->exact && rc->na <= 20 && rc->nb <= 20;
		small += rc->na == 2 || rc->nb == 2;
		constant += rc->half_a == 0 || rc->half_b == 0;
		unequal += rc->na != rc->nb;
	}
	for (q = 0; q < Q_PT; q++)
		print_message("%-26s %3zu values, max relative error %.3g\n",
			      qty_name[q], checked[q], max_rel[q]);
	print_message("%d cases: %zu with ties, %zu with n = 2, %zu unequal "
		      "n, constant sides in some\n", REF_NCASES, ties, small,
		      unequal);
	/* the fixture covers what it claims */
	assert_true(ties >= 8 && small >= 8 && unequal >= 20 && constant);
	for (q = 0; q < Q_PT; q++)
		assert_true(checked[q] >= 20);
}

static void make_pairs(struct label *l, const char *name, const double *v,
		       size_t n, bool is_paired)
{
	size_t i;

	make_label(l, name, v, n);
	for (i = 0; i < n && is_paired; i++) {
		l->rec[i].experiment = (char *)"ab-run-20261206T000000-0000";
		l->rec[i].pair = (uint32_t)(i + 1);
	}
}

static void check_pair_case(const struct ref_pair_case *rc)
{
	/* ref_case's name only: check() reads nothing else */
	const struct ref_case named = { .name = rc->name };
	struct xvbd_ab_compare_opts o = {
		.confidence = 0.95, .test = XVBD_AB_TEST_WELCH,
		.equivalence = rc->margin,
	};
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;

	make_pairs(&lab_a, "A", rc->a, rc->na, rc->paired);
	make_pairs(&lab_b, "B", rc->b, rc->nb, rc->paired);
	assert_int_equal(xvbd_ab_compare_with(lab_a.rec, rc->na, lab_b.rec,
					      rc->nb, &o, &c), 0);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->test, rc->paired ? XVBD_AB_TEST_PAIRED :
			 XVBD_AB_TEST_WELCH);
	if (rc->paired) {
		check(&named, Q_PT, m->s.stat, rc->t);
		check(&named, Q_PDF, m->s.df, rc->df);
		check(&named, Q_PP, m->s.p, rc->p);
		check(&named, Q_PPCT, m->s.pct, rc->pct);
		check(&named, Q_PPCT_CI, m->s.pct_ci.lo, rc->pct_lo);
		check(&named, Q_PPCT_CI, m->s.pct_ci.hi, rc->pct_hi);
		check(&named, Q_PGM, m->s.centre_a, rc->gm_a);
		check(&named, Q_PGM, m->s.centre_b, rc->gm_b);
		check(&named, Q_PDIFF, m->s.diff, rc->diff);
		check(&named, Q_PDIFF_CI, m->s.diff_ci.lo, rc->diff_lo);
		check(&named, Q_PDIFF_CI, m->s.diff_ci.hi, rc->diff_hi);
		check(&named, Q_PRAW, m->raw_diff, rc->raw);
		check(&named, Q_PRAW_CI, m->raw_ci.lo, rc->raw_lo);
		check(&named, Q_PRAW_CI, m->raw_ci.hi, rc->raw_hi);
	}
	check(&named, Q_EQ_P, m->eq_p, rc->eq_p);
	check(&named, Q_EQ_CI, m->eq_ci.lo, rc->eq_lo);
	check(&named, Q_EQ_CI, m->eq_ci.hi, rc->eq_hi);
	/* one rule: "same" exactly when both one-sided tests reject */
	assert_int_equal(m->equiv == XVBD_AB_EQ_SAME,
			 rc->eq_p < 0.05 && !isnan(rc->eq_lo) &&
			 (rc->paired || (rc->na >= 3 && rc->nb >= 3)));
	check(&named, Q_RUNS, (double)m->runs_needed, (double)rc->runs);
	xvbd_ab_comparison_free(&c);
}

static void test_pairs_against_scipy(void **state)
{
	size_t i, q, npaired = 0, nequiv = 0, same = 0;

	(void)state;
	memset(max_rel, 0, sizeof(max_rel));
	memset(checked, 0, sizeof(checked));
	for (i = 0; i < REF_NPAIR_CASES; i++) {
		check_pair_case(&ref_pair_cases[i]);
		npaired += ref_pair_cases[i].paired;
		nequiv += !ref_pair_cases[i].paired;
		same += ref_pair_cases[i].eq_p < 0.05;
	}
	for (q = Q_PT; q < Q_SET; q++)
		print_message("%-26s %3zu values, max relative error %.3g\n",
			      qty_name[q], checked[q], max_rel[q]);
	print_message("%d cases: %zu paired, %zu unpaired with equivalence, "
		      "%zu of them \"same\"\n", REF_NPAIR_CASES, npaired,
		      nequiv, same);
	/* at least 10 of each, and both verdicts of equivalence */
	assert_true(npaired >= 10 && nequiv >= 10);
	assert_true(same >= 3 && same <= REF_NPAIR_CASES - 3);
}

static void print_max(enum qty q)
{
	print_message("%-26s %3zu values, max relative error %.3g\n",
		      qty_name[q], checked[q], max_rel[q]);
}

/*
 * Fieller's set in pieces (B on 2 runs: 1 df, so ratios near 0 pass
 * while ratios between them and the estimate do not), as SciPy finds it
 * over the whole line; through ab compare, the % set and its text.
 */
static void test_fieller_sets(void **state)
{
	const struct ref_case named = { .name = "fieller set" };
	size_t i, k, pieces = 0, unbounded = 0;

	(void)state;
	for (i = 0; i < REF_NSET_CASES; i++) {
		const struct ref_set_case *rc = &ref_set_cases[i];
		struct xvbd_stat_set set;
		struct xvbd_ab_comparison c;
		const struct xvbd_ab_ci *ci;

		assert_int_equal(xvbd_stat_fieller_set(rc->a, rc->na, rc->b,
						       rc->nb, 0.95, &set), 0);
		assert_int_equal(set.unbounded, rc->unbounded);
		unbounded += rc->unbounded;
		if (rc->unbounded)
			continue;
		assert_int_equal(set.n, rc->n);
		pieces += rc->n > 1;
		for (k = 0; k < rc->n; k++) {
			check(&named, Q_SET, set.lo[k], rc->lo[k]);
			check(&named, Q_SET, set.hi[k], rc->hi[k]);
		}
		make_label(&lab_a, "A", rc->a, rc->na);
		make_label(&lab_b, "B", rc->b, rc->nb);
		assert_int_equal(xvbd_ab_compare(lab_a.rec, rc->na, lab_b.rec,
						 rc->nb, 0.95,
						 XVBD_AB_TEST_WELCH, &c), 0);
		ci = &c.m[XVBD_AB_RD_IOPS].s.pct_ci;
		assert_int_equal(ci->npieces, rc->n);
		for (k = 0; k < rc->n; k++) {
			check(&named, Q_SET, 1 + ci->piece_lo[k] / 100,
			      rc->lo[k]);
			check(&named, Q_SET, 1 + ci->piece_hi[k] / 100,
			      rc->hi[k]);
		}
		xvbd_ab_comparison_free(&c);
	}
	print_max(Q_SET);
	print_message("%d sets: %zu in pieces, %zu unbounded\n",
		      REF_NSET_CASES, pieces, unbounded);
	assert_true(pieces >= 5 && unbounded >= 2 &&
		    REF_NSET_CASES - pieces - unbounded >= 4);
}

/* The noncentral t's CDF against SciPy's (Boost's). */
static void test_nct_cdf(void **state)
{
	const struct ref_case named = { .name = "nct" };
	size_t i;

	(void)state;
	for (i = 0; i < REF_NNCT_CASES; i++) {
		const double *r = ref_nct_cases[i];
		double got = xvbd_stat_nct_cdf(r[0], r[1], r[2]);

		/*
		 * To 1e-13 absolutely everywhere (a power is a sum of two
		 * tails: what matters is absolute), and relatively where
		 * the value is not small (a lower tail of t < 0 is 1 minus
		 * an upper one, whose cancellation leaves ~1e-16)
		 */
		if (fabs(got - r[3]) > 1e-13)
			print_error("t %g df %g ncp %g: got %.17g, want "
				    "%.17g\n", r[0], r[1], r[2], got, r[3]);
		assert_true(fabs(got - r[3]) <= 1e-13);
		if (r[3] >= 1e-3)
			check(&named, Q_NCT, got, r[3]);
	}
	print_max(Q_NCT);
	assert_true(checked[Q_NCT] >= 150);
}

/*
 * The runs a design needs, paired and unpaired, against SciPy's own
 * search on the noncentral t's power, from 3 to 1000 runs; the power at
 * the answer and one below it too.
 */
static void test_runs_needed(void **state)
{
	const struct ref_case named = { .name = "runs needed" };
	size_t i, lo[2] = { SIZE_MAX, SIZE_MAX }, hi[2] = { 0, 0 };

	(void)state;
	for (i = 0; i < REF_NRUNS_CASES; i++) {
		const struct ref_runs_case *rc = &ref_runs_cases[i];
		double k = rc->paired ? rc->sd_a * rc->sd_a :
			   rc->sd_a * rc->sd_a + rc->sd_b * rc->sd_b;
		size_t n = rc->paired ?
			   xvbd_stat_pairs_needed(rc->alpha, rc->power,
						  rc->sd_a, rc->effect) :
			   xvbd_stat_runs_needed(rc->alpha, rc->power,
						 rc->sd_a, rc->sd_b,
						 rc->effect);
		double df = rc->paired ? (double)n - 1 : 2 * (double)n - 2;

		if (n != rc->n)
			print_error("case %zu (%s, alpha %g, power %g): %zu, "
				    "SciPy %zu\n", i, rc->paired ? "pairs" :
				    "runs", rc->alpha, rc->power, n, rc->n);
		assert_int_equal(n, rc->n);
		check(&named, Q_RUNS, (double)n, (double)rc->n);
		check(&named, Q_POWER, xvbd_stat_t_power(rc->alpha, df,
			rc->effect * sqrt((double)n / k)), rc->power_n);
		if (!isnan(rc->power_below))
			check(&named, Q_POWER, xvbd_stat_t_power(rc->alpha,
				df - (rc->paired ? 1 : 2), rc->effect *
				sqrt((double)(n - 1) / k)), rc->power_below);
		if (n < lo[rc->paired])
			lo[rc->paired] = n;
		if (n > hi[rc->paired])
			hi[rc->paired] = n;
	}
	print_max(Q_RUNS);
	print_max(Q_POWER);
	print_message("%d designs: pairs %zu to %zu, runs per side %zu to "
		      "%zu\n", REF_NRUNS_CASES, lo[1], hi[1], lo[0], hi[0]);
	assert_true(lo[0] == 3 && lo[1] == 3 && hi[0] >= 900 && hi[1] >= 900);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_scipy),
		cmocka_unit_test(test_pairs_against_scipy),
		cmocka_unit_test(test_fieller_sets),
		cmocka_unit_test(test_nct_cdf),
		cmocka_unit_test(test_runs_needed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
