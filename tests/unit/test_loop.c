/* Unit tests: the loop device layer's pure parts (node names, the
 * kernel's device number encoding, "is this loop backed by that file"). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "xvbd/dom0/loop.h"

static void test_parse_node(void **state)
{
	unsigned nr = 99;

	(void)state;
	assert_int_equal(xvbd_loop_parse_node("/dev/loop0", &nr), 0);
	assert_int_equal(nr, 0);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop17", &nr), 0);
	assert_int_equal(nr, 17);
	/* what the backend's node key must never steer us to */
	assert_int_equal(xvbd_loop_parse_node("/dev/loop-control", &nr),
			 -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop01", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop1p1", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop+1", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/sda", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("loop0", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop0 ", &nr), -EINVAL);
	assert_int_equal(xvbd_loop_parse_node("/dev/loop99999999999", &nr),
			 -EINVAL);
}

static void test_node(void **state)
{
	char buf[32];

	(void)state;
	xvbd_loop_node(7, buf, sizeof(buf));
	assert_string_equal(buf, "/dev/loop7");
}

static void test_decode_dev(void **state)
{
	unsigned ma, mi;

	(void)state;
	/* huge_encode_dev(MKDEV(254, 0)): /scratch on virtio disk vda */
	xvbd_loop_decode_dev(0xfe00, &ma, &mi);
	assert_int_equal(ma, 254);
	assert_int_equal(mi, 0);
	/* a minor above 255 spills into bits 20 and up */
	xvbd_loop_decode_dev(0x10000801, &ma, &mi);
	assert_int_equal(ma, 8);
	assert_int_equal(mi, 0x10001);
	/* anonymous block devices (NFS, tmpfs): major 0 */
	xvbd_loop_decode_dev(0x2e, &ma, &mi);
	assert_int_equal(ma, 0);
	assert_int_equal(mi, 46);
}

static void test_backs(void **state)
{
	struct xvbd_loop lo = { .file_major = 254, .file_minor = 0,
				.file_ino = 12 };
	struct stat st = { .st_dev = makedev(254, 0), .st_ino = 12 };

	(void)state;
	assert_true(xvbd_loop_backs(&lo, &st));
	st.st_ino = 13;
	assert_false(xvbd_loop_backs(&lo, &st));
	st.st_ino = 12;
	st.st_dev = makedev(254, 1);
	assert_false(xvbd_loop_backs(&lo, &st));
	/* the glibc and kernel encodings differ above minor 255 */
	lo.file_minor = 0x10001;
	st.st_dev = makedev(254, 0x10001);
	assert_true(xvbd_loop_backs(&lo, &st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_node),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_decode_dev),
		cmocka_unit_test(test_backs),
	};

	return cmocka_run_group_tests_name("loop", tests, NULL, NULL);
}
