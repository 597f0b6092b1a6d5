/*
 * lathist.h - a log-linear (HDR-style) histogram of latencies in
 * nanoseconds, with a stated error, exact counts, an exact sum and an
 * exact maximum.
 *
 * Buckets: below 1024 ns, 32 linear buckets 32 ns wide; from 2^e ns to
 * 2^(e+1) ns (e >= 10), 32 buckets 2^(e-5) ns wide, up to 2^64.  A
 * bucket is never wider than 1/32 of its lower bound, so its midpoint is
 * within 1/64 (1.6 %) of every value in it: that is the error of a
 * percentile (below 1 us: within 16 ns).  The maximum, the count and the
 * sum are kept exactly; a percentile is never reported above the
 * maximum, so max >= p99.9 >= p99 >= p50 always holds.
 *
 * Merging two histograms adds counts and sums and keeps the larger
 * maximum: exact, in any order and grouping (intervals into runs, runs
 * into a label).
 *
 * Plain libc; the bucket array is allocated on the first count.
 */
#ifndef XVBD_LATHIST_H
#define XVBD_LATHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XVBD_LH_SUB_BITS	5			/* 32 per octave */
#define XVBD_LH_SUB_COUNT	(1u << XVBD_LH_SUB_BITS)
/* Values below this are in linear buckets of XVBD_LH_LINEAR_WIDTH_NS. */
#define XVBD_LH_LINEAR_NS	(UINT64_C(1) << (2 * XVBD_LH_SUB_BITS))
#define XVBD_LH_LINEAR_WIDTH_NS	(XVBD_LH_LINEAR_NS / XVBD_LH_SUB_COUNT)
/* The linear buckets, then 32 per octave from 2^10 to 2^64. */
#define XVBD_LH_NBUCKETS	(XVBD_LH_SUB_COUNT * \
				 (1 + 64 - 2 * XVBD_LH_SUB_BITS))
/* Relative error of a percentile (a bucket's midpoint): 1/64. */
#define XVBD_LH_REL_ERROR	(1.0 / (2 * XVBD_LH_SUB_COUNT))
#define XVBD_LH_REL_ERROR_TEXT	"1.6 %"

struct xvbd_lathist {
	uint64_t count;
	uint64_t sum_ns;	/* exact; saturates at UINT64_MAX */
	uint64_t max_ns;	/* exact; 0 when empty */
	uint64_t *buckets;	/* XVBD_LH_NBUCKETS, or NULL while empty */
};

/* The bucket of a value, and a bucket's bounds: [lower, lower + width). */
size_t xvbd_lathist_index(uint64_t ns);
uint64_t xvbd_lathist_lower_ns(size_t idx);
uint64_t xvbd_lathist_width_ns(size_t idx);

void xvbd_lathist_init(struct xvbd_lathist *h);
void xvbd_lathist_free(struct xvbd_lathist *h);	/* back to empty */

/* n values of ns each.  0 or -ENOMEM (h unchanged). */
int xvbd_lathist_add(struct xvbd_lathist *h, uint64_t ns, uint64_t n);
/*
 * n values in bucket idx of a known sum, whose maximum comes from
 * elsewhere (xvbd_lathist_set_max): -EINVAL if no n values of the bucket
 * can have that sum.
 */
int xvbd_lathist_add_counts(struct xvbd_lathist *h, size_t idx, uint64_t n,
			    uint64_t sum_ns);
/*
 * The exact maximum, known apart from the counts: it must lie in the
 * highest non-empty bucket (-EINVAL, h unchanged, otherwise).
 */
int xvbd_lathist_set_max(struct xvbd_lathist *h, uint64_t max_ns);
/* The highest non-empty bucket: false when empty. */
bool xvbd_lathist_top(const struct xvbd_lathist *h, size_t *idx);
/* dst += src, exactly.  0 or -ENOMEM (dst unchanged). */
int xvbd_lathist_merge(struct xvbd_lathist *dst,
		       const struct xvbd_lathist *src);
/* A deep copy into an initialised dst (its buckets are replaced). */
int xvbd_lathist_copy(struct xvbd_lathist *dst,
		      const struct xvbd_lathist *src);

/*
 * The value at quantile per_million / 10^6 (500000: the median, 990000:
 * p99, 999000: p99.9): the smallest bucket holding at least that share
 * of the count, reported as its midpoint and never above the maximum.
 * 0 when empty.
 */
uint64_t xvbd_lathist_quantile_ns(const struct xvbd_lathist *h,
				  uint32_t per_million);
/* Mean in ns (0 when empty). */
double xvbd_lathist_mean_ns(const struct xvbd_lathist *h);

/* Next non-empty bucket after *idx (start with *idx = SIZE_MAX). */
bool xvbd_lathist_next(const struct xvbd_lathist *h, size_t *idx);

#endif /* XVBD_LATHIST_H */
