/*
 * Unit tests: comparing two labels' runs (ab_compare.c) with records
 * built in memory - verdicts, the test named, weak data, and planted
 * confounders that must each give a named warning, never a silent
 * verdict; the rendered text and JSON; and the SVG picture (ab_plot.c)
 * checked for well-formed XML by a small checker.
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
#include "xvbd/ab/ab_plot.h"
#include "xvbd/base/out.h"
#include "ab_testrec.h"
#include "ab_testutil.h"

#define MAXRUNS	8

/* One label: runs whose read rate is given; 10 one-second intervals. */
struct label {
	struct trec run[MAXRUNS];
	struct xvbd_ab_record rec[MAXRUNS];
	char ids[MAXRUNS][32];
	size_t n;
};

/* The facts every run has unless a test changes them (sorted). */
static void base_facts(struct trec *t)
{
	trec_fact(t, "dom0.clocksource", "xen");
	trec_fact(t, "guest.vcpus", "1");
	trec_fact(t, "vbd.xvdb.backend", "phy");
	trec_fact(t, "vbd.xvdb.dom0_cache", "n/a");
	trec_fact(t, "vbd.xvdb.offer.ring_order", "0");
	trec_fact(t, "vbd.xvdb.ring_pages", "1");
	trec_fact(t, "vbd.xvdb.size_bytes", "4294967296");
	trec_fact(t, "workload", "fio 4k randread");
}

static void make_label(struct label *l, const char *name,
		       const double *iops, size_t n)
{
	size_t i, k;

	memset(l, 0, sizeof(*l));
	l->n = n;
	for (i = 0; i < n; i++) {
		struct trec *t = &l->run[i];

		snprintf(l->ids[i], sizeof(l->ids[i]), "%s-%zu", name, i);
		trec_init(t, name, l->ids[i], 1);
		base_facts(t);
		for (k = 0; k <= 10; k++) {
			uint64_t req = (uint64_t)(iops[i] * (double)k + 0.5);
			struct xvbd_ab_sample *s;

			s = trec_add(t, k * 1000, req, 0, req * 8, 0,
				     k * 300, k * 100);
			s->vbds[0].has_blk = true;
			s->vbds[0].blk_rd_ios = req;
			s->vbds[0].blk_rd_ticks_ms = req * 2;
		}
	}
}

/* Records as the comparison takes them (refreshed after edits). */
static struct xvbd_ab_record *recs(struct label *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		l->rec[i] = l->run[i].r;
	return l->rec;
}

static void set_fact(struct label *l, const char *key, const char *value)
{
	size_t i, k;

	for (i = 0; i < l->n; i++)
		for (k = 0; k < l->run[i].r.fp.n; k++)
			if (!strcmp(l->run[i].facts[k].key, key))
				l->run[i].facts[k].value = (char *)value;
}

static const double base_iops[] = { 1510, 1523, 1498, 1540, 1529 };
static const double fast_iops[] = { 1702, 1715, 1690, 1731, 1712 };

static bool has_warning(const struct xvbd_ab_comparison *c, const char *s)
{
	size_t i;

	for (i = 0; i < c->nwarnings; i++)
		if (strstr(c->warnings[i], s))
			return true;
	return false;
}

static void print_warnings(const struct xvbd_ab_comparison *c)
{
	size_t i;

	for (i = 0; i < c->nwarnings; i++)
		fprintf(stderr, "# warning: %s\n", c->warnings[i]);
}

/* ---- verdicts ---- */

/* The one difference is the variable under test: no confounder. */
static void test_single_difference(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;

	(void)state;
	make_label(&a, "ring1", base_iops, 5);
	make_label(&b, "ring8", fast_iops, 5);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_int_equal(c.ndiffs, 1);
	assert_int_equal(c.variable, 0);
	assert_string_equal(c.diffs[0].key, "vbd.xvdb.ring_pages");
	assert_int_equal(c.nwarnings, 0);
	assert_string_equal(c.label_a, "ring1");
	assert_int_equal(c.runs_b, 5);

	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->na, 5);
	assert_int_equal(m->nb, 5);
	assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
	assert_true(m->s.p < 0.001);
	assert_true(m->s.diff > 180 && m->s.diff < 200);
	assert_true(m->s.diff_ci.lo > 0 && m->s.diff_ci.lo < m->s.diff);
	/* Fieller's % interval holds the point and excludes 0. */
	assert_true(m->s.pct > 12 && m->s.pct < 13);
	assert_true(m->s.pct_ci.lo < m->s.pct && m->s.pct < m->s.pct_ci.hi);
	assert_true(m->s.pct_ci.lo > 0);
	assert_non_null(strstr(ab_vtext(&c, m), "B faster by 12."));
	/* latency: 2 ms on both sides, every run */
	m = &c.m[XVBD_AB_RD_LAT_MS];
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	assert_non_null(strstr(ab_vtext(&c, m), "no difference proven at 95 %"));
	/* no writes anywhere: unknown, not "no difference" */
	assert_int_equal(c.m[XVBD_AB_WR_IOPS].verdict, XVBD_AB_V_UNKNOWN);
	assert_int_equal(c.m[XVBD_AB_WR_LAT_MS].verdict, XVBD_AB_V_UNKNOWN);
	xvbd_ab_comparison_free(&c);
}

