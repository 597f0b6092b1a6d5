/*
 * fuzz_wl_fio.c - fio's JSON and JSON+ (xvbd_wl_fio_reader): a guest
 * writes it.  The text is read whole and again in two pieces split at a
 * point the input chooses (its first byte): both must agree, the reason
 * of a refusal must be one line, and what is read must hold together
 * (jobs within the limit, bins sorted and summed, totals computable).
 */
#include <stdio.h>

#include "fuzz.h"
#include "xvbd/workload/workload.h"

static int read_split(const char *s, size_t len, size_t cut,
		      struct xvbd_wl_fio *f, char *why, size_t whylen)
{
	struct xvbd_wl_fio_reader *r = xvbd_wl_fio_reader_new();
	int rc;

	FUZZ_ASSERT(r);
	rc = xvbd_wl_fio_reader_feed(r, s, cut);
	if (!rc)
		rc = xvbd_wl_fio_reader_feed(r, s + cut, len - cut);
	if (!rc)
		rc = xvbd_wl_fio_reader_finish(r, f, why, whylen);
	xvbd_wl_fio_reader_free(r);
	return rc;
}

static void check(const struct xvbd_wl_fio *f)
{
	struct xvbd_wl_dir_total t;
	char why[XVBD_WL_WHY_MAX];
	size_t i;
	int d, k;

	FUZZ_ASSERT(f->njobs >= 1 && f->njobs <= XVBD_WL_JOBS_MAX);
	FUZZ_ASSERT(f->version);
	for (d = 0; d < XVBD_WL_NDIRS; d++) {
		for (k = 0; k < XVBD_WL_NLATS; k++) {
			const struct xvbd_wl_hist *h = &f->hist[d][k];
			uint64_t sum = 0, v;

			for (i = 0; i < h->n; i++) {
				FUZZ_ASSERT(!i || h->bins[i - 1].value_ns <
					    h->bins[i].value_ns);
				sum += h->bins[i].count;
			}
			FUZZ_ASSERT(sum == h->total);
			if (h->total)
				FUZZ_ASSERT(xvbd_wl_hist_percentile(h, 99, &v));
		}
		xvbd_wl_fio_total(f, d, &t);
	}
	if (xvbd_wl_fio_failed(f, why, sizeof(why)))
		FUZZ_ASSERT(!strchr(why, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s = fuzz_str(data, len);
	char why[XVBD_WL_WHY_MAX], why2[XVBD_WL_WHY_MAX];
	struct xvbd_wl_fio f, g;
	size_t cut = len ? data[0] % (len + 1) : 0;
	int rc, rc2;

	rc = xvbd_wl_fio_parse(s, len, &f, why, sizeof(why));
	rc2 = read_split(s, len, cut, &g, why2, sizeof(why2));
	FUZZ_ASSERT(rc == rc2);
	if (rc) {
		FUZZ_ASSERT(memchr(why, '\0', sizeof(why)));
		FUZZ_ASSERT(!strchr(why, '\n'));
	} else {
		check(&f);
		FUZZ_ASSERT(f.njobs == g.njobs);
		FUZZ_ASSERT(f.timestamp_ms == g.timestamp_ms);
	}
	xvbd_wl_fio_free(&f);
	xvbd_wl_fio_free(&g);
	free(s);
	return 0;
}
