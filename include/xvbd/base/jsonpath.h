/*
 * jsonpath.h - where a yajl callback parser is in a document, and
 * whether a string it was handed is whole.
 *
 * yajl decodes "\u0000" into the bytes it hands a string or key callback
 * and reports their length; yajl_tree's strings, and every C string made
 * of those bytes, end at the NUL.  So the plan value "/a\u0000b" read as
 * a C string is "/a", another path, and a key "file\u0000x" is "file".
 * Every reader of JSON refuses a string or key whose bytes hold a NUL,
 * and says where it is ("disks[1].file") so that its writer can find it.
 *
 * Callback parsers keep an xvbd_json_path up to date and check each
 * string and key; a reader that builds a yajl_tree runs
 * xvbd_json_strings_whole over the text first.  Plain libc and yajl.
 */
#ifndef XVBD_JSONPATH_H
#define XVBD_JSONPATH_H

#include <stdbool.h>
#include <stddef.h>

/* Levels named in a place; deeper ones are counted, shown as "...". */
#define XVBD_JSON_PATH_DEPTH	16
/* A key is shown up to this many bytes (with the NUL). */
#define XVBD_JSON_PATH_KEY	40

struct xvbd_json_path {
	size_t depth;			/* containers open */
	struct {
		bool array;
		size_t index;		/* array: values before the current */
		char key[XVBD_JSON_PATH_KEY];	/* object: the current key */
	} level[XVBD_JSON_PATH_DEPTH];
};

/* A container begins (it is the current value of its parent). */
void xvbd_json_path_open(struct xvbd_json_path *p, bool array);
/* A container ends: the next value of its parent is current. */
void xvbd_json_path_close(struct xvbd_json_path *p);
/* A key of the current object (its bytes as yajl gives them). */
void xvbd_json_path_key(struct xvbd_json_path *p, const unsigned char *key,
			size_t len);
/* A scalar ended: the next value of its parent is current. */
void xvbd_json_path_scalar(struct xvbd_json_path *p);

/*
 * 0 when the string or key s[0..len), as yajl handed it, holds no NUL;
 * else -EINVAL with why: "<place>: ..." (doc names the document when
 * the place is its top level), the problem and the fix.  key: s is a
 * key of the current object, not a value.
 */
int xvbd_json_str_check(const struct xvbd_json_path *p, const char *doc,
			const unsigned char *s, size_t len, bool key,
			char *why, size_t why_len);

/*
 * Every string and key of the JSON text whole, as above: 0, or -EINVAL
 * with why naming the first one that is not; -ENOMEM.  Text that is not
 * JSON is left to the reader's own parse (0 here).  For readers that
 * build a yajl_tree; nesting past XVBD_JSON_PATH_DEPTH is counted.
 */
int xvbd_json_strings_whole(const char *text, size_t len, const char *doc,
			    char *why, size_t why_len);

#endif /* XVBD_JSONPATH_H */
