/* Unit tests: xl config text (scanner, edits, diff, kernel command lines).
 * The scanner must find exactly the assignments libxlutil sees, and
 * refuse what libxlutil refuses; an edit must leave every other byte. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/xen/xlcfg_edit.h"

static char why[256];

static void scan_ok(const char *text, struct xvbd_xlcfg_scan *scan)
{
	int rc = xvbd_xlcfg_scan(text, strlen(text), scan, why, sizeof(why));

	if (rc)
		fail_msg("scan of \"%s\": %s", text, why);
}

/* Scan refused, with why naming the line. */
static void scan_bad(const char *text, unsigned line)
{
	struct xvbd_xlcfg_scan scan;
	char want[32];

	assert_int_equal(xvbd_xlcfg_scan(text, strlen(text), &scan, why,
					 sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want), "line %u:", line);
	if (strncmp(why, want, strlen(want)))
		fail_msg("\"%s\": why \"%s\" does not start with \"%s\"",
			 text, why, want);
	assert_int_equal(scan.n, 0);
}

static size_t count(const char *text, const char *key)
{
	struct xvbd_xlcfg_scan scan;
	size_t n;

	scan_ok(text, &scan);
	n = xvbd_xlcfg_count(&scan, key, NULL);
	xvbd_xlcfg_scan_free(&scan);
	return n;
}

static void test_scan(void **state)
{
	struct xvbd_xlcfg_scan scan;
	const struct xvbd_xlcfg_assign *a;
	const char *t;

	(void)state;
	t = "name = \"g\"\ndisk = [ 'a',\n  # comment\n  'b', ]\n"
	    "xen_platform_pci=1;memory=512 # x\nextra += 'q'";
	scan_ok(t, &scan);
	assert_int_equal(scan.n, 5);
	a = &scan.a[1];
	assert_true(xvbd_xlcfg_is(&scan, 1, "disk"));
	assert_int_equal(a->kind, XVBD_XLVAL_LIST);
	assert_int_equal(a->line, 2);
	/* the list's span runs to its ']' on line 4 */
	assert_int_equal(t[a->value_off], '[');
	assert_int_equal(t[a->value_end - 1], ']');
	a = &scan.a[2];
	assert_true(xvbd_xlcfg_is(&scan, 2, "xen_platform_pci"));
	assert_int_equal(a->kind, XVBD_XLVAL_NUMBER);
	assert_int_equal(a->line, 5);
	assert_int_equal(a->value_end - a->value_off, 1);
	assert_true(xvbd_xlcfg_is(&scan, 3, "memory"));
	assert_true(scan.a[4].add);
	assert_int_equal(scan.a[4].kind, XVBD_XLVAL_STRING);
	xvbd_xlcfg_scan_free(&scan);

	/* in a comment, in a string, part of a longer name: not it */
	assert_int_equal(count("# xen_platform_pci = 0\n", "xen_platform_pci"),
			 0);
	assert_int_equal(count("extra = \"xen_platform_pci = 0\"\n",
			       "xen_platform_pci"), 0);
	assert_int_equal(count("extra = 'a # xen_platform_pci = 0'\n",
			       "xen_platform_pci"), 0);
	assert_int_equal(count("xen_platform_pci_x = 1\nx.xen_platform_pci = 1"
			       "\n", "xen_platform_pci"), 0);
	assert_int_equal(count("disk = [ \"a\",\n"
			       "  \"xen_platform_pci=0\" ]\n",
			       "xen_platform_pci"), 0);
	/* twice, once after a ';' */
	assert_int_equal(count("xen_platform_pci = 1\na=1; xen_platform_pci"
			       "=0\n", "xen_platform_pci"), 2);
	/* escapes in strings, an empty list, blank and comment lines */
	assert_int_equal(count("a = \"x\\\"y\"\nb = []\n\n# c\n\t\nc = 0x1f\n",
			       "c"), 1);
	/* empty text, only comments */
	assert_int_equal(count("", "a"), 0);
	assert_int_equal(count("# only\n", "a"), 0);
}

