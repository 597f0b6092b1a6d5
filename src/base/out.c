/*
 * out.c - text and JSON rendering from the same calls (CSV and
 * Prometheus: out_rows.c).
 *
 * JSON streams through yajl_gen.  Text builds a small tree and renders
 * it at finish, because alignment needs every row first.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "xvbd/base/out.h"
#include "xvbd/base/util.h"
#include "xvbd/base/vocab.h"
#include "out_impl.h"

static void json_print(void *ctx, const char *str, size_t len)
{
	struct xvbd_out *o = ctx;

	if (o->jlen + len + 1 > o->jcap) {
		size_t cap = o->jcap ? o->jcap : 4096;
		char *b;

		while (o->jlen + len + 1 > cap)
			cap *= 2;
		b = realloc(o->jbuf, cap);
		if (!b) {
			o->failed = true;
			return;
		}
		o->jbuf = b;
		o->jcap = cap;
	}
	memcpy(o->jbuf + o->jlen, str, len);
	o->jlen += len;
}

struct xvbd_out *xvbd_out_new(FILE *stream, bool json)
{
	return xvbd_out_new_mode(stream, json ? XVBD_OUT_JSON : XVBD_OUT_TEXT);
}

struct xvbd_out *xvbd_out_new_mode(FILE *stream, enum xvbd_out_mode mode)
{
	struct xvbd_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->stream = stream;
	o->mode = mode;
	o->json = mode == XVBD_OUT_JSON;
	if (o->json) {
		o->gen = yajl_gen_alloc(NULL);
		if (!o->gen) {
			free(o);
			return NULL;
		}
		yajl_gen_config(o->gen, yajl_gen_beautify, 0);
		yajl_gen_config(o->gen, yajl_gen_print_callback, json_print,
				o);
	}
	return o;
}

enum xvbd_out_mode xvbd_out_mode(const struct xvbd_out *o)
{
	return o->mode;
}

void xvbd_out_labels(struct xvbd_out *o, const struct xvbd_out_label *labels)
{
	o->labels = labels;
}

void xvbd_out_wrap(struct xvbd_out *o, int cols)
{
	o->wrap_cols = cols > 0 ? cols : 0;
}

void xvbd_out_set_verbose(struct xvbd_out *o, int level)
{
	o->verbose = level;
}

int xvbd_out_verbose(const struct xvbd_out *o)
{
	return o->verbose;
}

static void node_free(struct node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->key);
	free(n->text);
	free(n->note);
	free(n);
}

void xvbd_out_free(struct xvbd_out *o)
{
	if (!o)
		return;
	if (o->gen)
		yajl_gen_free(o->gen);
	free(o->jbuf);
	free(o->status_msg);
	node_free(o->root);
	out_rows_free(o);
	free(o);
}

static void json_key(struct xvbd_out *o, const char *key)
{
	if (key && yajl_gen_string(o->gen, (const unsigned char *)key,
				   strlen(key)) != yajl_gen_status_ok)
		o->failed = true;
}

static void json_check(struct xvbd_out *o, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok)
		o->failed = true;
}

/* Text: add a node under the open container (or as the root). */
static struct node *text_add(struct xvbd_out *o, enum node_kind kind,
			     const char *key, const char *text)
{
	struct node *n = calloc(1, sizeof(*n));
	struct node *parent = o->cur;

	if (!n)
		goto fail;
	n->kind = kind;
	if ((key && !(n->key = strdup(key))) ||
	    (text && !(n->text = xvbd_escape(text))))
		goto fail;
	if (!parent) {
		if (o->root || kind == N_SCALAR)
			goto fail;	/* one document, a container */
		o->root = n;
	} else {
		if (parent->nkids == parent->cap) {
			size_t cap = parent->cap ? parent->cap * 2 : 8;
			struct node **kids = realloc(parent->kids,
						     cap * sizeof(*kids));

			if (!kids)
				goto fail;
			parent->kids = kids;
			parent->cap = cap;
		}
		parent->kids[parent->nkids++] = n;
		n->parent = parent;
	}
	o->last = n;
	return n;
fail:
	node_free(n);
	o->failed = true;
	return NULL;
}

