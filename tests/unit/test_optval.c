/*
 * test_optval.c - the option-value grammar: each kind's accepted forms,
 * its bounds (inclusive, exact at the decimal edge), and its one text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/base/optval.h"

#define WHY_LEN XVBD_OPTVAL_WHY_MAX

static void test_seconds(void **state)
{
	char why[WHY_LEN];
	uint64_t ns = 0;

	(void)state;
	assert_int_equal(xvbd_optval_seconds("0.01", 10000000, 86400, &ns,
					     why, sizeof(why)), 0);
	assert_int_equal(ns, 10000000);
	assert_int_equal(xvbd_optval_seconds("86400", 0, 86400, &ns, why,
					     sizeof(why)), 0);
	assert_int_equal(xvbd_optval_seconds("0.005", 10000000, 86400, &ns,
					     why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected seconds from 0.01 to 86400");
	assert_int_equal(xvbd_optval_seconds("86400.5", 0, 86400, &ns, why,
					     sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected seconds from 0 to 86400");
	assert_int_equal(xvbd_optval_seconds("1e3", 1000000, 86400, &ns, why,
					     sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected seconds from 0.001 to 86400");
}

static void test_fmt_seconds(void **state)
{
	char buf[32];

	(void)state;
	xvbd_optval_fmt_seconds(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	xvbd_optval_fmt_seconds(1500000000, buf, sizeof(buf));
	assert_string_equal(buf, "1.5");
	xvbd_optval_fmt_seconds(1, buf, sizeof(buf));
	assert_string_equal(buf, "0.000000001");
}

static void test_percent(void **state)
{
	static const char *const refused[] = {
		"", "abc", "-5", "+95", "95%%", "9 5", "1e2", "95.1234", ".5",
		"95.", "0x50", "95 %", "%",
	};
	char why[WHY_LEN];
	double f = 0;
	size_t i;

	(void)state;
	assert_int_equal(xvbd_optval_percent("95", 50, 99.999, &f, why,
					     sizeof(why)), 0);
	assert_true(f == 0.95);
	assert_int_equal(xvbd_optval_percent("95%", 50, 99.999, &f, why,
					     sizeof(why)), 0);
	assert_true(f == 0.95);
	assert_int_equal(xvbd_optval_percent("0.1", 0.1, 99.9, &f, why,
					     sizeof(why)), 0);
	assert_true(f == 0.001);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(xvbd_optval_percent(refused[i], 0, 100, &f,
						     why, sizeof(why)),
				 -EINVAL);
		assert_string_equal(why, "expected a percentage from 0 to 100 "
				    "(at most 3 decimals, \"%\" optional)");
	}
}

/* The edge is exact: 99.999 is in, one more decimal place is out. */
static void test_confidence(void **state)
{
	char why[WHY_LEN];
	double level = 0;

	(void)state;
	assert_int_equal(xvbd_optval_confidence("99.999", &level, why,
						sizeof(why)), 0);
	assert_true(level > 0.99998 && level < 1);
	assert_int_equal(xvbd_optval_confidence("50", &level, why,
						sizeof(why)), 0);
	assert_int_equal(xvbd_optval_confidence("99.9999", &level, why,
						sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected a percentage from 50 to 99.999 "
			    "(at most 3 decimals, \"%\" optional)");
	assert_int_equal(xvbd_optval_confidence("100", &level, why,
						sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_optval_confidence("49.999", &level, why,
						sizeof(why)), -EINVAL);
}

static void test_count_size(void **state)
{
	char why[WHY_LEN];
	uint64_t v = 0;

	(void)state;
	assert_int_equal(xvbd_optval_count("3", 1, 500, &v, why, sizeof(why)),
			 0);
	assert_int_equal(v, 3);
	assert_int_equal(xvbd_optval_count("0", 1, 500, &v, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "expected a count from 1 to 500");
	assert_int_equal(xvbd_optval_count("01", 0, 500, &v, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(xvbd_optval_size("8M", 512, 1 << 30, &v, why,
					  sizeof(why)), 0);
	assert_int_equal(v, 8 << 20);
	assert_int_equal(xvbd_optval_size("511", 512, 1 << 30, &v, why,
					  sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected a size from 512B to 1G (bytes, "
			    "or with K, M, G or T)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_fmt_seconds),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_confidence),
		cmocka_unit_test(test_count_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
