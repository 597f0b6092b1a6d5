/*
 * Unit tests: JSON strings read whole (jsonpath.c): a \u0000 in a string
 * or a key is found and named by its place, on hostile shapes: deep
 * nesting, long keys, arrays at the top, text that is not JSON.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/base/jsonpath.h"

static int scan(const char *text, char *why, size_t len)
{
	why[0] = '\0';
	return xvbd_json_strings_whole(text, strlen(text), "doc", why, len);
}

static void expect(const char *text, const char *want)
{
	char why[512];
	int rc = scan(text, why, sizeof(why));

	if (!want) {
		if (rc)
			fail_msg("%s: refused: %s", text, why);
		return;
	}
	if (rc != -EINVAL || strncmp(why, want, strlen(want)))
		fail_msg("%s: got %d \"%s\", want \"%s...\"", text, rc, why,
			 want);
	assert_null(strchr(why, '\n'));
}

static void test_places(void **state)
{
	(void)state;
	expect("{\"a\": \"x\", \"b\": [1, \"y\", {\"c\": null}]}", NULL);
	/* an escaped backslash before u0000 is text, not a NUL */
	expect("{\"a\": \"\\\\u0000\"}", NULL);
	expect("\"\\u0000\"", "doc: a \\u0000 (NUL) inside the string");
	expect("{\"a\": \"x\\u0000\"}", "a: a \\u0000");
	expect("[1, [2, \"\\u0000\"]]", "[1][1]: a \\u0000");
	expect("{\"a\": [{}, {\"b\": [true, \"\\u0000\"]}]}",
	       "a[1].b[1]: a \\u0000");
	expect("{\"a\": {\"k\\u0000\": 1}}", "a: key \"k\\u0000\": a \\u0000");
	expect("{\"k\\u0000\": 1}", "doc: key \"k\\u0000\"");
	/* the first one is named; the text after it is not read */
	expect("{\"a\": \"\\u0000\", \"b\": \"\\u0000\"", "a: a \\u0000");
	/* not JSON: left to the reader's parse */
	expect("{\"a\": ", NULL);
	expect("", NULL);
}

static void test_hostile(void **state)
{
	char why[512], *text;
	size_t i, n = 0, depth = 40;

	(void)state;
	/* deeper than a place holds: counted, shown with "..." */
	text = malloc(depth * 8 + 64);
	assert_non_null(text);
	for (i = 0; i < depth; i++)
		n += (size_t)sprintf(text + n, "{\"k\":");
	n += (size_t)sprintf(text + n, "\"\\u0000\"");
	for (i = 0; i < depth; i++)
		text[n++] = '}';
	text[n] = '\0';
	assert_int_equal(scan(text, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "k.k.k"));
	assert_non_null(strstr(why, "...: a \\u0000"));
	free(text);
	/* a long key with control bytes: cut, escaped, one line */
	text = malloc(4096);
	assert_non_null(text);
	n = (size_t)sprintf(text, "{\"");
	for (i = 0; i < 500; i++)
		n += (size_t)sprintf(text + n, "\\n");
	sprintf(text + n, "\\u0000\": 1}");
	assert_int_equal(scan(text, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "key \"\\x0a\\x0a"));
	assert_non_null(strstr(why, "...\": a \\u0000"));
	/* a small buffer still gets a NUL-terminated message */
	assert_int_equal(scan(text, why, 16), -EINVAL);
	assert_int_equal(strlen(why), 15);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_places),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
