/* Unit tests: virtual device names <-> devid (xen-vbd-interface(7)). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/xen/blkif.h"

static uint32_t parse_ok(const char *name)
{
	uint32_t devid = 0xdeadbeef;

	assert_int_equal(xvbd_vdev_parse(name, &devid), 0);
	return devid;
}

static void test_xvd(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("xvda"), 51712);	/* 202 << 8 */
	assert_int_equal(parse_ok("xvdb"), 51728);
	assert_int_equal(parse_ok("xvda1"), 51713);
	assert_int_equal(parse_ok("xvdp15"), 202 << 8 | 15 << 4 | 15);
	/* disk 16 onwards: the 1 << 28 extended form */
	assert_int_equal(parse_ok("xvdq"), 1 << 28 | 16 << 8);
	assert_int_equal(parse_ok("xvda16"), 1 << 28 | 16);
	assert_int_equal(parse_ok("xvdaa"), 1 << 28 | 26 << 8);
	/* the example of the interface document: d536p37 = xvdtq37 */
	assert_int_equal(parse_ok("xvdtq37"), 1 << 28 | 536 << 8 | 37);
	assert_int_equal(parse_ok("d536p37"), 1 << 28 | 536 << 8 | 37);
}

static void test_hd_sd_d(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("hda"), 768);		/* 3 << 8 */
	assert_int_equal(parse_ok("hdb"), 3 << 8 | 64);
	assert_int_equal(parse_ok("hdc2"), 22 << 8 | 2);
	assert_int_equal(parse_ok("hdt"), 91 << 8 | 64);
	assert_int_equal(parse_ok("sda"), 2048);	/* 8 << 8 */
	assert_int_equal(parse_ok("sdb3"), 8 << 8 | 1 << 4 | 3);
	assert_int_equal(parse_ok("sdq"), 65 << 8);
	assert_int_equal(parse_ok("d0p0"), 51712);
	assert_int_equal(parse_ok("d0"), 51712);
	assert_int_equal(parse_ok("d1p2"), 51730);
	assert_int_equal(parse_ok("51712"), 51712);
	assert_int_equal(parse_ok("0"), 0);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"", "xvd", "xvda-1", "../x", "sdA", "xvdA", "xvda01",
		"xvda 1", "hd", "hdA", "d", "dp1", "d1p", "d1q2", "d01",
		"sd", "vda", "/dev/xvda", "xvda/1", "-1", "0x10", "51712 ",
	};
	static const char *const range[] = {
		"hdu", "xvda256", "sda16", "hda64", "d1048576",
		"d0p256", "xvdzzzzz", "536870912",
	};
	uint32_t devid = 0xdeadbeef;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (xvbd_vdev_parse(bad[i], &devid) != -EINVAL)
			fail_msg("\"%s\" should be malformed", bad[i]);
	}
	for (i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		if (xvbd_vdev_parse(range[i], &devid) != -ERANGE)
			fail_msg("\"%s\" should be out of range", range[i]);
	}
	assert_int_equal(xvbd_vdev_parse(NULL, &devid), -EINVAL);
	assert_int_equal(devid, 0xdeadbeef);
}

static void test_names(void **state)
{
	static const char *const names[] = {
		"xvda", "xvdb", "xvda1", "xvdp15", "xvdq", "xvdaa", "xvdtq37",
		"xvda16", "hda", "hdb", "hdc2", "hdt63", "sda", "sdb3", "sdq",
		"sdiv15",
	};
	char buf[32];
	size_t i;

	(void)state;
	/* name -> devid -> the same name */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(xvbd_vdev_name(parse_ok(names[i]), buf,
						sizeof(buf)), 0);
		assert_string_equal(buf, names[i]);
	}
	assert_int_equal(xvbd_vdev_name(parse_ok("d0p0"), buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "xvda");
	assert_int_equal(xvbd_vdev_name(12345, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(xvbd_vdev_name(2u << 28, buf, sizeof(buf)), -EINVAL);
	/* the extended form of xvda (fuzz_vdev): not a second "xvda" */
	assert_int_equal(xvbd_vdev_name(1u << 28, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(xvbd_vdev_name(1u << 28 | 15 << 8 | 15, buf,
					sizeof(buf)), -EINVAL);
	assert_int_equal(xvbd_vdev_name(0x10000, buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xvd),
		cmocka_unit_test(test_hd_sd_d),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("vdev", tests, NULL, NULL);
}
