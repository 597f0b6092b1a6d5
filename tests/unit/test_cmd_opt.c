/*
 * test_cmd_opt.c - the one command-line parser over a table of its own:
 * global options before and after the command give the same parse, "--"
 * ends options, values through the grammar by kind, once or repeatable,
 * clusters, prefixes, "did you mean", ambiguous prefixes named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/cmd/cmd_opt.h"
#include "xvbd/cmd/cmd_table.h"

enum { O_DIR, O_DOMAIN, O_DURATION, O_METRIC, O_INTERVAL, O_FLAG };

static const struct xvbd_cmdopt rec_opts[] = {
	[O_DIR] = XVBD_OPT_STR("dir", 0, "DIR", 0, "store"),
	[O_DOMAIN] = XVBD_OPT_STR("domain", 0, "D", 0, "domain"),
	[O_DURATION] = XVBD_OPT_S("duration", 0, 0.01, 86400, "how long"),
	[O_METRIC] = XVBD_OPT_STR("metric", 0, "M", XVBD_OPT_REPEAT, "m"),
	[O_INTERVAL] = XVBD_OPT_S("interval", 'd', 0.01, 86400, "step"),
	[O_FLAG] = XVBD_OPT_F("vcpus", 0, "a flag"),
	XVBD_OPT_END,
};

static const struct xvbd_cmd table[] = {
	{ "list", NULL, 0, 0, 0, "list", "", NULL, NULL },
	{ "show", NULL, 0, 0, 0, "show", "", NULL, NULL },
	{ "start", NULL, 0, 0, 0, "start", "", NULL, NULL },
	{ "stats", NULL, 0, 0, 0, "stats", "", rec_opts, NULL },
	{ "ab record", NULL, 0, 0, 0, "record", "", rec_opts, NULL },
	{ "ab rm", NULL, 0, 0, 0, "rm", "", NULL, NULL },
	{ "ab run", NULL, 0, 0, 0, "run", "", NULL, NULL },
};
#define NT (sizeof(table) / sizeof(table[0]))

/* The parse of words, as one line (command, globals, options, operands). */
static int parse(const char *line, char *out, size_t len)
{
	char buf[512], *argv[32], *save = NULL, *w;
	struct xvbd_cmdline cl;
	int argc = 0, rc, i;
	size_t n, k;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 32;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	rc = xvbd_cmdline_parse(table, NT, argc, argv, &cl);
	n = (size_t)snprintf(out, len, "%s|", cl.cmd ? cl.cmd->name : "-");
	if (rc) {
		snprintf(out + n, len - n, "%s%s%s", cl.err,
			 cl.hint[0] ? ": " : "", cl.hint);
		xvbd_cmdline_free(&cl);
		return rc;
	}
	/* globals as a set (their order does not matter) */
	for (k = 0; k < 6; k++) {
		for (i = 0; i < (int)cl.nglobals; i++)
			if (cl.globals[i].id == (int)k)
				n += (size_t)snprintf(out + n, len - n, "%s ",
						      xvbd_global_opts[k].name);
	}
	n += (size_t)snprintf(out + n, len - n, "|");
	for (k = 0; k < cl.ngiven; k++)
		n += (size_t)snprintf(out + n, len - n, "%s=%s:%llu ",
				      rec_opts[cl.given[k].id].name,
				      cl.given[k].arg ? cl.given[k].arg : "",
				      (unsigned long long)cl.given[k].u);
	n += (size_t)snprintf(out + n, len - n, "|");
	for (i = 0; i < cl.noperands; i++)
		n += (size_t)snprintf(out + n, len - n, "%s ", cl.operands[i]);
	xvbd_cmdline_free(&cl);
	return rc;
}

static void expect(const char *line, int rc, const char *want)
{
	char got[1024];

	assert_int_equal(parse(line, got, sizeof(got)), rc);
	assert_string_equal(got, want);
}