static void test_scan_refused(void **state)
{
	(void)state;
	scan_bad("name = \"g\"\r\n", 1);		/* CRLF */
	scan_bad("a = 1\nb = 2\r\n", 2);
	scan_bad("Name = \"g\"\n", 1);			/* upper case */
	scan_bad("a = 1\n# no newline", 2);		/* libxlutil too */
	scan_bad("a = \"open\n", 1);
	scan_bad("a = 'x\\\n'\n", 1);			/* backslash-newline */
	scan_bad("a = 1 + 2\n", 1);			/* Python */
	scan_bad("a = [1,\n2\n", 3);			/* unclosed list */
	scan_bad("a = [1 2]\n", 1);
	scan_bad("a 1\n", 1);
	scan_bad("= 1\n", 1);
	scan_bad("a = 1 b = 2\n", 1);
	scan_bad("a = b\n", 1);				/* no bare words */
	scan_bad("_a = 1\n", 1);
	scan_bad("a = 1\n\xef\xbb\xbf", 2);		/* non-ASCII */
	/* a NUL byte */
	{
		struct xvbd_xlcfg_scan scan;

		assert_int_equal(xvbd_xlcfg_scan("a = 1\n\0", 7, &scan, why,
						 sizeof(why)), -EINVAL);
	}
}

static void test_names(void **state)
{
	struct xvbd_xlcfg_scan scan;
	char **names;
	size_t n, i;

	(void)state;
	scan_ok("b = 1\na = 2\nb += 3\n", &scan);
	assert_int_equal(xvbd_xlcfg_names(&scan, &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "b");
	assert_string_equal(names[1], "a");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	xvbd_xlcfg_scan_free(&scan);
}

/* text with key = atom planned and applied equals want. */
static void expect_atom(const char *text, const char *key, const char *atom,
			const char *want)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;
	size_t len;
	char *out;

	scan_ok(text, &scan);
	assert_int_equal(xvbd_xlcfg_plan_atom(&scan, key, atom, &edits, why,
					      sizeof(why)), 0);
	assert_int_equal(xvbd_xlcfg_apply(text, strlen(text), &edits, &out,
					  &len), 0);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	free(out);
	xvbd_xlcfg_edits_free(&edits);
	xvbd_xlcfg_scan_free(&scan);
}

static int plan_atom_rc(const char *text, const char *key)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;
	int rc;

	scan_ok(text, &scan);
	rc = xvbd_xlcfg_plan_atom(&scan, key, "0", &edits, why, sizeof(why));
	assert_int_equal(edits.n, 0);
	xvbd_xlcfg_scan_free(&scan);
	return rc;
}

static void test_plan_atom(void **state)
{
	(void)state;
	/* in place, comments and layout kept */
	expect_atom("# pv\nxen_platform_pci = 1   # on\nname='g'\n",
		    "xen_platform_pci", "0",
		    "# pv\nxen_platform_pci = 0   # on\nname='g'\n");
	expect_atom("a=1;xen_platform_pci=\"1\";b=2\n", "xen_platform_pci",
		    "0", "a=1;xen_platform_pci=0;b=2\n");
	expect_atom("xen_platform_pci=0x1", "xen_platform_pci", "0",
		    "xen_platform_pci=0");
	/* absent: a line appended, after a newline if the text lacks one */
	expect_atom("name = 'g'\n", "xen_platform_pci", "0",
		    "name = 'g'\nxen_platform_pci = 0\n");
	expect_atom("name = 'g'", "xen_platform_pci", "0",
		    "name = 'g'\nxen_platform_pci = 0\n");
	expect_atom("", "xen_platform_pci", "1", "xen_platform_pci = 1\n");
	/* the one in the comment and in the string stay */
	expect_atom("# xen_platform_pci = 1\nextra = \"xen_platform_pci=1\"\n",
		    "xen_platform_pci", "0",
		    "# xen_platform_pci = 1\nextra = \"xen_platform_pci=1\"\n"
		    "xen_platform_pci = 0\n");

	assert_int_equal(plan_atom_rc("xen_platform_pci=1\nxen_platform_pci=1"
				      "\n", "xen_platform_pci"), -EEXIST);
	assert_non_null(strstr(why, "lines 1, 2"));
	assert_int_equal(plan_atom_rc("xen_platform_pci += 1\n",
				      "xen_platform_pci"), -EINVAL);
	assert_int_equal(plan_atom_rc("xen_platform_pci = [ 1 ]\n",
				      "xen_platform_pci"), -EINVAL);
}

static void expect_strval(const char *text, const char *key,
			  const char *value, const char *want)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;
	char *out;

	scan_ok(text, &scan);
	assert_int_equal(xvbd_xlcfg_plan_string(&scan, key, value, &edits,
						why, sizeof(why)), 0);
	assert_int_equal(xvbd_xlcfg_apply(text, strlen(text), &edits, &out,
					  NULL), 0);
	assert_string_equal(out, want);
	free(out);
	xvbd_xlcfg_edits_free(&edits);
	xvbd_xlcfg_scan_free(&scan);
}

