/*
 * util.c - error helpers, strict parsers, key/value map.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xvbd/base/optval.h"
#include "xvbd/base/util.h"

/*
 * One byte as an error message writes it: control bytes escaped ("\n",
 * "\x1b"), since a message quotes what the user or a guest wrote and
 * stays one line (a newline in an argument must not forge a second
 * message).  out holds at least 5 bytes; returns its length.
 */
static size_t escape_byte(unsigned char c, char *out)
{
	if (c == '\n')
		return (size_t)sprintf(out, "\\n");
	if (c == '\t')
		return (size_t)sprintf(out, "\\t");
	if (c < 0x20 || c == 0x7f)
		return (size_t)sprintf(out, "\\x%02x", c);
	out[0] = (char)c;
	out[1] = '\0';
	return 1;
}

static void put_escaped(FILE *f, const char *s)
{
	char esc[5];

	for (; *s; s++) {
		escape_byte((unsigned char)*s, esc);
		fputs(esc, f);
	}
}

void xvbd_escape_line(char *buf, size_t len, const char *s)
{
	size_t used = 0, n;
	char esc[5];

	if (!len)
		return;
	for (; *s; s++) {
		n = escape_byte((unsigned char)*s, esc);
		/* a whole escape or none: no "\x1" cut in half */
		if (used + n >= len)
			break;
		memcpy(buf + used, esc, n);
		used += n;
	}
	buf[used] = '\0';
}

/*
 * The first error of this run, without "xvbd: ": the cause, where later
 * lines tend to be its consequences (what was cleaned up, what did not
 * run).  Warnings do not count.  The JSON failure object's "msg".
 */
static char first_err[1024];

const char *xvbd_err_first(void)
{
	return first_err[0] ? first_err : NULL;
}

/* What the errors are about, after the command (xvbd_err_context). */
static const char *err_context;

void xvbd_err_context(const char *context)
{
	err_context = context;
}

void xvbd_verr(const char *cmd, const char *what, const char *why_fmt,
	       va_list ap)
{
	bool first = !first_err[0] && !(what && !strcmp(what, "warning"));
	char why[2048], *line = NULL;
	size_t len = 0;
	FILE *f;

	vsnprintf(why, sizeof(why), why_fmt, ap);
	/* The whole line, however long a path in it (ENOMEM: as it can). */
	f = open_memstream(&line, &len);
	if (f) {
		if (cmd)
			fprintf(f, "%s: ", cmd);
		if (err_context) {
			put_escaped(f, err_context);
			fputs(": ", f);
		}
		if (what) {
			put_escaped(f, what);
			fputs(": ", f);
		}
		put_escaped(f, why);
		if (fclose(f))
			line = NULL;
	}
	fprintf(stderr, "xvbd: %s\n", line ? line : why);
	if (first && line)
		snprintf(first_err, sizeof(first_err), "%s", line);
	free(line);
}

void xvbd_err(const char *cmd, const char *what, const char *why_fmt, ...)
{
	va_list ap;

	va_start(ap, why_fmt);
	xvbd_verr(cmd, what, why_fmt, ap);
	va_end(ap);
}

void xvbd_hint(const char *fmt, ...)
{
	va_list ap;

	fputs("xvbd: hint: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Parse the leading digit run of s; *end points past it. */
static int parse_digits(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	/* No leading zeros: "010" is ambiguous (octal?) in xenstore land. */
	if (p[0] == '0' && isdigit((unsigned char)p[1]))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned digit = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*end = p;
	*out = v;
	return 0;
}

int xvbd_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int rc;

	if (!s)
		return -EINVAL;
	rc = parse_digits(s, &end, &v);
	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int xvbd_parse_bool(const char *s, bool *out)
{
	if (!s || (strcmp(s, "0") && strcmp(s, "1")))
		return -EINVAL;
	*out = s[0] == '1';
	return 0;
}

/* The one size grammar lives with the other values' (optval.c). */
int xvbd_parse_size(const char *s, uint64_t *out_bytes)
{
	return xvbd_optval_parse_size(s, out_bytes);
}

#define NS_PER_S	UINT64_C(1000000000)

int xvbd_parse_seconds(const char *s, uint64_t max_s, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = NS_PER_S, v;
	const char *p = s;

	if (!s || *p < '0' || *p > '9' || max_s > UINT64_MAX / NS_PER_S - 1)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > max_s)
			return -ERANGE;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				return -EINVAL;	/* finer than 1 ns */
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p)
		return -EINVAL;
	v = whole * NS_PER_S + frac;
	if (v > max_s * NS_PER_S)
		return -ERANGE;
	*ns = v;
	return 0;
}

