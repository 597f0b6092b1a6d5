/*
 * xlcfg_edit.c - xl config text: a scanner that follows libxlutil's lexer
 * and grammar (see xvbd/xlcfg_edit.h), byte edits, and their unified diff.
 * Pure: the caller proves every edit by parsing the result with libxlutil.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/xlcfg_edit.h"

enum tok {
	T_IDENT, T_NUMBER, T_STRING, T_ASSIGN, T_ADD, T_COMMA, T_LBR, T_RBR,
	T_SEMI, T_NL, T_EOF, T_ERR,
};

struct token {
	enum tok t;
	size_t off, end;
	unsigned line;
};

struct lexer {
	const char *s;
	size_t len, pos;
	unsigned line;
	char *why;
	size_t why_len;
};

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct token lex_error(struct lexer *lx, const char *what)
{
	struct token t = { T_ERR, lx->pos, lx->pos, lx->line };

	snprintf(lx->why, lx->why_len, "line %u: %s", lx->line, what);
	return t;
}

/* A quoted string from lx->pos: ([^q\\\n]|\\.)* then q. */
static struct token lex_string(struct lexer *lx)
{
	const char *s = lx->s;
	char q = s[lx->pos];
	struct token t = { T_STRING, lx->pos, 0, lx->line };
	size_t p = lx->pos + 1;

	while (p < lx->len && s[p] != q) {
		if (s[p] == '\n')
			return lex_error(lx, "string not closed on its line");
		if (s[p] == '\\') {
			if (p + 1 >= lx->len || s[p + 1] == '\n')
				return lex_error(lx, "backslash at the end of "
						 "a line");
			p++;
		}
		p++;
	}
	if (p >= lx->len)
		return lex_error(lx, "string not closed");
	t.end = lx->pos = p + 1;
	return t;
}

static struct token lex_next(struct lexer *lx)
{
	const char *s = lx->s;
	struct token t = { T_EOF, 0, 0, 0 };
	const char *nl;
	char c;

	while (lx->pos < lx->len && (s[lx->pos] == ' ' || s[lx->pos] == '\t'))
		lx->pos++;
	t.off = t.end = lx->pos;
	t.line = lx->line;
	if (lx->pos >= lx->len)
		return t;
	c = s[lx->pos];
	if (is_lower(c) || is_digit(c)) {
		bool ident = is_lower(c);

		t.t = ident ? T_IDENT : T_NUMBER;
		for (lx->pos++; lx->pos < lx->len; lx->pos++) {
			c = s[lx->pos];
			if (ident ? !(is_lower(c) || is_digit(c) || c == '.' ||
				      c == '_') :
				    !(is_digit(c) || (c >= 'a' && c <= 'f') ||
				      c == 'x'))
				break;
		}
		t.end = lx->pos;
		return t;
	}
	switch (c) {
	case '\'':
	case '"':
		return lex_string(lx);
	case '#':
	case '\n':
		/* A comment is a newline token: it ends with its newline. */
		nl = memchr(s + lx->pos, '\n', lx->len - lx->pos);
		if (!nl)
			return lex_error(lx, "comment without a newline at "
					 "the end of the file");
		t.t = T_NL;
		t.end = lx->pos = (size_t)(nl - s) + 1;
		lx->line++;
		return t;
	case '+':
		if (lx->pos + 1 < lx->len && s[lx->pos + 1] == '=') {
			t.t = T_ADD;
			t.end = lx->pos += 2;
			return t;
		}
		return lex_error(lx, "lexical error at '+'");
	case '=': t.t = T_ASSIGN; break;
	case ',': t.t = T_COMMA; break;
	case '[': t.t = T_LBR; break;
	case ']': t.t = T_RBR; break;
	case ';': t.t = T_SEMI; break;
	case '\r':
		return lex_error(lx, "lexical error at a carriage return "
				 "(CRLF line ends?)");
	default:
		return lex_error(lx, isprint((unsigned char)c) && c != ' ' ?
				 "lexical error (names are lower case; "
				 "values are numbers, quoted strings or "
				 "[lists])" : "lexical error at a control or "
				 "non-ASCII byte");
	}
	t.end = ++lx->pos;
	return t;
}

static bool syntax_error(struct lexer *lx, const struct token *t,
			 const char *what)
{
	if (t->t != T_ERR)	/* a lexical error said why already */
		snprintf(lx->why, lx->why_len, "line %u: syntax error: %s",
			 t->line, what);
	return false;
}

static struct token skip_newlines(struct lexer *lx)
{
	struct token t;

	do
		t = lex_next(lx);
	while (t.t == T_NL);
	return t;
}

/*
 * A value starting at token first; *last is its final token.  Lists nest
 * and take newlines after '[', after each value and after each ','.
 */
