/*
 * test_ab_guest.c - the guest's own figures as metrics: a run's summary
 * from real fio outputs against what jq reads in them (fio's IOPS, bw,
 * clat mean, printed percentiles and max), two jobs by fio's group
 * arithmetic and their summed bins, benchfmt's units in their slots with
 * their directions, the workload's facts (a job's options over the
 * global ones), the one-line workload difference, ab compare naming a
 * 1k-against-4k job as a confounder and comparing the guest metrics,
 * and a label's merged bins.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_data.h"

#include "ab_testrec.h"
#include "xvbd/workload/workload.h"

/* results of a saved output, whole; caller frees with results_free */
static void results_of(const char *path, struct xvbd_wl_results *r)
{
	struct xvbd_wl_capture *c =
		xvbd_wl_capture_new(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX);
	size_t len;
	char *buf = unit_slurp(path, &len);

	assert_non_null(c);
	assert_int_equal(xvbd_wl_capture_feed(c, buf, len), 0);
	xvbd_wl_capture_finish(c, 0, r);
	if (r->format == XVBD_WL_ABSENT)
		fail_msg("%s: %s", path, r->why);
	xvbd_wl_capture_free(c);
	free(buf);
}

/* A value jq read (tests/data/fio/NAME.expect): PATH VALUE */
static double expect(const char *name, const char *path)
{
	char file[256], line[512];
	size_t n = strlen(path);
	FILE *fp;

	snprintf(file, sizeof(file), "tests/data/fio/%s.expect", name);
	fp = fopen(file, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, path, n) && line[n] == ' ') {
			fclose(fp);
			return strtod(line + n + 1, NULL);
		}
	}
	fclose(fp);
	fail_msg("%s: %s not in the expect file", name, path);
	return NAN;
}

static void run_with(struct trec *t, const char *id,
		     struct xvbd_wl_results *r)
{
	trec_init(t, "a", id, 1);
	t->r.mode = XVBD_AB_MODE_RUN;
	t->r.results = r;
	trec_add(t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(t, 1000, 10, 0, 80, 0, 10, 10);
}

static void near(double want, double got, const char *what)
{
	if (!(fabs(want - got) <= 1e-12 * fabs(want)))
		fail_msg("%s: want %.17g, got %.17g", what, want, got);
}

/* One job: every guest read metric is fio's own figure, as jq reads it. */
static void test_one_job(void **state)
{
	static const char *const names[] = {
		"randread-jsonplus", "read-json", "note-json",
		"timebased-jsonplus",
	};
	struct xvbd_ab_summary s;
	struct xvbd_wl_results r;
	char path[256];
	struct trec t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *n = names[i];

		snprintf(path, sizeof(path), "tests/data/fio/%s.json", n);
		results_of(path, &r);
		run_with(&t, "a-20240501T120000-0000", &r);
		assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
		near(expect(n, "job0.read.iops"), s.value[XVBD_AB_G_RD_IOPS],
		     "iops");
		near(expect(n, "job0.read.bw_bytes") / 1e6,
		     s.value[XVBD_AB_G_RD_MBS], "MB/s");
		near(expect(n, "job0.read.clat_ns.mean") / 1e6,
		     s.value[XVBD_AB_G_RD_CLAT], "clat mean");
		near(expect(n, "job0.read.clat_ns.pct.50.000000") / 1e6,
		     s.value[XVBD_AB_G_RD_P50], "p50");
		near(expect(n, "job0.read.clat_ns.pct.99.000000") / 1e6,
		     s.value[XVBD_AB_G_RD_P99], "p99");
		near(expect(n, "job0.read.clat_ns.pct.99.900000") / 1e6,
		     s.value[XVBD_AB_G_RD_P999], "p99.9");
		near(expect(n, "job0.read.clat_ns.max") / 1e6,
		     s.value[XVBD_AB_G_RD_CLAT_MAX], "max");
		/* a read job: no write figures, unknown, not 0 */
		assert_false(s.known[XVBD_AB_G_WR_IOPS]);
		assert_false(s.known[XVBD_AB_G_WR_P99]);
		assert_false(s.known[XVBD_AB_BENCH_LOWER1]);
		xvbd_wl_results_free(&r);
	}
}

