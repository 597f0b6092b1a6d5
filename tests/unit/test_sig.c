/*
 * Unit tests: the interrupt flag of the commands that change the host
 *: SIGPIPE ignored, SIGINT/SIGTERM/SIGHUP/SIGQUIT
 * caught as a flag (the first one counts), held sections deliver on
 * release (a held SIGQUIT too: the paused window of start and attach),
 * and the commands that do not catch them keep the default action.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/base/sig.h"
#include "unit_sig.h"

static void reset(void)
{
	unit_sig_reset();
}

static void test_flag(void **state)
{
	struct sigaction cur;

	(void)state;
	reset();
	xvbd_sig_setup(true);
	assert_int_equal(xvbd_interrupted(), 0);
	assert_int_equal(sigaction(SIGPIPE, NULL, &cur), 0);
	assert_true(cur.sa_handler == SIG_IGN);
	assert_int_equal(sigaction(SIGINT, NULL, &cur), 0);
	assert_true(cur.sa_flags & SA_RESTART);
	raise(SIGTERM);
	assert_int_equal(xvbd_interrupted(), SIGTERM);
	raise(SIGINT);		/* the first one tells the story */
	assert_int_equal(xvbd_interrupted(), SIGTERM);
	assert_string_equal(xvbd_sig_name(SIGTERM), "SIGTERM");
	assert_string_equal(xvbd_sig_name(SIGINT), "SIGINT");
	assert_string_equal(xvbd_sig_name(SIGHUP), "SIGHUP");
	assert_string_equal(xvbd_sig_name(SIGQUIT), "SIGQUIT");
	assert_string_equal(xvbd_sig_name(SIGUSR1), "a signal");
	xvbd_sig_clear();
	raise(SIGHUP);
	assert_int_equal(xvbd_interrupted(), SIGHUP);
	/* Ctrl-\: a flag too, not a core dump in the middle of a step. */
	xvbd_sig_clear();
	raise(SIGQUIT);
	assert_int_equal(xvbd_interrupted(), SIGQUIT);
	reset();
}

/* A write to a pipe nobody reads: EPIPE, not death. */
static void test_sigpipe(void **state)
{
	int pfd[2];

	(void)state;
	reset();
	xvbd_sig_setup(false);
	assert_int_equal(pipe(pfd), 0);
	close(pfd[0]);
	errno = 0;
	assert_int_equal(write(pfd[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(pfd[1]);
	reset();
}

static void test_hold(void **state)
{
	sigset_t old;

	(void)state;
	reset();
	xvbd_sig_setup(true);
	xvbd_sig_hold(&old);
	assert_false(xvbd_sig_held_pending());
	raise(SIGINT);
	/* held: not delivered, but seen as pending */
	assert_int_equal(xvbd_interrupted(), 0);
	assert_true(xvbd_sig_held_pending());
	xvbd_sig_release(&old);
	assert_int_equal(xvbd_interrupted(), SIGINT);
	assert_false(xvbd_sig_held_pending());
	reset();
}

/*
 * The paused window of start and attach: SIGQUIT is held and seen as
 * pending like the others, also where it is not caught (ab run), so that
 * the window's owner unpauses first; released, it takes its course.
 */
static void test_hold_quit(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	reset();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		sigset_t old;

		setrlimit(RLIMIT_CORE, &no_core);
		xvbd_sig_setup(false);
		xvbd_sig_hold(&old);
		raise(SIGQUIT);
		if (!xvbd_sig_held_pending())
			_exit(3);
		/* Not caught: the default action, now. */
		xvbd_sig_release(&old);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGQUIT);
}

/* Not caught (list, show...): Ctrl-C still ends the process. */
static void test_not_caught(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	reset();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		xvbd_sig_setup(false);
		raise(SIGINT);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
}

/* nohup: a signal ignored on entry stays ignored. */
static void test_ignored_stays(void **state)
{
	struct sigaction ign, cur;

	(void)state;
	reset();
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &ign, NULL);
	xvbd_sig_setup(true);
	assert_int_equal(sigaction(SIGHUP, NULL, &cur), 0);
	assert_true(cur.sa_handler == SIG_IGN);
	raise(SIGHUP);
	assert_int_equal(xvbd_interrupted(), 0);
	assert_int_equal(sigaction(SIGINT, NULL, &cur), 0);
	assert_true(cur.sa_handler != SIG_IGN && cur.sa_handler != SIG_DFL);
	reset();
}

/* XVBD_TEST_STOP_AT: stops at that step only. */
static void test_stop_at(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	reset();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("XVBD_TEST_STOP_AT", "here", 1);
		xvbd_test_stop("elsewhere");
		xvbd_test_stop("here");
		_exit(7);
	}
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
	kill(pid, SIGCONT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag),
		cmocka_unit_test(test_sigpipe),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_hold_quit),
		cmocka_unit_test(test_not_caught),
		cmocka_unit_test(test_ignored_stays),
		cmocka_unit_test(test_stop_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
