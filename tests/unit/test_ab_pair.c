/*
 * Unit tests: what ab compare adds to "different or not" - the paired
 * analysis of one ab run experiment's ABBA pairs (ab_compare_pair.c),
 * the equivalence verdict (--equivalence), the runs needed, their text
 * and JSON; and the records' experiment id and pair index (ab_json.c).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "xvbd/ab/ab.h"
#include "xvbd/base/out.h"
#include "ab_testrec.h"
#include "ab_testutil.h"

#define MAXRUNS	8
#define EXP_ID	"ab-run-20240501T120000-beef"

struct label {
	struct trec run[MAXRUNS];
	struct xvbd_ab_record rec[MAXRUNS];
	char ids[MAXRUNS][64];
	size_t n;
};

/*
 * One label's runs with the given read rates (10 one-second intervals),
 * the same facts on both sides but ring_pages (the variable); pair
 * indices 1..n of experiment exp (NULL: recorded alone).
 */
static void make_label(struct label *l, const char *name,
		       const double *iops, size_t n, const char *exp)
{
	size_t i, k;

	memset(l, 0, sizeof(*l));
	l->n = n;
	for (i = 0; i < n; i++) {
		struct trec *t = &l->run[i];

		snprintf(l->ids[i], sizeof(l->ids[i]),
			 "%s-20240501T1200%02zu-abcd", name, i);
		trec_init(t, name, l->ids[i], 1);
		trec_fact(t, "vbd.xvdb.ring_pages", name[0] == 'a' ? "1" :
			  "8");
		trec_fact(t, "workload", "fio");
		t->r.experiment = (char *)exp;
		t->r.pair = exp ? (uint32_t)(i + 1) : 0;
		for (k = 0; k <= 10; k++) {
			uint64_t req = (uint64_t)(iops[i] * (double)k + 0.5);

			trec_add(t, k * 1000, req, 0, req * 8, 0, k * 300,
				 k * 100);
		}
	}
}

static struct xvbd_ab_record *recs(struct label *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		l->rec[i] = l->run[i].r;
	return l->rec;
}

/*
 * The host drifts over the experiment (each pair slower than the last)
 * and B is 2 % faster than A within every pair: the pairs see the 2 %,
 * two independent samples see mostly the drift.
 */
static const double drift_a[] = { 1000, 1200, 1400, 1600, 1800, 2000 };
static const double drift_b[] = { 1021, 1223, 1429, 1631, 1837, 2039 };

static void compare(struct label *a, struct label *b,
		    const struct xvbd_ab_compare_opts *o,
		    struct xvbd_ab_comparison *c)
{
	assert_int_equal(xvbd_ab_compare_with(recs(a), a->n, recs(b), b->n,
					      o, c), 0);
}

static void test_paired_by_default(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	const char *exp = NULL;

	(void)state;
	make_label(&a, "a", drift_a, 6, EXP_ID);
	make_label(&b, "b", drift_b, 6, EXP_ID);
	assert_true(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 6, &exp));
	assert_string_equal(exp, EXP_ID);
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(c.test, XVBD_AB_TEST_PAIRED);
	assert_int_equal(c.pairs, 6);
	assert_string_equal(c.experiment, EXP_ID);
	assert_int_equal(m->test, XVBD_AB_TEST_PAIRED);
	assert_int_equal(m->npairs, 6);
	assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
	assert_true(m->s.p < 1e-6);
	/* the geometric mean of B/A, about 2 %, with its interval */
	assert_true(m->s.pct > 1.9 && m->s.pct < 2.2);
	assert_true(m->s.pct_ci.lo > 1.5 && m->s.pct_ci.hi < 2.5);
	/*
	 * Every number on the test's scale: the centres are the geometric
	 * means over the pairs, B - A is theirs (the ratio at A's)
	 */
	assert_int_equal(m->scale, XVBD_AB_SCALE_RATIO);
	assert_true(m->s.centre_a > 1400 && m->s.centre_a < 1500);
	assert_true(fabs(m->s.diff - (m->s.centre_b - m->s.centre_a)) <
		    1e-9 * m->s.centre_a);
	assert_true(fabs(m->s.diff / m->s.centre_a * 100 - m->s.pct) < 1e-9);
	assert_false(m->raw_disagrees);
	assert_int_equal((int)m->s.df, 5);
	xvbd_ab_comparison_free(&c);

	/* asked to ignore the pairs: the drift hides the 2 % */
	o.unpaired = true;
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(c.test, XVBD_AB_TEST_WELCH);
	assert_int_equal(m->test, XVBD_AB_TEST_WELCH);
	assert_int_equal(c.pairs, 0);
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	xvbd_ab_comparison_free(&c);
}