static void test_no_difference(void **state)
{
	static struct label a, b;
	static const double other[] = { 1525, 1500, 1535, 1515, 1520 };
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 5);
	make_label(&b, "again", other, 5);
	set_fact(&b, "vbd.xvdb.ring_pages", "2");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_NO_DIFF);
	assert_true(c.m[XVBD_AB_RD_IOPS].s.p > 0.05);
	assert_string_equal(ab_vtext(&c, &c.m[XVBD_AB_RD_IOPS]),
			    "no difference proven at 95 %");
	xvbd_ab_comparison_free(&c);
}

/* Fewer than 3 runs: every verdict weak, and a warning says so. */
static void test_weak(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 2);
	make_label(&b, "ring8", fast_iops, 5);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_WEAK);
	assert_non_null(strstr(ab_vtext(&c, &c.m[XVBD_AB_RD_IOPS]), "weak"));
	assert_true(has_warning(&c, "only 2 runs of A"));
	xvbd_ab_comparison_free(&c);

	/* One run against one: centres and a difference, no test. */
	make_label(&b, "ring8", fast_iops, 1);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	a.n = 1;
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_WEAK);
	assert_true(c.m[XVBD_AB_RD_IOPS].s.diff > 0);
	assert_true(has_warning(&c, "only 1 run of A"));
	assert_true(has_warning(&c, "only 1 run of B"));
	xvbd_ab_comparison_free(&c);
}

static void test_mwu(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 5);
	make_label(&b, "ring8", fast_iops, 5);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_MWU, &c), 0);
	assert_int_equal(c.test, XVBD_AB_TEST_MWU);
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_BETTER);
	/* medians 1523 and 1712 */
	assert_true(c.m[XVBD_AB_RD_IOPS].s.centre_a > 1522.9 &&
		    c.m[XVBD_AB_RD_IOPS].s.centre_a < 1523.1);
	assert_true(c.m[XVBD_AB_RD_IOPS].s.pct > 10);
	assert_false(has_warning(&c, "cannot prove"));
	xvbd_ab_comparison_free(&c);

	/* 3 against 3 can never reach p < 0.05 with Mann-Whitney. */
	a.n = b.n = 3;
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_MWU, &c), 0);
	assert_true(has_warning(&c, "Mann-Whitney U on 3 and 3 runs cannot "
				    "prove"));
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_NO_DIFF);
	xvbd_ab_comparison_free(&c);
}

/* ---- planted confounders: each a named warning ---- */

static void confounded(const char *key, const char *va, const char *vb,
		       const char *want)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	make_label(&a, "base", base_iops, 5);
	make_label(&b, "ring8", fast_iops, 5);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");	/* the variable */
	set_fact(&a, key, va);
	set_fact(&b, key, vb);
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_int_equal(c.ndiffs, 2);
	assert_int_equal(c.variable, -1);
	assert_true(has_warning(&c, want));
	assert_true(has_warning(&c, "cannot be attributed"));
	/* The verdict is still given, beside the warnings. */
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_BETTER);
	xvbd_ab_comparison_free(&c);
}

static void test_confounder_vcpus(void **state)
{
	(void)state;
	confounded("guest.vcpus", "1", "2", "guest.vcpus: A 1, B 2: guest "
		   "vCPUs differ");
}

static void test_confounder_dom0_cache(void **state)
{
	(void)state;
	confounded("vbd.xvdb.dom0_cache", "host", "n/a",
		   "vbd.xvdb.dom0_cache: A host (dom0's page cache can serve "
		   "reads), B n/a (phy): dom0 caching differs");
}