/* Two jobs side by side: I/Os over the longer runtime, bins' p99. */
static void test_two_jobs(void **state)
{
	const char *n = "randrw-jsonplus-nogroup";
	struct xvbd_ab_summary s;
	struct xvbd_wl_results r;
	double ios, rt;
	uint64_t p99;
	struct trec t;

	(void)state;
	results_of("tests/data/fio/randrw-jsonplus-nogroup.json", &r);
	run_with(&t, "a-20240501T120000-0000", &r);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	ios = expect(n, "job0.write.total_ios") + expect(n, "job1.write.total_ios");
	rt = fmax(expect(n, "job0.write.runtime"), expect(n, "job1.write.runtime"));
	near(1000 * ios / rt, s.value[XVBD_AB_G_WR_IOPS], "write iops");
	assert_true(xvbd_wl_hist_percentile(&r.fio.hist[1][XVBD_WL_CLAT], 99,
					    &p99));
	near((double)p99 / 1e6, s.value[XVBD_AB_G_WR_P99], "write p99");
	near(fmax(expect(n, "job0.write.clat_ns.max"),
		  expect(n, "job1.write.clat_ns.max")) / 1e6,
	     s.value[XVBD_AB_G_WR_CLAT_MAX], "write max");
	xvbd_wl_results_free(&r);
}

static void test_bench_slots(void **state)
{
	struct xvbd_ab_summary s;
	struct xvbd_wl_results r;
	const char *name, *unit;
	struct trec t;
	double mean;

	(void)state;
	results_of("tests/data/benchfmt/go-test.txt", &r);
	run_with(&t, "a-20240501T120000-0000", &r);
	assert_int_equal(xvbd_ab_summarize(&t.r, &s), 0);
	/* lower is better: ns/op, B/op, allocs/op of the first line, then
	 * the second line's ns/op; higher: the MB/s of each */
	assert_true(xvbd_ab_bench_slot(&t.r, XVBD_AB_BENCH_LOWER1, &name,
				       &unit, &mean));
	assert_string_equal(name, "BenchmarkCopy/4k-2");
	assert_string_equal(unit, "ns/op");
	assert_true(s.value[XVBD_AB_BENCH_LOWER1] == 4577);
	assert_true(xvbd_ab_bench_slot(&t.r, XVBD_AB_BENCH_LOWER4, &name,
				       &unit, &mean));
	assert_string_equal(name, "BenchmarkCopy/1M-2");
	assert_true(mean == 1103404);
	assert_true(xvbd_ab_bench_slot(&t.r, XVBD_AB_BENCH_HIGHER2, &name,
				       &unit, &mean));
	assert_string_equal(unit, "MB/s");
	assert_true(s.value[XVBD_AB_BENCH_HIGHER2] == 950.30);
	assert_false(s.known[XVBD_AB_BENCH_HIGHER3]);
	assert_true(xvbd_ab_metrics[XVBD_AB_BENCH_HIGHER2].higher_is_better);
	assert_false(xvbd_ab_metrics[XVBD_AB_BENCH_LOWER1].higher_is_better);
	xvbd_wl_results_free(&r);
}

static void test_facts(void **state)
{
	struct xvbd_ab_fp fp = { 0 };
	struct xvbd_wl_results r;

	(void)state;
	results_of("tests/data/fio/jobfile-jsonplus.json", &r);
	assert_int_equal(xvbd_ab_fp_add_results(&fp, &r), 0);
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.fio.version"),
			    "fio-3.33");
	/* [reader] rw=randread bs=1k; [global] direct=1 filename=/dev/xvda */
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.fio.job0.rw"),
			    "randread");
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.fio.job0.bs"), "1k");
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.fio.job0.direct"),
			    "1");
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.fio.job1.bs"), "4k");
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.fio.job1.filename"),
			    "/dev/xvda");
	assert_null(xvbd_ab_fp_get(&fp, "workload.fio.job0.iodepth"));
	xvbd_ab_fp_free(&fp);
	xvbd_wl_results_free(&r);
	results_of("tests/data/benchfmt/go-test.txt", &r);
	assert_int_equal(xvbd_ab_fp_add_results(&fp, &r), 0);
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.bench.lower-1"),
			    "BenchmarkCopy/4k-2 ns/op");
	assert_string_equal(xvbd_ab_fp_get(&fp, "workload.bench.config.cpu"),
			    "Intel(R) Xeon(R) CPU @ 2.20GHz");
	xvbd_ab_fp_free(&fp);
	xvbd_wl_results_free(&r);
}

/*
 * A: fio 4k randread, B: 1k, the same command: the guest metrics are
 * compared (B's IOPS higher), the workload is a confounder in one line,
 * and no difference is taken for the variable under test.
 */