static void begin(struct xvbd_out *o, const char *key, enum node_kind kind)
{
	struct node *n;

	if (o->done) {
		o->failed = true;
		return;
	}
	o->depth++;
	o->started = true;
	if (out_rows_mode(o)) {
		out_rows_begin(o, kind == N_ARR);
		return;
	}
	if (o->json) {
		if (o->depth == 1)
			o->top_is_arr = kind == N_ARR;
		json_key(o, key);
		json_check(o, kind == N_OBJ ? yajl_gen_map_open(o->gen) :
				yajl_gen_array_open(o->gen));
		return;
	}
	n = text_add(o, kind, key, NULL);
	if (n)
		o->cur = n;
}

static void end(struct xvbd_out *o, enum node_kind kind)
{
	if (o->depth <= 0) {
		o->failed = true;
		return;
	}
	if (out_rows_mode(o))
		out_rows_end(o);
	if (--o->depth == 0)
		o->done = true;
	if (out_rows_mode(o))
		return;
	if (o->json) {
		/* The top-level object stays open: finish may add a status. */
		if (o->done && kind == N_OBJ) {
			o->top_obj_open = true;
			return;
		}
		json_check(o, kind == N_OBJ ? yajl_gen_map_close(o->gen) :
				yajl_gen_array_close(o->gen));
		return;
	}
	if (!o->cur || o->cur->kind != kind) {
		o->failed = true;
		return;
	}
	o->last = o->cur;
	o->cur = o->cur->parent;
}

void xvbd_out_obj_begin(struct xvbd_out *o, const char *key)
{
	begin(o, key, N_OBJ);
}

void xvbd_out_obj_end(struct xvbd_out *o)
{
	end(o, N_OBJ);
}

void xvbd_out_arr_begin(struct xvbd_out *o, const char *key)
{
	begin(o, key, N_ARR);
}

void xvbd_out_arr_end(struct xvbd_out *o)
{
	end(o, N_ARR);
}

static bool field_ok(struct xvbd_out *o)
{
	if (o->depth <= 0) {
		o->failed = true;	/* scalars live in containers */
		return false;
	}
	return true;
}

void xvbd_out_str(struct xvbd_out *o, const char *key, const char *value)
{
	char *clean;

	if (!value) {
		xvbd_out_null(o, key);
		return;
	}
	if (!field_ok(o))
		return;
	if (out_rows_mode(o)) {
		out_rows_field(o, key, C_STR, value, 0, 0);
		return;
	}
	if (!o->json) {
		text_add(o, N_SCALAR, key, value);
		return;
	}
	clean = xvbd_escape(value);
	if (!clean) {
		o->failed = true;
		return;
	}
	json_key(o, key);
	json_check(o, yajl_gen_string(o->gen, (const unsigned char *)clean,
				      strlen(clean)));
	free(clean);
}

void xvbd_out_uint(struct xvbd_out *o, const char *key, uint64_t value)
{
	char buf[24];

	if (!field_ok(o))
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	if (out_rows_mode(o)) {
		out_rows_field(o, key, C_UINT, buf, value, 0);
		return;
	}
	if (!o->json) {
		text_add(o, N_SCALAR, key, buf);
		return;
	}
	json_key(o, key);
	/* yajl_gen_integer takes long long: emit digits to keep 64 bits. */
	json_check(o, yajl_gen_number(o->gen, buf, strlen(buf)));
}

void xvbd_out_uint_opt(struct xvbd_out *o, const char *key, bool known,
		       uint64_t value)
{
	if (known)
		xvbd_out_uint(o, key, value);
	else
		xvbd_out_null(o, key);
}

void xvbd_out_bool(struct xvbd_out *o, const char *key, bool value)
{
	if (!field_ok(o))
		return;
	if (out_rows_mode(o)) {
		out_rows_field(o, key, C_BOOL, value ? "true" : "false", 0, 0);
		return;
	}
	if (!o->json) {
		text_add(o, N_SCALAR, key, value ? "yes" : "no");
		return;
	}
	json_key(o, key);
	json_check(o, yajl_gen_bool(o->gen, value));
}

void xvbd_out_bool_opt(struct xvbd_out *o, const char *key, bool known,
		       bool value)
{
	if (known)
		xvbd_out_bool(o, key, value);
	else
		xvbd_out_null(o, key);
}