static bool parse_value(struct lexer *lx, struct token first,
			struct token *last, unsigned depth)
{
	struct token t;

	if (first.t == T_STRING || first.t == T_NUMBER) {
		*last = first;
		return true;
	}
	if (first.t != T_LBR)
		return syntax_error(lx, &first, "expected a number, a quoted "
				    "string or a [list]");
	if (depth > 64)
		return syntax_error(lx, &first, "lists nested too deep");
	t = skip_newlines(lx);
	while (t.t != T_RBR) {
		if (!parse_value(lx, t, last, depth + 1))
			return false;
		t = skip_newlines(lx);
		if (t.t == T_RBR)
			break;
		if (t.t != T_COMMA)
			return syntax_error(lx, &t, "expected ',' or ']' in "
					    "a list");
		t = skip_newlines(lx);
	}
	*last = t;
	return true;
}

static int add_assign(struct xvbd_xlcfg_scan *scan, size_t *cap,
		      const struct xvbd_xlcfg_assign *a)
{
	if (scan->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct xvbd_xlcfg_assign *na =
			realloc(scan->a, ncap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		scan->a = na;
		*cap = ncap;
	}
	scan->a[scan->n++] = *a;
	return 0;
}

int xvbd_xlcfg_scan(const char *text, size_t len,
		    struct xvbd_xlcfg_scan *scan, char *why, size_t why_len)
{
	struct lexer lx = { text, len, 0, 1, why, why_len };
	size_t cap = 0;
	int rc = -EINVAL;

	memset(scan, 0, sizeof(*scan));
	scan->text = text;
	scan->len = len;
	if (memchr(text, '\0', len)) {
		snprintf(why, why_len, "a NUL byte: not a text file");
		return -EINVAL;
	}
	for (;;) {
		struct xvbd_xlcfg_assign a = { 0 };
		struct token t = lex_next(&lx), op, first, last;

		if (t.t == T_EOF)
			return 0;
		if (t.t == T_NL || t.t == T_SEMI)
			continue;
		if (t.t != T_IDENT) {
			syntax_error(&lx, &t, "expected a setting name");
			break;
		}
		op = lex_next(&lx);
		if (op.t != T_ASSIGN && op.t != T_ADD) {
			syntax_error(&lx, &op, "expected '=' or '+='");
			break;
		}
		first = lex_next(&lx);
		if (!parse_value(&lx, first, &last, 0))
			break;
		a.name_off = t.off;
		a.name_len = t.end - t.off;
		a.add = op.t == T_ADD;
		a.kind = first.t == T_LBR ? XVBD_XLVAL_LIST :
			 first.t == T_STRING ? XVBD_XLVAL_STRING :
			 XVBD_XLVAL_NUMBER;
		a.value_off = first.off;
		a.value_end = last.end;
		a.line = t.line;
		rc = add_assign(scan, &cap, &a);
		if (rc) {
			snprintf(why, why_len, "%s", strerror(-rc));
			break;
		}
		rc = -EINVAL;
		t = lex_next(&lx);
		if (t.t != T_NL && t.t != T_SEMI && t.t != T_EOF) {
			syntax_error(&lx, &t, "expected the end of the "
				     "statement (newline or ';')");
			break;
		}
		if (t.t == T_EOF)
			return 0;
	}
	xvbd_xlcfg_scan_free(scan);
	return rc;
}

void xvbd_xlcfg_scan_free(struct xvbd_xlcfg_scan *scan)
{
	free(scan->a);
	scan->a = NULL;
	scan->n = 0;
}

bool xvbd_xlcfg_is(const struct xvbd_xlcfg_scan *scan, size_t i,
		   const char *key)
{
	const struct xvbd_xlcfg_assign *a = &scan->a[i];

	return strlen(key) == a->name_len &&
	       !memcmp(scan->text + a->name_off, key, a->name_len);
}

size_t xvbd_xlcfg_count(const struct xvbd_xlcfg_scan *scan, const char *key,
			size_t *last)
{
	size_t i, n = 0;

	for (i = 0; i < scan->n; i++) {
		if (!xvbd_xlcfg_is(scan, i, key))
			continue;
		n++;
		if (last)
			*last = i;
	}
	return n;
}

int xvbd_xlcfg_names(const struct xvbd_xlcfg_scan *scan, char ***names_out,
		     size_t *n_out)
{
	char **names = calloc(scan->n ? scan->n : 1, sizeof(*names));
	size_t i, j, n = 0;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < scan->n; i++) {
		const struct xvbd_xlcfg_assign *a = &scan->a[i];

		for (j = 0; j < n; j++)
			if (xvbd_xlcfg_is(scan, i, names[j]))
				break;
		if (j < n)
			continue;
		names[n] = strndup(scan->text + a->name_off, a->name_len);
		if (!names[n]) {
			while (n)
				free(names[--n]);
			free(names);
			return -ENOMEM;
		}
		n++;
	}
	*names_out = names;
	*n_out = n;
	return 0;
}

