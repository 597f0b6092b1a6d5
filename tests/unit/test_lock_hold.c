/*
 * Unit tests: xvbd_lock_hold, the hotplug lock of xvbd-block (Xen's
 * locking.sh protocol), with flock made to fail through a link-time
 * wrapper (-Wl,--wrap=flock, Makefile): an error other than EINTR
 * (ENOLCK) is returned and never taken as the lock held; EINTR
 * is retried; a holder that unlinks the file on release makes the waiter
 * take the path's new file.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/base/lock.h"

/* The wrapper: first eintr_left EINTRs, then fail_errno (0: the real). */
static int eintr_left, fail_errno, flock_calls;

int __real_flock(int fd, int op);
int __wrap_flock(int fd, int op);

int __wrap_flock(int fd, int op)
{
	flock_calls++;
	if (eintr_left > 0) {
		eintr_left--;
		errno = EINTR;
		return -1;
	}
	if (fail_errno) {
		errno = fail_errno;
		return -1;
	}
	return __real_flock(fd, op);
}

static char dir[] = "/tmp/xvbd-test-lock-hold.XXXXXX";
static char path[256];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/block", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void reset(void)
{
	eintr_left = 0;
	fail_errno = 0;
	flock_calls = 0;
}

/* The lowest free descriptor: an fd left open would show here. */
static int next_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

/* Is path's lock free (taken and let go by another description)? */
static bool lock_free(void)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	bool free_now;

	if (fd < 0)
		return true;
	free_now = !__real_flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	return free_now;
}

static void test_enolck_is_an_error(void **state)
{
	int before, fd;

	(void)state;
	reset();
	before = next_fd();
	fail_errno = ENOLCK;
	fd = xvbd_lock_hold(path, 0644);
	assert_int_equal(fd, -ENOLCK);		/* never "held" */
	assert_int_equal(flock_calls, 1);	/* and not retried */
	assert_int_equal(next_fd(), before);	/* its fd closed */
	assert_true(lock_free());
	/* After EINTRs too. */
	reset();
	eintr_left = 2;
	fail_errno = ENOLCK;
	assert_int_equal(xvbd_lock_hold(path, 0644), -ENOLCK);
	assert_int_equal(flock_calls, 3);
	assert_int_equal(next_fd(), before);
	reset();
	unlink(path);
}

static void test_eintr_retried(void **state)
{
	struct stat st;
	int fd;

	(void)state;
	reset();
	eintr_left = 3;
	fd = xvbd_lock_hold(path, 0644);
	assert_true(fd >= 0);
	assert_int_equal(flock_calls, 4);
	assert_false(lock_free());		/* really held */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	xvbd_lock_release(path, fd);
	/* Released as release_lock does: the file is gone. */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	reset();
}

/*
 * A holder (a child) releases as locking.sh does: unlink, then close.
 * The waiter got the old file's lock; it must take the path's new one.
 */
static void test_holder_removed_it(void **state)
{
	struct stat fst, pst;
	int ready[2], fd, status;
	pid_t pid;
	char c;

	(void)state;
	reset();
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int held = xvbd_lock_hold(path, 0644);

		if (held < 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		xvbd_lock_release(path, held);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	fd = xvbd_lock_hold(path, 0644);
	assert_true(fd >= 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(fstat(fd, &fst), 0);
	assert_int_equal(stat(path, &pst), 0);
	assert_true(fst.st_ino == pst.st_ino && fst.st_dev == pst.st_dev);
	xvbd_lock_release(path, fd);
	close(ready[0]);
	close(ready[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enolck_is_an_error),
		cmocka_unit_test(test_eintr_retried),
		cmocka_unit_test(test_holder_removed_it),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
