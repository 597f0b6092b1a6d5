/*
 * xlcfg_edit.h - xl config files as text: where each setting is, byte
 * edits that leave every other byte alone, and the unified diff of an
 * edit.  Pure (no libxl): the tokens follow libxlutil's own lexer and
 * grammar (tools/libs/util/libxlu_cfg_l.l, libxlu_cfg_y.y, Xen 4.17):
 *
 *	IDENT	[a-z][._0-9a-z]*	NUMBER	[0-9][0-9a-fx]*
 *	STRING	'...' or "..." with backslash escapes, never a newline
 *	= += , [ ] ;	blanks are ' ' and '\t' only
 *	NEWLINE	"\n", or a comment "#...\n" (a comment must end in \n)
 *	statement: IDENT (= | +=) value, ended by NEWLINE, ';' or the end
 *	value: STRING | NUMBER | '[' values, newlines allowed inside ']'
 *
 * Anything else (a CR of a CRLF file, an upper-case name, '+', a '#'
 * without a newline at the end of the file) is a lexical error for
 * libxlutil, so the scanner refuses it too: text that libxlutil rejects
 * is never edited.  Later assignments win in xl (libxlutil returns the
 * last one), "+=" appends to the previous value.
 *
 * Functions return 0 or a negative errno and fill a why buffer that fits
 * "xvbd: <cmd>: <what>: <why>".
 */
#ifndef XVBD_XLCFG_EDIT_H
#define XVBD_XLCFG_EDIT_H

#include <stdbool.h>
#include <stddef.h>

enum xvbd_xlval_kind {
	XVBD_XLVAL_NUMBER,
	XVBD_XLVAL_STRING,
	XVBD_XLVAL_LIST,
};

/* One assignment statement; offsets into the scanned text. */
struct xvbd_xlcfg_assign {
	size_t name_off, name_len;
	bool add;			/* "+=" rather than "=" */
	enum xvbd_xlval_kind kind;
	size_t value_off, value_end;	/* the value's tokens, [off, end) */
	unsigned line;			/* 1-based, of the name */
};

struct xvbd_xlcfg_scan {
	const char *text;		/* borrowed: outlives the scan */
	size_t len;
	struct xvbd_xlcfg_assign *a;	/* in file order */
	size_t n;
};

/*
 * Scan text (len bytes, no NUL inside).  -EINVAL with "line N: ..." in
 * why for anything libxlutil would not parse.
 */
int xvbd_xlcfg_scan(const char *text, size_t len,
		    struct xvbd_xlcfg_scan *scan, char *why, size_t why_len);
void xvbd_xlcfg_scan_free(struct xvbd_xlcfg_scan *scan);
/* Does assignment i set key? */
bool xvbd_xlcfg_is(const struct xvbd_xlcfg_scan *scan, size_t i,
		   const char *key);
/* How many assignments set key; *last: index of the last one. */
size_t xvbd_xlcfg_count(const struct xvbd_xlcfg_scan *scan, const char *key,
			size_t *last);
/*
 * The distinct setting names of the text, malloc'd (free each and the
 * array): what a key-by-key comparison of two parses has to cover.
 */
int xvbd_xlcfg_names(const struct xvbd_xlcfg_scan *scan, char ***names,
		     size_t *n);

/* ---- edits ---- */

/* Replace [start, end) of the original text with repl (malloc'd). */
struct xvbd_xlcfg_edit {
	size_t start, end;
	char *repl;
};

struct xvbd_xlcfg_edits {
	struct xvbd_xlcfg_edit *e;	/* sorted by start, no overlaps */
	size_t n;
};

void xvbd_xlcfg_edits_free(struct xvbd_xlcfg_edits *edits);

/*
 * key = atom (a NUMBER, or a quoted STRING the caller built): the value
 * of the one assignment of key replaced in place, or, when key is not
 * set, the line "key = atom" appended at the end.  Refused: key set more
 * than once (-EEXIST, the lines in why), with "+=" or a list (-EINVAL).
 */
int xvbd_xlcfg_plan_atom(const struct xvbd_xlcfg_scan *scan, const char *key,
			 const char *atom, struct xvbd_xlcfg_edits *edits,
			 char *why, size_t why_len);
/*
 * The string value of key (the last "=" assignment, as xl uses it) as
 * written between its quotes, when it has no backslash escape (so that
 * the bytes are the value): *value malloc'd, NULL when key is not set.
 * -EINVAL: set with "+=", a list, a number, or escapes.
 */
int xvbd_xlcfg_get_plain_string(const struct xvbd_xlcfg_scan *scan,
				const char *key, char **value, char *why,
				size_t why_len);
/*
 * key's string replaced by value (plain: no quote of the literal's kind,
 * backslash or control byte), in the same quotes; appended as
 * key = "value" when key is not set.  Refused as get_plain_string.
 */
int xvbd_xlcfg_plan_string(const struct xvbd_xlcfg_scan *scan,
			   const char *key, const char *value,
			   struct xvbd_xlcfg_edits *edits, char *why,
			   size_t why_len);

/* The edited text, *out malloc'd and NUL-terminated. */
int xvbd_xlcfg_apply(const char *text, size_t len,
		     const struct xvbd_xlcfg_edits *edits, char **out,
		     size_t *out_len);
/*
 * The unified diff (3 lines of context, "--- label" / "+++ label") of
 * applying edits to text; *out malloc'd, "" when edits is empty.
 */
int xvbd_xlcfg_diff(const char *label, const char *text, size_t len,
		    const struct xvbd_xlcfg_edits *edits, char **out);

/* ---- kernel command lines (blank-separated words) ---- */

/* Is word one of the blank-separated words of cmdline? */
bool xvbd_kcmdline_has(const char *cmdline, const char *word);
/* cmdline with word appended (after one blank if needed); malloc'd. */
char *xvbd_kcmdline_add(const char *cmdline, const char *word);
/* cmdline without any word equal to word, nor one blank of each; malloc'd. */
char *xvbd_kcmdline_remove(const char *cmdline, const char *word);

#endif /* XVBD_XLCFG_EDIT_H */
