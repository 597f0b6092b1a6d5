/*
 * ab_testutil.h - what the A/B unit tests share beside their records
 * (ab_testrec.h): a comparison rendered into a string, a metric's verdict
 * in words, and a simulation's count.  Include after cmocka.h.
 */
#ifndef AB_TESTUTIL_H
#define AB_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "xvbd/ab/ab.h"
#include "xvbd/base/out.h"

/*
 * A few hundred experiments of a simulation reach as surely as the
 * thousands its statistical limit wants, so make check-valgrind sets
 * XVBD_UNIT_SIM_DIVISOR (10); the native and sanitizer runs keep the
 * full counts; a test derives its limits from the count it ran.
 */
static inline size_t ab_sim_count(size_t full)
{
	const char *e = getenv("XVBD_UNIT_SIM_DIVISOR");
	unsigned long div = e ? strtoul(e, NULL, 10) : 1;

	if (div < 1 || div > 100)
		div = 1;
	return full / div;
}

/* The comparison as text or JSON (shown: the metrics, NULL all); free. */
static inline char *ab_render(const struct xvbd_ab_comparison *c, bool json,
			      const bool *shown)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	assert_non_null(f);
	o = xvbd_out_new(f, json);
	assert_non_null(o);
	xvbd_ab_comparison_render(o, NULL, c, shown);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	return buf;
}

/* A metric's verdict in words, as JSON's text gives it (static). */
static inline const char *ab_vtext(const struct xvbd_ab_comparison *c,
				   const struct xvbd_ab_metric_cmp *m)
{
	static char buf[XVBD_AB_VERDICT_TEXT_MAX];

	assert_int_equal(xvbd_ab_verdict_text(c, m, buf, sizeof(buf)), 0);
	return buf;
}

#endif /* AB_TESTUTIL_H */