void xvbd_out_null(struct xvbd_out *o, const char *key)
{
	if (!field_ok(o))
		return;
	if (out_rows_mode(o)) {
		out_rows_field(o, key, C_NULL, "", 0, 0);
		return;
	}
	if (!o->json) {
		text_add(o, N_SCALAR, key, "-");
		return;
	}
	json_key(o, key);
	json_check(o, yajl_gen_null(o->gen));
}

void xvbd_out_size_opt(struct xvbd_out *o, const char *key, bool known,
		       uint64_t bytes)
{
	char buf[32];

	if (!known || !xvbd_out_is_text(o)) {
		xvbd_out_uint_opt(o, key, known, bytes);
		return;
	}
	if (!field_ok(o))
		return;
	xvbd_fmt_size(bytes, buf, sizeof(buf));
	text_add(o, N_SCALAR, key, buf);
}

void xvbd_out_double_opt(struct xvbd_out *o, const char *key, bool known,
			 double value)
{
	char buf[64];

	if (!known || !isfinite(value)) {
		xvbd_out_null(o, key);
		return;
	}
	if (!field_ok(o))
		return;
	snprintf(buf, sizeof(buf), o->json ? "%.17g" : "%.3g", value);
	if (!o->json) {
		text_add(o, N_SCALAR, key, buf);
		return;
	}
	json_key(o, key);
	json_check(o, yajl_gen_number(o->gen, buf, strlen(buf)));
}

void xvbd_out_fixed_opt(struct xvbd_out *o, const char *key, bool known,
			double value, int decimals)
{
	char buf[64];
	int n;

	/* NaN, infinities and absurd magnitudes: no value to show. */
	if (!known || value != value || value > 1e18 || value < -1e18) {
		xvbd_out_null(o, key);
		return;
	}
	if (!field_ok(o))
		return;
	n = snprintf(buf, sizeof(buf), "%.*f", decimals < 0 ? 0 :
		     decimals > 9 ? 9 : decimals, value);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		o->failed = true;
		return;
	}
	if (out_rows_mode(o)) {
		out_rows_field(o, key, C_FIXED, buf, 0, value);
		return;
	}
	if (!o->json) {
		text_add(o, N_SCALAR, key, buf);
		return;
	}
	json_key(o, key);
	json_check(o, yajl_gen_number(o->gen, buf, strlen(buf)));
}

void xvbd_out_note(struct xvbd_out *o, const char *note)
{
	if (!xvbd_out_is_text(o) || !note || !o->last)
		return;
	free(o->last->note);
	o->last->note = xvbd_escape(note);
	if (!o->last->note)
		o->failed = true;
}

bool xvbd_out_is_json(const struct xvbd_out *o)
{
	return o->json;
}

bool xvbd_out_is_text(const struct xvbd_out *o)
{
	return o->mode == XVBD_OUT_TEXT;
}

/* ---- text rendering ---- */

static const char *label_of(const struct xvbd_out *o, const char *key)
{
	const struct xvbd_out_label *l;

	for (l = o->labels; l && l->key; l++)
		if (!strcmp(l->key, key))
			return l->label;
	return key;
}

static void render(struct xvbd_out *o, const struct node *n, int indent);

/*
 * text from column col on, the cursor there: whole, or wrapped at
 * o->wrap_cols with each further line indented to col (to a quarter of
 * the width when col is beyond half of it).
 */
static void put_text(struct xvbd_out *o, const char *text, int col)
{
	int width = o->wrap_cols, at = col, cont = col;
	const char *p = text;

	if (!width || col + (int)strlen(text) <= width) {
		fputs(text, o->stream);
		return;
	}
	if (cont > width / 2)
		cont = width / 4;
	while (*p) {
		const char *end = strchr(p, ' ');
		int wl = end ? (int)(end - p) : (int)strlen(p);

		if (p != text && at > cont && at + 1 + wl > width) {
			fprintf(o->stream, "\n%*s", cont, "");
			at = cont;
		} else if (p != text) {
			fputc(' ', o->stream);
			at++;
		}
		fwrite(p, 1, (size_t)wl, o->stream);
		at += wl;
		p += wl;
		while (*p == ' ')
			p++;
	}
}

