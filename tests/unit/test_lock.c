/*
 * Unit tests: the per-domain lock of attach and tune (xvbd/lock.h): its
 * path, a second holder waits and times out (the wait bounded, the
 * waiting callback once after a second), a released lock is taken at
 * once, and a symbolic link is never followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/lock.h"
#include "xvbd/util.h"

static char dir[] = "/tmp/xvbd-test-lock.XXXXXX";
static char path[256];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/domain.7.lock", dir);
	return 0;
}

static int teardown(void **state)
{
	char link[300];

	(void)state;
	snprintf(link, sizeof(link), "%s/link.lock", dir);
	unlink(link);
	unlink(path);
	return rmdir(dir);
}

static void test_path(void **state)
{
	char buf[64], small[8];

	(void)state;
	assert_int_equal(xvbd_domain_lock_path(5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/run/xvbd/domain.5.lock");
	assert_int_equal(xvbd_domain_lock_path(4294967295u, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/run/xvbd/domain.4294967295.lock");
	assert_int_equal(xvbd_domain_lock_path(5, small, sizeof(small)),
			 -ENAMETOOLONG);
}

static void count(void *arg)
{
	(*(int *)arg)++;
}

static void test_free_lock(void **state)
{
	int calls = 0, fd;

	(void)state;
	fd = xvbd_lock_wait(path, 100, count, &calls);
	assert_true(fd >= 0);
	assert_int_equal(calls, 0);
	close(fd);
}

static void test_held(void **state)
{
	int calls = 0, holder, fd;
	int64_t t0, waited_ms;

	(void)state;
	/* Another open file description: flock conflicts as between
	 * processes. */
	holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(holder >= 0);
	assert_int_equal(flock(holder, LOCK_EX), 0);

	t0 = xvbd_now_ms();
	fd = xvbd_lock_wait(path, 300, count, &calls);
	waited_ms = xvbd_now_ms() - t0;
	assert_int_equal(fd, -ETIMEDOUT);
	assert_int_equal(calls, 0);	/* under a second: not told */
	assert_true(waited_ms >= 300 && waited_ms < 2000);

	fd = xvbd_lock_wait(path, 1300, count, &calls);
	assert_int_equal(fd, -ETIMEDOUT);
	assert_int_equal(calls, 1);	/* told once, after a second */

	close(holder);			/* released: taken at once */
	t0 = xvbd_now_ms();
	fd = xvbd_lock_wait(path, 5000, count, &calls);
	assert_true(fd >= 0);
	assert_true(xvbd_now_ms() - t0 < 1000);
	assert_int_equal(calls, 1);
	xvbd_unlock(fd);
}

static void test_symlink(void **state)
{
	char link[300];

	(void)state;
	snprintf(link, sizeof(link), "%s/link.lock", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(xvbd_lock_wait(link, 100, NULL, NULL), -ELOOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_free_lock),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_symlink),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
