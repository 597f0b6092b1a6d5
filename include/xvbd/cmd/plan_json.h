/*
 * plan_json.h - reading a JSON plan (apply's, ab run's experiment plan):
 * the file opened only when nobody but root could have written, swapped
 * or pointed it elsewhere, read once and bounded; the text checked (no
 * NUL, no \u0000 inside a string, not nested deeper than a plan) and
 * parsed by yajl_tree; and the small readers every plan's keys go
 * through, whose errors name the place in the plan ("levels[2].cache:
 * unknown key").
 */
#ifndef XVBD_CMD_PLAN_JSON_H
#define XVBD_CMD_PLAN_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <yajl/yajl_tree.h>

#include "xvbd/base/util.h"

/* Where a plan reader writes its one error ("PLACE: what is wrong"). */
struct xvbd_plan_err {
	char *buf;
	size_t len;
};

/* "where.key: why" (key NULL: the place alone).  Returns -EINVAL. */
int xvbd_plan_fail(struct xvbd_plan_err *e, const char *where,
		   const char *key, const char *fmt, ...) XVBD_PRINTF(4, 5);
/* An object's keys: each known and given once. */
int xvbd_plan_check_keys(struct xvbd_plan_err *e, const char *where,
			 yajl_val obj, bool (*known)(const char *),
			 const char *list);
/* obj's member key, or NULL. */
yajl_val xvbd_plan_member(yajl_val obj, const char *key);
/* A string value into buf (NULL v: absent, buf untouched). */
int xvbd_plan_str(struct xvbd_plan_err *e, const char *where,
		  const char *key, yajl_val v, char *buf, size_t len);
/* A number or a string, as text for the option parser it stands for. */
int xvbd_plan_word(struct xvbd_plan_err *e, const char *where,
		   const char *key, yajl_val v, char *buf, size_t len);
/* JSON's true/false, or a string in the one boolean grammar ("on"). */
int xvbd_plan_onoff(struct xvbd_plan_err *e, const char *where,
		    const char *key, yajl_val v, bool *out);

/*
 * text[0..len) as a yajl tree (*root: yajl_tree_free), at most max_len
 * bytes and depth_max levels deep.  0, or -EINVAL (why: "plan: ..."),
 * -EFBIG, -ENOMEM.
 */
int xvbd_plan_tree(const char *text, size_t len, size_t max_len,
		   unsigned depth_max, yajl_val *root, char *why,
		   size_t why_len);
/*
 * The plan file path ("-": standard input, the caller's choice) read
 * whole, at most max_len bytes (one more is read, so the parser can say
 * "too large"); a file only when it and its directories are root's
 * alone (xvbd_safe_open_file).  Errors printed as "CMD: PATH: ...", the
 * unsafe one saying "<who> only from a file and directories nobody else
 * can change".  0 (*text malloc'd) or the exit code.
 */
int xvbd_plan_read(const char *cmd, const char *path, const char *who,
		   size_t max_len, char **text, size_t *len);

#endif /* XVBD_CMD_PLAN_JSON_H */
