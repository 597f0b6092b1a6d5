/*
 * test_lathist.c - the log-linear latency histogram: bucket layout,
 * the stated error of percentiles against the exact order statistic of
 * the recorded values, exact merging in any grouping, exact maximum,
 * and the kernel bucket checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/base/lathist.h"

/* A small deterministic generator (xorshift64*): no libc rand state. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Log-uniform over [lo, hi): latencies spread over many octaves. */
static uint64_t log_uniform(uint64_t lo, uint64_t hi)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(hi);
	uint64_t v;

	do {
		v = rng() >> (64 - (rng() % bits + 1));
	} while (v < lo || v >= hi);
	return v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_layout(void **state)
{
	size_t i;

	(void)state;
	/* Contiguous, in order, covering 0 .. 2^64 - 1. */
	assert_int_equal(xvbd_lathist_lower_ns(0), 0);
	for (i = 0; i + 1 < XVBD_LH_NBUCKETS; i++)
		assert_true(xvbd_lathist_lower_ns(i) + xvbd_lathist_width_ns(i) ==
			    xvbd_lathist_lower_ns(i + 1));
	assert_true(xvbd_lathist_lower_ns(i) + (xvbd_lathist_width_ns(i) - 1) ==
		    UINT64_MAX);
	/* Each bucket's bounds map back to it. */
	for (i = 0; i < XVBD_LH_NBUCKETS; i++) {
		uint64_t lo = xvbd_lathist_lower_ns(i),
			 w = xvbd_lathist_width_ns(i);

		assert_int_equal(xvbd_lathist_index(lo), i);
		assert_int_equal(xvbd_lathist_index(lo + (w - 1)), i);
		/* The stated width: at most 1/32 of the lower bound. */
		if (lo >= XVBD_LH_LINEAR_NS)
			assert_true(w * XVBD_LH_SUB_COUNT <= lo);
		else
			assert_int_equal(w, XVBD_LH_LINEAR_WIDTH_NS);
	}
	assert_int_equal(xvbd_lathist_index(1023), 31);
	assert_int_equal(xvbd_lathist_index(1024), 32);
	assert_int_equal(xvbd_lathist_width_ns(32), 32);
	/* 1 ms: octave 19 (524288), width 2^14. */
	assert_int_equal(xvbd_lathist_width_ns(xvbd_lathist_index(1000000)),
			 16384);
	assert_int_equal(xvbd_lathist_lower_ns(xvbd_lathist_index(1000000)),
			 (1000000 / 16384) * 16384);
}

/*
 * The error bound: every percentile of a log-uniform sample from 100 ns
 * to 100 s lies within 1/64 of the exact order statistic (or 16 ns
 * below 1024 ns), and the maximum is exact.
 */
static void test_percentile_error(void **state)
{
	static const uint32_t qs[] = { 1, 10000, 250000, 500000, 750000,
				       900000, 990000, 999000, 999900,
				       1000000 };
	enum { N = 20000 };
	uint64_t *v = calloc(N, sizeof(*v));
	struct xvbd_lathist h;
	size_t i, k;

	(void)state;
	assert_non_null(v);
	xvbd_lathist_init(&h);
	for (i = 0; i < N; i++) {
		v[i] = log_uniform(100, 100000000000ull);
		assert_int_equal(xvbd_lathist_add(&h, v[i], 1), 0);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	assert_int_equal(h.count, N);
	assert_true(h.max_ns == v[N - 1]);
	for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		/* The exact order statistic: rank ceil(q x N). */
		uint64_t rank = ((uint64_t)N * qs[k] + 999999) / 1000000;
		uint64_t exact = v[(rank ? rank : 1) - 1];
		uint64_t got = xvbd_lathist_quantile_ns(&h, qs[k]);
		double diff = got > exact ? (double)(got - exact) :
			      (double)(exact - got);

		if (exact < XVBD_LH_LINEAR_NS)
			assert_true(diff <= XVBD_LH_LINEAR_WIDTH_NS / 2);
		else
			assert_true(diff <= XVBD_LH_REL_ERROR * (double)exact);
	}
	assert_true(xvbd_lathist_quantile_ns(&h, 1000000) == h.max_ns);
	xvbd_lathist_free(&h);
	free(v);
}

