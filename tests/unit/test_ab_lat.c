/*
 * test_ab_lat.c - a run's latency in its record: intervals merged
 * exactly into the run's histograms, the JSON round trip (the same
 * buckets, count, sum and max back), a record without latency reading
 * as before, and hostile "latency" values refused with the place named.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/ab/ab_plot.h"
#include "ab_testrec.h"

static void fake_run(struct trec *t)
{
	trec_init(t, "A", "A-20261201T000000-0001", 2);
	trec_add(t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(t, 1000, 100, 0, 800, 0, 10, 10);
	trec_add(t, 2000, 200, 0, 1600, 0, 20, 20);
}

/* Two intervals of vdev 0, the second incomplete; vdev 1 has nothing. */
static struct xvbd_ab_lat *two_intervals(void)
{
	struct xvbd_ab_lat *l = xvbd_ab_lat_new(2);
	struct xvbd_lat_result r;
	int i;

	assert_non_null(l);
	for (i = 0; i < 2; i++) {
		memset(&r, 0, sizeof(r));
		r.state = i ? XVBD_LAT_INCOMPLETE : XVBD_LAT_OK;
		assert_int_equal(xvbd_lathist_add(&r.h[XVBD_LAT_D2C]
						  [XVBD_LAT_READ],
						  62500000 + (uint64_t)i * 100,
						  50), 0);
		assert_int_equal(xvbd_lathist_add(&r.h[XVBD_LAT_I2C]
						  [XVBD_LAT_WRITE], 900 + i, 3),
				 0);
		assert_int_equal(xvbd_ab_lat_add(l, 0, &r), 0);
		xvbd_lathist_free(&r.h[XVBD_LAT_D2C][XVBD_LAT_READ]);
		xvbd_lathist_free(&r.h[XVBD_LAT_I2C][XVBD_LAT_WRITE]);
	}
	return l;
}

static void test_merge(void **state)
{
	struct xvbd_ab_lat *l = two_intervals();
	struct xvbd_lathist m;

	(void)state;
	assert_int_equal(l->vbds[0].state, XVBD_LAT_INCOMPLETE);
	assert_int_equal(l->vbds[1].state, XVBD_LAT_OK);
	assert_false(xvbd_ab_lat_complete(l));
	assert_int_equal(l->vbds[0].h[XVBD_LAT_D2C][XVBD_LAT_READ].count, 100);
	assert_int_equal(l->vbds[0].h[XVBD_LAT_D2C][XVBD_LAT_READ].max_ns,
			 62500100);
	assert_int_equal(l->vbds[0].h[XVBD_LAT_D2C][XVBD_LAT_READ].sum_ns,
			 50ull * 62500000 + 50ull * 62500100);
	xvbd_lathist_init(&m);
	assert_int_equal(xvbd_ab_lat_merged(l, XVBD_LAT_I2C, XVBD_LAT_WRITE,
					    &m), 0);
	assert_int_equal(m.count, 6);
	assert_int_equal(m.max_ns, 901);
	xvbd_lathist_free(&m);
	assert_int_equal(xvbd_ab_lat_add(l, 2, NULL), -EINVAL);
	xvbd_ab_lat_free(l);
}

static void test_round_trip(void **state)
{
	struct trec t;
	struct xvbd_ab_record back;
	struct xvbd_ab_err e;
	char *json = NULL;
	size_t len;
	const struct xvbd_lathist *a, *b;

	(void)state;
	fake_run(&t);
	t.r.lat = two_intervals();
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	assert_non_null(strstr(json, "\"latency\":{\"clock\":\"mono\""));
	memset(&back, 0, sizeof(back));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &e), 0);
	assert_non_null(back.lat);
	a = &t.r.lat->vbds[0].h[XVBD_LAT_D2C][XVBD_LAT_READ];
	b = &back.lat->vbds[0].h[XVBD_LAT_D2C][XVBD_LAT_READ];
	assert_true(a->count == b->count && a->sum_ns == b->sum_ns &&
		    a->max_ns == b->max_ns);
	assert_memory_equal(a->buckets, b->buckets,
			    XVBD_LH_NBUCKETS * sizeof(*a->buckets));
	assert_int_equal(back.lat->vbds[0].state, XVBD_LAT_INCOMPLETE);
	xvbd_ab_record_free(&back);
	xvbd_ab_lat_free(t.r.lat);
	free(json);
	/* Without: no "latency" key, read back without. */
	fake_run(&t);
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	assert_null(strstr(json, "latency"));
	memset(&back, 0, sizeof(back));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &e), 0);
	assert_null(back.lat);
	xvbd_ab_record_free(&back);
	free(json);
}

/* Replace the first occurrence of from in json by to (a new string). */
static char *damage(const char *json, const char *from, const char *to)
{
	const char *p = strstr(json, from);
	char *out;

	assert_non_null(p);
	out = malloc(strlen(json) + strlen(to) + 1);
	assert_non_null(out);
	sprintf(out, "%.*s%s%s", (int)(p - json), json, to, p + strlen(from));
	return out;
}