static void test_confounder_sizes(void **state)
{
	(void)state;
	confounded("vbd.xvdb.size_bytes", "7516192768", "4294967296",
		   "disk sizes differ");
}

static void test_confounder_workload(void **state)
{
	(void)state;
	confounded("workload", "fio 4k randread", "fio 64k read",
		   "workloads differ");
}

/*
 * A workload that differs alone is no variable under test: A and B are
 * not the same experiment, a named warning (the lab's t/77 found it
 * silent before).
 */
static void test_workload_alone(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 5);
	make_label(&b, "other", fast_iops, 5);
	set_fact(&a, "workload", "duration 2s");
	set_fact(&b, "workload", "sleep 2");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_int_equal(c.ndiffs, 1);
	assert_int_equal(c.variable, -1);
	assert_true(has_warning(&c, "workload: A duration 2s, B sleep 2"));
	assert_true(has_warning(&c, "workload cannot be the variable under "
				"test"));
	xvbd_ab_comparison_free(&c);
}

static void test_confounder_clock(void **state)
{
	(void)state;
	confounded("dom0.clocksource", "xen", "tsc", "clock running fast");
}

/* file (cached) vs phy: backend and cache both differ, both named. */
static void test_file_vs_phy(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "file", fast_iops, 5);
	make_label(&b, "phy", base_iops, 5);
	set_fact(&a, "vbd.xvdb.backend", "file via loop");
	set_fact(&a, "vbd.xvdb.dom0_cache", "host");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_int_equal(c.variable, -1);
	assert_true(has_warning(&c, "backends differ"));
	assert_true(has_warning(&c, "dom0's page cache can serve reads"));
	assert_int_equal(c.m[XVBD_AB_RD_IOPS].verdict, XVBD_AB_V_WORSE);
	assert_non_null(strstr(ab_vtext(&c, &c.m[XVBD_AB_RD_IOPS]), "B slower"));
	xvbd_ab_comparison_free(&c);
}

/* Cached on both sides: no confounder, still a warning about reads. */
static void test_cached_both(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "file1", base_iops, 3);
	make_label(&b, "file8", fast_iops, 3);
	set_fact(&a, "vbd.xvdb.dom0_cache", "host");
	set_fact(&b, "vbd.xvdb.dom0_cache", "host");
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	/* a vCPU brought online in the middle of a run */
	b.run[2].s[6].guest_vcpus = 2;
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_int_equal(c.variable, 0);
	assert_true(has_warning(&c, "vbd.xvdb.dom0_cache: host on both "
				    "sides"));
	assert_true(has_warning(&c, "B run file8-2: the online vCPUs changed "
				    "during the run (guest 1 -> 2"));
	xvbd_ab_comparison_free(&c);
}

/* Nothing differs: said, since the change cannot have been recorded. */
static void test_no_fact_differs(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 3);
	make_label(&b, "same", base_iops, 3);
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_int_equal(c.ndiffs, 0);
	assert_true(has_warning(&c, "do not differ"));
	xvbd_ab_comparison_free(&c);
}


/*
 * "ring order 0 vs 2" on a guest whose blkfront allows order 0: the
 * offer differs, the choice does not.  Never "no variable under test
 * was recorded": the offer is the variable, and it did not take effect.
 */
static void test_offer_not_taken(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;
	const char *p_diffs[] = { "differences", NULL };
	const char *p_nt[] = { "not_taken", NULL };
	const char *p_by[] = { "refused_by", NULL };
	const char *p_param[] = { "parameter", NULL };
	char err[256], *json;
	yajl_val doc, arr, d0, v;

	(void)state;
	make_label(&a, "order0", base_iops, 3);
	make_label(&b, "order2", base_iops, 3);
	set_fact(&b, "vbd.xvdb.offer.ring_order", "2");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_int_equal(c.ndiffs, 1);
	assert_int_equal(c.variable, 0);
	assert_false(has_warning(&c, "do not differ"));
	assert_true(has_warning(&c, "vbd.xvdb.offer.ring_order: B offered "
				"ring order 2 (A 0); the frontend chose 1 ring "
				"page on both sides: its limit, the guest "
				"kernel's xen_blkfront.max_ring_page_order, "
				"refused it: the change never took effect"));
	json = ab_render(&c, true, NULL);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	arr = yajl_tree_get(doc, p_diffs, yajl_t_array);
	assert_non_null(arr);
	d0 = arr->u.array.values[0];
	v = yajl_tree_get(d0, p_nt, yajl_t_true);
	assert_non_null(v);
	v = yajl_tree_get(d0, p_by, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v), "frontend");
	v = yajl_tree_get(d0, p_param, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v),
			    "xen_blkfront.max_ring_page_order");
	yajl_tree_free(doc);
	free(json);
	xvbd_ab_comparison_free(&c);
}

