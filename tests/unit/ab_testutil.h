/*
 * ab_testutil.h - what the A/B unit tests share beside their records
 * (ab_testrec.h): a comparison rendered into a string and a metric's
 * verdict in words.  Include after cmocka.h.
 */
#ifndef AB_TESTUTIL_H
#define AB_TESTUTIL_H

#include <stdio.h>

#include "xvbd/ab/ab.h"
#include "xvbd/base/out.h"

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
