/*
 * test_ab_results.c - a record's "results": the capture of a command's
 * stdout (fed in pieces, the bound, a failed command, auto detection,
 * nothing printed) and the results through the record's JSON and back,
 * every saved fio output and a benchfmt one, to the same text; a record
 * without results reads as before; a hostile "results" is refused with
 * its place.
 */
#include <errno.h>
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

/* The command's stdout in pieces of piece bytes, then its end. */
static void capture(enum xvbd_wl_results_mode mode, uint64_t max,
		    const char *buf, size_t len, size_t piece, int status,
		    struct xvbd_wl_results *out)
{
	struct xvbd_wl_capture *c = xvbd_wl_capture_new(mode, max);
	size_t at;

	assert_non_null(c);
	for (at = 0; at < len; at += piece)
		assert_int_equal(xvbd_wl_capture_feed(
			c, buf + at, len - at < piece ? len - at : piece), 0);
	xvbd_wl_capture_finish(c, status, out);
	xvbd_wl_capture_free(c);
}

static void test_capture(void **state)
{
	static const char bench[] = "BenchmarkSum 1 2.5 s\n";
	struct xvbd_wl_results r;
	size_t len;
	char *ok = unit_slurp("tests/data/fio/randread-jsonplus.json", &len);
	char *buf = unit_slurp("tests/data/fio/error-rodisk.json", &len);

	(void)state;
	/* fio's failed job with its exit status 1: absent, fio's word */
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, buf, len, 100, 1, &r);
	assert_int_equal(r.format, XVBD_WL_ABSENT);
	assert_false(r.quiet);
	assert_string_equal(r.why, "the command exited with status 1 (fio "
			    "job 'ro' failed: error 1 (Operation not "
			    "permitted)): its output is not taken for results");
	xvbd_wl_results_free(&r);
	/* the same output with exit 0: fio's error field alone */
	capture(XVBD_WL_RESULTS_FIO, XVBD_WL_OUTPUT_MAX, buf, len, 7, 0, &r);
	assert_int_equal(r.format, XVBD_WL_ABSENT);
	assert_non_null(strstr(r.why, "error 1 (Operation not permitted)"));
	xvbd_wl_results_free(&r);
	free(buf);
	len = strlen(ok);
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, ok, len, 4096, 0, &r);
	assert_int_equal(r.format, XVBD_WL_FIO);
	assert_int_equal(r.output_bytes, len);
	assert_int_equal(r.fio.njobs, 1);
	xvbd_wl_results_free(&r);
	/* over the bound: counted, not read */
	capture(XVBD_WL_RESULTS_AUTO, len - 1, ok, len, 4096, 0, &r);
	assert_int_equal(r.format, XVBD_WL_ABSENT);
	assert_non_null(strstr(r.why, "more than"));
	assert_int_equal(r.output_bytes, len);
	xvbd_wl_results_free(&r);
	/* benchfmt asked for, fio's output given */
	capture(XVBD_WL_RESULTS_BENCHFMT, XVBD_WL_OUTPUT_MAX, ok, len, 4096, 0,
		&r);
	assert_int_equal(r.format, XVBD_WL_ABSENT);
	assert_non_null(strstr(r.why, "no benchmark lines"));
	xvbd_wl_results_free(&r);
	free(ok);
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, bench,
		sizeof(bench) - 1, 3, 0, &r);
	assert_int_equal(r.format, XVBD_WL_BENCHFMT);
	xvbd_wl_results_free(&r);
	/* nothing printed: absent and quiet; text: absent, said */
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, "", 0, 1, 0, &r);
	assert_int_equal(r.format, XVBD_WL_ABSENT);
	assert_true(r.quiet);
	xvbd_wl_results_free(&r);
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, "hello\n", 6, 1, 0,
		&r);
	assert_false(r.quiet);
	assert_string_equal(r.why, "neither fio's JSON nor benchmark lines "
			    "in 6 bytes of output");
	xvbd_wl_results_free(&r);
	capture(XVBD_WL_RESULTS_NONE, XVBD_WL_OUTPUT_MAX, bench,
		sizeof(bench) - 1, 3, 0, &r);
	assert_true(r.quiet);
	xvbd_wl_results_free(&r);
}