/* Offer and choice both differ: one variable, no warning. */
static void test_offer_taken(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;
	const char *p_diffs[] = { "differences", NULL };
	const char *p_role[] = { "role", NULL };
	const char *p_nt[] = { "not_taken", NULL };
	char err[256], *json;
	yajl_val doc, arr, v;

	(void)state;
	make_label(&a, "order0", base_iops, 5);
	make_label(&b, "order2", fast_iops, 5);
	set_fact(&b, "vbd.xvdb.offer.ring_order", "2");
	set_fact(&b, "vbd.xvdb.ring_pages", "4");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_int_equal(c.ndiffs, 2);
	assert_int_equal(c.variable, 0);
	assert_string_equal(c.diffs[0].key, "vbd.xvdb.offer.ring_order");
	assert_int_equal(c.nwarnings, 0);
	json = ab_render(&c, true, NULL);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	arr = yajl_tree_get(doc, p_diffs, yajl_t_array);
	assert_non_null(arr);
	assert_int_equal(arr->u.array.len, 2);
	v = yajl_tree_get(arr->u.array.values[0], p_role, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v), "variable");
	v = yajl_tree_get(arr->u.array.values[1], p_role, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v), "follows");
	assert_non_null(yajl_tree_get(arr->u.array.values[0], p_nt,
				      yajl_t_false));
	yajl_tree_free(doc);
	free(json);
	xvbd_ab_comparison_free(&c);
}

/* ---- data problems ---- */

/* A record edited so that CPU time outruns wall x vCPUs is flagged. */
static void test_flagged_record(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;
	size_t k;

	(void)state;
	make_label(&a, "base", base_iops, 3);
	make_label(&b, "ring8", fast_iops, 3);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	/* from sample 5 on, 2.5 s more guest CPU: 1 vCPU, 1 s interval */
	for (k = 5; k <= 10; k++)
		b.run[1].s[k].guest_cpu_ns += 2500 * 1000000ull;
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_true(has_warning(&c, "B run ring8-1: 1 of 10 intervals "
				    "flagged and left out: CPU time outran "
				    "wall time x vCPUs"));
	xvbd_ab_comparison_free(&c);
}

static void test_within_label_and_runs(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 3);
	make_label(&b, "ring8", fast_iops, 3);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	a.run[2].facts[1].value = (char *)"4";	/* guest.vcpus */
	a.run[1].r.complete = false;
	b.run[0].s[4].vbds[0].reset = true;
	b.run[2].r.workload_status = 3;
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	print_warnings(&c);
	assert_true(has_warning(&c, "runs of A differ among themselves: "
				    "guest.vcpus: base-0 1, base-2 4: guest "
				    "vCPUs differ"));
	assert_true(has_warning(&c, "A run base-1 did not end as planned"));
	assert_true(has_warning(&c, "B run ring8-0: 1 of 10 intervals left "
				    "out: counters reset"));
	assert_true(has_warning(&c, "exited with status 3"));
	/* The comparison's fingerprint is the first runs': one variable. */
	assert_int_equal(c.variable, 0);
	xvbd_ab_comparison_free(&c);
}

static void test_bad_input(void **state)
{
	static struct label a;
	struct xvbd_ab_comparison c;

	(void)state;
	make_label(&a, "base", base_iops, 3);
	assert_int_equal(xvbd_ab_compare(recs(&a), 3, recs(&a), 0, 0.95,
					 XVBD_AB_TEST_WELCH, &c), -EINVAL);
	assert_int_equal(xvbd_ab_compare(recs(&a), 3, recs(&a), 3, 1.0,
					 XVBD_AB_TEST_WELCH, &c), -EINVAL);
	assert_int_equal(c.variable, -1);
	assert_null(c.warnings);
}

/* ---- rendering ---- */

