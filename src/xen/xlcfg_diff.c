/*
 * xlcfg_diff.c - the unified diff of byte edits to a text (xl configs:
 * what `xvbd pv -N` shows).  Built from the edits themselves, not by
 * comparing two texts: the changed lines are exactly the ones the edits
 * touch.  Pure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/xen/xlcfg_edit.h"

#define DIFF_CONTEXT	3

/*
 * Line starts of a text: ls[i] for lines i < n, ls[n] = len.  A text that
 * does not end in a newline has a last line without one.
 */
struct lines {
	size_t *ls;
	size_t n;
	bool ends_nl;		/* empty, or its last byte is a newline */
};

static int split_lines(const char *text, size_t len, struct lines *l)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	l->ends_nl = !len || text[len - 1] == '\n';
	if (!l->ends_nl)
		n++;
	l->ls = malloc((n + 1) * sizeof(*l->ls));
	if (!l->ls)
		return -ENOMEM;
	l->n = 0;
	if (len)
		l->ls[l->n++] = 0;
	for (i = 0; i + 1 < len; i++)
		if (text[i] == '\n')
			l->ls[l->n++] = i + 1;
	l->ls[l->n] = len;
	return 0;
}

/*
 * The line holding byte off.  The end of the text belongs to the last
 * line when that has no newline, else to line n (past the end).
 */
