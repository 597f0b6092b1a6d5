/*
 * test_ab_pvsplit.c - the guest's completion latency against its
 * device's service time: a real fio JSON+ output (4k randread of
 * /dev/xvda) beside d2c histograms built here.  The guest's side is
 * checked against fio's own percentiles (fio's JSON, not the bins this
 * code merges), the device's against the values put in, within the
 * histogram's stated error; a guest below its device says so instead of
 * a negative time; only the VBD fio ran on counts, only runs with both
 * sides, and a label merges its runs exactly.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ab_testrec.h"
#include "wl_testload.h"
#include "xvbd/ab/ab_lat.h"
#include "xvbd/workload/workload.h"

static struct xvbd_wl_results fio;	/* randread-jsonplus: /dev/xvda */
static double fio_p50_ms, fio_p99_ms;	/* fio's own, from its JSON */

static int setup(void **state)
{
	struct xvbd_ab_summary s;
	struct trec t;

	(void)state;
	if (wl_test_load_fio("tests/data/fio/randread-jsonplus.json", &fio))
		return -1;
	/* fio's clat_ns.percentile["50.000000"] and ["99.000000"] */
	trec_init(&t, "a", "a-20240501T120000-0000", 1);
	t.r.results = &fio;
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 0, 0, 0, 0, 0, 0);
	if (xvbd_ab_summarize(&t.r, &s) || !s.known[XVBD_AB_G_RD_P50] ||
	    !s.known[XVBD_AB_G_RD_P99])
		return -1;
	fio_p50_ms = s.value[XVBD_AB_G_RD_P50];
	fio_p99_ms = s.value[XVBD_AB_G_RD_P99];
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	xvbd_wl_results_free(&fio);
	return 0;
}

struct run {
	struct trec t;
	struct xvbd_ab_lat *lat;
};

/*
 * A run of fio's output recording vdevs (xvda, then xvdb if two); each
 * VBD's reads: fast of fast_us and slow of slow_us.
 */
static void make(struct run *r, size_t nvdevs, uint64_t fast, uint64_t fast_us,
		 uint64_t slow, uint64_t slow_us)
{
	size_t j;

	trec_init(&r->t, "a", "a-20240501T120000-0000", nvdevs);
	r->t.vdevs[0] = (char *)"xvda";
	r->t.r.mode = XVBD_AB_MODE_RUN;
	r->t.r.results = &fio;
	trec_add(&r->t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&r->t, 1000, 0, 0, 0, 0, 0, 0);
	r->lat = xvbd_ab_lat_new(nvdevs);
	assert_non_null(r->lat);
	for (j = 0; j < nvdevs; j++) {
		struct xvbd_lathist *h =
			&r->lat->vbds[j].h[XVBD_LAT_D2C][XVBD_LAT_READ];

		assert_int_equal(xvbd_lathist_add(h, fast_us * 1000, fast), 0);
		assert_int_equal(xvbd_lathist_add(h, slow_us * 1000, slow), 0);
	}
	r->t.r.lat = r->lat;
}

static void done(struct run *r)
{
	xvbd_ab_lat_free(r->lat);
}

/* Within the histogram's stated error of the value put in. */
static void assert_near_ms(double got_ms, double want_us)
{
	double want = want_us / 1000;

	if (fabs(got_ms - want) > want * XVBD_LH_REL_ERROR + 1e-9)
		fail_msg("%.6f ms is not within 1.6 %% of %.6f ms", got_ms,
			 want);
}

static void test_one_run(void **state)
{
	struct xvbd_ab_pv_split s;
	char line[400];
	struct run r;

	(void)state;
	/* 900 reads at 50 us, 100 at 90 us: p50 50 us, p99 90 us */
	make(&r, 1, 900, 50, 100, 90);
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_true(s.dir[0].known);
	assert_false(s.dir[1].known);		/* the job only read */
	assert_true(s.dir[0].guest_bins);
	assert_string_equal(s.dir[0].vdev, "xvda");
	assert_int_equal(s.dir[0].runs, 1);
	assert_int_equal(s.dir[0].device_requests, 1000);
	/* the bins' percentile as fio computes it: fio's own figure */
	assert_true(fabs(s.dir[0].guest_ms[0] - fio_p50_ms) <=
		    fio_p50_ms * 0.001);
	assert_true(fabs(s.dir[0].guest_ms[1] - fio_p99_ms) <=
		    fio_p99_ms * 0.001);
	assert_near_ms(s.dir[0].device_ms[0], 50);
	assert_near_ms(s.dir[0].device_ms[1], 90);
	assert_true(s.dir[0].guest_ms[0] > s.dir[0].device_ms[0]);
	assert_int_equal(xvbd_ab_pv_split_text(&s.dir[0], 0, 1, line,
					       sizeof(line)), 0);
	assert_non_null(strstr(line, "read p99: guest "));
	assert_non_null(strstr(line, " in the PV path "));
	assert_int_equal(xvbd_ab_pv_split_text(&s.dir[1], 1, 1, line,
					       sizeof(line)), -1);
	done(&r);
}

