/*
 * benchfmt.c - the Go benchmark format (golang.org/design/14313) read
 * from a stream: the lines benchstat reads, for any workload that
 * prints them (a compile's seconds, a database's transactions/s).
 *
 *	BenchmarkName-N  iterations  value unit  [value unit ...]
 *	key: value			(configuration)
 *	Unit unit better=higher|lower	(unit metadata, benchstat's)
 *
 * A result line's name begins "Benchmark" followed by anything but a
 * lower-case letter; fields are separated by blanks; a value without
 * its unit refuses the line (benchstat's "missing unit").  Every other
 * line is ignored, as the format says.  Lines are cut at
 * XVBD_WL_LINE_MAX: a longer result line is refused, whatever its size.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xvbd/workload/workload.h"

#define NAME_MAX_BYTES	256
#define UNIT_MAX_BYTES	64

struct xvbd_wl_bench_reader {
	char line[XVBD_WL_LINE_MAX + 1];
	size_t len;
	bool too_long;			/* the current line passed the cut */
	uint64_t lineno;
	bool seen;
	bool overflow;			/* more result lines than kept */
	bool spent;
	struct xvbd_wl_bench b;
};

struct xvbd_wl_bench_reader *xvbd_wl_bench_reader_new(void)
{
	return calloc(1, sizeof(struct xvbd_wl_bench_reader));
}

