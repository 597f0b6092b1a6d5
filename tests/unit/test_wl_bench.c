/*
 * test_wl_bench.c - the Go benchmark format (benchfmt) reader: go test
 * -bench's output (tests/data/benchfmt/go-test.txt) and a compile's
 * seconds; configuration and Unit lines; the direction of a unit; lines
 * the format ignores; refused result lines (a value without its unit,
 * not a number, a NUL, a line past the cut) and the bound on lines; the
 * same result fed whole and a byte at a time.
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

#include "xvbd/workload/workload.h"

static const char *config(const struct xvbd_wl_bench *b, const char *key)
{
	size_t i;

	for (i = 0; i < b->nconfig; i++)
		if (!strcmp(b->config[i].key, key))
			return b->config[i].value;
	return NULL;
}

static void check_go_test(const struct xvbd_wl_bench *b)
{
	assert_int_equal(b->nlines, 2);
	assert_string_equal(config(b, "goos"), "linux");
	assert_string_equal(config(b, "cpu"), "Intel(R) Xeon(R) CPU @ 2.20GHz");
	assert_string_equal(config(b, "pkg"), "example.com/copy");
	/* "PASS" and "ok ..." are neither: ignored */
	assert_int_equal(b->nconfig, 4);
	assert_string_equal(b->lines[0].name, "BenchmarkCopy/4k-2");
	assert_int_equal(b->lines[0].iterations, 262072);
	assert_int_equal(b->lines[0].nvalues, 4);
	assert_true(b->lines[0].values[0].value == 4577);
	assert_string_equal(b->lines[0].values[0].unit, "ns/op");
	assert_true(b->lines[0].values[1].value == 894.88);
	assert_string_equal(b->lines[0].values[1].unit, "MB/s");
	assert_string_equal(b->lines[1].values[3].unit, "allocs/op");
	assert_int_equal(b->nbad, 0);
}

static void test_go_test_output(void **state)
{
	struct xvbd_wl_bench_reader *r;
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_bench b;
	size_t len, i;
	char *buf = unit_slurp("tests/data/benchfmt/go-test.txt", &len);

	(void)state;
	assert_int_equal(xvbd_wl_bench_parse(buf, len, &b, why, sizeof(why)), 0);
	check_go_test(&b);
	xvbd_wl_bench_free(&b);
	r = xvbd_wl_bench_reader_new();
	assert_non_null(r);
	for (i = 0; i < len; i++)
		assert_int_equal(xvbd_wl_bench_reader_feed(r, buf + i, 1), 0);
	assert_true(xvbd_wl_bench_reader_seen(r));
	assert_int_equal(xvbd_wl_bench_reader_finish(r, &b, why, sizeof(why)), 0);
	check_go_test(&b);
	xvbd_wl_bench_free(&b);
	xvbd_wl_bench_reader_free(r);
	free(buf);
}

static void test_direction(void **state)
{
	static const char text[] =
		"Unit txn/run better=higher\n"
		"Unit B/s better=lower\n"
		"BenchmarkDB 1 5 txn/run 3 B/s\r\n";
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_bench b;

	(void)state;
	assert_int_equal(xvbd_wl_bench_parse(text, sizeof(text) - 1, &b, why,
					     sizeof(why)), 0);
	/* Unit lines first, then the defaults by the unit's name */
	assert_int_equal(xvbd_wl_bench_better(&b, "txn/run"), XVBD_WL_HIGHER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "B/s"), XVBD_WL_LOWER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "MB/s"), XVBD_WL_HIGHER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "ops/sec"), XVBD_WL_HIGHER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "tps"), XVBD_WL_HIGHER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "ns/op"), XVBD_WL_LOWER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "sec/op"), XVBD_WL_LOWER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "s"), XVBD_WL_LOWER_BETTER);
	assert_int_equal(xvbd_wl_bench_better(&b, "steps"), XVBD_WL_LOWER_BETTER);
	/* CRLF: the unit is "B/s", not "B/s\r" */
	assert_string_equal(b.lines[0].values[1].unit, "B/s");
	xvbd_wl_bench_free(&b);
}

