/*
 * fuzz_wl_bench.c - the Go benchmark format (xvbd_wl_bench_reader): a
 * guest's workload prints it.  Read whole and in two pieces split where
 * the input's first byte says: both must agree; what is read must hold
 * together (names and units printable, values finite, within limits).
 */
#include <math.h>

#include "fuzz.h"
#include "xvbd/workload/workload.h"

static void check(const struct xvbd_wl_bench *b)
{
	size_t i, k;

	FUZZ_ASSERT(b->nlines >= 1 && b->nlines <= XVBD_WL_BENCH_MAX);
	for (i = 0; i < b->nlines; i++) {
		FUZZ_ASSERT(!strncmp(b->lines[i].name, "Benchmark", 9));
		FUZZ_ASSERT(b->lines[i].nvalues >= 1 &&
			    b->lines[i].nvalues <= XVBD_WL_UNITS_MAX);
		for (k = 0; k < b->lines[i].nvalues; k++) {
			FUZZ_ASSERT(isfinite(b->lines[i].values[k].value));
			FUZZ_ASSERT(!strpbrk(b->lines[i].values[k].unit,
					     " \t\r\n"));
			xvbd_wl_bench_better(b, b->lines[i].values[k].unit);
		}
	}
	FUZZ_ASSERT(b->nconfig <= XVBD_WL_CONFIG_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s = fuzz_str(data, len);
	char why[XVBD_WL_WHY_MAX], why2[XVBD_WL_WHY_MAX];
	struct xvbd_wl_bench_reader *r = xvbd_wl_bench_reader_new();
	struct xvbd_wl_bench b, c;
	size_t cut = len ? data[0] % (len + 1) : 0;
	int rc, rc2;

	FUZZ_ASSERT(r);
	rc = xvbd_wl_bench_parse(s, len, &b, why, sizeof(why));
	rc2 = xvbd_wl_bench_reader_feed(r, s, cut);
	if (!rc2)
		rc2 = xvbd_wl_bench_reader_feed(r, s + cut, len - cut);
	if (!rc2)
		rc2 = xvbd_wl_bench_reader_finish(r, &c, why2, sizeof(why2));
	FUZZ_ASSERT(rc == rc2);
	if (rc) {
		FUZZ_ASSERT(!strchr(why, '\n'));
		FUZZ_ASSERT(!strcmp(why, why2));
	} else {
		check(&b);
		FUZZ_ASSERT(b.nlines == c.nlines && b.nbad == c.nbad);
		xvbd_wl_bench_free(&c);
	}
	xvbd_wl_bench_free(&b);
	xvbd_wl_bench_reader_free(r);
	free(s);
	return 0;
}