static void test_render(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;
	bool shown[XVBD_AB_NMETRICS] = { false };
	char err[256], *text, *json;
	const char *p_metric[] = { "metrics", NULL };
	const char *p_var[] = { "variable", NULL };
	yajl_val doc, arr, m0, v;

	(void)state;
	make_label(&a, "ring1", base_iops, 5);
	make_label(&b, "ring8", fast_iops, 5);
	set_fact(&b, "vbd.xvdb.ring_pages", "8");
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	text = ab_render(&c, false, NULL);
	fprintf(stderr, "%s", text);
	/* the row: the metric with its unit, the cells, the verdict */
	assert_non_null(strstr(text, "read_iops IO/s 1520.0 +-"));
	assert_non_null(strstr(text, "B faster (p="));
	/* no data on either side: not a row, named below */
	assert_null(strstr(text, "unknown on both sides"));
	assert_non_null(strstr(text, "no data: write_lat_ms"));
	free(text);
	text = ab_render_v(&c, false, NULL, 1);
	assert_non_null(strstr(text, "read_iops: B faster by"));
	assert_non_null(strstr(text, "(Welch's t, p"));
	assert_non_null(strstr(text, "variable under test: "
				     "vbd.xvdb.ring_pages: A 1, B 8"));
	free(text);

	shown[XVBD_AB_RD_IOPS] = true;
	json = ab_render(&c, true, shown);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	arr = yajl_tree_get(doc, p_metric, yajl_t_array);
	assert_non_null(arr);
	assert_int_equal(arr->u.array.len, 1);	/* --metric read_iops */
	m0 = arr->u.array.values[0];
	{
		const char *p_name[] = { "metric", NULL };
		const char *p_verdict[] = { "verdict", NULL };
		const char *p_n[] = { "n_a", NULL };
		const char *p_pct[] = { "pct", NULL };

		v = yajl_tree_get(m0, p_name, yajl_t_string);
		assert_string_equal(YAJL_GET_STRING(v), "read_iops");
		v = yajl_tree_get(m0, p_verdict, yajl_t_string);
		assert_string_equal(YAJL_GET_STRING(v), "better");
		v = yajl_tree_get(m0, p_n, yajl_t_number);
		assert_int_equal(YAJL_GET_INTEGER(v), 5);
		v = yajl_tree_get(m0, p_pct, yajl_t_number);
		assert_true(YAJL_GET_DOUBLE(v) > 12);
	}
	v = yajl_tree_get(doc, p_var, yajl_t_string);
	assert_string_equal(YAJL_GET_STRING(v), "vbd.xvdb.ring_pages");
	yajl_tree_free(doc);
	free(json);
	xvbd_ab_comparison_free(&c);
}

/* ---- the edges, through records (summaries: req / 10 s, exact) ---- */

/*
 * A's own interval includes 0 (191.9 +- 238.3 at 95 % on 3 runs): no %
 * interval, and the verdict text says the absolute difference.
 */
static void test_pct_needs_a_bounded(void **state)
{
	static const double ia[] = { 193.9, 286.8, 95.0 };
	static const double ib[] = { 350.9, 148.6, 443.7 };
	static struct label a, b;
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;

	(void)state;
	make_label(&a, "A", ia, 3);
	make_label(&b, "B", ib, 3);
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_true(m->s.half_a > m->s.centre_a);
	assert_false(isnan(m->s.pct));
	assert_true(isnan(m->s.pct_ci.lo) && isnan(m->s.pct_ci.hi));
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	assert_null(strstr(ab_vtext(&c, m), "% +-"));
	assert_null(strstr(ab_vtext(&c, m), "% ("));
	xvbd_ab_comparison_free(&c);
}

/* Mann-Whitney with ties: the verdict and the % interval agree. */
static void test_mwu_ties_verdict(void **state)
{
	static const double ia[] = { 7, 2, 5, 5 };
	static const double ib[] = { 5, 7, 6, 8, 7, 8, 9, 8 };
	static struct label a, b;
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;

	(void)state;
	make_label(&a, "A", ia, 4);
	make_label(&b, "B", ib, 8);
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_MWU, &c), 0);
	m = &c.m[XVBD_AB_RD_IOPS];
	assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
	assert_true(m->s.p > 0.05);
	assert_true(m->s.pct_ci.lo <= 0 && 0 <= m->s.pct_ci.hi);
	assert_true(m->s.diff_ci.lo <= 0 && 0 <= m->s.diff_ci.hi);
	xvbd_ab_comparison_free(&c);
}

/*
 * The verdict's words follow the metric's sense: a run that takes longer
 * is not "faster", a backend that uses less CPU is not "slower".
 */