/* A pair missing, or runs of two experiments: the unpaired test. */
static void test_unpaired_otherwise(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "a", drift_a, 6, EXP_ID);
	make_label(&b, "b", drift_b, 5, EXP_ID);
	assert_false(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 5, NULL));
	compare(&a, &b, &o, &c);
	assert_int_equal(c.test, XVBD_AB_TEST_WELCH);
	assert_null(c.experiment);
	xvbd_ab_comparison_free(&c);

	make_label(&b, "b", drift_b, 6, EXP_ID);
	b.run[3].r.experiment = (char *)"ab-run-20240502T120000-beef";
	assert_false(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 6, NULL));
	/* a pair index twice on one side, or on the other */
	b.run[3].r.experiment = (char *)EXP_ID;
	b.run[3].r.pair = 1;
	assert_false(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 6, NULL));
	b.run[3].r.pair = 4;
	a.run[3].r.pair = 1;
	assert_false(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 6, NULL));
	a.run[3].r.pair = 4;
	assert_true(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 6, NULL));
	/* recorded alone: no experiment */
	make_label(&b, "b", drift_b, 6, NULL);
	assert_false(xvbd_ab_records_paired(recs(&a), 6, recs(&b), 6, NULL));
	/* Mann-Whitney stays unpaired: there is no paired U here */
	make_label(&b, "b", drift_b, 6, EXP_ID);
	o.test = XVBD_AB_TEST_MWU;
	compare(&a, &b, &o, &c);
	assert_int_equal(c.test, XVBD_AB_TEST_MWU);
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].test, XVBD_AB_TEST_MWU);
	xvbd_ab_comparison_free(&c);
}

/* Pairs out of order (B's second run of a pair first): by index. */
static void test_pairs_by_index(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c, d;

	(void)state;
	make_label(&a, "a", drift_a, 6, EXP_ID);
	make_label(&b, "b", drift_b, 6, EXP_ID);
	compare(&a, &b, &o, &c);
	/* swap two of B's runs with their pair indices */
	{
		struct trec t = b.run[1];

		b.run[1] = b.run[4];
		b.run[4] = t;
		/* trec keeps pointers into itself: fix them up */
		for (size_t i = 0; i < 6; i++) {
			b.run[i].r.samples = b.run[i].s;
			b.run[i].r.fp.facts = b.run[i].facts;
			b.run[i].r.vdevs = b.run[i].vdevs;
			for (size_t k = 0; k < T_SAMPLES; k++)
				b.run[i].s[k].vbds = b.run[i].v[k];
		}
	}
	compare(&a, &b, &o, &d);
	assert_int_equal(d.test, XVBD_AB_TEST_PAIRED);
	assert_true(c.m[XVBD_AB_RD_IOPS].s.p == d.m[XVBD_AB_RD_IOPS].s.p);
	assert_true(c.m[XVBD_AB_RD_IOPS].s.pct == d.m[XVBD_AB_RD_IOPS].s.pct);
	xvbd_ab_comparison_free(&c);
	xvbd_ab_comparison_free(&d);
}