/* ---- edits ---- */

void xvbd_xlcfg_edits_free(struct xvbd_xlcfg_edits *edits)
{
	size_t i;

	for (i = 0; i < edits->n; i++)
		free(edits->e[i].repl);
	free(edits->e);
	edits->e = NULL;
	edits->n = 0;
}

/*
 * Insert an edit (repl taken over) keeping the list sorted by start;
 * edits at one place keep the order they were added in.  Overlapping
 * ranges are a caller's bug: -EINVAL.
 */
static int add_edit(struct xvbd_xlcfg_edits *edits, size_t start, size_t end,
		    char *repl)
{
	struct xvbd_xlcfg_edit *ne;
	size_t i = 0;

	if (!repl)
		return -ENOMEM;
	while (i < edits->n && edits->e[i].start <= start)
		i++;
	if ((i > 0 && edits->e[i - 1].end > start) ||
	    (i < edits->n && end > edits->e[i].start)) {
		free(repl);
		return -EINVAL;
	}
	ne = realloc(edits->e, (edits->n + 1) * sizeof(*ne));
	if (!ne) {
		free(repl);
		return -ENOMEM;
	}
	edits->e = ne;
	memmove(&ne[i + 1], &ne[i], (edits->n - i) * sizeof(*ne));
	ne[i].start = start;
	ne[i].end = end;
	ne[i].repl = repl;
	edits->n++;
	return 0;
}

/* "key = value\n" at the end, after a newline if the text lacks one. */
static int append_line(const struct xvbd_xlcfg_scan *scan, const char *key,
		       const char *value, struct xvbd_xlcfg_edits *edits)
{
	bool nl = scan->len && scan->text[scan->len - 1] != '\n';
	char *line;

	if (asprintf(&line, "%s%s = %s\n", nl ? "\n" : "", key, value) < 0)
		return -ENOMEM;
	return add_edit(edits, scan->len, scan->len, line);
}

/* The lines of every assignment of key: "3, 9". */
static void lines_of(const struct xvbd_xlcfg_scan *scan, const char *key,
		     char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < scan->n && used < len; i++)
		if (xvbd_xlcfg_is(scan, i, key))
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%u", used ? ", " : "",
						 scan->a[i].line);
}

int xvbd_xlcfg_plan_atom(const struct xvbd_xlcfg_scan *scan, const char *key,
			 const char *atom, struct xvbd_xlcfg_edits *edits,
			 char *why, size_t why_len)
{
	const struct xvbd_xlcfg_assign *a;
	size_t last = 0, n = xvbd_xlcfg_count(scan, key, &last);
	char lines[64];

	if (n == 0)
		return append_line(scan, key, atom, edits);
	if (n > 1) {
		lines_of(scan, key, lines, sizeof(lines));
		snprintf(why, why_len, "%s is set %zu times (lines %s): keep "
			 "one", key, n, lines);
		return -EEXIST;
	}
	a = &scan->a[last];
	if (a->add || a->kind == XVBD_XLVAL_LIST) {
		snprintf(why, why_len, "%s on line %u is %s: edit it by hand",
			 key, a->line, a->add ? "set with +=" : "a list");
		return -EINVAL;
	}
	return add_edit(edits, a->value_off, a->value_end, strdup(atom));
}

/* The last assignment of key if it is one plain string literal. */
static int plain_string_at(const struct xvbd_xlcfg_scan *scan,
			   const char *key,
			   const struct xvbd_xlcfg_assign **out, char *why,
			   size_t why_len)
{
	const struct xvbd_xlcfg_assign *a;
	size_t i, last = 0;

	*out = NULL;
	if (!xvbd_xlcfg_count(scan, key, &last))
		return 0;
	for (i = 0; i < scan->n; i++)
		if (xvbd_xlcfg_is(scan, i, key) && scan->a[i].add) {
			snprintf(why, why_len, "%s is extended with += on "
				 "line %u: edit it by hand", key,
				 scan->a[i].line);
			return -EINVAL;
		}
	a = &scan->a[last];
	if (a->kind != XVBD_XLVAL_STRING) {
		snprintf(why, why_len, "%s on line %u is not a quoted string",
			 key, a->line);
		return -EINVAL;
	}
	if (memchr(scan->text + a->value_off, '\\',
		   a->value_end - a->value_off)) {
		snprintf(why, why_len, "%s on line %u has backslash escapes: "
			 "edit it by hand", key, a->line);
		return -EINVAL;
	}
	*out = a;
	return 0;
}