static size_t line_of(const struct lines *l, size_t off)
{
	size_t lo = 0, hi = l->n;

	if (off >= l->ls[l->n])
		return l->ends_nl ? l->n : l->n - 1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (l->ls[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The last line an edit touches. */
static size_t last_line_of(const struct lines *l,
			   const struct xvbd_xlcfg_edit *e)
{
	return line_of(l, e->end > e->start ? e->end - 1 : e->start);
}

/* A run of changed lines: old lines [a, b), and their new text. */
struct block {
	size_t a, b;
	char *new_text;
	size_t new_len, new_lines;
};

struct strbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sb_add(struct strbuf *sb, const char *p, size_t n)
{
	if (sb->failed)
		return;
	if (sb->len + n + 1 > sb->cap) {
		size_t ncap = (sb->len + n + 1) * 2;
		char *ns = realloc(sb->s, ncap);

		if (!ns) {
			sb->failed = true;
			return;
		}
		sb->s = ns;
		sb->cap = ncap;
	}
	memcpy(sb->s + sb->len, p, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

static void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	sb_add(sb, s, (size_t)n);
	free(s);
}

static size_t count_lines(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (s[i] == '\n')
			n++;
	return n + (len && s[len - 1] != '\n');
}

/* One line with its prefix, and diff's marker when it lacks a newline. */
static void diff_line(struct strbuf *sb, char prefix, const char *p,
		      size_t n)
{
	static const char no_nl[] = "\n\\ No newline at end of file\n";

	sb_add(sb, &prefix, 1);
	sb_add(sb, p, n);
	if (!n || p[n - 1] != '\n')
		sb_add(sb, no_nl, sizeof(no_nl) - 1);
}

static void diff_text_lines(struct strbuf *sb, char prefix, const char *s,
			    size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) + 1 - pos : len - pos;

		diff_line(sb, prefix, s + pos, n);
		pos += n;
	}
}

/*
 * Old lines [bl->a, bl->b) with edits [i, j) made, into sb.
 */
static void block_text(const char *text, const struct lines *l,
		       const struct xvbd_xlcfg_edits *edits, size_t i,
		       size_t j, const struct block *bl, struct strbuf *sb)
{
	size_t pos = l->ls[bl->a], k;

	sb->len = 0;
	sb_add(sb, "", 0);
	for (k = i; k < j; k++) {
		sb_add(sb, text + pos, edits->e[k].start - pos);
		sb_add(sb, edits->e[k].repl, strlen(edits->e[k].repl));
		pos = edits->e[k].end;
	}
	sb_add(sb, text + pos, l->ls[bl->b] - pos);
}

/*
 * Group the edits into blocks of whole old lines: edits on the same or
 * adjacent lines share a block, and a block whose new text lost its last
 * newline takes in the old line that now continues it.
 */
static int make_blocks(const char *text, const struct lines *l,
		       const struct xvbd_xlcfg_edits *edits,
		       struct block **out, size_t *nout)
{
	struct block *blocks = calloc(edits->n ? edits->n : 1,
				      sizeof(*blocks));
	size_t i = 0, nb = 0;

	if (!blocks)
		return -ENOMEM;
	while (i < edits->n) {
		struct block *bl = &blocks[nb++];
		struct strbuf sb = { 0 };
		size_t j = i, last;

		bl->a = line_of(l, edits->e[i].start);
		last = bl->a;
		for (;;) {
			/* edits on the next line join: one -/+ group */
			while (j < edits->n &&
			       line_of(l, edits->e[j].start) <= last + 1) {
				size_t ll = last_line_of(l, &edits->e[j]);

				last = ll > last ? ll : last;
				j++;
			}
			bl->b = last < l->n ? last + 1 : l->n;
			block_text(text, l, edits, i, j, bl, &sb);
			if (sb.failed || !sb.len || sb.s[sb.len - 1] == '\n' ||
			    bl->b >= l->n)
				break;
			last = bl->b;
		}
		if (sb.failed) {
			free(sb.s);
			while (nb)
				free(blocks[--nb].new_text);
			free(blocks);
			return -ENOMEM;
		}
		bl->new_text = sb.s;
		bl->new_len = sb.len;
		bl->new_lines = count_lines(sb.s, sb.len);
		i = j;
	}
	*out = blocks;
	*nout = nb;
	return 0;
}

int xvbd_xlcfg_diff(const char *label, const char *text, size_t len,
		    const struct xvbd_xlcfg_edits *edits, char **out)
{
	struct strbuf sb = { 0 };
	struct lines l = { 0 };
	struct block *blocks = NULL;
	size_t nb = 0, i = 0, k;
	long delta = 0;		/* new lines minus old lines so far */
	int rc;

	rc = split_lines(text, len, &l);
	if (rc)
		return rc;
	rc = make_blocks(text, &l, edits, &blocks, &nb);
	if (rc)
		goto out;
	sb_add(&sb, "", 0);
	if (nb)
		sb_printf(&sb, "--- %s\n+++ %s\n", label, label);
	while (i < nb) {
		size_t first = i, last = i, from, to, old_n, new_n, line;
		long hunk_delta = 0;

		/* Blocks closer than two contexts share a hunk. */
		while (last + 1 < nb &&
		       blocks[last + 1].a <= blocks[last].b + 2 * DIFF_CONTEXT)
			last++;
		from = blocks[first].a > DIFF_CONTEXT ?
		       blocks[first].a - DIFF_CONTEXT : 0;
		to = blocks[last].b + DIFF_CONTEXT < l.n ?
		     blocks[last].b + DIFF_CONTEXT : l.n;
		for (k = first; k <= last; k++)
			hunk_delta += (long)blocks[k].new_lines -
				      (long)(blocks[k].b - blocks[k].a);
		old_n = to - from;
		new_n = (size_t)((long)old_n + hunk_delta);
		sb_printf(&sb, "@@ -%zu,%zu +%zu,%zu @@\n",
			  old_n ? from + 1 : from, old_n,
			  new_n ? (size_t)((long)from + delta) + 1 :
				  (size_t)((long)from + delta), new_n);
		line = from;
		for (k = first; k <= last; k++) {
			for (; line < blocks[k].a; line++)
				diff_line(&sb, ' ', text + l.ls[line],
					  l.ls[line + 1] - l.ls[line]);
			for (; line < blocks[k].b; line++)
				diff_line(&sb, '-', text + l.ls[line],
					  l.ls[line + 1] - l.ls[line]);
			diff_text_lines(&sb, '+', blocks[k].new_text,
					blocks[k].new_len);
		}
		for (; line < to; line++)
			diff_line(&sb, ' ', text + l.ls[line],
				  l.ls[line + 1] - l.ls[line]);
		delta += hunk_delta;
		i = last + 1;
	}
	if (sb.failed) {
		rc = -ENOMEM;
		goto out;
	}
	*out = sb.s;
	sb.s = NULL;
out:
	for (k = 0; k < nb; k++)
		free(blocks[k].new_text);
	free(blocks);
	free(l.ls);
	free(sb.s);
	return rc;
}