static const double tight_a[] = { 1000, 1003, 998, 1001, 999, 1002 };
static const double tight_b[] = { 1001, 1002, 999, 1000, 1001, 1003 };

static void test_equivalence(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = {
		.confidence = 0.95, .equivalence = 0.02,
	};
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		/* paired, Welch, Mann-Whitney */
		make_label(&a, "a", tight_a, 6, i ? NULL : EXP_ID);
		make_label(&b, "b", tight_b, 6, i ? NULL : EXP_ID);
		o.test = i == 2 ? XVBD_AB_TEST_MWU : XVBD_AB_TEST_WELCH;
		o.equivalence = 0.02;
		compare(&a, &b, &o, &c);
		m = &c.m[XVBD_AB_RD_IOPS];
		assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
		assert_int_equal(m->equiv, XVBD_AB_EQ_SAME);
		assert_true(m->eq_ci.lo > -2 && m->eq_ci.hi < 2);
		assert_true(i == 2 ? isnan(m->eq_p) : m->eq_p < 0.05);
		/* no I/O of that kind: nothing to call the same */
		assert_int_equal(c.m[XVBD_AB_WR_LAT_MS].equiv,
				 XVBD_AB_EQ_NOT_ASKED);
		xvbd_ab_comparison_free(&c);
		/* a margin tighter than the noise: not shown */
		o.equivalence = 0.001;
		compare(&a, &b, &o, &c);
		m = &c.m[XVBD_AB_RD_IOPS];
		assert_int_equal(m->equiv, XVBD_AB_EQ_NOT_SHOWN);
		xvbd_ab_comparison_free(&c);
	}
	/*
	 * One rule for every test: "same" exactly when the interval lies
	 * inside the margin, at margins around the interval's own size.
	 */
	for (i = 0; i < 3; i++) {
		double P;

		make_label(&a, "a", tight_a, 6, i ? NULL : EXP_ID);
		make_label(&b, "b", tight_b, 6, i ? NULL : EXP_ID);
		o.test = i == 2 ? XVBD_AB_TEST_MWU : XVBD_AB_TEST_WELCH;
		for (P = 0.0005; P < 0.01; P *= 1.25) {
			o.equivalence = P;
			compare(&a, &b, &o, &c);
			m = &c.m[XVBD_AB_RD_IOPS];
			assert_int_equal(m->equiv == XVBD_AB_EQ_SAME,
					 m->eq_ci.lo > -P * 100 &&
					 m->eq_ci.hi < P * 100);
			xvbd_ab_comparison_free(&c);
		}
	}
	/* 2 runs a side: weak, and never "same" */
	make_label(&a, "a", tight_a, 2, NULL);
	make_label(&b, "b", tight_a, 2, NULL);
	o.test = XVBD_AB_TEST_WELCH;
	o.equivalence = 0.5;
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->verdict, XVBD_AB_V_WEAK);
	assert_true(m->eq_ci.lo > -50 && m->eq_ci.hi < 50);
	assert_int_equal(m->equiv, XVBD_AB_EQ_NOT_SHOWN);
	xvbd_ab_comparison_free(&c);
	/* not asked: not judged */
	o.equivalence = 0;
	compare(&a, &b, &o, &c);
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].equiv, XVBD_AB_EQ_NOT_ASKED);
	xvbd_ab_comparison_free(&c);
	o.equivalence = 1;
	assert_int_equal(xvbd_ab_compare_with(recs(&a), 6, recs(&b), 6, &o,
					      &c), -EINVAL);
}

/* 10 % noise, no effect: the runs that would find 5 % (about 64). */
static const double noisy_a[] = { 1000, 1150, 880, 1090, 960, 1010 };
static const double noisy_b[] = { 1040, 890, 1120, 980, 1060, 930 };

