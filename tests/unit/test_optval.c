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

#define S	UINT64_C(1000000000)

static void test_seconds(void **state)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} taken[] = {
		{ "0.01", S / 100 }, { "86400", 86400 * S }, { "30s", 30 * S },
		{ "500ms", S / 2 }, { "5m", 300 * S }, { "1h", 3600 * S },
		{ "0.1h", 360 * S }, { "1.5m", 90 * S }, { "2.5", 5 * S / 2 },
		{ "0.000001ms", 1 }, { "24h", 86400 * S },
	};
	static const char *const refused[] = {
		"", "s", "ms", "abc", "-1", "+2", "1e3", ".5", "1.", "1,5",
		"5x", "1sec", "5mm", "5 s", " 1", "1.5.2", "0x10", "1S", "1H",
		"1.0000000001", "0.0000000001s", "0.0000001ms",
	};
	char why[WHY_LEN];
	uint64_t ns = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		assert_int_equal(xvbd_optval_seconds(taken[i].text, 1,
						     86400 * S, &ns, why,
						     sizeof(why)), 0);
		assert_int_equal(ns, taken[i].ns);
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(xvbd_optval_seconds(refused[i], 0, 86400 * S,
						     &ns, why, sizeof(why)),
				 -EINVAL);
	/* the bounds, inclusive, in the units a user writes */
	assert_int_equal(xvbd_optval_seconds("0.005", S / 100, 86400 * S, &ns,
					     why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected a duration from 10ms to 24h "
			    "(500ms, 30s, 5m, 1h; a plain number is seconds)");
	assert_int_equal(xvbd_optval_seconds("86400.5", 0, 86400 * S, &ns, why,
					     sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected a duration from 0s to 24h "
			    "(500ms, 30s, 5m, 1h; a plain number is seconds)");
	assert_int_equal(xvbd_optval_seconds("61m", S, 3600 * S, &ns, why,
					     sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_optval_seconds("99999999999999999999h", S,
					     3600 * S, &ns, why, sizeof(why)),
			 -EINVAL);
}

static void test_bool(void **state)
{
	static const char *const yes[] = { "on", "yes", "true", "1", "ON",
					   "True" };
	static const char *const no[] = { "off", "no", "false", "0", "OFF" };
	static const char *const refused[] = { "", "2", "maybe", "o n", "y",
					       "enabled", "10", "onn" };
	char why[WHY_LEN];
	bool b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(xvbd_optval_bool(yes[i], &b, why,
						  sizeof(why)), 0);
		assert_true(b);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(xvbd_optval_bool(no[i], &b, why,
						  sizeof(why)), 0);
		assert_false(b);
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(xvbd_optval_bool(refused[i], &b, why,
						  sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected on or off (yes/no, true/false, "
			    "1/0 too)");
	assert_int_equal(xvbd_optval_bool(NULL, &b, why, sizeof(why)),
			 -EINVAL);
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
	assert_string_equal(why, "expected a size from 512 to 1G (bytes, or "
			    "with K, M, G, T, P or E: binary, 1K = 1024; KiB "
			    "... too)");
	/* every multiple, either case, with iB or B alone */
	assert_int_equal(xvbd_optval_parse_size("10m", &v), 0);
	assert_int_equal(v, 10 << 20);
	assert_int_equal(xvbd_optval_parse_size("4KiB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(xvbd_optval_parse_size("4kib", &v), 0);
	assert_int_equal(xvbd_optval_parse_size("2p", &v), 0);
	assert_int_equal(v, UINT64_C(2) << 50);
	assert_int_equal(xvbd_optval_parse_size("15E", &v), 0);
	assert_int_equal(v, UINT64_C(15) << 60);
	assert_int_equal(xvbd_optval_parse_size("16E", &v), -ERANGE);
	assert_int_equal(xvbd_optval_parse_size("512B", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(xvbd_optval_parse_size("8MB", &v), -EINVAL);
	assert_int_equal(xvbd_optval_parse_size("08M", &v), -EINVAL);
	assert_int_equal(xvbd_optval_parse_size("8Mi", &v), -EINVAL);
	assert_int_equal(xvbd_optval_parse_size("1.5G", &v), -EINVAL);
	assert_int_equal(xvbd_optval_parse_size("", &v), -EINVAL);
	assert_int_equal(xvbd_optval_parse_size("K", &v), -EINVAL);
	assert_int_equal(xvbd_optval_size("2E", 512, UINT64_C(1) << 60, &v,
					  why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected a size from 512 to 1E (bytes, or "
			    "with K, M, G, T, P or E: binary, 1K = 1024; KiB "
			    "... too)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_fmt_seconds),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_confidence),
		cmocka_unit_test(test_count_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
