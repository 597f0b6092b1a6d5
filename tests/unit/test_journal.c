/*
 * Unit tests: reading a journal back (xvbd/journal.h): the header, "+"
 * entries closed by their "-" line (same kind and args, the latest
 * first), a last line that was never finished, junk lines; a process's
 * start time (a live one, a gone one); the domid of an entry.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "xvbd/base/journal.h"

static void test_open_entries(void **state)
{
	struct xvbd_journal j;

	(void)state;
	assert_int_equal(xvbd_journal_parse(
		"xvbd attach 12345\n"
		"+image /scratch/a.img\n"
		"+mount /run/xvbd/shares/nfs-x\n"
		"+paused 5 my guest\n"
		"-paused 5 my guest\n"
		"+image /scratch/b.img\n"
		"-image /scratch/a.img\n", &j), 0);
	assert_string_equal(j.cmd, "attach");
	assert_int_equal(j.start, 12345);
	assert_int_equal(j.nopen, 2);
	assert_string_equal(j.open[0].kind, "mount");
	assert_string_equal(j.open[0].args, "/run/xvbd/shares/nfs-x");
	assert_string_equal(j.open[1].kind, "image");
	assert_string_equal(j.open[1].args, "/scratch/b.img");
	xvbd_journal_free(&j);
}

/* Noted twice, done once: one stays open. */
static void test_twice(void **state)
{
	struct xvbd_journal j;

	(void)state;
	assert_int_equal(xvbd_journal_parse(
		"xvbd ab-run 7\n+guest -1 g\n+guest 9 g\n-guest -1 g\n"
		"+guest -1 g\n", &j), 0);
	assert_string_equal(j.cmd, "ab-run");
	assert_int_equal(j.nopen, 2);
	assert_string_equal(j.open[0].args, "9 g");
	assert_string_equal(j.open[1].args, "-1 g");
	xvbd_journal_free(&j);
}

/* A kill in the middle of a line is not possible (one write), but a
 * file cut short is read as far as its last newline. */
static void test_unfinished(void **state)
{
	struct xvbd_journal j;

	(void)state;
	assert_int_equal(xvbd_journal_parse(
		"xvbd detach 1\n+detach 3 51728 xvdb g\n-detach 3 51728 xv",
		&j), 0);
	assert_int_equal(j.nopen, 1);
	assert_string_equal(j.open[0].kind, "detach");
	xvbd_journal_free(&j);
}

static void test_junk(void **state)
{
	struct xvbd_journal j;

	(void)state;
	assert_int_equal(xvbd_journal_parse("", &j), -EINVAL);
	assert_int_equal(xvbd_journal_parse("xvbd attach\n+image /a\n", &j),
			 -EINVAL);
	assert_int_equal(xvbd_journal_parse("hello 1\n", &j), -EINVAL);
	assert_int_equal(xvbd_journal_parse("xvbd attach 1 2\n", &j),
			 -EINVAL);
	/* Lines that are no entries are passed over. */
	assert_int_equal(xvbd_journal_parse(
		"xvbd attach 1\n\n+\n+image\n*image /a\n+averyveryverylongkind x\n"
		"+image /b\n-image /c\n", &j), 0);
	assert_int_equal(j.nopen, 1);
	assert_string_equal(j.open[0].args, "/b");
	xvbd_journal_free(&j);
}

static void test_start_time(void **state)
{
	unsigned long long a = 0, b = 0;
	pid_t child;

	(void)state;
	assert_int_equal(xvbd_proc_start_time(getpid(), &a), 0);
	assert_true(a > 0);
	assert_int_equal(xvbd_proc_start_time(getpid(), &b), 0);
	assert_true(a == b);
	/* A child starts later than its parent. */
	child = fork();
	if (!child) {
		pause();
		_exit(0);
	}
	assert_true(child > 0);
	assert_int_equal(xvbd_proc_start_time(child, &b), 0);
	assert_true(b >= a);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(xvbd_proc_start_time(child, &b), -ESRCH);
}

static void test_domid(void **state)
{
	const char *rest;
	long domid;

	(void)state;
	assert_int_equal(xvbd_journal_domid("5 a guest", &domid, &rest), 0);
	assert_int_equal(domid, 5);
	assert_string_equal(rest, "a guest");
	assert_int_equal(xvbd_journal_domid("-1 g", &domid, &rest), 0);
	assert_int_equal(domid, -1);
	assert_int_equal(xvbd_journal_domid("-2 g", &domid, &rest), -EINVAL);
	assert_int_equal(xvbd_journal_domid("32752 g", &domid, &rest),
			 -EINVAL);
	assert_int_equal(xvbd_journal_domid("5", &domid, &rest), -EINVAL);
	assert_int_equal(xvbd_journal_domid("x g", &domid, &rest), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_entries),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_junk),
		cmocka_unit_test(test_start_time),
		cmocka_unit_test(test_domid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
