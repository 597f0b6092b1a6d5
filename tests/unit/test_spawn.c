/*
 * Unit tests: spawn's background start (the workload of `ab record
 * --run`): own process group, exact environment, stdin /dev/null, output
 * to the given descriptor, exit status, reaping with and without waiting.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/base/spawn.h"

static char *const envp[] = { "PATH=/usr/bin:/bin", "XVBD_T=bar", NULL };

static int run_sh(const char *script, int out_fd, int *status)
{
	char *const argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	pid_t pid;
	int rc = xvbd_spawn_start(argv, envp, out_fd, &pid);

	if (rc)
		return rc;
	return xvbd_spawn_reap(pid, true, status);
}

static void test_status_env_stdin(void **state)
{
	int status = -1;

	(void)state;
	assert_int_equal(run_sh("exit 3", STDERR_FILENO, &status), 1);
	assert_int_equal(status, 3);
	/* exactly envp: no HOME, our variable */
	assert_int_equal(run_sh("test \"$XVBD_T\" = bar && test -z \"$HOME\"",
				STDERR_FILENO, &status), 1);
	assert_int_equal(status, 0);
	/* stdin is /dev/null: read meets EOF at once */
	assert_int_equal(run_sh("read x", STDERR_FILENO, &status), 1);
	assert_int_equal(status, 1);
}

static void test_output(void **state)
{
	char buf[64] = "";
	int pfd[2], status = -1;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(run_sh("echo out; echo err >&2", pfd[1], &status),
			 1);
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "out\nerr\n");
	assert_int_equal(status, 0);
}

static void test_group_and_reap(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "sleep 30 & wait", NULL };
	char *const missing[] = { "/nonexistent/xvbd-test", NULL };
	int status = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(xvbd_spawn_start(argv, envp, STDERR_FILENO, &pid), 0);
	/* its own group: a kill of the group reaches the sleep too */
	assert_int_equal(getpgid(pid), pid);
	assert_int_equal(xvbd_spawn_reap(pid, false, &status), 0);
	assert_int_equal(kill(-pid, SIGTERM), 0);
	assert_int_equal(xvbd_spawn_reap(pid, true, &status), 1);
	assert_int_equal(status, 128 + SIGTERM);
	/* a second reap: nothing left */
	assert_int_equal(xvbd_spawn_reap(pid, false, &status), -ECHILD);
	assert_int_equal(xvbd_spawn_start(missing, envp, STDERR_FILENO, &pid),
			 -ENOENT);
	assert_int_equal(xvbd_spawn_start(argv, NULL, STDERR_FILENO, &pid),
			 -EINVAL);
}

/*
 * xvbd_spawn (xl, modprobe): a fixed environment and PATH, whatever the
 * caller's (MODPROBE_OPTIONS under sudo -E; a PATH with a user's bin).
 */
static void test_spawn_fixed_env(void **state)
{
	char *check[] = { "sh", "-c", "test -z \"$MODPROBE_OPTIONS\" && "
		"test \"$PATH\" = /usr/sbin:/usr/bin:/sbin:/bin && "
		"test -z \"$HOME\"", NULL };
	char *missing[] = { "xvbd-no-such-program", NULL };
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int status = -1;

	(void)state;
	setenv("MODPROBE_OPTIONS", "-C /tmp/evil.conf", 1);
	setenv("HOME", "/tmp", 1);
	/* sh is still found on the fixed PATH, not the caller's */
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(xvbd_spawn(check, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(xvbd_spawn(missing, &status), -ENOENT);
	unsetenv("MODPROBE_OPTIONS");
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
}

/*
 * xvbd_spawn and xvbd_spawn_capture (xl create -p, modprobe, mount): the
 * child leads its own process group, so that a terminal's Ctrl-C (sent to
 * xvbd's group) cannot kill it half-way.  Field 5 of
 * /proc/self/stat is the process group.
 */
static void test_spawn_own_group(void **state)
{
	char *own[] = { "/bin/sh", "-c", "set -- $(cat /proc/$$/stat); "
		"test \"$5\" = $$", NULL };
	char *const cenv[] = { "PATH=/usr/bin:/bin", NULL };
	char out[64];
	int status = -1;

	(void)state;
	assert_int_equal(xvbd_spawn(own, &status), 0);
	assert_int_equal(status, 0);
	status = -1;
	assert_int_equal(xvbd_spawn_capture(own, cenv, 10000, out,
					    sizeof(out), &status), 0);
	assert_int_equal(status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_env_stdin),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_group_and_reap),
		cmocka_unit_test(test_spawn_fixed_env),
		cmocka_unit_test(test_spawn_own_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
