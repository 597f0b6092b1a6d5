/*
 * fio_frame.c - fio's JSON found in a stream of text.
 *
 * fio writes its notes and "fio: pid=N, err=..." lines on stdout before
 * the JSON, the text report before it with --output-format=normal,json,
 * and one document per --status-interval.  Each document begins with a
 * "{" at the start of a line.  A small lexer over every byte tracks
 * strings and nesting, so that the reader knows where a document ends
 * without yajl (which would read on into the text after it), and bounds
 * what yajl could be made to buffer: no string or number longer than
 * XVBD_WL_TOKEN_MAX, no nesting deeper than XVBD_WL_DEPTH_MAX reaches
 * it.  Only the bytes of a document go to yajl, a line at a time, so
 * that a line it refuses ends that document where the next may begin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio_impl.h"

/* A number or literal longer than this is not fio's. */
#define BARE_TOKEN_MAX	1024

struct xvbd_wl_fio_reader {
	uint64_t offset;		/* bytes seen */
	bool at_line_start;
	bool seen;			/* a document began */
	bool in_doc;
	bool in_str, esc;
	size_t tok_len;
	int depth;
	uint64_t doc_offset;		/* where the document began */
	struct fio_doc doc;
	/* The outcome of the last document: a report, or why not. */
	bool have_last;
	struct xvbd_wl_fio last;
	bool last_failed;
	char why[XVBD_WL_WHY_MAX];
	bool spent;			/* out of memory */
};

struct xvbd_wl_fio_reader *xvbd_wl_fio_reader_new(void)
{
	struct xvbd_wl_fio_reader *r = calloc(1, sizeof(*r));

	if (r)
		r->at_line_start = true;
	return r;
}

static void doc_failed(struct xvbd_wl_fio_reader *r, const char *why)
{
	snprintf(r->why, sizeof(r->why), "fio's JSON at byte %llu: %.200s",
		 (unsigned long long)r->doc_offset, why);
	r->last_failed = true;
	fio_doc_close(&r->doc, NULL);
	r->in_doc = false;
	r->at_line_start = false;
}

static void doc_done(struct xvbd_wl_fio_reader *r)
{
	int rc = fio_doc_end(&r->doc);

	if (rc == -ENOMEM)
		r->spent = true;
	if (rc) {
		doc_failed(r, r->doc.why);
		return;
	}
	xvbd_wl_fio_free(&r->last);
	fio_doc_close(&r->doc, &r->last);
	r->have_last = true;
	r->last_failed = false;
	r->in_doc = false;
	r->at_line_start = false;
}

/*
 * One byte of a document: false when it ends the document (the closing
 * brace) or breaks a bound (then *why).
 */
static bool lex(struct xvbd_wl_fio_reader *r, char c, const char **why)
{
	*why = NULL;
	if (r->in_str) {
		if (r->esc)
			r->esc = false;
		else if (c == '\\')
			r->esc = true;
		else if (c == '"')
			r->in_str = false;
		if (++r->tok_len > XVBD_WL_TOKEN_MAX)
			*why = "a string longer than 64 KiB";
		return !*why;
	}
	switch (c) {
	case '"':
		r->in_str = true;
		r->tok_len = 0;
		return true;
	case '{':
	case '[':
		r->tok_len = 0;
		if (++r->depth > XVBD_WL_DEPTH_MAX)
			*why = "nested deeper than 16";
		return !*why;
	case '}':
	case ']':
		r->tok_len = 0;
		return --r->depth > 0;
	case ' ':
	case '\t':
	case '\n':
	case '\r':
	case ',':
	case ':':
		r->tok_len = 0;
		return true;
	default:
		if (++r->tok_len > BARE_TOKEN_MAX)
			*why = "a number or word longer than 1 KiB";
		return !*why;
	}
}

/* Feed yajl buf[from, to): false when the document failed. */
static bool pass(struct xvbd_wl_fio_reader *r, const char *buf, size_t from,
		 size_t to)
{
	int rc;

	if (to == from)
		return true;
	rc = fio_doc_feed(&r->doc, buf + from, to - from);
	if (rc == -ENOMEM)
		r->spent = true;
	if (rc)
		doc_failed(r, r->doc.why);
	return !rc;
}

static int doc_begin(struct xvbd_wl_fio_reader *r)
{
	if (fio_doc_begin(&r->doc)) {
		r->spent = true;
		return -ENOMEM;
	}
	r->seen = true;
	r->in_doc = true;
	r->in_str = r->esc = false;
	r->tok_len = 0;
	r->depth = 0;
	r->doc_offset = r->offset;
	return 0;
}

int xvbd_wl_fio_reader_feed(struct xvbd_wl_fio_reader *r, const char *buf,
			    size_t len)
{
	const char *why;
	size_t i, from = 0;

	for (i = 0; i < len && !r->spent; i++, r->offset++) {
		char c = buf[i];

		if (!r->in_doc) {
			if (r->at_line_start && c == '{') {
				if (doc_begin(r))
					break;
				from = i;
			} else {
				r->at_line_start = c == '\n';
				continue;
			}
		}
		if (lex(r, c, &why)) {
			/* Line by line to yajl: a line it refuses ends the
			 * document there, and the next line may begin one. */
			if (c == '\n') {
				if (!pass(r, buf, from, i + 1))
					r->at_line_start = true;
				from = i + 1;
			}
			continue;
		}
		if (why) {
			/* Refused before yajl buffers it. */
			doc_failed(r, why);
			continue;
		}
		if (pass(r, buf, from, i + 1))
			doc_done(r);
	}
	if (r->in_doc && !r->spent)
		pass(r, buf, from, i);
	return r->spent ? -ENOMEM : 0;
}

bool xvbd_wl_fio_reader_seen(const struct xvbd_wl_fio_reader *r)
{
	return r->seen;
}

int xvbd_wl_fio_reader_finish(struct xvbd_wl_fio_reader *r,
			      struct xvbd_wl_fio *out, char *why,
			      size_t whylen)
{
	memset(out, 0, sizeof(*out));
	if (r->spent) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (r->in_doc)
		doc_failed(r, "the output ends inside it (cut short)");
	if (r->last_failed) {
		snprintf(why, whylen, "%s", r->why);
		return -ENODATA;
	}
	if (!r->have_last) {
		snprintf(why, whylen, "no fio JSON in %llu bytes of output "
			 "(a line starting with \"{\")",
			 (unsigned long long)r->offset);
		return -ENODATA;
	}
	*out = r->last;
	memset(&r->last, 0, sizeof(r->last));
	r->have_last = false;
	return 0;
}

void xvbd_wl_fio_reader_free(struct xvbd_wl_fio_reader *r)
{
	if (!r)
		return;
	if (r->in_doc)
		fio_doc_close(&r->doc, NULL);
	xvbd_wl_fio_free(&r->last);
	free(r);
}

int xvbd_wl_fio_parse(const char *buf, size_t len, struct xvbd_wl_fio *out,
		      char *why, size_t whylen)
{
	struct xvbd_wl_fio_reader *r = xvbd_wl_fio_reader_new();
	int rc;

	memset(out, 0, sizeof(*out));
	if (!r) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rc = xvbd_wl_fio_reader_feed(r, buf, len);
	if (!rc)
		rc = xvbd_wl_fio_reader_finish(r, out, why, whylen);
	else
		snprintf(why, whylen, "%s", strerror(ENOMEM));
	xvbd_wl_fio_reader_free(r);
	return rc;
}
