/*
 * jsonpath.c - the place of a yajl callback in its document, and
 * strings whole or not (jsonpath.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "xvbd/base/jsonpath.h"

void xvbd_json_path_open(struct xvbd_json_path *p, bool array)
{
	if (p->depth < XVBD_JSON_PATH_DEPTH) {
		p->level[p->depth].array = array;
		p->level[p->depth].index = 0;
		p->level[p->depth].key[0] = '\0';
	}
	p->depth++;
}

void xvbd_json_path_scalar(struct xvbd_json_path *p)
{
	if (p->depth && p->depth <= XVBD_JSON_PATH_DEPTH &&
	    p->level[p->depth - 1].array)
		p->level[p->depth - 1].index++;
}

void xvbd_json_path_close(struct xvbd_json_path *p)
{
	if (!p->depth)
		return;
	p->depth--;
	/* The container was a value of its parent: the next one is current. */
	xvbd_json_path_scalar(p);
}

/*
 * Bytes as a JSON writer would write them (NUL as \u0000, other control
 * and non-ASCII bytes as \xNN), cut with "..." to fit size.
 */
static void shown(const unsigned char *s, size_t len, char *buf, size_t size)
{
	size_t i, n = 0;
	char one[8];

	for (i = 0; i < len; i++) {
		size_t k = 1;

		/* Keys are short and plain: the common case copies a byte. */
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' &&
		    s[i] != '\\')
			one[0] = (char)s[i];
		else if (!s[i])
			k = (size_t)snprintf(one, sizeof(one), "\\u0000");
		else
			k = (size_t)snprintf(one, sizeof(one), "\\x%02x",
					     s[i]);
		/* Room for it, and for "..." when more follows. */
		if (n + k + (i + 1 < len ? 3 : 0) + 1 > size)
			break;
		memcpy(buf + n, one, k);
		n += k;
	}
	if (i < len && n + 4 <= size) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
}

void xvbd_json_path_key(struct xvbd_json_path *p, const unsigned char *key,
			size_t len)
{
	char *dst;

	if (!p->depth || p->depth > XVBD_JSON_PATH_DEPTH)
		return;
	dst = p->level[p->depth - 1].key;
	shown(key, len, dst, XVBD_JSON_PATH_KEY);
}

/* "disks[1].file"; doc for the top level. */
static void place(const struct xvbd_json_path *p, const char *doc,
		  char *buf, size_t size)
{
	size_t d, n = 0, shown_depth = p->depth < XVBD_JSON_PATH_DEPTH ?
					p->depth : XVBD_JSON_PATH_DEPTH;

	buf[0] = '\0';
	for (d = 0; d < shown_depth && n < size; d++) {
		if (p->level[d].array)
			n += (size_t)snprintf(buf + n, size - n, "[%zu]",
					      p->level[d].index);
		else if (p->level[d].key[0])
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? "." : "", p->level[d].key);
	}
	if (p->depth > XVBD_JSON_PATH_DEPTH && n < size)
		snprintf(buf + n, size - n, "...");
	if (!buf[0])
		snprintf(buf, size, "%s", doc);
}

int xvbd_json_str_check(const struct xvbd_json_path *p, const char *doc,
			const unsigned char *s, size_t len, bool key,
			char *why, size_t why_len)
{
	char where[256], text[64];

	if (!memchr(s, '\0', len))
		return 0;
	if (key) {
		/* The key's object is the place; the key is shown. */
		struct xvbd_json_path parent = *p;

		if (parent.depth && parent.depth <= XVBD_JSON_PATH_DEPTH)
			parent.level[parent.depth - 1].key[0] = '\0';
		place(&parent, doc, where, sizeof(where));
		shown(s, len, text, sizeof(text));
		snprintf(why, why_len, "%s: key \"%s\": a \\u0000 (NUL) "
			 "inside, where a C string ends: remove it", where,
			 text);
	} else {
		place(p, doc, where, sizeof(where));
		snprintf(why, why_len, "%s: a \\u0000 (NUL) inside the string, "
			 "where a C string ends: remove it", where);
	}
	return -EINVAL;
}

/* ---- the whole-document pass ---- */

struct scan {
	struct xvbd_json_path path;
	const char *doc;
	char *why;
	size_t why_len;
	int rc;
};

static int scan_scalar(void *ctx)
{
	xvbd_json_path_scalar(&((struct scan *)ctx)->path);
	return 1;
}

static int scan_bool(void *ctx, int b)
{
	(void)b;
	return scan_scalar(ctx);
}

static int scan_number(void *ctx, const char *s, size_t len)
{
	(void)s;
	(void)len;
	return scan_scalar(ctx);
}

static int scan_string(void *ctx, const unsigned char *s, size_t len)
{
	struct scan *sc = ctx;

	sc->rc = xvbd_json_str_check(&sc->path, sc->doc, s, len, false,
				     sc->why, sc->why_len);
	return sc->rc ? 0 : scan_scalar(ctx);
}

static int scan_key(void *ctx, const unsigned char *s, size_t len)
{
	struct scan *sc = ctx;

	xvbd_json_path_key(&sc->path, s, len);
	sc->rc = xvbd_json_str_check(&sc->path, sc->doc, s, len, true,
				     sc->why, sc->why_len);
	return !sc->rc;
}

static int scan_start_map(void *ctx)
{
	xvbd_json_path_open(&((struct scan *)ctx)->path, false);
	return 1;
}

static int scan_start_array(void *ctx)
{
	xvbd_json_path_open(&((struct scan *)ctx)->path, true);
	return 1;
}

static int scan_end(void *ctx)
{
	xvbd_json_path_close(&((struct scan *)ctx)->path);
	return 1;
}

static const yajl_callbacks scan_callbacks = {
	.yajl_null = scan_scalar,
	.yajl_boolean = scan_bool,
	.yajl_number = scan_number,
	.yajl_string = scan_string,
	.yajl_start_map = scan_start_map,
	.yajl_map_key = scan_key,
	.yajl_end_map = scan_end,
	.yajl_start_array = scan_start_array,
	.yajl_end_array = scan_end,
};

int xvbd_json_strings_whole(const char *text, size_t len, const char *doc,
			    char *why, size_t why_len)
{
	struct scan sc = { .doc = doc, .why = why, .why_len = why_len };
	yajl_handle h = yajl_alloc(&scan_callbacks, NULL, &sc);

	if (!h)
		return -ENOMEM;
	if (yajl_parse(h, (const unsigned char *)text, len) == yajl_status_ok)
		yajl_complete_parse(h);
	yajl_free(h);
	return sc.rc;
}
