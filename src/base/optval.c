/*
 * optval.c - the option-value grammar (optval.h): the one place where
 * seconds, percentages, counts and sizes given on a command line are
 * read, and the one text each kind is refused with.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "xvbd/base/optval.h"
#include "xvbd/base/util.h"

#define PCT_DECIMALS	3

void xvbd_optval_fmt_seconds(uint64_t ns, char *buf, size_t len)
{
	uint64_t frac = ns % XVBD_NS_PER_S;
	int digits = 9;

	if (!frac) {
		snprintf(buf, len, "%" PRIu64, ns / XVBD_NS_PER_S);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, ns / XVBD_NS_PER_S, digits,
		 frac);
}

int xvbd_optval_seconds(const char *s, uint64_t min_ns, uint64_t max_s,
			uint64_t *ns, char *why, size_t len)
{
	char lo[32];
	uint64_t v;

	if (!xvbd_parse_seconds(s, max_s, &v) && v >= min_ns) {
		*ns = v;
		return 0;
	}
	xvbd_optval_fmt_seconds(min_ns, lo, sizeof(lo));
	snprintf(why, len, "expected seconds from %s to %" PRIu64, lo, max_s);
	return -EINVAL;
}

/*
 * Exact decimal reading into thousandths of a percent, so that bounds
 * such as 99.999 compare exactly (no strtod rounding, no locale).
 */
static int parse_pct_milli(const char *s, uint64_t *milli)
{
	uint64_t whole = 0, frac = 0;
	const char *p = s;
	int decimals = 0;

	if (!s || *p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 1000000)
			return -ERANGE;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (++decimals > PCT_DECIMALS)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
	}
	for (; decimals < PCT_DECIMALS; decimals++)
		frac *= 10;
	if (*p == '%')
		p++;
	if (*p)
		return -EINVAL;
	*milli = whole * 1000 + frac;
	return 0;
}

int xvbd_optval_percent(const char *s, double lo, double hi,
			double *fraction, char *why, size_t len)
{
	uint64_t milli;

	if (!parse_pct_milli(s, &milli) &&
	    (double)milli >= lo * 1000 - 1e-6 &&
	    (double)milli <= hi * 1000 + 1e-6) {
		*fraction = (double)milli / 100000.0;
		return 0;
	}
	snprintf(why, len, "expected a percentage from %g to %g (at most %d "
		 "decimals, \"%%\" optional)", lo, hi, PCT_DECIMALS);
	return -EINVAL;
}

int xvbd_optval_confidence(const char *s, double *level, char *why,
			   size_t len)
{
	return xvbd_optval_percent(s, XVBD_CONFIDENCE_MIN_PCT,
				   XVBD_CONFIDENCE_MAX_PCT, level, why, len);
}

int xvbd_optval_count(const char *s, uint64_t min, uint64_t max,
		      uint64_t *out, char *why, size_t len)
{
	uint64_t v;

	if (!xvbd_parse_uint(s, max, &v) && v >= min) {
		*out = v;
		return 0;
	}
	snprintf(why, len, "expected a count from %" PRIu64 " to %" PRIu64,
		 min, max);
	return -EINVAL;
}

int xvbd_optval_size(const char *s, uint64_t min, uint64_t max,
		     uint64_t *bytes, char *why, size_t len)
{
	char lo[16], hi[16];
	uint64_t v;

	if (!xvbd_parse_size(s, &v) && v >= min && v <= max) {
		*bytes = v;
		return 0;
	}
	xvbd_fmt_size(min, lo, sizeof(lo));
	xvbd_fmt_size(max, hi, sizeof(hi));
	snprintf(why, len, "expected a size from %s to %s (bytes, or with "
		 "K, M, G or T)", lo, hi);
	return -EINVAL;
}