void xvbd_wl_bench_free(struct xvbd_wl_bench *b)
{
	size_t i, k;

	xvbd_wl_opts_free(b->config, b->nconfig);
	for (i = 0; i < b->nlines; i++) {
		free(b->lines[i].name);
		for (k = 0; k < b->lines[i].nvalues; k++)
			free(b->lines[i].values[k].unit);
		free(b->lines[i].values);
	}
	free(b->lines);
	for (i = 0; i < b->nunits; i++)
		free(b->units[i].unit);
	free(b->units);
	memset(b, 0, sizeof(*b));
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

static bool printable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

/* The blank-separated fields of line (cut in place); at most max. */
static size_t split(char *line, char **f, size_t max, bool *more)
{
	size_t n = 0;
	char *p = line;

	*more = false;
	for (;;) {
		while (*p && is_blank(*p))
			p++;
		if (!*p)
			return n;
		if (n == max) {
			*more = true;
			return n;
		}
		f[n++] = p;
		while (*p && !is_blank(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* A refused result line: counted, the first one's why kept. */
static int bad(struct xvbd_wl_bench_reader *r, const char *fmt, ...)
	XVBD_PRINTF(2, 3);
static int bad(struct xvbd_wl_bench_reader *r, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (r->b.nbad++)
		return 0;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->b.first_bad, sizeof(r->b.first_bad),
		 "line %llu: %s", (unsigned long long)r->lineno, what);
	return 0;
}

/* "3.5" into a finite double. */
static bool value_of(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v) && errno != ERANGE;
}

static int line_keep(struct xvbd_wl_bench_reader *r, char **f, size_t n)
{
	struct xvbd_wl_bench_line *grown, *l;
	size_t k;

	grown = realloc(r->b.lines, (r->b.nlines + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->b.lines = grown;
	l = &grown[r->b.nlines];
	memset(l, 0, sizeof(*l));
	l->name = strdup(f[0]);
	l->values = calloc((n - 2) / 2, sizeof(*l->values));
	r->b.nlines++;		/* freed with the rest from here on */
	if (!l->name || !l->values)
		return -ENOMEM;
	xvbd_parse_uint(f[1], UINT64_MAX, &l->iterations);
	for (k = 2; k < n; k += 2) {
		struct xvbd_wl_bench_value *v = &l->values[l->nvalues];

		value_of(f[k], &v->value);
		v->unit = strdup(f[k + 1]);
		if (!v->unit)
			return -ENOMEM;
		l->nvalues++;
	}
	return 0;
}

static int result_line(struct xvbd_wl_bench_reader *r, char *line)
{
	char *f[2 + 2 * XVBD_WL_UNITS_MAX];
	uint64_t iters;
	bool more;
	size_t n, k;
	double v;

	r->seen = true;
	n = split(line, f, sizeof(f) / sizeof(f[0]), &more);
	if (strlen(f[0]) > NAME_MAX_BYTES || !printable(f[0], strlen(f[0])))
		return bad(r, "a benchmark name longer than %d bytes or not printable ASCII",
			   NAME_MAX_BYTES);
	if (more)
		return bad(r, "%s: more than %d value/unit pairs", f[0],
			   XVBD_WL_UNITS_MAX);
	if (n < 3)
		return bad(r, "%s: no iterations and value/unit pair", f[0]);
	if (xvbd_parse_uint(f[1], UINT64_MAX, &iters))
		return bad(r, "%s: the iterations are not a whole number", f[0]);
	if (n % 2)
		return bad(r, "%s: a value without its unit", f[0]);
	for (k = 2; k < n; k += 2) {
		if (!value_of(f[k], &v))
			return bad(r, "%s: '%.32s' is not a finite number",
				   f[0], f[k]);
		if (strlen(f[k + 1]) > UNIT_MAX_BYTES ||
		    !printable(f[k + 1], strlen(f[k + 1])))
			return bad(r, "%s: a unit longer than %d bytes or not printable ASCII",
				   f[0], UNIT_MAX_BYTES);
	}
	if (r->b.nlines == XVBD_WL_BENCH_MAX) {
		r->overflow = true;
		return 0;
	}
	return line_keep(r, f, n);
}

/* "Unit ns/op better=lower": the direction benchstat would take. */
static int unit_line(struct xvbd_wl_bench_reader *r, char *line)
{
	char *f[16];
	struct xvbd_wl_bench_unit *grown;
	enum xvbd_wl_better better = XVBD_WL_LOWER_BETTER;
	bool more, found = false;
	size_t n, k;

	n = split(line, f, 16, &more);
	for (k = 2; k < n; k++) {
		if (!strcmp(f[k], "better=higher")) {
			better = XVBD_WL_HIGHER_BETTER;
			found = true;
		} else if (!strcmp(f[k], "better=lower")) {
			better = XVBD_WL_LOWER_BETTER;
			found = true;
		}
	}
	if (n < 2 || !found || strlen(f[1]) > UNIT_MAX_BYTES ||
	    r->b.nunits == XVBD_WL_UNITS_MAX * 4)
		return 0;
	grown = realloc(r->b.units, (r->b.nunits + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->b.units = grown;
	grown[r->b.nunits].unit = strdup(f[1]);
	if (!grown[r->b.nunits].unit)
		return -ENOMEM;
	grown[r->b.nunits++].better = better;
	return 0;
}

/* "key: value": key lower case, no blanks or upper case letters. */
static int config_line(struct xvbd_wl_bench_reader *r, const char *line)
{
	const char *colon = strchr(line, ':'), *v;
	struct xvbd_wl_opt *grown;
	size_t klen, i;
	char *key, *value;
	int rc = 0;

	if (!colon || !(colon[1] == '\0' || is_blank(colon[1])))
		return 0;
	klen = (size_t)(colon - line);
	for (i = 0; i < klen; i++) {
		unsigned char c = (unsigned char)line[i];

		if (is_blank(c) || (c >= 'A' && c <= 'Z') || c < 0x21 ||
		    c > 0x7e)
			return 0;
	}
	for (v = colon + 1; *v && is_blank(*v); v++)
		;
	key = strndup(line, klen);
	value = strdup(v);
	if (!key || !value) {
		free(key);
		free(value);
		return -ENOMEM;
	}
	for (i = 0; i < r->b.nconfig; i++) {
		if (!strcmp(r->b.config[i].key, key)) {
			free(key);
			free(r->b.config[i].value);
			r->b.config[i].value = value;
			return 0;
		}
	}
	/* Past the limit a key is dropped: configuration is context. */
	if (r->b.nconfig == XVBD_WL_CONFIG_MAX)
		goto drop;
	grown = realloc(r->b.config, (r->b.nconfig + 1) * sizeof(*grown));
	if (!grown) {
		rc = -ENOMEM;
		goto drop;
	}
	r->b.config = grown;
	grown[r->b.nconfig].key = key;
	grown[r->b.nconfig++].value = value;
	return 0;
drop:
	free(key);
	free(value);
	return rc;
}

static bool starts_result(const char *line, size_t len)
{
	return len >= 9 && !memcmp(line, "Benchmark", 9) &&
	       (len == 9 || !(line[9] >= 'a' && line[9] <= 'z'));
}

static int line_end(struct xvbd_wl_bench_reader *r)
{
	char *line = r->line;
	size_t len = r->len;

	r->lineno++;
	r->len = 0;
	if (r->too_long) {
		r->too_long = false;
		if (starts_result(line, len)) {
			r->seen = true;
			bad(r, "a result line longer than %d bytes",
			    XVBD_WL_LINE_MAX);
		}
		return 0;
	}
	if (len && line[len - 1] == '\r')
		len--;
	if (memchr(line, '\0', len)) {
		if (starts_result(line, len)) {
			r->seen = true;
			bad(r, "a NUL byte in a result line");
		}
		return 0;
	}
	line[len] = '\0';
	if (starts_result(line, len))
		return result_line(r, line);
	if (len > 5 && !memcmp(line, "Unit", 4) && is_blank(line[4]))
		return unit_line(r, line);
	if (line[0] >= 'a' && line[0] <= 'z')
		return config_line(r, line);
	return 0;
}

int xvbd_wl_bench_reader_feed(struct xvbd_wl_bench_reader *r,
			      const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && !r->spent; i++) {
		if (buf[i] == '\n') {
			if (line_end(r))
				r->spent = true;
		} else if (r->len < XVBD_WL_LINE_MAX) {
			r->line[r->len++] = buf[i];
		} else {
			r->too_long = true;
		}
	}
	return r->spent ? -ENOMEM : 0;
}

bool xvbd_wl_bench_reader_seen(const struct xvbd_wl_bench_reader *r)
{
	return r->seen;
}

int xvbd_wl_bench_reader_finish(struct xvbd_wl_bench_reader *r,
				struct xvbd_wl_bench *out, char *why,
				size_t whylen)
{
	memset(out, 0, sizeof(*out));
	/* A last line without its newline still counts. */
	if (!r->spent && (r->len || r->too_long) && line_end(r))
		r->spent = true;
	if (r->spent) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (r->overflow) {
		snprintf(why, whylen, "more than %d benchmark result lines",
			 XVBD_WL_BENCH_MAX);
		return -ENODATA;
	}
	if (!r->b.nlines) {
		if (r->b.nbad)
			snprintf(why, whylen, "no usable benchmark line: %s",
				 r->b.first_bad);
		else
			snprintf(why, whylen, "no benchmark lines (\"Benchmark"
				 "Name iterations value unit ...\") in %llu lines",
				 (unsigned long long)r->lineno);
		return -ENODATA;
	}
	*out = r->b;
	memset(&r->b, 0, sizeof(r->b));
	return 0;
}

void xvbd_wl_bench_reader_free(struct xvbd_wl_bench_reader *r)
{
	if (!r)
		return;
	xvbd_wl_bench_free(&r->b);
	free(r);
}

int xvbd_wl_bench_parse(const char *buf, size_t len,
			struct xvbd_wl_bench *out, char *why, size_t whylen)
{
	struct xvbd_wl_bench_reader *r = xvbd_wl_bench_reader_new();
	int rc;

	memset(out, 0, sizeof(*out));
	if (!r) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rc = xvbd_wl_bench_reader_feed(r, buf, len);
	if (!rc)
		rc = xvbd_wl_bench_reader_finish(r, out, why, whylen);
	else
		snprintf(why, whylen, "%s", strerror(ENOMEM));
	xvbd_wl_bench_reader_free(r);
	return rc;
}

/* Rates spelled without "/s". */
static const char *const rates[] = {
	"iops", "tps", "qps", "bps", "kbps", "mbps", "gbps",
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

enum xvbd_wl_better xvbd_wl_bench_better(const struct xvbd_wl_bench *b,
					 const char *unit)
{
	size_t i;

	for (i = b->nunits; i > 0; i--)
		if (!strcmp(b->units[i - 1].unit, unit))
			return b->units[i - 1].better;
	/* A rate: bytes, operations or transactions per second. */
	if (ends_with(unit, "/s") || ends_with(unit, "/sec") ||
	    ends_with(unit, "/second"))
		return XVBD_WL_HIGHER_BETTER;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (!strcasecmp(unit, rates[i]))
			return XVBD_WL_HIGHER_BETTER;
	return XVBD_WL_LOWER_BETTER;
}