void xvbd_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	unsigned i = 0;
	uint64_t whole = bytes, rem = 0;

	while (whole >= 1024 && units[i + 1]) {
		rem = whole % 1024;
		whole /= 1024;
		i++;
	}
	if (i == 0 || whole >= 100 || rem == 0)
		snprintf(buf, len, "%" PRIu64 "%c", whole, units[i]);
	else
		snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%c", whole,
			 rem * 10 / 1024, units[i]);
}

int xvbd_kvmap_set(struct xvbd_kvmap *map, const char *key, const char *value)
{
	char *key_copy = NULL, *value_copy = NULL;
	size_t i;

	value_copy = strdup(value);
	if (!value_copy)
		return -ENOMEM;
	for (i = 0; i < map->len; i++) {
		if (!strcmp(map->items[i].key, key)) {
			free(map->items[i].value);
			map->items[i].value = value_copy;
			return 0;
		}
	}
	if (map->len == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 16;
		struct xvbd_kv *items;

		items = realloc(map->items, cap * sizeof(*items));
		if (!items)
			goto nomem;
		map->items = items;
		map->cap = cap;
	}
	key_copy = strdup(key);
	if (!key_copy)
		goto nomem;
	map->items[map->len].key = key_copy;
	map->items[map->len].value = value_copy;
	map->len++;
	return 0;
nomem:
	free(value_copy);
	return -ENOMEM;
}

const char *xvbd_kvmap_get(const struct xvbd_kvmap *map, const char *key)
{
	size_t i;

	for (i = 0; i < map->len; i++)
		if (!strcmp(map->items[i].key, key))
			return map->items[i].value;
	return NULL;
}

int xvbd_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *da = a, *db = b;
			size_t la, lb;
			int c;

			while (*da == '0' && isdigit((unsigned char)da[1]))
				da++;
			while (*db == '0' && isdigit((unsigned char)db[1]))
				db++;
			for (a = da; isdigit((unsigned char)*a); a++)
				;
			for (b = db; isdigit((unsigned char)*b); b++)
				;
			la = (size_t)(a - da);
			lb = (size_t)(b - db);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(da, db, la);
			if (c)
				return c;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int kv_cmp(const void *a, const void *b)
{
	const struct xvbd_kv *ka = a, *kb = b;

	return xvbd_natcmp(ka->key, kb->key);
}

void xvbd_kvmap_sort(struct xvbd_kvmap *map)
{
	if (map->len > 1)
		qsort(map->items, map->len, sizeof(*map->items), kv_cmp);
}

void xvbd_kvmap_free(struct xvbd_kvmap *map)
{
	size_t i;

	for (i = 0; i < map->len; i++) {
		free(map->items[i].key);
		free(map->items[i].value);
	}
	free(map->items);
	map->items = NULL;
	map->len = map->cap = 0;
}

int64_t xvbd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *xvbd_escape(const char *s)
{
	size_t len = 0, i;
	char *out, *p;

	for (i = 0; s[i]; i++)
		len += (s[i] >= 0x20 && s[i] < 0x7f) ? 1 : 4;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (p = out, i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f)
			*p++ = (char)c;
		else
			p += sprintf(p, "\\x%02x", c);
	}
	*p = '\0';
	return out;
}

int xvbd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int xvbd_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		rc = -errno;
	close(fd);
	return rc;
}

/* Deepest nesting of [ and { outside strings; stops counting past max. */
size_t xvbd_json_depth(const char *s, size_t len, size_t max)
{
	size_t i, depth = 0, deepest = 0;
	bool in_str = false;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > deepest)
				deepest = depth;
			if (deepest > max)
				return deepest;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return deepest;
}