static void test_direction_words(void **state)
{
	(void)state;
	assert_string_equal(xvbd_ab_direction(XVBD_AB_RD_MBS, true),
			    "B faster");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_RD_IOPS, false),
			    "B slower");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_SECONDS, true),
			    "B takes longer");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_BUSY_SECONDS, false),
			    "B takes less time");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_BE_CPU, false),
			    "B uses less CPU");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_BE_US_PER_REQ, true),
			    "B costs more CPU per request");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_RD_KIB_PER_REQ, true),
			    "B has larger requests");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_RD_LAT_MS, true),
			    "B slower (higher latency)");
	/* the guest's own: latency and lower-better benchmarks */
	assert_string_equal(xvbd_ab_direction(XVBD_AB_G_RD_P99, true),
			    "B slower (higher latency in the guest)");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_G_WR_CLAT, false),
			    "B faster (lower latency in the guest)");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_BENCH_LOWER1, true),
			    "B worse (higher)");
	assert_string_equal(xvbd_ab_direction(XVBD_AB_BENCH_HIGHER2, true),
			    "B better (higher)");
}

/* A p far below 1e-6 is not 0: JSON carries it, the text shows it. */
static void test_tiny_p(void **state)
{
	static const double ia[] = { 100, 100.1, 100.2, 100.3, 100.1 };
	static const double ib[] = { 200, 200.1, 200.2, 200.3, 200.4 };
	static struct label a, b;
	struct xvbd_ab_comparison c;
	bool shown[XVBD_AB_NMETRICS] = { false };
	const char *p_metric[] = { "metrics", NULL }, *p_p[] = { "p", NULL };
	char err[256], want[64], *text, *json;
	yajl_val doc, arr, v;
	double p;

	(void)state;
	make_label(&a, "A", ia, 5);
	make_label(&b, "B", ib, 5);
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	p = c.m[XVBD_AB_RD_IOPS].s.p;
	assert_true(p > 0 && p < 1e-9);
	shown[XVBD_AB_RD_IOPS] = true;
	json = ab_render(&c, true, shown);
	doc = yajl_tree_parse(json, err, sizeof(err));
	assert_non_null(doc);
	arr = yajl_tree_get(doc, p_metric, yajl_t_array);
	v = yajl_tree_get(arr->u.array.values[0], p_p, yajl_t_number);
	assert_non_null(v);
	assert_true(YAJL_GET_DOUBLE(v) == p);
	yajl_tree_free(doc);
	free(json);
	text = ab_render_v(&c, false, shown, 1);
	snprintf(want, sizeof(want), "(Welch's t, p=%.2g)", p);
	assert_non_null(strstr(want, "e-"));
	assert_non_null(strstr(text, want));
	assert_null(strstr(text, "p=0.0"));
	free(text);
	xvbd_ab_comparison_free(&c);
}

/*
 * Holm over the metrics: read_iops and read_mb_per_s at p ~ 0.02 each, with
 * five more metrics in the family (p = 1: the request size and the busy
 * span, equal in every run, among them): adjusted 0.14, so no
 * difference is proven; --no-adjust keeps the per-metric verdict.
 */
static void test_holm_adjust(void **state)
{
	static const double ia[] = { 100, 102, 98, 101, 99 };
	static const double ib[] = { 103, 105, 101, 104, 102 };
	static struct label a, b;
	struct xvbd_ab_comparison c;
	const struct xvbd_ab_metric_cmp *m;
	bool one[XVBD_AB_NMETRICS] = { false };
	char *text;
	int pass;

	(void)state;
	make_label(&a, "A", ia, 5);
	make_label(&b, "B", ib, 5);
	for (pass = 0; pass < 3; pass++) {
		assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n,
						 0.95, XVBD_AB_TEST_WELCH, &c),
				 0);
		m = &c.m[XVBD_AB_RD_IOPS];
		assert_true(m->s.p < 0.05 && m->s.p > 0.01);
		assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
		one[XVBD_AB_RD_IOPS] = true;
		assert_int_equal(xvbd_ab_compare_adjust(&c, pass == 2 ? one :
							NULL, pass != 1), 0);
		if (pass == 0) {
			assert_int_equal(c.family, 7);
			assert_true(c.adjusted);
			assert_true(m->s.p_adj > 0.05);
			assert_int_equal(m->verdict, XVBD_AB_V_NO_DIFF);
			assert_non_null(strstr(ab_vtext(&c, m), "Holm"));
			text = ab_render_v(&c, false, NULL, 1);
			assert_non_null(strstr(text, "Holm-Bonferroni over 7 "
						     "metrics"));
			assert_non_null(strstr(text, "Holm p="));
			free(text);
			text = ab_render(&c, false, NULL);
			assert_non_null(strstr(text, "p Holm-adjusted over 7 "
						     "metrics"));
			free(text);
		} else {
			/* --no-adjust, or one metric shown: as it was */
			assert_false(c.adjusted);
			assert_int_equal(m->verdict, XVBD_AB_V_BETTER);
			assert_int_equal(c.family, pass == 2 ? 1 : 7);
		}
		xvbd_ab_comparison_free(&c);
	}
}