static void parsed(const char *text, size_t nlines, size_t nbad,
		   const char *bad_says)
{
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_bench b;
	int rc = xvbd_wl_bench_parse(text, strlen(text), &b, why, sizeof(why));

	if (!nlines) {
		assert_int_equal(rc, -ENODATA);
		if (!strstr(why, bad_says))
			fail_msg("'%s': '%s' does not say '%s'", text, why,
				 bad_says);
		return;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(b.nlines, nlines);
	assert_int_equal(b.nbad, nbad);
	if (bad_says && !strstr(b.first_bad, bad_says))
		fail_msg("'%s': '%s' does not say '%s'", text, b.first_bad,
			 bad_says);
	xvbd_wl_bench_free(&b);
}

static void test_lines(void **state)
{
	char *big;
	size_t i;

	(void)state;
	parsed("BenchmarkCompile 1 512.3 sec/op\n", 1, 0, NULL);
	parsed("BenchmarkCompile 1 512.3 sec/op", 1, 0, NULL);	/* no \n */
	parsed("Benchmark 1 2 s\n", 1, 0, NULL);
	/* "Benchmarking ..." is prose: a lower-case letter follows */
	parsed("Benchmarking the disk\n", 0, 0, "no benchmark lines");
	parsed("", 0, 0, "no benchmark lines");
	parsed("BenchmarkX 1 3.5\n", 0, 0, "line 1: BenchmarkX: a value without its unit");
	parsed("BenchmarkX 1 3.5 s 4\nBenchmarkY 2 1 s\n", 1, 1, "without its unit");
	parsed("BenchmarkX one 3 s\n", 0, 0, "iterations are not a whole number");
	parsed("BenchmarkX 1 NaN s\n", 0, 0, "not a finite number");
	parsed("BenchmarkX 1 1e999 s\n", 0, 0, "not a finite number");
	parsed("BenchmarkX 1 -1x s\n", 0, 0, "not a finite number");
	parsed("BenchmarkX 1\n", 0, 0, "no iterations and value/unit pair");
	parsed("Benchmark\xff 1 1 s\n", 0, 0, "not printable ASCII");
	parsed("BenchmarkX 1 1 s\xff\n", 0, 0, "not printable ASCII");
	big = calloc(1, 8192);
	assert_non_null(big);
	memcpy(big, "BenchmarkX\0 1 1 s\n", 18);
	{
		char why[XVBD_WL_WHY_MAX];
		struct xvbd_wl_bench b;

		assert_int_equal(xvbd_wl_bench_parse(big, 18, &b, why,
						     sizeof(why)), -ENODATA);
		assert_non_null(strstr(why, "a NUL byte"));
	}
	strcpy(big, "BenchmarkX 1 ");
	for (i = strlen(big); i < 5000; i++)
		big[i] = '1';
	strcpy(big + i, " s\nBenchmarkY 1 1 s\n");
	parsed(big, 1, 1, "longer than 4096 bytes");
	strcpy(big, "BenchmarkX 1");
	for (i = 0; i < 17; i++)
		strcat(big, " 1 s");
	strcat(big, "\n");
	parsed(big, 0, 0, "more than 16 value/unit pairs");
	free(big);
	/* configuration: the last value of a key, blanks after the colon;
	 * "Key: v" (upper case) and "a b: v" (a blank) are not keys */
	{
		static const char text[] = "k: one\nk:   two\nempty:\nKey: v\n"
			"a b: v\nnocolon\nBenchmarkZ 3 1 s\n";
		char why[XVBD_WL_WHY_MAX];
		struct xvbd_wl_bench b;

		assert_int_equal(xvbd_wl_bench_parse(text, sizeof(text) - 1,
						     &b, why, sizeof(why)), 0);
		assert_int_equal(b.nconfig, 2);
		assert_string_equal(config(&b, "k"), "two");
		assert_string_equal(config(&b, "empty"), "");
		xvbd_wl_bench_free(&b);
	}
}

/* More result lines than kept: refused as a whole, memory bounded. */
static void test_bound(void **state)
{
	struct xvbd_wl_bench_reader *r = xvbd_wl_bench_reader_new();
	static const char line[] = "BenchmarkX-2 10 1.5 ns/op\n";
	char why[XVBD_WL_WHY_MAX];
	struct xvbd_wl_bench b;
	size_t i;

	(void)state;
	assert_non_null(r);
	for (i = 0; i < XVBD_WL_BENCH_MAX + 5; i++)
		assert_int_equal(xvbd_wl_bench_reader_feed(r, line,
							   sizeof(line) - 1), 0);
	assert_int_equal(xvbd_wl_bench_reader_finish(r, &b, why, sizeof(why)),
			 -ENODATA);
	assert_non_null(strstr(why, "more than 1024"));
	xvbd_wl_bench_reader_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_test_output),
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
