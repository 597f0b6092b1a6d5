/*
 * plan_json.c - what every JSON plan's reader shares (plan_json.h):
 * apply's plan (apply_plan.c) and ab run's experiment plan
 * (cmd_ab_run_plan.c) are read from the file, checked and parsed the
 * same way, and their keys read by the same helpers, so a plan's errors
 * read alike whichever command took it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xvbd/base/jsonpath.h"
#include "xvbd/base/optval.h"
#include "xvbd/base/safepath.h"
#include "xvbd/cmd/plan_json.h"

int xvbd_plan_fail(struct xvbd_plan_err *e, const char *where,
		   const char *key, const char *fmt, ...)
{
	char why[400], line[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s%s%s: %s", where, key ? "." : "",
		 key ? key : "", why);
	/* the key and the values quoted are the plan's: one line still */
	xvbd_escape_line(e->buf, e->len, line);
	return -EINVAL;
}

int xvbd_plan_check_keys(struct xvbd_plan_err *e, const char *where,
			 yajl_val obj, bool (*known)(const char *),
			 const char *list)
{
	size_t i, k;

	for (i = 0; i < obj->u.object.len; i++) {
		const char *key = obj->u.object.keys[i];

		if (!known(key))
			return xvbd_plan_fail(e, where, key, "unknown key "
					      "(known: %s)", list);
		for (k = 0; k < i; k++)
			if (!strcmp(obj->u.object.keys[k], key))
				return xvbd_plan_fail(e, where, key,
						      "given twice");
	}
	return 0;
}

yajl_val xvbd_plan_member(yajl_val obj, const char *key)
{
	size_t i;

	for (i = 0; i < obj->u.object.len; i++)
		if (!strcmp(obj->u.object.keys[i], key))
			return obj->u.object.values[i];
	return NULL;
}

int xvbd_plan_str(struct xvbd_plan_err *e, const char *where,
		  const char *key, yajl_val v, char *buf, size_t len)
{
	if (!v)
		return 0;
	if (!YAJL_IS_STRING(v))
		return xvbd_plan_fail(e, where, key, "a string, not %s",
			YAJL_IS_NUMBER(v) ? "a number" :
			YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v) ? "a boolean" :
			"null, an array or an object");
	if (strlen(v->u.string) >= len)
		return xvbd_plan_fail(e, where, key, "longer than %zu bytes",
				      len - 1);
	snprintf(buf, len, "%s", v->u.string);
	return 0;
}

int xvbd_plan_word(struct xvbd_plan_err *e, const char *where,
		   const char *key, yajl_val v, char *buf, size_t len)
{
	if (YAJL_IS_NUMBER(v)) {
		if (strlen(v->u.number.r) >= len)
			return xvbd_plan_fail(e, where, key, "\"%.24s...\": "
					      "too long", v->u.number.r);
		snprintf(buf, len, "%s", v->u.number.r);
		return 0;
	}
	return xvbd_plan_str(e, where, key, v, buf, len);
}

int xvbd_plan_onoff(struct xvbd_plan_err *e, const char *where,
		    const char *key, yajl_val v, bool *out)
{
	char why[XVBD_OPTVAL_WHY_MAX];

	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		*out = YAJL_IS_TRUE(v);
		return 0;
	}
	if (!YAJL_IS_STRING(v))
		return xvbd_plan_fail(e, where, key, "true or false (or a "
				      "string such as \"on\")");
	if (!xvbd_optval_bool(v->u.string, out, why, sizeof(why)))
		return 0;
	return xvbd_plan_fail(e, where, key, "\"%.24s\": %s", v->u.string,
			      why);
}

int xvbd_plan_tree(const char *text, size_t len, size_t max_len,
		   unsigned depth_max, yajl_val *root, char *why,
		   size_t why_len)
{
	struct xvbd_plan_err e = { why, why_len };
	char errbuf[256], *copy, *nl;
	int err;

	*root = NULL;
	if (len > max_len) {
		snprintf(why, why_len, "plan: larger than %zu KiB",
			 max_len >> 10);
		return -EFBIG;
	}
	if (memchr(text, '\0', len))
		return xvbd_plan_fail(&e, "plan", NULL, "not JSON text (a NUL "
				      "byte)");
	if (xvbd_json_depth(text, len, depth_max) > depth_max)
		return xvbd_plan_fail(&e, "plan", NULL, "nested deeper than "
				      "a plan");
	/* yajl_tree keeps C strings: one cut at a \u0000 is another value. */
	err = xvbd_json_strings_whole(text, len, "plan", why, why_len);
	if (err)
		return err;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	errbuf[0] = '\0';
	*root = yajl_tree_parse(copy, errbuf, sizeof(errbuf));
	free(copy);
	if (*root)
		return 0;
	/* yajl's message spans lines (a caret under the spot). */
	nl = strchr(errbuf, '\n');
	if (nl)
		*nl = '\0';
	return xvbd_plan_fail(&e, "plan", NULL, "not valid JSON (%s)",
			      errbuf[0] ? errbuf : "parse error");
}

/*
 * A plan chooses the guest and what root attaches to it: read only from
 * a file that nobody but root could have written, swapped or pointed
 * elsewhere (the rule of pv's configs and the record store), once, from
 * the descriptor that was checked.  Standard input is what the caller
 * chose to give.
 */
static int open_plan(const char *cmd, const char *path, const char *who,
		     int *fd)
{
	struct xvbd_safe_why why;
	struct stat st;
	int rc;

	*fd = 0;
	if (!strcmp(path, "-"))
		return 0;
	rc = xvbd_safe_open_file(path, &st, &why);
	if (rc >= 0) {
		*fd = rc;
		xvbd_safe_why_free(&why);
		return 0;
	}
	if (rc == -EPERM)
		xvbd_err(cmd, path, "%s: %s only from a file and directories "
			 "nobody else can change: make them root's and not "
			 "writable by group or others", why.msg, who);
	else if (rc == -EINVAL)
		xvbd_err(cmd, path, "not a regular file");
	else
		xvbd_err(cmd, path, "%s", strerror(-rc));
	return XVBD_EXIT_USAGE;
}

int xvbd_plan_read(const char *cmd, const char *path, const char *who,
		   size_t max_len, char **text, size_t *len)
{
	size_t cap = max_len + 1, n = 0;
	ssize_t got;
	int fd, rc;
	char *buf;

	rc = open_plan(cmd, path, who, &fd);
	if (rc)
		return rc;
	buf = malloc(cap);
	if (!buf) {
		if (fd)
			close(fd);
		xvbd_err(cmd, NULL, "%s", strerror(ENOMEM));
		return XVBD_EXIT_FAIL;
	}
	/* One byte past the bound tells "too large" from "just fits". */
	while (n < cap && (got = read(fd, buf + n, cap - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			xvbd_err(cmd, path, "%s", strerror(errno));
			free(buf);
			if (fd)
				close(fd);
			return XVBD_EXIT_USAGE;
		}
		n += (size_t)got;
	}
	if (fd)
		close(fd);
	*text = buf;
	*len = n;
	return 0;
}