/* A --run record with results r, to JSON and back; the text again. */
static void round_trip(struct xvbd_wl_results *r)
{
	struct xvbd_ab_record back;
	struct xvbd_ab_err e = { "" };
	char *json, *json2;
	size_t len, len2;
	struct trec t;

	trec_init(&t, "a", "a-20240501T120000-0000", 1);
	t.r.mode = XVBD_AB_MODE_RUN;
	t.r.workload = (char *)"fio job.fio";
	t.r.results = r;
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 10, 0, 80, 0, 10, 10);
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	if (xvbd_ab_record_from_json(json, len, &back, &e))
		fail_msg("%s", e.msg);
	assert_non_null(back.results);
	assert_int_equal(back.results->format, r->format);
	assert_int_equal(xvbd_ab_record_to_json(&back, &json2, &len2), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(json, json2, len);
	xvbd_ab_record_free(&back);
	free(json);
	free(json2);
}

static void test_round_trip(void **state)
{
	static const char *const names[] = {
		"randread-jsonplus", "randrw-jsonplus-nogroup",
		"jobfile-jsonplus", "read-json-group", "trim-json",
		"timebased-jsonplus",
	};
	struct xvbd_wl_results r;
	char path[256];
	size_t i, len;
	char *buf;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "tests/data/fio/%s.json", names[i]);
		buf = unit_slurp(path, &len);
		capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, buf, len,
			len, 0, &r);
		assert_int_equal(r.format, XVBD_WL_FIO);
		round_trip(&r);
		xvbd_wl_results_free(&r);
		free(buf);
	}
	buf = unit_slurp("tests/data/benchfmt/go-test.txt", &len);
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, buf, len, len, 0, &r);
	assert_int_equal(r.format, XVBD_WL_BENCHFMT);
	round_trip(&r);
	xvbd_wl_results_free(&r);
	free(buf);
	capture(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX, "x\n", 2, 2, 3, &r);
	round_trip(&r);
	xvbd_wl_results_free(&r);
}

/* A record written without results: read as before, results NULL. */
static void test_old_record(void **state)
{
	struct xvbd_ab_record back;
	struct xvbd_ab_err e = { "" };
	struct trec t;
	char *json;
	size_t len;

	(void)state;
	trec_init(&t, "a", "a-20240501T120000-0000", 1);
	t.r.mode = XVBD_AB_MODE_RUN;
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 10, 0, 80, 0, 10, 10);
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	assert_null(strstr(json, "results"));
	assert_int_equal(xvbd_ab_record_from_json(json, len, &back, &e), 0);
	assert_null(back.results);
	xvbd_ab_record_free(&back);
	free(json);
}

/* The record's JSON with its "results" value replaced by res: read? */
static int with_results(const char *res, struct xvbd_ab_err *e)
{
	struct xvbd_ab_record back;
	char *json, *doc, *at;
	struct trec t;
	size_t len;
	int rc;

	trec_init(&t, "a", "a-20240501T120000-0000", 1);
	t.r.mode = XVBD_AB_MODE_RUN;
	trec_add(&t, 0, 0, 0, 0, 0, 0, 0);
	trec_add(&t, 1000, 10, 0, 80, 0, 10, 10);
	assert_int_equal(xvbd_ab_record_to_json(&t.r, &json, &len), 0);
	at = strstr(json, "\"samples\"");
	assert_non_null(at);
	doc = malloc(len + strlen(res) + 32);
	assert_non_null(doc);
	sprintf(doc, "%.*s\"results\":%s,%s", (int)(at - json), json, res, at);
	rc = xvbd_ab_record_from_json(doc, strlen(doc), &back, e);
	if (!rc)
		xvbd_ab_record_free(&back);
	free(doc);
	free(json);
	return rc;
}