static void test_runs_needed(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	size_t five, ten;

	(void)state;
	make_label(&a, "a", noisy_a, 6, NULL);
	make_label(&b, "b", noisy_b, 6, NULL);
	compare(&a, &b, &o, &c);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	assert_true(c.min_effect == 0.05 && c.power == 0.8);
	five = m->runs_needed;
	print_message("runs needed for 5 %%: %zu\n", five);
	assert_true(five > 20 && five < 200);
	xvbd_ab_comparison_free(&c);
	o.min_effect = 0.10;
	compare(&a, &b, &o, &c);
	ten = c.m[XVBD_AB_RD_IOPS].runs_needed;
	assert_true(ten < five / 3 && ten > five / 5);
	xvbd_ab_comparison_free(&c);
	/* paired: pairs, from the sd of ln(B/A) */
	make_label(&a, "a", noisy_a, 6, EXP_ID);
	make_label(&b, "b", noisy_b, 6, EXP_ID);
	o.min_effect = 0;
	compare(&a, &b, &o, &c);
	assert_int_equal(c.test, XVBD_AB_TEST_PAIRED);
	assert_true(c.m[XVBD_AB_RD_IOPS].runs_needed > 20);
	xvbd_ab_comparison_free(&c);
}

/* ---- text and JSON ---- */

static yajl_val metric0(yajl_val doc)
{
	const char *p_metrics[] = { "metrics", NULL };
	yajl_val arr = yajl_tree_get(doc, p_metrics, yajl_t_array);

	assert_non_null(arr);
	return arr->u.array.values[0];	/* read_iops */
}

static const char *jstr(yajl_val v, const char *key)
{
	const char *path[] = { key, NULL };
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);

	return s ? YAJL_GET_STRING(s) : NULL;
}

static yajl_val jget(yajl_val v, const char *key)
{
	const char *path[] = { key, NULL };

	return yajl_tree_get(v, path, yajl_t_any);
}

static void test_render_paired(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = {
		.confidence = 0.95, .equivalence = 0.05,
	};
	struct xvbd_ab_comparison c;
	char err[256], *text, *json;
	yajl_val doc, m;

	(void)state;
	make_label(&a, "a", drift_a, 6, EXP_ID);
	make_label(&b, "b", drift_b, 6, EXP_ID);
	compare(&a, &b, &o, &c);
	text = ab_render_v(&c, false, NULL, 1);
	fprintf(stderr, "%s", text);
	assert_non_null(strstr(text, "paired t on the 6 ABBA pairs of "
				     "experiment " EXP_ID));
	assert_non_null(strstr(text, "B faster by"));
	assert_non_null(strstr(text, "(paired t, p"));
	assert_non_null(strstr(text, "read_iops: same within +-5 % (90 % "
				     "interval +"));
	free(text);
	/* without -v: the pairs in the first line, the verdict's p alone */
	text = ab_render(&c, false, NULL);
	assert_non_null(strstr(text, "the 6 ABBA pairs of " EXP_ID));
	assert_non_null(strstr(text, "B faster (p="));
	free(text);
	json = ab_render(&c, true, NULL);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	assert_string_equal(jstr(doc, "test"), "paired");
	assert_int_equal(YAJL_GET_INTEGER(jget(doc, "pairs")), 6);
	assert_string_equal(jstr(doc, "experiment"), EXP_ID);
	assert_true(fabs(YAJL_GET_DOUBLE(jget(doc, "equivalence_pct")) - 5) <
		    1e-9);
	m = metric0(doc);
	assert_string_equal(jstr(m, "test"), "paired");
	assert_int_equal(YAJL_GET_INTEGER(jget(m, "n_pairs")), 6);
	assert_string_equal(jstr(m, "equivalence"), "same");
	assert_true(YAJL_IS_NUMBER(jget(m, "equivalence_p")));
	assert_true(YAJL_GET_DOUBLE(jget(m, "equivalence_hi")) < 5);
	/* proven different: no runs needed */
	assert_true(YAJL_IS_NULL(jget(m, "runs_needed")));
	yajl_tree_free(doc);
	free(json);
	xvbd_ab_comparison_free(&c);
}

