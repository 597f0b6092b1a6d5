/*
 * util.h - error reporting, strict number parsing, key/value maps.
 *
 * Errors follow one shape everywhere:
 *	xvbd: <command>: <what>: <why>
 *	xvbd: hint: <obvious fix>		(optional)
 * Exit codes: XVBD_EXIT_OK 0, XVBD_EXIT_FAIL 1, XVBD_EXIT_USAGE 2.
 *
 * Parsers return 0 on success, -EINVAL for garbage and -ERANGE for a
 * value above the caller's bound; they never accept signs, blanks or
 * trailing bytes, because most values we parse are written by guests.
 */
#ifndef XVBD_UTIL_H
#define XVBD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XVBD_EXIT_OK	0
#define XVBD_EXIT_FAIL	1
#define XVBD_EXIT_USAGE	2

#define XVBD_PRINTF(a, b) __attribute__((format(printf, a, b)))

#define XVBD_NS_PER_S		UINT64_C(1000000000)

/*
 * "xvbd: <cmd>: <what>: <why>"; cmd may be NULL (global errors).  One
 * line: control bytes in what and why are escaped ("\n", "\x1b").
 */
void xvbd_err(const char *cmd, const char *what, const char *why_fmt, ...)
	XVBD_PRINTF(3, 4);
void xvbd_verr(const char *cmd, const char *what, const char *why_fmt,
	       va_list ap) XVBD_PRINTF(3, 0);
/*
 * Every error from now on names context after the command ("ab run:
 * plan.json: --sweep: ..."): values a file gave, checked by the code that
 * checks the options they stand for.  NULL: none again.
 */
void xvbd_err_context(const char *context);
/* The first error printed (not a warning), without "xvbd: "; NULL when
 * none was. */
const char *xvbd_err_first(void);
/* "xvbd: hint: ..." */
void xvbd_hint(const char *fmt, ...) XVBD_PRINTF(1, 2);

/* Strict decimal: "0" or [1-9][0-9]*, value <= max. */
int xvbd_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* Strict boolean as xenstore spells it: "0" or "1". */
int xvbd_parse_bool(const char *s, bool *out);
/*
 * Size with an optional binary multiple (optval.h's grammar: K M G T P E,
 * any case, KiB ... too, "B" alone for bytes): "512", "4K", "1g".
 * Overflow of uint64_t -> -ERANGE.
 */
int xvbd_parse_size(const char *s, uint64_t *out_bytes);
/*
 * Seconds with up to 9 decimals ("1", "0.25", "2.5") into ns, at most
 * max_s seconds (-ERANGE beyond).
 */
int xvbd_parse_seconds(const char *s, uint64_t max_s, uint64_t *ns);
/* Human readable binary size: "0B", "512B", "1.0M", "20G". */
void xvbd_fmt_size(uint64_t bytes, char *buf, size_t len);

/*
 * s into buf (len bytes, always terminated) with control bytes escaped as
 * xvbd_err writes them ("\n", "\x1b"): a message kept for later (a plan's
 * error, a report) is one line before it is printed; cut at a whole
 * escape when it does not fit.
 */
void xvbd_escape_line(char *buf, size_t len, const char *s);

/*
 * A malloc'd copy of s with every byte outside printable ASCII written
 * as "\xNN" (guest-written xenstore values, file names, commands);
 * NULL on ENOMEM.
 */
char *xvbd_escape(const char *s);

/* CLOCK_MONOTONIC in milliseconds: deadlines and elapsed times. */
int64_t xvbd_now_ms(void);

/* Deepest nesting of [ and { outside strings of JSON text (counting
 * stops past max): yajl_tree frees recursively, so a reader refuses
 * hostile nesting before it parses. */
size_t xvbd_json_depth(const char *s, size_t len, size_t max);

struct yajl_handle_t;
/* yajl's message for h's syntax error on one line ("parse error" when it
 * has none), into buf (src/base/json_err.c). */
void xvbd_json_syntax_error(struct yajl_handle_t *h, char *buf, size_t len);

/* A small owned key -> value map (xenstore directory snapshot). */
struct xvbd_kv {
	char *key;
	char *value;
};

struct xvbd_kvmap {
	struct xvbd_kv *items;
	size_t len;
	size_t cap;
};

int xvbd_kvmap_set(struct xvbd_kvmap *map, const char *key,
		   const char *value);
/* NULL when absent. */
const char *xvbd_kvmap_get(const struct xvbd_kvmap *map, const char *key);
/* Natural order, so ring-ref2 sorts before ring-ref10. */
void xvbd_kvmap_sort(struct xvbd_kvmap *map);
void xvbd_kvmap_free(struct xvbd_kvmap *map);
/* strcmp() that compares digit runs by value. */
int xvbd_natcmp(const char *a, const char *b);

/* All of buf to fd (EINTR retried): 0 or -errno (-EIO on a 0 write). */
int xvbd_write_all(int fd, const void *buf, size_t len);
/* fsync() a directory, so that a rename in it is durable: 0 or -errno. */
int xvbd_fsync_dir(const char *dir);

#endif /* XVBD_UTIL_H */
