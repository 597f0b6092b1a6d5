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
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/dom0/image.h"

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

static void make_file(const char *dir, const char *name, off_t size)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

/*
 * xvbd_image_open: a link is followed only in a directory only root can
 * change; a FIFO is refused without blocking; what is opened is checked.
 */
static void test_open_rules(void **state)
{
	char dir[] = "/tmp/xvbd-image-XXXXXX", path[256], why[256];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_file(dir, "a.img", 1 << 20);
	snprintf(path, sizeof(path), "%s/link.img", dir);
	assert_int_equal(symlink("a.img", path), 0);
	fd = xvbd_image_open(path, O_RDWR, &st, why, sizeof(why));
	if (geteuid() == 0) {
		/* root's own 0700 directory: root put the link there */
		assert_true(fd >= 0);
		assert_true(S_ISREG(st.st_mode) && st.st_size == 1 << 20);
		assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
		close(fd);
	} else {
		assert_int_equal(fd, -ELOOP);
	}
	/* anyone may write to the directory now: the link is refused */
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(xvbd_image_open(path, O_RDONLY, &st, why,
					 sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "symbolic link"));
	/* the plain file is still fine, and so is a -N check of it */
	snprintf(path, sizeof(path), "%s/a.img", dir);
	fd = xvbd_image_open(path, O_RDONLY, NULL, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	/* a FIFO: refused at once (an open for reading would block) */
	snprintf(path, sizeof(path), "%s/fifo.img", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(xvbd_image_open(path, O_RDONLY, NULL, why,
					 sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(xvbd_image_open(path, O_RDWR, NULL, why,
					 sizeof(why)), -EINVAL);
	unlink(path);
	/* missing; a directory; a relative path */
	snprintf(path, sizeof(path), "%s/none.img", dir);
	assert_int_equal(xvbd_image_open(path, O_RDONLY, NULL, why,
					 sizeof(why)), -ENOENT);
	assert_int_equal(xvbd_image_open(dir, O_RDONLY, NULL, why,
					 sizeof(why)), -EINVAL);
	assert_int_equal(xvbd_image_open("a.img", O_RDONLY, NULL, why,
					 sizeof(why)), -EINVAL);
	/* remove: a link put where the image was is not followed */
	snprintf(path, sizeof(path), "%s/link.img", dir);
	assert_int_equal(xvbd_image_remove(path), -EINVAL);
	snprintf(path, sizeof(path), "%s/a.img", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(xvbd_image_remove(path), 0);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/link.img", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Beneath a share's mount: no link anywhere, no "..", by both paths. */
static void test_beneath(void **state)
{
	char dir[] = "/tmp/xvbd-image-XXXXXX", path[256];
	int dfd, fd, use;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	make_file(path, "a.img", 4096);
	make_file(dir, "top.img", 4096);
	snprintf(path, sizeof(path), "%s/subl", dir);
	assert_int_equal(symlink("sub", path), 0);
	snprintf(path, sizeof(path), "%s/sub/l.img", dir);
	assert_int_equal(symlink("a.img", path), 0);
	snprintf(path, sizeof(path), "%s/sub/abs.img", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/sub", dir);
	dfd = open(path, O_PATH | O_DIRECTORY);
	assert_true(dfd >= 0);
	for (use = 0; use < 2; use++) {
		fd = xvbd_image_openat_beneath(dfd, "a.img", O_RDONLY, 0, use);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(xvbd_image_openat_beneath(dfd, "l.img",
				 O_RDONLY, 0, use), -ELOOP);
		assert_int_equal(xvbd_image_openat_beneath(dfd, "abs.img",
				 O_RDONLY, 0, use), -ELOOP);
		assert_true(xvbd_image_openat_beneath(dfd, "../top.img",
				O_RDONLY, 0, use) < 0);
		assert_true(xvbd_image_openat_beneath(dfd, "/etc/passwd",
				O_RDONLY, 0, use) < 0);
		assert_int_equal(xvbd_image_openat_beneath(dfd, "none.img",
				 O_RDONLY, 0, use), -ENOENT);
		/* created beneath, never through the link */
		fd = xvbd_image_openat_beneath(dfd, "new.img", O_WRONLY |
				O_CREAT | O_EXCL, 0600, use);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(unlinkat(dfd, "new.img", 0), 0);
		assert_true(xvbd_image_openat_beneath(dfd, "l.img", O_WRONLY |
				O_CREAT | O_EXCL, 0600, use) < 0);
	}
	close(dfd);
	dfd = open(dir, O_PATH | O_DIRECTORY);
	for (use = 0; use < 2; use++)
		assert_int_equal(xvbd_image_openat_beneath(dfd, "subl/a.img",
				 O_RDONLY, 0, use), -ELOOP);
	close(dfd);
	snprintf(path, sizeof(path), "%s/sub/l.img", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub/abs.img", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub/a.img", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/subl", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/top.img", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_open_rules),
		cmocka_unit_test(test_beneath),
	};

	return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
