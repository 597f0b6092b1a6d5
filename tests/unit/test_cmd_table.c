/* Unit tests: command lookup in the table (one word, or a group's two). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/cmd/cmd_table.h"

static const struct xvbd_cmd table[] = {
	{ "list", NULL, 0, 0, 0, "list", "", NULL, NULL },
	{ "attach", NULL, 0, 0, 0, "attach", "", NULL, NULL },
	{ "ab record", NULL, 0, 0, 0, "record", "", NULL, NULL },
	{ "ab rm", NULL, 0, 0, 0, "rm", "", NULL, NULL },
	{ "ab run", NULL, 0, 0, 0, "run", "", NULL, NULL },
	{ "ab compare", NULL, 0, 0, 0, "compare", "", NULL, NULL },
};
#define NT (sizeof(table) / sizeof(table[0]))

struct found {
	const struct xvbd_cmd *cmd;
	int nwords;
	bool ambiguous;
	const char *group;
};

static struct found find(int argc, const char *w0, const char *w1)
{
	char *argv[3] = { (char *)w0, (char *)w1, NULL };
	struct found f = { 0 };

	f.cmd = xvbd_cmd_find(table, NT, argc, argv, &f.nwords, &f.ambiguous,
			      &f.group);
	return f;
}

static void test_single_words(void **state)
{
	struct found f;

	(void)state;
	f = find(1, "attach", NULL);
	assert_ptr_equal(f.cmd, &table[1]);
	assert_int_equal(f.nwords, 1);
	f = find(1, "li", NULL);
	assert_ptr_equal(f.cmd, &table[0]);
	/* "a" is attach or the ab group: ambiguous, not the first hit. */
	f = find(1, "a", NULL);
	assert_null(f.cmd);
	assert_true(f.ambiguous);
	f = find(1, "nope", NULL);
	assert_null(f.cmd);
	assert_false(f.ambiguous);
	assert_null(f.group);
	f = find(1, "", NULL);
	assert_null(f.cmd);
	/* A word with a blank never matches a two-word name. */
	f = find(1, "ab record", NULL);
	assert_null(f.cmd);
	assert_null(f.group);
}

static void test_groups(void **state)
{
	struct found f;

	(void)state;
	f = find(2, "ab", "record");
	assert_ptr_equal(f.cmd, &table[2]);
	assert_int_equal(f.nwords, 2);
	f = find(2, "ab", "rec");
	assert_ptr_equal(f.cmd, &table[2]);
	f = find(2, "ab", "co");
	assert_ptr_equal(f.cmd, &table[5]);
	/* "run" is exact although "r" is ambiguous (record, rm, run). */
	f = find(2, "ab", "run");
	assert_ptr_equal(f.cmd, &table[4]);
	f = find(2, "ab", "r");
	assert_null(f.cmd);
	assert_true(f.ambiguous);
	assert_non_null(f.group);
	assert_int_equal(f.nwords, 1);
	/* The group alone, or followed by an option: no command. */
	f = find(1, "ab", NULL);
	assert_null(f.cmd);
	assert_non_null(f.group);
	assert_int_equal(strncmp(f.group, "ab ", 3), 0);
	f = find(2, "ab", "-h");
	assert_null(f.cmd);
	assert_non_null(f.group);
	f = find(2, "ab", "bogus");
	assert_null(f.cmd);
	assert_false(f.ambiguous);
	assert_non_null(f.group);
	/* The group word itself may be a prefix ("a" is ambiguous above). */
	f = find(2, "abc", "record");
	assert_null(f.cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_words),
		cmocka_unit_test(test_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