static void refused(const char *res, const char *want)
{
	struct xvbd_ab_err e = { "" };

	assert_int_not_equal(with_results(res, &e), 0);
	if (!strstr(e.msg, want))
		fail_msg("'%s' does not say '%s'", e.msg, want);
}

#define FIO_OK(jobs, bins) \
	"{\"mode\":\"auto\",\"format\":\"fio\",\"output_bytes\":1,\"fio\":" \
	"{\"version\":\"fio-3.33\",\"timestamp_ms\":1,\"global_options\":[]," \
	"\"jobs\":" jobs ",\"bins\":" bins ",\"disks\":[]}}"
#define JOB(read) "[{\"name\":\"j\",\"groupid\":0,\"error\":0," \
	"\"job_runtime_ms\":1,\"elapsed_s\":1,\"options\":[]" read "}]"
#define DIR_OK "\"io_bytes\":1,\"bw_bytes\":1,\"iops\":1.5," \
	"\"runtime_ms\":1,\"total_ios\":1,\"short_ios\":0,\"drop_ios\":0"

static void test_hostile(void **state)
{
	struct xvbd_ab_err e = { "" };

	(void)state;
	/* the one the cases below break, each in one place */
	if (with_results(FIO_OK(JOB(",\"read\":{" DIR_OK "}"),
				"[{\"dir\":\"read\",\"lat\":\"clat_ns\","
				"\"bins\":[[5,1],[6,1]]}]"), &e))
		fail_msg("%s", e.msg);
	refused("{\"mode\":\"x\",\"format\":\"absent\",\"output_bytes\":0,"
		"\"why\":\"w\",\"quiet\":true}", "mode");
	refused("{\"mode\":\"auto\",\"format\":\"fio\",\"output_bytes\":0,"
		"\"why\":\"w\",\"quiet\":true}", "do not match its format");
	refused("{\"mode\":\"auto\",\"format\":\"absent\",\"output_bytes\":0,"
		"\"why\":\"a\\nb\",\"quiet\":true}", "printable");
	refused("{\"mode\":\"auto\",\"format\":\"absent\",\"output_bytes\":-1,"
		"\"why\":\"w\",\"quiet\":true}", "results.output_bytes");
	refused(FIO_OK("[]", "[]"), "results.fio.jobs: not an array of 1");
	refused(FIO_OK(JOB(",\"read\":{" DIR_OK ",\"x\":1}"), "[]"),
		"results.fio.jobs[0].read: unknown key \"x\"");
	refused(FIO_OK(JOB(",\"read\":{\"io_bytes\":1,\"bw_bytes\":1,"
			   "\"iops\":-1,\"runtime_ms\":1,\"total_ios\":1,"
			   "\"short_ios\":0,\"drop_ios\":0}"), "[]"),
		"results.fio.jobs[0].read.iops: not a finite number");
	refused(FIO_OK(JOB(""), "[{\"dir\":\"read\",\"lat\":\"clat_ns\","
			   "\"bins\":[[5,1],[5,1]]}]"),
		"not after the bin before it");
	refused(FIO_OK(JOB(""), "[{\"dir\":\"up\",\"lat\":\"clat_ns\","
			   "\"bins\":[[5,1]]}]"), "dir or lat");
	refused(FIO_OK(JOB(""), "[{\"dir\":\"read\",\"lat\":\"clat_ns\","
			   "\"bins\":[[5,18446744073709551615],"
			   "[6,1]]}]"), "the counts overflow");
	refused(FIO_OK(JOB(",\"read\":{" DIR_OK ",\"clat_ns\":{\"n\":1,"
			   "\"min_ns\":1,\"max_ns\":1,\"mean_ns\":1,"
			   "\"stddev_ns\":0,\"percentiles\":[[101,1]]}}"), "[]"),
		"percentiles[0]: not a [percentile, ns] pair");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_old_record),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
