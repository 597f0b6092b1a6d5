/*
 * Unit tests: the image file decision (use, create, refuse) and creation
 * in a temporary directory (sparse, preallocated, never overwriting).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/image.h"

#define MiB (1024ull * 1024)

static void test_plan(void **state)
{
	enum xvbd_image_action act;
	struct stat st = { 0 };
	uint64_t size = 0;
	char why[256];

	(void)state;
	/* missing */
	assert_int_equal(xvbd_image_plan(NULL, false, 0, &act, &size, why,
					 sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "--size"));
	assert_int_equal(xvbd_image_plan(NULL, true, 4 * MiB, &act, &size, why,
					 sizeof(why)), 0);
	assert_int_equal(act, XVBD_IMAGE_CREATE);
	assert_true(size == 4 * MiB);
	assert_int_equal(xvbd_image_plan(NULL, true, 0, &act, &size, why,
					 sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_image_plan(NULL, true, 1000, &act, &size, why,
					 sizeof(why)), -EINVAL);
	/* existing regular file */
	st.st_mode = S_IFREG | 0600;
	st.st_size = 64 * MiB;
	assert_int_equal(xvbd_image_plan(&st, false, 0, &act, &size, why,
					 sizeof(why)), 0);
	assert_int_equal(act, XVBD_IMAGE_USE);
	assert_true(size == 64 * MiB);
	assert_int_equal(xvbd_image_plan(&st, true, 64 * MiB, &act, &size, why,
					 sizeof(why)), 0);
	assert_int_equal(act, XVBD_IMAGE_USE);
	/* never shrink, never grow */
	assert_int_equal(xvbd_image_plan(&st, true, 32 * MiB, &act, &size, why,
					 sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "shrink"));
	assert_int_equal(xvbd_image_plan(&st, true, 128 * MiB, &act, &size,
					 why, sizeof(why)), -EEXIST);
	/* not a disk image */
	st.st_size = 0;
	assert_int_equal(xvbd_image_plan(&st, false, 0, &act, &size, why,
					 sizeof(why)), -EINVAL);
	st.st_size = 513;
	assert_int_equal(xvbd_image_plan(&st, false, 0, &act, &size, why,
					 sizeof(why)), -EINVAL);
	st.st_mode = S_IFDIR | 0700;
	st.st_size = 4096;
	assert_int_equal(xvbd_image_plan(&st, false, 0, &act, &size, why,
					 sizeof(why)), -EINVAL);
}

static void test_prepare(void **state)
{
	char dir[] = "/tmp/xvbd-image-XXXXXX", path[128], why[256];
	uint64_t size = 0;
	bool created = true;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.img", dir);
	/* missing, no size: nothing created */
	assert_int_equal(xvbd_image_prepare(path, false, 0, false, &created,
					    &size, why, sizeof(why)), -ENOENT);
	assert_false(created);
	assert_int_equal(stat(path, &st), -1);
	/* sparse */
	assert_int_equal(xvbd_image_prepare(path, true, 8 * MiB, false,
					    &created, &size, why, sizeof(why)),
			 0);
	assert_true(created);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size == 8 * MiB);
	assert_true((uint64_t)st.st_blocks * 512 < 8 * MiB);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* again: used as is, not created */
	assert_int_equal(xvbd_image_prepare(path, true, 8 * MiB, false,
					    &created, &size, why, sizeof(why)),
			 0);
	assert_false(created);
	/* smaller: refused, file untouched */
	assert_int_equal(xvbd_image_prepare(path, true, 4 * MiB, false,
					    &created, &size, why, sizeof(why)),
			 -EEXIST);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size == 8 * MiB);
	unlink(path);
	/* preallocated */
	assert_int_equal(xvbd_image_prepare(path, true, 2 * MiB, true,
					    &created, &size, why, sizeof(why)),
			 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_blocks * 512 >= 2 * MiB);
	unlink(path);
	/* parent missing: error, nothing left */
	snprintf(path, sizeof(path), "%s/no/a.img", dir);
	assert_int_equal(xvbd_image_prepare(path, true, 2 * MiB, false,
					    &created, &size, why, sizeof(why)),
			 -ENOENT);
	assert_false(created);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_prepare),
	};

	return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