static void test_guest_below_device(void **state)
{
	struct xvbd_ab_pv_split s;
	char line[400];
	struct run r;

	(void)state;
	/* the device "took" 500 ms: no fio read was that slow */
	make(&r, 1, 1000, 500000, 0, 1);
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_true(s.dir[0].known);
	assert_true(s.dir[0].guest_ms[0] < s.dir[0].device_ms[0]);
	assert_int_equal(xvbd_ab_pv_split_text(&s.dir[0], 0, 0, line,
					       sizeof(line)), 0);
	assert_non_null(strstr(line, "below the device's"));
	assert_null(strstr(line, "-"));
	done(&r);
}

static void test_which_vbd(void **state)
{
	struct xvbd_ab_pv_split s;
	struct run r;

	(void)state;
	/* xvda (fio's filename) fast, xvdb slow: only xvda's counts */
	make(&r, 2, 1000, 40, 0, 1);
	xvbd_lathist_free(&r.lat->vbds[1].h[XVBD_LAT_D2C][XVBD_LAT_READ]);
	assert_int_equal(xvbd_lathist_add(&r.lat->vbds[1].h[XVBD_LAT_D2C]
					  [XVBD_LAT_READ], 9000000, 5000), 0);
	r.t.vdevs[1] = (char *)"xvdb";
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_true(s.dir[0].known);
	assert_string_equal(s.dir[0].vdev, "xvda");
	assert_int_equal(s.dir[0].device_requests, 1000);
	assert_near_ms(s.dir[0].device_ms[1], 40);
	/* fio ran on a disk the record does not hold: nothing to split */
	r.t.vdevs[0] = (char *)"xvdc";
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_false(s.dir[0].known);
	done(&r);
}

static void test_incomplete_or_absent(void **state)
{
	struct xvbd_ab_pv_split s;
	struct run r;

	(void)state;
	make(&r, 1, 1000, 40, 0, 1);
	r.lat->vbds[0].state = XVBD_LAT_INCOMPLETE;
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_false(xvbd_ab_pv_split_any(&s));
	r.lat->vbds[0].state = XVBD_LAT_OK;
	r.t.r.lat = NULL;
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_false(xvbd_ab_pv_split_any(&s));
	r.t.r.lat = r.lat;
	r.t.r.results = NULL;
	xvbd_ab_pv_split(&r.t.r, 1, &s);
	assert_false(xvbd_ab_pv_split_any(&s));
	done(&r);
}

static void test_label_merged(void **state)
{
	struct xvbd_ab_record recs[3];
	struct xvbd_ab_pv_split one, s;
	struct run r[3];
	int i;

	(void)state;
	make(&r[0], 1, 1000, 40, 0, 1);
	make(&r[1], 1, 500, 40, 500, 80);
	make(&r[2], 1, 1000, 40, 0, 1);
	r[2].lat->vbds[0].state = XVBD_LAT_INCOMPLETE;	/* left out */
	for (i = 0; i < 3; i++)
		recs[i] = r[i].t.r;
	xvbd_ab_pv_split(&recs[0], 1, &one);
	xvbd_ab_pv_split(recs, 3, &s);
	assert_int_equal(s.dir[0].runs, 2);
	assert_int_equal(s.dir[0].device_requests, 2000);
	assert_int_equal(s.dir[0].guest_ios, 2 * one.dir[0].guest_ios);
	/* the same bins twice: the same guest percentiles */
	assert_true(s.dir[0].guest_ms[1] == one.dir[0].guest_ms[1]);
	/* 1500 at 40 us, 500 at 80 us: p50 40 us, p99 80 us */
	assert_near_ms(s.dir[0].device_ms[0], 40);
	assert_near_ms(s.dir[0].device_ms[1], 80);
	for (i = 0; i < 3; i++)
		done(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_guest_below_device),
		cmocka_unit_test(test_which_vbd),
		cmocka_unit_test(test_incomplete_or_absent),
		cmocka_unit_test(test_label_merged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