static void test_render_runs_needed(void **state)
{
	static struct label a, b;
	struct xvbd_ab_compare_opts o = { .confidence = 0.95 };
	struct xvbd_ab_comparison c;
	char err[256], *text, *json, want[128];
	yajl_val doc, m;

	(void)state;
	make_label(&a, "a", noisy_a, 6, NULL);
	make_label(&b, "b", noisy_b, 6, NULL);
	compare(&a, &b, &o, &c);
	text = ab_render(&c, false, NULL);
	fprintf(stderr, "%s", text);
	snprintf(want, sizeof(want), "read_iops: %zu runs per side would "
		 "detect 5 %% at 80 %% power",
		 c.m[XVBD_AB_RD_IOPS].runs_needed);
	assert_non_null(strstr(text, want));
	/* the unpaired test line as it always was */
	assert_non_null(strstr(text, "Welch's t on run summaries"));
	assert_null(strstr(text, "same within"));
	free(text);
	json = ab_render(&c, true, NULL);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	assert_string_equal(jstr(doc, "test"), "welch");
	assert_int_equal(YAJL_GET_INTEGER(jget(doc, "pairs")), 0);
	assert_true(YAJL_IS_NULL(jget(doc, "experiment")));
	assert_null(jget(doc, "equivalence_pct"));
	m = metric0(doc);
	assert_int_equal(YAJL_GET_INTEGER(jget(m, "runs_needed")),
			 (long long)c.m[XVBD_AB_RD_IOPS].runs_needed);
	assert_null(jget(m, "equivalence"));
	assert_null(jget(m, "n_pairs"));
	yajl_tree_free(doc);
	free(json);
	xvbd_ab_comparison_free(&c);
}

/* ---- the record's experiment and pair ---- */

static void test_record_pair_json(void **state)
{
	static struct label a;
	struct xvbd_ab_record back;
	struct xvbd_ab_err e = { "" };
	char *json = NULL, *bad;
	size_t len = 0;

	(void)state;
	make_label(&a, "a", tight_a, 1, EXP_ID);
	a.run[0].r.pair = 7;
	assert_int_equal(xvbd_ab_record_to_json(&a.run[0].r, &json, &len), 0);
	assert_non_null(strstr(json, "\"experiment\":\"" EXP_ID "\","
				     "\"pair\":7,"));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &e), 0);
	assert_string_equal(back.experiment, EXP_ID);
	assert_int_equal(back.pair, 7);
	xvbd_ab_record_free(&back);
	/* a pair without its experiment means nothing */
	bad = strdup(json);
	assert_non_null(bad);
	/* blank out "experiment":"...", (JSON whitespace) */
	memset(strstr(bad, "\"experiment\""), ' ',
	       strlen("\"experiment\":\"" EXP_ID "\","));
	assert_int_equal(xvbd_ab_record_from_json(bad, len, &back, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "experiment"));
	free(bad);
	free(json);
	/* recorded alone: neither key is written */
	a.run[0].r.experiment = NULL;
	a.run[0].r.pair = 0;
	assert_int_equal(xvbd_ab_record_to_json(&a.run[0].r, &json, &len), 0);
	assert_null(strstr(json, "\"pair\""));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &e), 0);
	assert_null(back.experiment);
	xvbd_ab_record_free(&back);
	free(json);
	/* the writer refuses half of it */
	a.run[0].r.pair = 3;
	json = NULL;
	assert_int_equal(xvbd_ab_record_to_json(&a.run[0].r, &json, &len),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired_by_default),
		cmocka_unit_test(test_unpaired_otherwise),
		cmocka_unit_test(test_pairs_by_index),
		cmocka_unit_test(test_equivalence),
		cmocka_unit_test(test_runs_needed),
		cmocka_unit_test(test_render_paired),
		cmocka_unit_test(test_render_runs_needed),
		cmocka_unit_test(test_record_pair_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
