/*
 * wl_testload.h - a saved workload output (tests/data/...) read as a run's
 * --run output is: through the capture, in pieces, into *out.
 */
#ifndef WL_TESTLOAD_H
#define WL_TESTLOAD_H

#include <stdio.h>

#include "xvbd/workload/workload.h"

/* 0 when the file was read and the capture says it is fio's. */
static inline int wl_test_load_fio(const char *path,
				   struct xvbd_wl_results *out)
{
	struct xvbd_wl_capture *c =
		xvbd_wl_capture_new(XVBD_WL_RESULTS_AUTO, XVBD_WL_OUTPUT_MAX);
	FILE *fp = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!c || !fp) {
		if (fp)
			fclose(fp);
		xvbd_wl_capture_free(c);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		xvbd_wl_capture_feed(c, buf, n);
	fclose(fp);
	xvbd_wl_capture_finish(c, 0, out);
	xvbd_wl_capture_free(c);
	return out->format == XVBD_WL_FIO ? 0 : -1;
}

#endif /* WL_TESTLOAD_H */