static void test_compare_bs(void **state)
{
	struct trec a[3], b[3];
	struct xvbd_ab_record ra[3], rb[3];
	struct xvbd_wl_results res_a[3], res_b[3];
	struct xvbd_ab_comparison c;
	char text[XVBD_AB_VERDICT_TEXT_MAX];
	bool said = false;
	char id[64];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		results_of("tests/data/fio/randread-jsonplus.json", &res_a[i]);
		results_of("tests/data/fio/randread-jsonplus.json", &res_b[i]);
		/* B's IOPS 20 % higher, run to run a little apart */
		res_a[i].fio.jobs[0].dir[0].iops = 1000 + 10.0 * i;
		res_b[i].fio.jobs[0].dir[0].iops = 1200 + 12.0 * i;
		snprintf(id, sizeof(id), "a-20240501T12000%zu-0000", i);
		run_with(&a[i], strdup(id), &res_a[i]);
		snprintf(id, sizeof(id), "b-20240501T12001%zu-0000", i);
		run_with(&b[i], strdup(id), &res_b[i]);
		b[i].r.label = (char *)"b";
		trec_fact(&a[i], "workload.fio.job0.bs", "4k");
		trec_fact(&a[i], "workload.fio.job0.rw", "randread");
		trec_fact(&b[i], "workload.fio.job0.bs", "1k");
		trec_fact(&b[i], "workload.fio.job0.rw", "randread");
		ra[i] = a[i].r;
		rb[i] = b[i].r;
	}
	assert_int_equal(xvbd_ab_compare(ra, 3, rb, 3, 0.95,
					 XVBD_AB_TEST_WELCH, &c), 0);
	assert_int_equal(c.m[XVBD_AB_G_RD_IOPS].na, 3);
	assert_int_equal(c.m[XVBD_AB_G_RD_IOPS].verdict, XVBD_AB_V_BETTER);
	assert_int_equal(xvbd_ab_verdict_text(&c, &c.m[XVBD_AB_G_RD_IOPS],
					      text, sizeof(text)), 0);
	assert_non_null(strstr(text, "B faster"));
	assert_int_equal(c.variable, -1);
	for (i = 0; i < c.nwarnings; i++)
		if (strstr(c.warnings[i], "the workload's own parameters "
			   "differ: A ran bs=4k, B bs=1k: fio's jobs differ"))
			said = true;
	if (!said)
		for (i = 0; i < c.nwarnings; i++)
			print_message("warning: %s\n", c.warnings[i]);
	assert_true(said);
	xvbd_ab_comparison_free(&c);
	for (i = 0; i < 3; i++) {
		free(a[i].r.id);
		free(b[i].r.id);
		xvbd_wl_results_free(&res_a[i]);
		xvbd_wl_results_free(&res_b[i]);
	}
}

/* A label's bins: the sum of its runs' (and only of runs with bins). */
static void test_merged(void **state)
{
	struct xvbd_wl_results r1, r2, r3;
	struct xvbd_ab_record recs[3];
	struct xvbd_wl_hist h;
	struct trec t[3];
	size_t nruns;

	(void)state;
	results_of("tests/data/fio/randread-jsonplus.json", &r1);
	results_of("tests/data/fio/timebased-jsonplus.json", &r2);
	results_of("tests/data/fio/read-json.json", &r3);	/* no bins */
	run_with(&t[0], "a-20240501T120000-0000", &r1);
	run_with(&t[1], "a-20240501T120001-0000", &r2);
	run_with(&t[2], "a-20240501T120002-0000", &r3);
	recs[0] = t[0].r;
	recs[1] = t[1].r;
	recs[2] = t[2].r;
	assert_int_equal(xvbd_ab_merged_clat(recs, 3, XVBD_WL_READ, &h,
					     &nruns), 0);
	assert_int_equal(nruns, 2);
	assert_int_equal(h.total, r1.fio.hist[0][XVBD_WL_CLAT].total +
			 r2.fio.hist[0][XVBD_WL_CLAT].total);
	assert_int_equal(h.total, (uint64_t)(expect("randread-jsonplus",
						    "job0.read.clat_ns.N") +
					     expect("timebased-jsonplus",
						    "job0.read.clat_ns.N")));
	xvbd_wl_hist_free(&h);
	xvbd_wl_results_free(&r1);
	xvbd_wl_results_free(&r2);
	xvbd_wl_results_free(&r3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_job),
		cmocka_unit_test(test_two_jobs),
		cmocka_unit_test(test_bench_slots),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_compare_bs),
		cmocka_unit_test(test_merged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