/* Order: max >= p99.9 >= p99 >= p50 > 0, even with all in one bucket. */
static void test_percentile_order(void **state)
{
	struct xvbd_lathist h;
	uint64_t p50, p99, p999;

	(void)state;
	xvbd_lathist_init(&h);
	assert_int_equal(xvbd_lathist_quantile_ns(&h, 500000), 0);
	/* 100 values at 1000000 ns and one just above: one bucket. */
	assert_int_equal(xvbd_lathist_add(&h, 1000000, 100), 0);
	assert_int_equal(xvbd_lathist_add(&h, 1000100, 1), 0);
	p50 = xvbd_lathist_quantile_ns(&h, 500000);
	p99 = xvbd_lathist_quantile_ns(&h, 990000);
	p999 = xvbd_lathist_quantile_ns(&h, 999000);
	assert_true(p50 > 0 && p50 <= p99 && p99 <= p999 &&
		    p999 <= h.max_ns);
	/* Bucket 999424..1015807: its midpoint 1007616 is above the
	 * maximum, so every percentile is the maximum. */
	assert_int_equal(p50, 1000100);
	assert_int_equal(h.max_ns, 1000100);
	/* A value far above: the median is the bucket's midpoint. */
	assert_int_equal(xvbd_lathist_add(&h, 5000000, 1), 0);
	assert_int_equal(xvbd_lathist_quantile_ns(&h, 500000), 1007616);
	assert_int_equal(xvbd_lathist_quantile_ns(&h, 999000), 5000000);
	/* A single value: every percentile is it (the max caps the mid). */
	xvbd_lathist_free(&h);
	assert_int_equal(xvbd_lathist_add(&h, 983041, 1), 0);
	assert_int_equal(xvbd_lathist_quantile_ns(&h, 500000), 983041);
	xvbd_lathist_free(&h);
}

static void assert_same(const struct xvbd_lathist *a,
			const struct xvbd_lathist *b)
{
	assert_true(a->count == b->count);
	assert_true(a->sum_ns == b->sum_ns);
	assert_true(a->max_ns == b->max_ns);
	assert_memory_equal(a->buckets, b->buckets,
			    XVBD_LH_NBUCKETS * sizeof(*a->buckets));
}

/*
 * Exact merge: a stream cut into intervals, merged into runs and the
 * runs into one, in two different groupings and orders, equals the
 * histogram of the whole stream, bucket for bucket, with the same sum
 * and the same maximum.
 */