static void test_hostile(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "\"clock\":\"mono\"", "\"clock\":\"local\"", "latency: not" },
		{ "\"vdev\":\"xvdb\"", "\"vdev\":\"xvdz\"", "latency.vbds[0]" },
		{ "\"state\":\"incomplete\"", "\"state\":\"bad\"",
		  "latency.vbds[0]" },
		/* A lower bound that is no bucket's. */
		{ "[[61865984,", "[[61865985,", "no bucket's lower bound" },
		/* Counts that do not add up. */
		{ "\"count\":100,", "\"count\":101,", "disagree" },
		/* A maximum outside the top bucket. */
		{ "\"max_ns\":62500100,", "\"max_ns\":99999999,", "disagree" },
		/* A sum no such values can have. */
		{ "\"sum_ns\":6250005000,", "\"sum_ns\":1,", "disagree" },
		{ "\"buckets\":[[61865984,100]]", "\"buckets\":[[61865984,0]]",
		  "count > 0" },
		{ "\"d2c\":{", "\"d2c\":{\"x\":1,", "not {read, write}" },
	};
	struct trec t;
	struct xvbd_ab_record back;
	struct xvbd_ab_err e;
	char *json = NULL, *bad;
	size_t len, i;

	(void)state;
	fake_run(&t);
	t.r.lat = two_intervals();
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bad = damage(json, cases[i].from, cases[i].to);
		memset(&back, 0, sizeof(back));
		memset(&e, 0, sizeof(e));
		assert_int_equal(xvbd_ab_record_from_json(bad, strlen(bad),
							  &back, &e), -EINVAL);
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e.msg,
				 cases[i].msg);
		xvbd_ab_record_free(&back);
		free(bad);
	}
	xvbd_ab_lat_free(t.r.lat);
	free(json);
}

/*
 * A run of 1000 reads: most near 1 ms (a run's own jitter), and tail_pm
 * per mille at 20 ms; its blkback counters the same in every run.
 */
static void tail_run(struct trec *t, const char *label, unsigned seed,
		     unsigned tail_pm)
{
	struct xvbd_lat_result r;
	unsigned i;

	fake_run(t);
	t->r.label = (char *)label;
	t->r.lat = xvbd_ab_lat_new(2);
	assert_non_null(t->r.lat);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 1000; i++) {
		uint64_t ns = i < tail_pm ? 20000000 :
			      1000000 + (uint64_t)((i * 7919 + seed * 104729) %
						   2000) * 50;

		assert_int_equal(xvbd_lathist_add(&r.h[XVBD_LAT_D2C]
						  [XVBD_LAT_READ], ns, 1), 0);
	}
	assert_int_equal(xvbd_ab_lat_add(t->r.lat, 0, &r), 0);
	xvbd_lathist_free(&r.h[XVBD_LAT_D2C][XVBD_LAT_READ]);
}

/*
 * Only the tail moves: B's runs have 2 % of their reads at 20 ms.  p99
 * is named worse, p50 is not; the latency metrics are in the default set
 * only when a run has latency; the picture draws the distributions.
 */
static void test_tail_compare(void **state)
{
	enum { N = 6 };
	static struct trec ta[N], tb[N];
	struct xvbd_ab_record a[N], b[N];
	struct xvbd_ab_compare_opts o = { .confidence = 0.95,
					  .test = XVBD_AB_TEST_WELCH };
	struct xvbd_ab_plot_opts po = { .test = XVBD_AB_TEST_WELCH };
	struct xvbd_ab_comparison c = { .variable = -1 };
	struct xvbd_ab_summary s;
	bool shown[XVBD_AB_NMETRICS];
	char *svg;
	size_t i, len;

	(void)state;
	for (i = 0; i < N; i++) {
		tail_run(&ta[i], "A", (unsigned)i, 0);
		tail_run(&tb[i], "B", (unsigned)i + 50, 20);
		a[i] = ta[i].r;
		b[i] = tb[i].r;
	}
	assert_int_equal(xvbd_ab_summarize(&b[0], &s), 0);
	assert_true(s.known[XVBD_AB_RD_P99_MS] && s.known[XVBD_AB_RD_MAX_MS]);
	assert_true(s.value[XVBD_AB_RD_MAX_MS] == 20.0);
	assert_false(s.known[XVBD_AB_WR_P50_MS]);
	assert_int_equal(xvbd_ab_compare_with(a, N, b, N, &o, &c), 0);
	assert_int_equal(c.m[XVBD_AB_RD_P99_MS].verdict, XVBD_AB_V_WORSE);
	assert_int_equal(c.m[XVBD_AB_RD_MAX_MS].verdict, XVBD_AB_V_WORSE);
	assert_int_not_equal(c.m[XVBD_AB_RD_P50_MS].verdict, XVBD_AB_V_WORSE);
	assert_int_not_equal(c.m[XVBD_AB_RD_P50_MS].verdict, XVBD_AB_V_BETTER);
	xvbd_ab_comparison_free(&c);
	xvbd_ab_metrics_default(a, N, shown);
	assert_true(shown[XVBD_AB_RD_P99_MS] && shown[XVBD_AB_RD_IOPS]);
	assert_int_equal(xvbd_ab_plot_svg(a, N, b, N, &po, &svg, &len), 0);
	assert_non_null(strstr(svg, "read service time (d2c)"));
	assert_non_null(strstr(svg, "B p99 20"));
	assert_null(strstr(svg, "write service time"));
	free(svg);
	/* Without latency: not in the default set, no distribution drawn. */
	for (i = 0; i < N; i++) {
		xvbd_ab_lat_free(ta[i].r.lat);
		xvbd_ab_lat_free(tb[i].r.lat);
		a[i].lat = b[i].lat = NULL;
	}
	xvbd_ab_metrics_default(a, N, shown);
	assert_false(shown[XVBD_AB_RD_P99_MS]);
	assert_true(shown[XVBD_AB_RD_IOPS]);
	assert_int_equal(xvbd_ab_plot_svg(a, N, b, N, &po, &svg, &len), 0);
	assert_null(strstr(svg, "service time (d2c)"));
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_tail_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