static void render_obj(struct xvbd_out *o, const struct node *n, int indent)
{
	size_t i;
	int key_w = 0, val_w = 0;

	for (i = 0; i < n->nkids; i++) {
		const struct node *k = n->kids[i];
		int w;

		if (k->kind != N_SCALAR)
			continue;
		w = (int)strlen(label_of(o, k->key)) + 1;
		key_w = w > key_w ? w : key_w;
		w = (int)strlen(k->text);
		if (k->note)
			val_w = w > val_w ? w : val_w;
	}
	for (i = 0; i < n->nkids; i++) {
		const struct node *k = n->kids[i];
		const char *label = label_of(o, k->key);

		if (k->kind != N_SCALAR) {
			fprintf(o->stream, "%*s%s:\n", indent, "", label);
			render(o, k, indent + 2);
			continue;
		}
		fprintf(o->stream, "%*s%s:%*s ", indent, "", label,
			key_w - (int)strlen(label) - 1, "");
		put_text(o, k->text, indent + key_w + 1);
		if (k->note)
			fprintf(o->stream, "%*s  # %s",
				val_w - (int)strlen(k->text), "", k->note);
		fputc('\n', o->stream);
	}
}

/*
 * A table column's header: the command's label, else the quantity's
 * abbreviation (vocab.h: defined once for every table), else the key
 * upper-cased.
 */
static void header_of(const struct xvbd_out *o, const char *key, char *buf,
		      size_t len)
{
	const char *label = label_of(o, key), *abbrev;
	size_t i;

	if (label == key && (abbrev = xvbd_q_abbrev(key)))
		label = abbrev;
	for (i = 0; label[i] && i + 1 < len; i++)
		buf[i] = label == key ?
			(char)toupper((unsigned char)(key[i] == '_' ? '-' :
						      key[i])) : label[i];
	buf[i] = '\0';
}

static void render_table(struct xvbd_out *o, const struct node *n,
			 int indent)
{
	const struct node *first = n->kids[0];
	size_t ncols = first->nkids, c, r;
	int *width = calloc(ncols ? ncols : 1, sizeof(*width));
	char hdr[64];

	if (!width) {
		o->failed = true;
		return;
	}
	/* Columns follow the first row; rows are built by one loop. */
	for (c = 0; c < ncols; c++) {
		header_of(o, first->kids[c]->key, hdr, sizeof(hdr));
		width[c] = (int)strlen(hdr);
	}
	for (r = 0; r < n->nkids; r++) {
		const struct node *row = n->kids[r];

		for (c = 0; c < ncols && c < row->nkids; c++) {
			const char *t = row->kids[c]->text ?
					row->kids[c]->text : "-";
			int w = (int)strlen(t);

			width[c] = w > width[c] ? w : width[c];
		}
	}
	fprintf(o->stream, "%*s", indent, "");
	for (c = 0; c < ncols; c++) {
		header_of(o, first->kids[c]->key, hdr, sizeof(hdr));
		fprintf(o->stream, "%-*s%s", c + 1 < ncols ? width[c] : 0,
			hdr, c + 1 < ncols ? "  " : "\n");
	}
	for (r = 0; r < n->nkids; r++) {
		const struct node *row = n->kids[r];

		fprintf(o->stream, "%*s", indent, "");
		for (c = 0; c < ncols; c++) {
			const char *t = c < row->nkids && row->kids[c]->text ?
					row->kids[c]->text : "-";

			fprintf(o->stream, "%-*s%s",
				c + 1 < ncols ? width[c] : 0, t,
				c + 1 < ncols ? "  " : "\n");
		}
	}
	free(width);
}

static void render(struct xvbd_out *o, const struct node *n, int indent)
{
	size_t i;

	if (n->kind == N_OBJ) {
		render_obj(o, n, indent);
		return;
	}
	if (n->nkids == 0) {
		if (n->parent)
			fprintf(o->stream, "%*s(none)\n", indent, "");
		return;
	}
	if (n->kids[0]->kind == N_OBJ) {
		render_table(o, n, indent);
		return;
	}
	for (i = 0; i < n->nkids; i++) {
		if (n->kids[i]->kind == N_SCALAR) {
			fprintf(o->stream, "%*s- ", indent, "");
			put_text(o, n->kids[i]->text, indent + 2);
			fputc('\n', o->stream);
		} else
			render(o, n->kids[i], indent + 2);
	}
}

