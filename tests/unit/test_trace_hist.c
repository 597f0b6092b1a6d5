/*
 * test_trace_hist.c - the hist file reader against the 6.1 kernel's
 * own output (copied from the lab's dom0: a synthetic event with two
 * hist triggers, .buckets keys and onmax() lines) and hostile text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xvbd/dom0/trace_hist.h"

static const char lab_hist[] =
"# event histogram\n"
"#\n"
"# trigger info: hist:keys=idx,t.buckets=1000000000,lat.buckets=32:vals=hitcount,lat:m=lat:sort=hitcount:size=2048:onmax($m).save(lat) if lat < 1024 [active]\n"
"#\n"
"\n"
"\n"
"Totals:\n"
"    Hits: 0\n"
"    Entries: 0\n"
"    Dropped: 0\n"
"\n"
"\n"
"# event histogram\n"
"#\n"
"# trigger info: hist:keys=idx,t.buckets=1000000000,lat.buckets=2048:vals=hitcount,lat:m16=lat:sort=hitcount:size=2048:onmax($m16).save(lat) if lat >= 65536 && lat < 524288 [active]\n"
"#\n"
"\n"
"{ idx:          0, t: ~ 12000000000-12999999999, lat: ~ 505856-507903 } hitcount:          1  lat:     506285\n"
"\tmax:     506285  lat:     506285\n"
"{ idx:          0, t: ~ 11000000000-11999999999, lat: ~ 305152-307199 } hitcount:          2  lat:     612000\n"
"\tmax:     306800  lat:     306800\n"
"\n"
"Totals:\n"
"    Hits: 3\n"
"    Entries: 2\n"
"    Dropped: 7\n";

struct seen {
	size_t n;
	struct xvbd_hist_entry e[4];
};

static int collect(void *arg, const struct xvbd_hist_entry *e)
{
	struct seen *s = arg;

	if (s->n < 4)
		s->e[s->n] = *e;
	s->n++;
	return 0;
}

static void test_lab_output(void **state)
{
	struct seen s = { 0 };
	struct xvbd_hist_totals t;
	uint64_t v;

	(void)state;
	assert_int_equal(xvbd_hist_parse(lab_hist, strlen(lab_hist), collect,
					 &s, &t), 0);
	assert_int_equal(t.sections, 2);
	assert_int_equal(t.hits, 3);
	assert_int_equal(t.entries, 2);
	assert_int_equal(t.dropped, 7);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.e[0].section, 1);
	assert_true(s.e[0].info_len > 20 &&
		    !strncmp(s.e[0].info, "hist:keys=idx,t.buckets", 23) &&
		    !strncmp(s.e[0].info + s.e[0].info_len - 8, "[active]", 8));
	assert_int_equal(s.e[0].nkeys, 3);
	assert_string_equal(s.e[0].key_name[1], "t");
	assert_int_equal(xvbd_hist_key(&s.e[0], "t", &v), 0);
	assert_true(v == 12000000000ull);
	assert_int_equal(xvbd_hist_key(&s.e[0], "lat", &v), 0);
	assert_int_equal(v, 505856);
	assert_int_equal(s.e[0].hitcount, 1);
	assert_int_equal(xvbd_hist_val(&s.e[0], "lat", &v), 0);
	assert_int_equal(v, 506285);
	assert_true(s.e[0].has_max);
	assert_int_equal(s.e[0].max, 506285);
	assert_int_equal(s.e[1].hitcount, 2);
	assert_int_equal(s.e[1].max, 306800);
	assert_int_equal(xvbd_hist_key(&s.e[1], "nope", &v), -ENOENT);
}

/* Expression keys name themselves by the expression. */
static void test_expression_key(void **state)
{
	static const char txt[] =
	"# trigger info: hist:keys=dev*4+c:vals=hitcount [active]\n"
	"{ dev*4+c:   1065353281 } hitcount:          5\n"
	"Totals:\n    Hits: 5\n    Entries: 1\n    Dropped: 0\n";
	struct seen s = { 0 };
	uint64_t v;

	(void)state;
	assert_int_equal(xvbd_hist_parse(txt, strlen(txt), collect, &s, NULL),
			 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(xvbd_hist_key(&s.e[0], "dev*4+c", &v), 0);
	assert_int_equal(v, 1065353281);
	assert_false(s.e[0].has_max);
}

static int stop_at_first(void *arg, const struct xvbd_hist_entry *e)
{
	(void)arg;
	(void)e;
	return -EINTR;
}

static void test_hostile(void **state)
{
	static const char *const bad[] = {
		"",				/* no trigger info */
		"hello\n",
		"# trigger info: x\n{ a: 1 hitcount: 2\n",	/* no brace */
		"# trigger info: x\n{ a: -1 } hitcount: 2\n",
		"# trigger info: x\n{ a: 18446744073709551616 } hitcount: 2\n",
		"# trigger info: x\n{ a: ~ 9-3 } hitcount: 2\n",
		"# trigger info: x\n{ a: 1, b: 2, c: 3, d: 4 } hitcount: 2\n",
		"# trigger info: x\n{ a: 1 } hitcount: 2 b: 1 c: 2 d: 3 e: 4\n",
		"# trigger info: x\n{ a: 1 } hitcount: x\n",
		"# trigger info: x\n{ a: ~ 2^10 } hitcount: 1\n",	/* log2 */
		"# trigger info: x\nTotals:\n    Hits: lots\n",
		"# trigger info: x\nsomething else\n",
	};
	char *huge;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(xvbd_hist_parse(bad[i], strlen(bad[i]), NULL,
						 NULL, NULL), -EINVAL);
	/* A line longer than any the kernel writes. */
	huge = malloc(10000);
	assert_non_null(huge);
	memset(huge, ' ', 9999);
	huge[9999] = '\0';
	memcpy(huge, "# trigger info: x\n", 18);
	assert_int_equal(xvbd_hist_parse(huge, strlen(huge), NULL, NULL, NULL),
			 -EINVAL);
	free(huge);
	/* The callback's value ends the parse. */
	assert_int_equal(xvbd_hist_parse(lab_hist, strlen(lab_hist),
					 stop_at_first, NULL, NULL), -EINTR);
	/* Only len bytes are read: cut inside an entry's keys. */
	assert_int_equal(xvbd_hist_parse(lab_hist, (size_t)(strstr(lab_hist,
					 "{ idx") - lab_hist) + 20, NULL, NULL,
					 NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_output),
		cmocka_unit_test(test_expression_key),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