static void test_merge_exact(void **state)
{
	enum { PARTS = 12, PER = 500 };
	struct xvbd_lathist whole, part[PARTS], run_a, run_b, all1, all2;
	size_t i, j;

	(void)state;
	xvbd_lathist_init(&whole);
	xvbd_lathist_init(&run_a);
	xvbd_lathist_init(&run_b);
	xvbd_lathist_init(&all1);
	xvbd_lathist_init(&all2);
	for (i = 0; i < PARTS; i++) {
		xvbd_lathist_init(&part[i]);
		for (j = 0; j < PER; j++) {
			uint64_t v = log_uniform(50, 5000000000ull);

			assert_int_equal(xvbd_lathist_add(&part[i], v, 1), 0);
			assert_int_equal(xvbd_lathist_add(&whole, v, 1), 0);
		}
	}
	/* Runs of intervals 0-4 and 5-11; then run b, run a. */
	for (i = 0; i < PARTS; i++)
		assert_int_equal(xvbd_lathist_merge(i < 5 ? &run_a : &run_b,
						    &part[i]), 0);
	assert_int_equal(xvbd_lathist_merge(&all1, &run_b), 0);
	assert_int_equal(xvbd_lathist_merge(&all1, &run_a), 0);
	/* Every interval on its own, backwards. */
	for (i = PARTS; i-- > 0;)
		assert_int_equal(xvbd_lathist_merge(&all2, &part[i]), 0);
	assert_same(&all1, &whole);
	assert_same(&all2, &whole);
	/* Merging an empty histogram changes nothing. */
	xvbd_lathist_free(&run_a);
	assert_int_equal(xvbd_lathist_merge(&all1, &run_a), 0);
	assert_same(&all1, &whole);
	/* A copy is deep. */
	assert_int_equal(xvbd_lathist_copy(&run_a, &whole), 0);
	assert_true(run_a.buckets != whole.buckets);
	assert_same(&run_a, &whole);
	for (i = 0; i < PARTS; i++)
		xvbd_lathist_free(&part[i]);
	xvbd_lathist_free(&whole);
	xvbd_lathist_free(&run_a);
	xvbd_lathist_free(&run_b);
	xvbd_lathist_free(&all1);
	xvbd_lathist_free(&all2);
}

/* Counts whose maximum is known apart (the kernel's max trigger). */
static void test_counts_then_max(void **state)
{
	struct xvbd_lathist h;
	size_t lo_idx = xvbd_lathist_index(20000), hi_idx =
		xvbd_lathist_index(70000), top;
	uint64_t hi = xvbd_lathist_lower_ns(hi_idx);

	(void)state;
	xvbd_lathist_init(&h);
	assert_false(xvbd_lathist_top(&h, &top));
	assert_int_equal(xvbd_lathist_set_max(&h, 5), -EINVAL);
	assert_int_equal(xvbd_lathist_add_counts(&h, lo_idx, 2,
		2 * xvbd_lathist_lower_ns(lo_idx)), 0);
	assert_int_equal(xvbd_lathist_add_counts(&h, hi_idx, 1, hi + 7), 0);
	/* A sum outside what one value of the bucket can be. */
	assert_int_equal(xvbd_lathist_add_counts(&h, hi_idx, 1, hi - 1),
			 -EINVAL);
	assert_int_equal(xvbd_lathist_add_counts(&h, hi_idx, 1,
		hi + xvbd_lathist_width_ns(hi_idx)), -EINVAL);
	assert_true(xvbd_lathist_top(&h, &top) && top == hi_idx);
	/* The maximum must be in the top bucket. */
	assert_int_equal(xvbd_lathist_set_max(&h, 20000), -EINVAL);
	assert_int_equal(h.max_ns, 0);
	assert_int_equal(xvbd_lathist_set_max(&h, hi + 7), 0);
	assert_int_equal(h.max_ns, hi + 7);
	assert_int_equal(h.count, 3);
	assert_true(xvbd_lathist_quantile_ns(&h, 1000000) == hi + 7);
	xvbd_lathist_free(&h);
}

static void test_next(void **state)
{
	struct xvbd_lathist h;
	size_t idx = SIZE_MAX, n = 0;

	(void)state;
	xvbd_lathist_init(&h);
	assert_false(xvbd_lathist_next(&h, &idx));
	assert_int_equal(xvbd_lathist_add(&h, 5, 1), 0);
	assert_int_equal(xvbd_lathist_add(&h, 70000, 4), 0);
	while (xvbd_lathist_next(&h, &idx))
		n += h.buckets[idx];
	assert_int_equal(n, 5);
	assert_true(xvbd_lathist_mean_ns(&h) == (5.0 + 4 * 70000.0) / 5);
	xvbd_lathist_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_percentile_error),
		cmocka_unit_test(test_percentile_order),
		cmocka_unit_test(test_merge_exact),
		cmocka_unit_test(test_counts_then_max),
		cmocka_unit_test(test_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