int xvbd_xlcfg_get_plain_string(const struct xvbd_xlcfg_scan *scan,
				const char *key, char **value, char *why,
				size_t why_len)
{
	const struct xvbd_xlcfg_assign *a;
	int rc = plain_string_at(scan, key, &a, why, why_len);

	*value = NULL;
	if (rc || !a)
		return rc;
	*value = strndup(scan->text + a->value_off + 1,
			 a->value_end - a->value_off - 2);
	return *value ? 0 : -ENOMEM;
}

int xvbd_xlcfg_plan_string(const struct xvbd_xlcfg_scan *scan,
			   const char *key, const char *value,
			   struct xvbd_xlcfg_edits *edits, char *why,
			   size_t why_len)
{
	const struct xvbd_xlcfg_assign *a;
	char quote = '"', *lit;
	size_t i;
	int rc = plain_string_at(scan, key, &a, why, why_len);

	if (rc)
		return rc;
	if (a)
		quote = scan->text[a->value_off];
	for (i = 0; value[i]; i++)
		if (value[i] == quote || value[i] == '\\' ||
		    !isprint((unsigned char)value[i])) {
			snprintf(why, why_len, "the new %s would need quoting",
				 key);
			return -EINVAL;
		}
	if (asprintf(&lit, "%c%s%c", quote, value, quote) < 0)
		return -ENOMEM;
	if (!a) {
		rc = append_line(scan, key, lit, edits);
		free(lit);
		return rc;
	}
	return add_edit(edits, a->value_off, a->value_end, lit);
}

int xvbd_xlcfg_apply(const char *text, size_t len,
		     const struct xvbd_xlcfg_edits *edits, char **out,
		     size_t *out_len)
{
	size_t i, cap = len + 1, pos = 0, used = 0;
	char *buf;

	for (i = 0; i < edits->n; i++) {
		if (edits->e[i].end > len || edits->e[i].start < pos ||
		    edits->e[i].end < edits->e[i].start)
			return -EINVAL;
		pos = edits->e[i].end;
		cap += strlen(edits->e[i].repl);
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (pos = 0, i = 0; i < edits->n; i++) {
		const struct xvbd_xlcfg_edit *e = &edits->e[i];
		size_t rlen = strlen(e->repl);

		memcpy(buf + used, text + pos, e->start - pos);
		used += e->start - pos;
		memcpy(buf + used, e->repl, rlen);
		used += rlen;
		pos = e->end;
	}
	memcpy(buf + used, text + pos, len - pos);
	used += len - pos;
	buf[used] = '\0';
	*out = buf;
	if (out_len)
		*out_len = used;
	return 0;
}

/* ---- kernel command lines ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next word at or after *p: its start, length in *n; NULL at end. */
static const char *next_word(const char **p, size_t *n)
{
	const char *s = *p;

	while (is_blank(*s))
		s++;
	if (!*s)
		return NULL;
	*n = 0;
	while (s[*n] && !is_blank(s[*n]))
		(*n)++;
	*p = s + *n;
	return s;
}

bool xvbd_kcmdline_has(const char *cmdline, const char *word)
{
	const char *p = cmdline ? cmdline : "", *w;
	size_t n, wlen = strlen(word);

	while ((w = next_word(&p, &n)))
		if (n == wlen && !memcmp(w, word, n))
			return true;
	return false;
}

char *xvbd_kcmdline_add(const char *cmdline, const char *word)
{
	const char *c = cmdline ? cmdline : "";
	size_t len = strlen(c);
	char *out;

	if (asprintf(&out, "%s%s%s", c, len && !is_blank(c[len - 1]) ?
		     " " : "", word) < 0)
		return NULL;
	return out;
}

char *xvbd_kcmdline_remove(const char *cmdline, const char *word)
{
	const char *c = cmdline ? cmdline : "", *p = c, *w;
	size_t n, wlen = strlen(word), used = 0;
	char *out = malloc(strlen(c) + 1);

	if (!out)
		return NULL;
	/* c: the start of what is kept next */
	while ((w = next_word(&p, &n))) {
		if (n != wlen || memcmp(w, word, n))
			continue;
		if (w > c && is_blank(w[-1])) {
			/* keep what lies before the word, less one blank */
			memcpy(out + used, c, (size_t)(w - 1 - c));
			used += (size_t)(w - 1 - c);
		} else {
			/* nothing before it: drop the blank after it */
			memcpy(out + used, c, (size_t)(w - c));
			used += (size_t)(w - c);
			if (is_blank(*p))
				p++;
		}
		c = p;
	}
	strcpy(out + used, c);
	return out;
}
