/*
 * lathist.c - the log-linear latency histogram (lathist.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/lathist.h"

#define LINEAR_BUCKETS	XVBD_LH_SUB_COUNT
/* log2 of the first value past the linear buckets. */
#define FIRST_OCTAVE	(2 * XVBD_LH_SUB_BITS)

size_t xvbd_lathist_index(uint64_t ns)
{
	unsigned e;

	if (ns < XVBD_LH_LINEAR_NS)
		return (size_t)(ns / XVBD_LH_LINEAR_WIDTH_NS);
	e = 63u - (unsigned)__builtin_clzll(ns);
	return LINEAR_BUCKETS + (size_t)(e - FIRST_OCTAVE) * XVBD_LH_SUB_COUNT +
	       (size_t)((ns >> (e - XVBD_LH_SUB_BITS)) - XVBD_LH_SUB_COUNT);
}

uint64_t xvbd_lathist_lower_ns(size_t idx)
{
	size_t octave, sub;

	if (idx < LINEAR_BUCKETS)
		return idx * XVBD_LH_LINEAR_WIDTH_NS;
	octave = (idx - LINEAR_BUCKETS) / XVBD_LH_SUB_COUNT;
	sub = (idx - LINEAR_BUCKETS) % XVBD_LH_SUB_COUNT;
	return (uint64_t)(XVBD_LH_SUB_COUNT + sub)
	       << (octave + FIRST_OCTAVE - XVBD_LH_SUB_BITS);
}

uint64_t xvbd_lathist_width_ns(size_t idx)
{
	if (idx < LINEAR_BUCKETS)
		return XVBD_LH_LINEAR_WIDTH_NS;
	return UINT64_C(1) << ((idx - LINEAR_BUCKETS) / XVBD_LH_SUB_COUNT +
			       FIRST_OCTAVE - XVBD_LH_SUB_BITS);
}

void xvbd_lathist_init(struct xvbd_lathist *h)
{
	memset(h, 0, sizeof(*h));
}

void xvbd_lathist_free(struct xvbd_lathist *h)
{
	free(h->buckets);
	xvbd_lathist_init(h);
}

static int ensure_buckets(struct xvbd_lathist *h)
{
	if (h->buckets)
		return 0;
	h->buckets = calloc(XVBD_LH_NBUCKETS, sizeof(*h->buckets));
	return h->buckets ? 0 : -ENOMEM;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

int xvbd_lathist_add(struct xvbd_lathist *h, uint64_t ns, uint64_t n)
{
	if (!n)
		return 0;
	if (ensure_buckets(h))
		return -ENOMEM;
	h->buckets[xvbd_lathist_index(ns)] += n;
	h->count += n;
	h->sum_ns = sat_add(h->sum_ns, sat_mul(ns, n));
	if (ns > h->max_ns)
		h->max_ns = ns;
	return 0;
}

int xvbd_lathist_add_counts(struct xvbd_lathist *h, size_t idx, uint64_t n,
			    uint64_t sum_ns)
{
	uint64_t lower, width;

	if (idx >= XVBD_LH_NBUCKETS)
		return -EINVAL;
	if (!n)
		return sum_ns ? -EINVAL : 0;
	lower = xvbd_lathist_lower_ns(idx);
	width = xvbd_lathist_width_ns(idx);
	if (sum_ns < sat_mul(lower, n) ||
	    sum_ns > sat_mul(lower + (width - 1), n))
		return -EINVAL;
	if (ensure_buckets(h))
		return -ENOMEM;
	h->buckets[idx] += n;
	h->count += n;
	h->sum_ns = sat_add(h->sum_ns, sum_ns);
	return 0;
}

bool xvbd_lathist_top(const struct xvbd_lathist *h, size_t *idx)
{
	size_t i;

	if (!h->buckets)
		return false;
	for (i = XVBD_LH_NBUCKETS; i-- > 0;) {
		if (h->buckets[i]) {
			*idx = i;
			return true;
		}
	}
	return false;
}

int xvbd_lathist_set_max(struct xvbd_lathist *h, uint64_t max_ns)
{
	size_t top;

	if (!xvbd_lathist_top(h, &top) || xvbd_lathist_index(max_ns) != top)
		return -EINVAL;
	h->max_ns = max_ns;
	return 0;
}

int xvbd_lathist_merge(struct xvbd_lathist *dst,
		       const struct xvbd_lathist *src)
{
	size_t i;

	if (!src->count)
		return 0;
	if (ensure_buckets(dst))
		return -ENOMEM;
	for (i = 0; i < XVBD_LH_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns = sat_add(dst->sum_ns, src->sum_ns);
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	return 0;
}

int xvbd_lathist_copy(struct xvbd_lathist *dst,
		      const struct xvbd_lathist *src)
{
	struct xvbd_lathist tmp;

	xvbd_lathist_init(&tmp);
	if (xvbd_lathist_merge(&tmp, src))
		return -ENOMEM;
	xvbd_lathist_free(dst);
	*dst = tmp;
	return 0;
}

uint64_t xvbd_lathist_quantile_ns(const struct xvbd_lathist *h,
				  uint32_t per_million)
{
	unsigned __int128 want;
	uint64_t rank, seen = 0, mid;
	size_t i;

	if (!h->count || !h->buckets)
		return 0;
	if (per_million > 1000000)
		per_million = 1000000;
	/* The rank of the value: ceil(q x count), at least the first. */
	want = ((unsigned __int128)h->count * per_million + 999999) / 1000000;
	rank = want ? (uint64_t)want : 1;
	for (i = 0; i < XVBD_LH_NBUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == XVBD_LH_NBUCKETS)
		return h->max_ns;	/* counts disagree: never beyond max */
	mid = xvbd_lathist_lower_ns(i) + xvbd_lathist_width_ns(i) / 2;
	return mid < h->max_ns ? mid : h->max_ns;
}

double xvbd_lathist_mean_ns(const struct xvbd_lathist *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0.0;
}

bool xvbd_lathist_next(const struct xvbd_lathist *h, size_t *idx)
{
	size_t i = *idx == SIZE_MAX ? 0 : *idx + 1;

	if (!h->buckets)
		return false;
	for (; i < XVBD_LH_NBUCKETS; i++) {
		if (h->buckets[i]) {
			*idx = i;
			return true;
		}
	}
	return false;
}