static int string_rc(const char *text, const char *key, const char *value)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;
	char *got = NULL;
	int rc, rc2;

	scan_ok(text, &scan);
	rc = xvbd_xlcfg_plan_string(&scan, key, value, &edits, why,
				    sizeof(why));
	rc2 = xvbd_xlcfg_get_plain_string(&scan, key, &got, why, sizeof(why));
	free(got);
	xvbd_xlcfg_edits_free(&edits);
	xvbd_xlcfg_scan_free(&scan);
	return rc ? rc : rc2;
}

static void test_plan_string(void **state)
{
	struct xvbd_xlcfg_scan scan;
	char *got;

	(void)state;
	expect_strval("extra = 'console=hvc0' # k\n", "extra",
		      "console=hvc0 xen_emul_unplug=never",
		      "extra = 'console=hvc0 xen_emul_unplug=never' # k\n");
	/* the last one is xl's, and is edited */
	expect_strval("extra = \"a\"\nextra = \"b\"\n", "extra", "b c",
		      "extra = \"a\"\nextra = \"b c\"\n");
	expect_strval("name = 'g'\n", "extra", "x",
		      "name = 'g'\nextra = \"x\"\n");
	/* single quotes may hold a double quote */
	expect_strval("cmdline = 'a=\"b\"'\n", "cmdline", "a=\"b\" c",
		      "cmdline = 'a=\"b\" c'\n");

	scan_ok("extra = 'a b'\n", &scan);
	assert_int_equal(xvbd_xlcfg_get_plain_string(&scan, "extra", &got,
						     why, sizeof(why)), 0);
	assert_string_equal(got, "a b");
	free(got);
	assert_int_equal(xvbd_xlcfg_get_plain_string(&scan, "cmdline", &got,
						     why, sizeof(why)), 0);
	assert_null(got);
	xvbd_xlcfg_scan_free(&scan);

	assert_int_equal(string_rc("extra = \"a\\tb\"\n", "extra", "x"),
			 -EINVAL);
	assert_int_equal(string_rc("extra = \"a\"\nextra += \" b\"\n", "extra",
				   "x"), -EINVAL);
	assert_int_equal(string_rc("extra = [ \"a\" ]\n", "extra", "x"),
			 -EINVAL);
	assert_int_equal(string_rc("extra = 1\n", "extra", "x"), -EINVAL);
	assert_int_equal(string_rc("extra = 'a'\n", "extra", "it's"),
			 -EINVAL);
	assert_int_equal(string_rc("extra = 'a'\n", "extra", "a\\b"),
			 -EINVAL);
}

static void expect_diff(const char *text, size_t start, size_t end,
			const char *repl, const char *want)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_edit e = { start, end, strdup(repl) };
	char *out;

	edits.e = &e;
	edits.n = 1;
	assert_int_equal(xvbd_xlcfg_diff("f.cfg", text, strlen(text), &edits,
					 &out), 0);
	assert_string_equal(out, want);
	free(out);
	free(e.repl);
}