static void test_globals_anywhere(void **state)
{
	static const char *const lines[] = {
		"-j -N ab record x --duration 30s --metric a --metric b",
		"ab record -j x -N --duration 30s --metric a --metric b",
		"ab record x --duration 30s --metric a --metric b --json -N",
		"--json ab -N record x --duration=30s --metric=a --metric b",
		"ab record x --dur 30s -jN --metric a --metric b",
	};
	char first[1024], got[1024];
	size_t i;

	(void)state;
	assert_int_equal(parse(lines[0], first, sizeof(first)), 0);
	assert_string_equal(first, "ab record|json dry-run |"
			    "duration=30s:30000000000 metric=a:0 metric=b:0 "
			    "|x ");
	for (i = 1; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(parse(lines[i], got, sizeof(got)), 0);
		assert_string_equal(got, first);
	}
}

static void test_dashdash_and_shorts(void **state)
{
	(void)state;
	/* after "--" every word is an operand, dashes and all */
	expect("stats -q -- -j --vcpus x", 0, "stats|quiet ||-j --vcpus x ");
	expect("stats -d1 -vv", 0, "stats|verbose verbose |"
	       "interval=1:1000000000 |");
	expect("stats -d 250ms", 0, "stats||interval=250ms:250000000 |");
	expect("stats - x", 0, "stats|||- x ");	/* "-": stdin, an operand */
}

static void test_errors(void **state)
{
	(void)state;
	expect("stats -d 1 -d 2", 2, "stats|stats: -d given twice");
	expect("stats --vcpus --vcpus", 0, "stats||vcpus=:0 vcpus=:0 |");
	expect("stats -d", 2, "stats|stats: -d needs a value");
	expect("stats --vcpus=1", 2, "stats|stats: --vcpus takes no value");
	expect("stats -d 1x", 2, "stats|stats: -d: \"1x\": expected a "
	       "duration from 10ms to 24h (500ms, 30s, 5m, 1h; a plain "
	       "number is seconds)");
	expect("stats --intervl 1", 2, "stats|stats: unknown option "
	       "\"--intervl\": did you mean --interval?");
	expect("stats --d 1", 2, "stats|stats: ambiguous option \"--d\": "
	       "--dir, --domain, --duration, --dry-run");
	expect("stats -x", 2, "stats|stats: unknown option \"-x\"");
	expect("lsit", 2, "-|unknown command \"lsit\": did you mean "
	       "\"list\"?");
	expect("s", 2, "-|ambiguous command \"s\": show, start, stats");
	expect("ab r", 2, "-|ambiguous command \"ab r\": ab record, ab rm, "
	       "ab run");
	expect("frobnicate", 2, "-|unknown command \"frobnicate\": see "
	       "\"xvbd help\"");
	/* an unknown option before the command: only the globals count */
	expect("--dir x list", 2, "-|unknown option \"--dir\"");
}

static void test_json_seen_and_help(void **state)
{
	struct xvbd_cmdline cl;
	char *argv[] = { "stats", "--bogus", "--json", "-h" };

	(void)state;
	/* the line is wrong, and still says --json and -h */
	assert_int_equal(xvbd_cmdline_parse(table, NT, 4, argv, &cl), 2);
	assert_true(cl.json_seen);
	assert_true(cl.help);
	assert_ptr_equal(cl.cmd, &table[3]);
	xvbd_cmdline_free(&cl);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(xvbd_edit_distance("lsit", "list", 3), 1);
	assert_int_equal(xvbd_edit_distance("confidnce", "confidence", 3), 1);
	assert_int_equal(xvbd_edit_distance("", "abc", 5), 3);
	assert_int_equal(xvbd_edit_distance("abc", "abc", 0), 0);
	assert_int_equal(xvbd_edit_distance("kitten", "sitting", 1), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_globals_anywhere),
		cmocka_unit_test(test_dashdash_and_shorts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_json_seen_and_help),
		cmocka_unit_test(test_edit_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
