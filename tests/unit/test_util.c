/* Unit tests: strict number and size parsing, kvmap, natural order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/base/util.h"

static void test_parse_uint(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(xvbd_parse_uint("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(xvbd_parse_uint("18446744073709551615", UINT64_MAX,
					 &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(xvbd_parse_uint("18446744073709551616", UINT64_MAX,
					 &v), -ERANGE);
	assert_int_equal(xvbd_parse_uint("11", 10, &v), -ERANGE);
	v = 7;
	/* garbage never touches the output */
	assert_int_equal(xvbd_parse_uint("", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint("-1", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint("+1", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint(" 1", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint("1 ", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint("01", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint("0x1", 10, &v), -EINVAL);
	assert_int_equal(xvbd_parse_uint(NULL, 10, &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_parse_seconds(void **state)
{
	uint64_t ns = 7;

	(void)state;
	assert_int_equal(xvbd_parse_seconds("1", 10, &ns), 0);
	assert_true(ns == 1000000000ull);
	assert_int_equal(xvbd_parse_seconds("0.25", 10, &ns), 0);
	assert_true(ns == 250000000ull);
	assert_int_equal(xvbd_parse_seconds("2.000000001", 10, &ns), 0);
	assert_true(ns == 2000000001ull);
	assert_int_equal(xvbd_parse_seconds("0", 10, &ns), 0);
	assert_true(ns == 0);
	assert_int_equal(xvbd_parse_seconds("10", 10, &ns), 0);
	ns = 7;
	assert_int_equal(xvbd_parse_seconds("10.5", 10, &ns), -ERANGE);
	assert_int_equal(xvbd_parse_seconds("11", 10, &ns), -ERANGE);
	assert_int_equal(xvbd_parse_seconds("99999999999999999999", 10, &ns),
			 -ERANGE);
	assert_int_equal(xvbd_parse_seconds("0.0000000001", 10, &ns),
			 -EINVAL);
	assert_int_equal(xvbd_parse_seconds("", 10, &ns), -EINVAL);
	assert_int_equal(xvbd_parse_seconds(".5", 10, &ns), -EINVAL);
	assert_int_equal(xvbd_parse_seconds("1.", 10, &ns), -EINVAL);
	assert_int_equal(xvbd_parse_seconds("-1", 10, &ns), -EINVAL);
	assert_int_equal(xvbd_parse_seconds("1s", 10, &ns), -EINVAL);
	assert_int_equal(xvbd_parse_seconds(NULL, 10, &ns), -EINVAL);
	assert_true(ns == 7);
}

static void test_parse_bool(void **state)
{
	bool b = false;

	(void)state;
	assert_int_equal(xvbd_parse_bool("1", &b), 0);
	assert_true(b);
	assert_int_equal(xvbd_parse_bool("0", &b), 0);
	assert_false(b);
	assert_int_equal(xvbd_parse_bool("2", &b), -EINVAL);
	assert_int_equal(xvbd_parse_bool("yes", &b), -EINVAL);
	assert_int_equal(xvbd_parse_bool("", &b), -EINVAL);
}

static void test_parse_size(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(xvbd_parse_size("512", &v), 0);
	assert_true(v == 512);
	assert_int_equal(xvbd_parse_size("4K", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(xvbd_parse_size("4k", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(xvbd_parse_size("1M", &v), 0);
	assert_true(v == 1048576);
	assert_int_equal(xvbd_parse_size("2GiB", &v), 0);
	assert_true(v == 2ull << 30);
	assert_int_equal(xvbd_parse_size("3T", &v), 0);
	assert_true(v == 3ull << 40);
	assert_int_equal(xvbd_parse_size("16777215T", &v), 0);
	assert_int_equal(xvbd_parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(xvbd_parse_size("99999999999999999999", &v),
			 -ERANGE);
	assert_int_equal(xvbd_parse_size("", &v), -EINVAL);
	assert_int_equal(xvbd_parse_size("K", &v), -EINVAL);
	assert_int_equal(xvbd_parse_size("4X", &v), -EINVAL);
	assert_int_equal(xvbd_parse_size("4KK", &v), -EINVAL);
	assert_int_equal(xvbd_parse_size("-4K", &v), -EINVAL);
	assert_int_equal(xvbd_parse_size("1.5G", &v), -EINVAL);
	assert_int_equal(xvbd_parse_size("4 K", &v), -EINVAL);
}

static void test_fmt_size(void **state)
{
	char buf[16];

	(void)state;
	xvbd_fmt_size(0, buf, sizeof(buf));
	assert_string_equal(buf, "0B");
	xvbd_fmt_size(512, buf, sizeof(buf));
	assert_string_equal(buf, "512B");
	xvbd_fmt_size(1024, buf, sizeof(buf));
	assert_string_equal(buf, "1K");
	xvbd_fmt_size(1536ull << 20, buf, sizeof(buf));
	assert_string_equal(buf, "1.5G");
	xvbd_fmt_size(64ull << 20, buf, sizeof(buf));
	assert_string_equal(buf, "64M");
	xvbd_fmt_size(UINT64_MAX, buf, sizeof(buf));
	assert_string_equal(buf, "15.9E");
}

static void test_kvmap(void **state)
{
	struct xvbd_kvmap map = { 0 };
	static const char *const order[] = {
		"queue-0/ring-ref", "queue-2/ring-ref", "queue-10/ring-ref",
		"ring-ref1", "ring-ref2", "ring-ref10", "state",
	};
	size_t i;

	(void)state;
	assert_int_equal(xvbd_kvmap_set(&map, "state", "1"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "ring-ref10", "a"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "ring-ref2", "b"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "ring-ref1", "c"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "queue-10/ring-ref", "d"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "queue-2/ring-ref", "e"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "queue-0/ring-ref", "f"), 0);
	assert_int_equal(xvbd_kvmap_set(&map, "state", "4"), 0);
	assert_int_equal(map.len, 7);
	assert_string_equal(xvbd_kvmap_get(&map, "state"), "4");
	assert_null(xvbd_kvmap_get(&map, "nope"));
	xvbd_kvmap_sort(&map);
	for (i = 0; i < map.len; i++)
		assert_string_equal(map.items[i].key, order[i]);
	xvbd_kvmap_free(&map);
	assert_int_equal(map.len, 0);
}

static void test_escape_line(void **state)
{
	char buf[16];

	(void)state;
	xvbd_escape_line(buf, sizeof(buf), "a\nb\tc\x1b");
	assert_string_equal(buf, "a\\nb\\tc\\x1b");
	/* cut at a whole escape: "\x1" would read as another byte */
	xvbd_escape_line(buf, 8, "abcde\x01");
	assert_string_equal(buf, "abcde");
	xvbd_escape_line(buf, 1, "abc");
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_parse_bool),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_fmt_size),
		cmocka_unit_test(test_kvmap),
		cmocka_unit_test(test_escape_line),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