static void test_diff(void **state)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;
	const char *t = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n";
	char *out;

	(void)state;
	/* one changed line with three lines of context each side */
	expect_diff(t, 10, 11, "X",
		    "--- f.cfg\n+++ f.cfg\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n"
		    "-6\n+X\n 7\n 8\n 9\n");
	/* at the start, and an appended line at the end */
	expect_diff("a\nb\n", 0, 1, "A",
		    "--- f.cfg\n+++ f.cfg\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n");
	expect_diff("a\nb\n", 4, 4, "c\n",
		    "--- f.cfg\n+++ f.cfg\n@@ -1,2 +1,3 @@\n a\n b\n+c\n");
	/* appended to a text without a final newline */
	expect_diff("a\nb", 3, 3, "\nc\n",
		    "--- f.cfg\n+++ f.cfg\n@@ -1,2 +1,3 @@\n a\n-b\n"
		    "\\ No newline at end of file\n+b\n+c\n");
	/* into an empty file */
	expect_diff("", 0, 0, "a = 1\n",
		    "--- f.cfg\n+++ f.cfg\n@@ -0,0 +1,1 @@\n+a = 1\n");
	/* no edits, no diff */
	assert_int_equal(xvbd_xlcfg_diff("f", t, strlen(t), &edits, &out), 0);
	assert_string_equal(out, "");
	free(out);

	/* edits far apart: two hunks, the second's new start shifted */
	{
		const char *u = "a = 1\n#2\n#3\n#4\n#5\n#6\n#7\n#8\n#9\n"
				"b = 'x'\n";

		scan_ok(u, &scan);
		assert_int_equal(xvbd_xlcfg_plan_atom(&scan, "a", "0", &edits,
						      why, sizeof(why)), 0);
		assert_int_equal(xvbd_xlcfg_plan_string(&scan, "b", "x y",
							&edits, why,
							sizeof(why)), 0);
		assert_int_equal(xvbd_xlcfg_plan_atom(&scan, "c", "1", &edits,
						      why, sizeof(why)), 0);
		assert_int_equal(xvbd_xlcfg_diff("g", u, strlen(u), &edits,
						 &out), 0);
		assert_string_equal(out,
			"--- g\n+++ g\n@@ -1,4 +1,4 @@\n-a = 1\n+a = 0\n"
			" #2\n #3\n #4\n@@ -7,4 +7,5 @@\n #7\n #8\n #9\n"
			"-b = 'x'\n+b = 'x y'\n+c = 1\n");
		free(out);
		xvbd_xlcfg_edits_free(&edits);
		xvbd_xlcfg_scan_free(&scan);
	}
	/* edits on adjacent lines: one group, all - lines then all + */
	{
		const char *u = "a = 1\nb = 'x'\n";

		scan_ok(u, &scan);
		assert_int_equal(xvbd_xlcfg_plan_atom(&scan, "a", "0", &edits,
						      why, sizeof(why)), 0);
		assert_int_equal(xvbd_xlcfg_plan_string(&scan, "b", "y",
							&edits, why,
							sizeof(why)), 0);
		assert_int_equal(xvbd_xlcfg_diff("g", u, strlen(u), &edits,
						 &out), 0);
		assert_string_equal(out, "--- g\n+++ g\n@@ -1,2 +1,2 @@\n"
				    "-a = 1\n-b = 'x'\n+a = 0\n+b = 'y'\n");
		free(out);
		xvbd_xlcfg_edits_free(&edits);
		xvbd_xlcfg_scan_free(&scan);
	}
}

static void test_edit_overlap(void **state)
{
	struct xvbd_xlcfg_edits edits = { 0 };
	struct xvbd_xlcfg_scan scan;

	(void)state;
	scan_ok("a = 1\n", &scan);
	assert_int_equal(xvbd_xlcfg_plan_atom(&scan, "a", "2", &edits, why,
					      sizeof(why)), 0);
	/* the same value range twice is a caller's bug */
	assert_int_equal(xvbd_xlcfg_plan_atom(&scan, "a", "3", &edits, why,
					      sizeof(why)), -EINVAL);
	assert_int_equal(edits.n, 1);
	xvbd_xlcfg_edits_free(&edits);
	xvbd_xlcfg_scan_free(&scan);
}

static void expect_kcmd(char *got, const char *want)
{
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_kcmdline(void **state)
{
	(void)state;
	assert_true(xvbd_kcmdline_has("a xen_emul_unplug=never b",
				      "xen_emul_unplug=never"));
	assert_false(xvbd_kcmdline_has("a xen_emul_unplug=never2",
				       "xen_emul_unplug=never"));
	assert_false(xvbd_kcmdline_has(NULL, "x"));
	expect_kcmd(xvbd_kcmdline_add("console=hvc0", "w"), "console=hvc0 w");
	expect_kcmd(xvbd_kcmdline_add("console=hvc0 ", "w"), "console=hvc0 w");
	expect_kcmd(xvbd_kcmdline_add("", "w"), "w");
	expect_kcmd(xvbd_kcmdline_add(NULL, "w"), "w");
	expect_kcmd(xvbd_kcmdline_remove("a w b", "w"), "a b");
	expect_kcmd(xvbd_kcmdline_remove("w a", "w"), "a");
	expect_kcmd(xvbd_kcmdline_remove("a w", "w"), "a");
	expect_kcmd(xvbd_kcmdline_remove("w", "w"), "");
	expect_kcmd(xvbd_kcmdline_remove("w w a w", "w"), "a");
	expect_kcmd(xvbd_kcmdline_remove("ww a", "w"), "ww a");
	expect_kcmd(xvbd_kcmdline_remove("a\tw\tb", "w"), "a\tb");
	/* add then remove gives the line back */
	expect_kcmd(xvbd_kcmdline_remove("console=hvc0 w", "w"),
		    "console=hvc0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_scan_refused),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_plan_atom),
		cmocka_unit_test(test_plan_string),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_edit_overlap),
		cmocka_unit_test(test_kcmdline),
	};

	return cmocka_run_group_tests_name("xlcfg_edit", tests, NULL, NULL);
}
