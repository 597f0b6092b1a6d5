/*
 * optval.c - the value grammar (optval.h): the one place where
 * durations, percentages, counts, sizes and booleans written by a user
 * are read, and the one text each kind is refused with.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

static const struct {
	const char *name;
	uint64_t ns;
} duration_units[] = {
	/* largest first: the formatter takes the first that fits exactly */
	{ "h", 3600 * XVBD_NS_PER_S },
	{ "m", 60 * XVBD_NS_PER_S },
	{ "s", XVBD_NS_PER_S },
	{ "ms", XVBD_NS_PER_S / 1000 },
};
#define NUNITS	(sizeof(duration_units) / sizeof(duration_units[0]))

void xvbd_optval_fmt_duration(uint64_t ns, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < NUNITS; i++)
		if (ns && ns % duration_units[i].ns == 0) {
			snprintf(buf, len, "%" PRIu64 "%s",
				 ns / duration_units[i].ns,
				 duration_units[i].name);
			return;
		}
	xvbd_optval_fmt_seconds(ns, buf, len);
	if (strlen(buf) + 2 <= len)
		strcat(buf, "s");
}

/*
 * A decimal number with up to 9 decimals times unit_ns, exactly: 0.1h
 * is 360 s; a value finer than 1 ns is refused, not rounded.
 */
static int scaled_decimal(const char *s, size_t n, uint64_t unit_ns,
			  uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = 1, add;
	size_t i = 0;

	if (!n || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	for (; i < n && isdigit((unsigned char)s[i]); i++) {
		whole = whole * 10 + (uint64_t)(s[i] - '0');
		if (whole > UINT64_MAX / 10 / unit_ns)
			return -ERANGE;
	}
	if (i < n && s[i] == '.') {
		if (++i == n)
			return -EINVAL;
		for (; i < n && isdigit((unsigned char)s[i]); i++) {
			if (scale == XVBD_NS_PER_S)
				return -EINVAL;	/* more than 9 decimals */
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			scale *= 10;
		}
	}
	if (i != n)
		return -EINVAL;
	/* s, m, h: whole seconds, which every scale divides; ms: small. */
	if (unit_ns % scale == 0) {
		add = frac * (unit_ns / scale);
	} else {
		if (frac * unit_ns % scale)
			return -EINVAL;
		add = frac * unit_ns / scale;
	}
	*ns = whole * unit_ns + add;
	return 0;
}

static int parse_duration(const char *s, uint64_t *ns)
{
	/* "ms" before "s": the longest unit that ends the text. */
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ms", XVBD_NS_PER_S / 1000 }, { "h", 3600 * XVBD_NS_PER_S },
		{ "m", 60 * XVBD_NS_PER_S }, { "s", XVBD_NS_PER_S },
	};
	size_t n, i, ulen;

	if (!s)
		return -EINVAL;
	n = strlen(s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		ulen = strlen(units[i].suffix);
		if (n > ulen && !strcmp(s + n - ulen, units[i].suffix))
			return scaled_decimal(s, n - ulen, units[i].ns, ns);
	}
	return scaled_decimal(s, n, XVBD_NS_PER_S, ns);
}

int xvbd_optval_seconds(const char *s, uint64_t min_ns, uint64_t max_ns,
			uint64_t *ns, char *why, size_t len)
{
	char lo[32], hi[32];
	uint64_t v;

	if (!parse_duration(s, &v) && v >= min_ns && v <= max_ns) {
		*ns = v;
		return 0;
	}
	xvbd_optval_fmt_duration(min_ns, lo, sizeof(lo));
	xvbd_optval_fmt_duration(max_ns, hi, sizeof(hi));
	snprintf(why, len, "expected a duration from %s to %s (500ms, 30s, "
		 "5m, 1h; a plain number is seconds)", lo, hi);
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

static const char size_units[] = "KMGTPE";

int xvbd_optval_parse_size(const char *s, uint64_t *bytes)
{
	const char *unit, *rest;
	unsigned shift = 0;
	char num[24];
	size_t digits;
	uint64_t v;
	int rc;

	if (!s)
		return -EINVAL;
	digits = strspn(s, "0123456789");
	if (!digits || digits >= sizeof(num))
		return digits ? -ERANGE : -EINVAL;
	rest = s + digits;
	unit = *rest ? strchr(size_units, toupper((unsigned char)*rest)) : NULL;
	if (unit) {
		shift = 10 * (unsigned)(unit - size_units + 1);
		rest++;
		if (!strcasecmp(rest, "iB"))
			rest += 2;
	} else if (!strcmp(rest, "B")) {
		rest++;
	}
	if (*rest)
		return -EINVAL;
	memcpy(num, s, digits);
	num[digits] = '\0';
	rc = xvbd_parse_uint(num, UINT64_MAX, &v);	/* "08": refused */
	if (rc)
		return rc;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = v << shift;
	return 0;
}

/* A bound as a user writes it: the largest multiple that is exact. */
static void fmt_size_exact(uint64_t bytes, char *buf, size_t len)
{
	int i;

	for (i = (int)sizeof(size_units) - 2; i >= 0; i--) {
		unsigned shift = 10 * (unsigned)(i + 1);

		if (bytes && bytes % (UINT64_C(1) << shift) == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes >> shift,
				 size_units[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
}

int xvbd_optval_size(const char *s, uint64_t min, uint64_t max,
		     uint64_t *bytes, char *why, size_t len)
{
	char lo[24], hi[24];
	uint64_t v;

	if (!xvbd_optval_parse_size(s, &v) && v >= min && v <= max) {
		*bytes = v;
		return 0;
	}
	fmt_size_exact(min, lo, sizeof(lo));
	fmt_size_exact(max, hi, sizeof(hi));
	snprintf(why, len, "expected a size from %s to %s (bytes, or with "
		 "K, M, G, T, P or E: binary, 1K = 1024; KiB ... too)", lo,
		 hi);
	return -EINVAL;
}

int xvbd_optval_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };
	size_t i;

	for (i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

int xvbd_optval_bool(const char *s, bool *out, char *why, size_t len)
{
	if (!xvbd_optval_parse_bool(s, out))
		return 0;
	snprintf(why, len, "expected on or off (yes/no, true/false, 1/0 "
		 "too)");
	return -EINVAL;
}