void xvbd_out_status_always(struct xvbd_out *o, const char *msg)
{
	o->status_always = true;
	free(o->status_msg);
	o->status_msg = msg ? xvbd_escape(msg) : NULL;
	if (msg && !o->status_msg)
		o->failed = true;
}

/* "failed", "msg", "rc": the failure's status, in the open object. */
static void json_status(struct xvbd_out *o, yajl_gen g, int rc)
{
	const char *msg = rc ? xvbd_err_first() : o->status_msg;
	char *clean = msg ? xvbd_escape(msg) : NULL;

	yajl_gen_string(g, (const unsigned char *)"failed", 6);
	yajl_gen_bool(g, rc != 0);
	yajl_gen_string(g, (const unsigned char *)"msg", 3);
	if (clean)
		yajl_gen_string(g, (const unsigned char *)clean,
				strlen(clean));
	else if (rc)
		yajl_gen_string(g, (const unsigned char *)"failed", 6);
	else
		yajl_gen_string(g, (const unsigned char *)"", 0);
	yajl_gen_string(g, (const unsigned char *)"rc", 2);
	yajl_gen_integer(g, rc);
	free(clean);
}

/*
 * A failure without a document of its own to carry it: the status alone,
 * with the finished top-level array (what was done before it) as
 * "result".
 */
static void json_status_object(struct xvbd_out *o, int rc, bool with_doc)
{
	char *doc = o->jbuf;
	size_t dlen = with_doc ? o->jlen : 0;
	const unsigned char *buf;
	size_t len;
	yajl_gen g = yajl_gen_alloc(NULL);

	o->jbuf = NULL;
	o->jlen = o->jcap = 0;
	if (!g) {
		free(doc);
		o->failed = true;
		return;
	}
	yajl_gen_map_open(g);
	/* nothing of the command's own: it changed nothing (what a result
	 * for Ansible carries, which its changed_when may read) */
	if (!with_doc) {
		yajl_gen_string(g, (const unsigned char *)"changed", 7);
		yajl_gen_bool(g, false);
	}
	json_status(o, g, rc);
	yajl_gen_get_buf(g, &buf, &len);
	/* the open map's text, then the array and the closing brace */
	json_print(o, (const char *)buf, len);
	if (dlen) {
		json_print(o, ",\"result\":", 10);
		json_print(o, doc, dlen);
	}
	json_print(o, "}", 1);
	yajl_gen_free(g);
	free(doc);
}

/* The JSON document, with the status a failure (or the command) asks. */
static void json_finish(struct xvbd_out *o, int rc, bool complete)
{
	bool status = rc || o->status_always;

	if (complete && o->top_obj_open) {
		if (status)
			json_status(o, o->gen, rc);
		json_check(o, yajl_gen_map_close(o->gen));
	} else if (status) {
		json_status_object(o, rc, complete);
	} else if (!complete) {
		return;		/* nothing, or half a document: no JSON */
	}
	json_print(o, "\n", 1);
	if (fwrite(o->jbuf, 1, o->jlen, o->stream) != o->jlen)
		o->failed = true;
	o->jlen = 0;
}

int xvbd_out_finish_rc(struct xvbd_out *o, int rc)
{
	bool complete;

	if (o->finished)
		return o->failed ? -1 : 0;
	o->finished = true;
	complete = o->started && o->depth == 0 && o->done && !o->failed;
	/* Nothing emitted (e.g. help) is fine; a half document is not,
	 * unless a failure object stands in for it. */
	if (o->started && !complete && !(o->json && rc))
		o->failed = true;
	if (o->json)
		json_finish(o, rc, complete);
	else if (complete && out_rows_mode(o))
		out_rows_finish(o);
	else if (complete)
		render(o, o->root, 0);
	if (fflush(o->stream) || ferror(o->stream))
		o->failed = true;
	return o->failed ? -1 : 0;
}

int xvbd_out_finish(struct xvbd_out *o)
{
	return xvbd_out_finish_rc(o, 0);
}
