/*
 * Unit tests: the per-domain lock of attach and tune (xvbd/lock.h): its
 * path, a second holder waits and times out (the wait bounded, the
 * waiting callback once after a second), a released lock is taken at
 * once and leaves no file, a waiter whose file the holder removed takes
 * the new one, a symbolic link is never followed, a caught signal ends
 * the wait, and the shares' lock waits the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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
#include "xvbd/dom0/share.h"
#include "xvbd/base/sig.h"
#include "xvbd/base/util.h"
#include "unit_sig.h"

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
	assert_int_equal(access(path, F_OK), 0);
	xvbd_lock_release(path, fd);
	/* Released: nothing left behind. */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
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
	xvbd_lock_release(path, fd);
}

/*
 * The holder (a child) releases as xvbd does: unlink, then close.  The
 * waiter got the old file's lock then; it must take the path's new file,
 * or a third caller could hold that one at the same time.
 */
static void test_removed_while_waiting(void **state)
{
	struct stat fst, pst;
	int ready[2], fd, status;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int held = xvbd_lock_wait(path, 1000, NULL, NULL);

		if (held < 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		xvbd_lock_release(path, held);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	fd = xvbd_lock_wait(path, 5000, NULL, NULL);
	assert_true(fd >= 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* What the waiter holds is the file now at path. */
	assert_int_equal(fstat(fd, &fst), 0);
	assert_int_equal(stat(path, &pst), 0);
	assert_true(fst.st_ino == pst.st_ino && fst.st_dev == pst.st_dev);
	xvbd_lock_release(path, fd);
	close(ready[0]);
	close(ready[1]);
}

/*
 * Another process holds path's lock (a plain flock, as a holder of the
 * shares' lock does: the file stays).  With kill_after_ms, it sends the
 * parent SIGINT that long after taking it (Ctrl-C while waiting).  It
 * lets go when the parent closes *release.
 */
static pid_t hold_in_child(const char *lock_path, int kill_after_ms,
			   int *release)
{
	int ready[2], go[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		close(ready[0]);
		close(go[1]);
		if (fd < 0 || flock(fd, LOCK_EX) ||
		    write(ready[1], "x", 1) != 1)
			_exit(1);
		if (kill_after_ms) {
			usleep((useconds_t)kill_after_ms * 1000);
			kill(getppid(), SIGINT);
		}
		/* Until the parent is done (EOF). */
		while (read(go[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*release = go[1];
	return pid;
}

static void let_go(pid_t pid, int release)
{
	int status;

	close(release);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * Ctrl-C as the commands that change the host catch it (xvbd/sig.h).
 * Defaults first: a SIGINT ignored on entry (a shell's background job)
 * stays ignored by design, and the raise() below would then do nothing.
 */
static void catch_signals(void)
{
	unit_sig_reset();
	xvbd_sig_clear();
	xvbd_sig_setup(true);
}

static void default_signals(void)
{
	unit_sig_reset();
}

/*
 * The polled wait against a lock another process holds: it times out;
 * with the interrupt flag already set it returns -EINTR at once; a
 * caught SIGINT during the wait ends it with -EINTR (a blocking flock
 * would be restarted by SA_RESTART and wait for the holder).
 */
static void test_wait_interruptible(void **state)
{
	int release, fd;
	int64_t t0, waited_ms;
	pid_t pid;

	(void)state;
	/* A wait that never ends fails the test instead of hanging it. */
	alarm(20);
	catch_signals();
	pid = hold_in_child(path, 0, &release);
	t0 = xvbd_now_ms();
	fd = xvbd_lock_wait(path, 300, NULL, NULL);
	waited_ms = xvbd_now_ms() - t0;
	assert_int_equal(fd, -ETIMEDOUT);
	assert_true(waited_ms >= 300 && waited_ms < 2000);

	raise(SIGINT);				/* the flag is set */
	assert_int_equal(xvbd_interrupted(), SIGINT);
	t0 = xvbd_now_ms();
	assert_int_equal(xvbd_lock_wait(path, 5000, NULL, NULL), -EINTR);
	assert_true(xvbd_now_ms() - t0 < 1000);
	let_go(pid, release);

	xvbd_sig_clear();
	pid = hold_in_child(path, 300, &release);
	t0 = xvbd_now_ms();
	assert_int_equal(xvbd_lock_wait(path, 10000, NULL, NULL), -EINTR);
	waited_ms = xvbd_now_ms() - t0;
	assert_int_equal(xvbd_interrupted(), SIGINT);
	assert_true(waited_ms < 3000);
	let_go(pid, release);
	unlink(path);
	default_signals();
	alarm(0);
}

/*
 * The shares' lock (attach --share, detach of a disk on a share) waits
 * as the domain lock does: bounded by the caller's timeout, ended by
 * Ctrl-C, nothing held after either.  (Before, a blocking flock: this
 * test was ended by its alarm.)
 */
static void test_share_lock(void **state)
{
	char shares[300], share_lock[320];
	int release, fd, again;
	int64_t t0, waited_ms;
	pid_t pid;

	(void)state;
	alarm(20);
	catch_signals();
	snprintf(shares, sizeof(shares), "%s/shares", dir);
	snprintf(share_lock, sizeof(share_lock), "%s/.lock", shares);

	/* Free: taken, and only one holder at a time. */
	fd = xvbd_share_lock_at(shares, "attach", 1, false);
	assert_true(fd >= 0);
	assert_int_equal(access(share_lock, F_OK), 0);
	t0 = xvbd_now_ms();
	assert_int_equal(xvbd_share_lock_at(shares, "detach", 1, false),
			 -ETIMEDOUT);
	assert_true(xvbd_now_ms() - t0 >= 1000);
	xvbd_share_unlock(fd);

	/* Held by another process: --timeout 1 ends the wait. */
	pid = hold_in_child(share_lock, 0, &release);
	t0 = xvbd_now_ms();
	fd = xvbd_share_lock_at(shares, "attach", 1, false);
	waited_ms = xvbd_now_ms() - t0;
	assert_int_equal(fd, -ETIMEDOUT);
	assert_true(waited_ms >= 1000 && waited_ms < 3000);
	let_go(pid, release);

	/* Ctrl-C while waiting (default --timeout): -EINTR, soon. */
	pid = hold_in_child(share_lock, 300, &release);
	t0 = xvbd_now_ms();
	fd = xvbd_share_lock_at(shares, "attach", 120, false);
	waited_ms = xvbd_now_ms() - t0;
	assert_int_equal(fd, -EINTR);
	assert_int_equal(xvbd_interrupted(), SIGINT);
	assert_true(waited_ms < 3000);
	let_go(pid, release);

	/* Nothing was held by the waits that failed: free again. */
	xvbd_sig_clear();
	again = xvbd_share_lock_at(shares, "attach", 1, false);
	assert_true(again >= 0);
	xvbd_share_unlock(again);
	unlink(share_lock);
	assert_int_equal(rmdir(shares), 0);
	default_signals();
	alarm(0);
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
		cmocka_unit_test(test_removed_while_waiting),
		cmocka_unit_test(test_wait_interruptible),
		cmocka_unit_test(test_share_lock),
		cmocka_unit_test(test_symlink),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
