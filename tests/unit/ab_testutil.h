/*
 * ab_testutil.h - what the A/B unit tests share beside their records
 * (ab_testrec.h): a comparison rendered into a string and a metric's
 * verdict in words.  Include after cmocka.h.
 */
#ifndef AB_TESTUTIL_H
#define AB_TESTUTIL_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/ab/ab.h"
#include "xvbd/base/out.h"

/*
 * The comparison as text (verbose: as -v asks) or JSON (shown: the
 * metrics, NULL all); free.  Text: every line within XVBD_AB_TEXT_COLS,
 * checked here, and its blanks and line ends each made one blank, so
 * that a phrase the out layer wrapped is found whole.
 */
static inline char *ab_render_v(const struct xvbd_ab_comparison *c,
				bool json, const bool *shown, int verbose)
{
	char *buf = NULL, *r, *w, *line;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xvbd_out *o;

	assert_non_null(f);
	o = xvbd_out_new(f, json);
	assert_non_null(o);
	xvbd_out_set_verbose(o, verbose);
	xvbd_ab_comparison_render(o, NULL, c, shown);
	assert_int_equal(xvbd_out_finish(o), 0);
	xvbd_out_free(o);
	fclose(f);
	if (json)
		return buf;
	for (line = buf; *line; line = strchr(line, '\n') + 1) {
		assert_non_null(strchr(line, '\n'));
		if (strchr(line, '\n') - line > XVBD_AB_TEXT_COLS)
			fail_msg("longer than %d columns: %.*s",
				 XVBD_AB_TEXT_COLS,
				 (int)(strchr(line, '\n') - line), line);
	}
	for (r = w = buf; *r; r++)
		if (!isspace((unsigned char)*r) || (w > buf && w[-1] != ' '))
			*w++ = isspace((unsigned char)*r) ? ' ' : *r;
	*w = '\0';
	return buf;
}

static inline char *ab_render(const struct xvbd_ab_comparison *c, bool json,
			      const bool *shown)
{
	return ab_render_v(c, json, shown, 0);
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