/* The comparison's sequential_stop in JSON. */
static bool json_sequential_stop(const struct xvbd_ab_comparison *c)
{
	const char *path[] = { "sequential_stop", NULL };
	char err[256], *json = ab_render(c, true, NULL);
	yajl_val doc = yajl_tree_parse(json, err, sizeof(err)), v;
	bool stop;

	assert_non_null(doc);
	v = yajl_tree_get(doc, path, yajl_t_any);
	assert_non_null(v);
	assert_true(YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v));
	stop = YAJL_IS_TRUE(v);
	yajl_tree_free(doc);
	free(json);
	return stop;
}

/*
 * After a sequential stop: which verdict carries the guarantee, in the
 * text's warnings and as a JSON field.
 */
static void test_sequential_note(void **state)
{
	static struct label a, b;
	struct xvbd_ab_comparison c;
	char *text;

	(void)state;
	make_label(&a, "A", base_iops, 5);
	make_label(&b, "B", fast_iops, 5);
	assert_int_equal(xvbd_ab_compare(recs(&a), a.n, recs(&b), b.n, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_false(has_warning(&c, "only the sequential decision"));
	assert_false(json_sequential_stop(&c));
	assert_int_equal(xvbd_ab_comparison_note_sequential(&c,
				XVBD_AB_RD_MBS, "different"), 0);
	assert_true(has_warning(&c, "only the sequential decision "
				    "(read_mb_per_s, different) keeps its error "
				    "rate"));
	assert_true(json_sequential_stop(&c));
	text = ab_render(&c, false, NULL);
	assert_non_null(strstr(text, "only the sequential decision"));
	assert_non_null(strstr(text, "read them as descriptive"));
	free(text);
	xvbd_ab_comparison_free(&c);
}

/* ---- the SVG picture ---- */

static bool entity_ok(const char *p)
{
	static const char *const ents[] = {
		"&amp;", "&lt;", "&gt;", "&quot;", "&apos;",
	};
	size_t i;

	for (i = 0; i < 5; i++)
		if (!strncmp(p, ents[i], strlen(ents[i])))
			return true;
	return false;
}

/*
 * Well-formed XML, as far as this picture can go wrong: tags balance and
 * nest, attributes are name="value" without '<', every '&' starts one of
 * the five entities, one root element.
 */
static bool xml_well_formed(const char *s)
{
	const char *stack[64];
	size_t depth = 0, roots = 0, len;
	const char *p = s;

	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		if (!p)
			return false;
		p += 2;
	}
	while (*p) {
		if (*p == '&' && !entity_ok(p))
			return false;
		if (*p == '>')
			return false;
		if (*p != '<') {
			if (!depth && *p != '\n' && *p != ' ')
				return false;	/* text outside the root */
			p++;
			continue;
		}
		if (p[1] == '/') {
			len = strcspn(p + 2, ">");
			if (!depth || p[2 + len] != '>' ||
			    strncmp(stack[depth - 1], p + 2, len) ||
			    (stack[depth - 1][len] != ' ' &&
			     stack[depth - 1][len] != '>' &&
			     stack[depth - 1][len] != '/'))
				return false;
			depth--;
			p += 3 + len;
			continue;
		}
		if (!depth)
			roots++;
		stack[depth] = p + 1;
		p += 1 + strcspn(p + 1, " />");
		for (;;) {
			while (*p == ' ' || *p == '\n')
				p++;
			if (*p == '/' && p[1] == '>') {
				p += 2;
				break;
			}
			if (*p == '>') {
				if (++depth >= 64)
					return false;
				p++;
				break;
			}
			/* name="value" */
			len = strcspn(p, "=\" <>");
			if (!len || p[len] != '=' || p[len + 1] != '"')
				return false;
			p += len + 2;
			while (*p && *p != '"') {
				if (*p == '<' || (*p == '&' && !entity_ok(p)))
					return false;
				p++;
			}
			if (*p++ != '"')
				return false;
		}
	}
	return depth == 0 && roots == 1;
}

static void test_xml_checker(void **state)
{
	(void)state;
	assert_true(xml_well_formed("<a x=\"1\"><b/>t &amp; u</a>\n"));
	assert_false(xml_well_formed("<a><b></a></b>"));
	assert_false(xml_well_formed("<a>x & y</a>"));
	assert_false(xml_well_formed("<a x=\"<\"></a>"));
	assert_false(xml_well_formed("<a></a><b></b>"));
	assert_false(xml_well_formed("<a>"));
}

static void test_plot_svg(void **state)
{
	static struct label a, b;
	struct xvbd_ab_plot_opts opts = { .test = XVBD_AB_TEST_WELCH };
	bool shown[XVBD_AB_NMETRICS] = { false };
	char *svg;
	size_t len;

	(void)state;
	make_label(&a, "base", base_iops, 5);
	make_label(&b, "ring8", fast_iops, 4);
	/* an interval left out: a gap in B's time series */
	b.run[0].s[4].vbds[0].reset = true;
	/* texts that must be escaped */
	b.run[0].r.label = (char *)"a<b>&\"c\"";
	opts.series_b = 0;
	assert_int_equal(xvbd_ab_plot_svg(recs(&a), a.n, recs(&b), b.n, &opts,
					  &svg, &len), 0);
	assert_int_equal(strlen(svg), len);
	assert_true(xml_well_formed(svg));
	assert_null(strstr(svg, "<script"));
	assert_non_null(strstr(svg, "a&lt;b&gt;&amp;&quot;c&quot;"));
	assert_non_null(strstr(svg, ">read_iops (IO/s)<"));
	/* each metric's verdict and B/A %, as ab compare's words */
	assert_non_null(strstr(svg, ">B/A +"));
	assert_non_null(strstr(svg, "B faster (p="));
	assert_non_null(strstr(svg, "<polyline"));
	/* no writes in any run: no row for them */
	assert_null(strstr(svg, "write_iops"));
	free(svg);

	shown[XVBD_AB_GUEST_CPU] = true;
	opts.metrics = shown;
	assert_int_equal(xvbd_ab_plot_svg(recs(&a), a.n, recs(&b), b.n, &opts,
					  &svg, &len), 0);
	assert_true(xml_well_formed(svg));
	assert_null(strstr(svg, "read_iops"));
	assert_non_null(strstr(svg, ">guest_cpu_pct (%CPU)<"));
	free(svg);
	/* a metric without data is never drawn: nothing to draw */
	memset(shown, 0, sizeof(shown));
	shown[XVBD_AB_WR_IOPS] = true;
	opts.series_a = 0;
	assert_int_equal(xvbd_ab_plot_svg(recs(&a), a.n, recs(&b), b.n, &opts,
					  &svg, &len), -ENODATA);

	opts.series_a = 5;	/* no such run */
	assert_int_equal(xvbd_ab_plot_svg(recs(&a), a.n, recs(&b), b.n, &opts,
					  &svg, &len), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_difference),
		cmocka_unit_test(test_direction_words),
		cmocka_unit_test(test_no_difference),
		cmocka_unit_test(test_weak),
		cmocka_unit_test(test_mwu),
		cmocka_unit_test(test_confounder_vcpus),
		cmocka_unit_test(test_confounder_dom0_cache),
		cmocka_unit_test(test_confounder_sizes),
		cmocka_unit_test(test_confounder_workload),
		cmocka_unit_test(test_workload_alone),
		cmocka_unit_test(test_confounder_clock),
		cmocka_unit_test(test_file_vs_phy),
		cmocka_unit_test(test_cached_both),
		cmocka_unit_test(test_no_fact_differs),
		cmocka_unit_test(test_offer_not_taken),
		cmocka_unit_test(test_offer_taken),
		cmocka_unit_test(test_flagged_record),
		cmocka_unit_test(test_within_label_and_runs),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_pct_needs_a_bounded),
		cmocka_unit_test(test_mwu_ties_verdict),
		cmocka_unit_test(test_tiny_p),
		cmocka_unit_test(test_sequential_note),
		cmocka_unit_test(test_holm_adjust),
		cmocka_unit_test(test_xml_checker),
		cmocka_unit_test(test_plot_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
