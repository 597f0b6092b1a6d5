/*
 * out_rows.c - the out layer's row modes: CSV and the Prometheus
 * textfile format, fed by the same calls as text and JSON.
 *
 * An object that is an element of an array is a row; the fields of the
 * objects around it are context, a cell of every row inside them.  CSV
 * prints each row as it ends; Prometheus keeps the rows and prints, at
 * finish, each metric family with one sample per row that has it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "xvbd/base/out.h"
#include "out_impl.h"

#define NS_PER_S		UINT64_C(1000000000)
#define SECTOR_BYTES		512

bool out_rows_mode(const struct xvbd_out *o)
{
	return o->mode == XVBD_OUT_CSV || o->mode == XVBD_OUT_PROM;
}

void xvbd_out_csv_columns(struct xvbd_out *o, const char *const *keys,
			  size_t n, bool header)
{
	o->rows.columns = keys;
	o->rows.ncolumns = n;
	o->rows.header = header;
}

void xvbd_out_prom_metrics(struct xvbd_out *o,
			   const struct xvbd_out_prom_metric *metrics,
			   size_t nmetrics, const char *const *label_keys,
			   size_t nlabels)
{
	o->rows.metrics = metrics;
	o->rows.nmetrics = nmetrics;
	o->rows.label_keys = label_keys;
	o->rows.nlabels = nlabels;
}

static void cell_free(struct out_cell *c)
{
	free(c->key);
	free(c->text);
}

static void row_clear(struct out_row *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		cell_free(&r->cells[i]);
	r->n = 0;
}

static void row_free(struct out_row *r)
{
	row_clear(r);
	free(r->cells);
	r->cells = NULL;
	r->cap = 0;
}

/* Set key's cell in r (a key given twice keeps the last value). */
static int row_set(struct out_row *r, const struct out_cell *c)
{
	struct out_cell copy = *c;
	size_t i;

	copy.key = strdup(c->key);
	copy.text = strdup(c->text);
	if (!copy.key || !copy.text) {
		cell_free(&copy);
		return -1;
	}
	for (i = 0; i < r->n; i++) {
		if (strcmp(r->cells[i].key, c->key))
			continue;
		cell_free(&r->cells[i]);
		r->cells[i] = copy;
		return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct out_cell *cells = realloc(r->cells,
						 cap * sizeof(*cells));

		if (!cells) {
			cell_free(&copy);
			return -1;
		}
		r->cells = cells;
		r->cap = cap;
	}
	r->cells[r->n++] = copy;
	return 0;
}

static const struct out_cell *row_get(const struct out_row *r,
				      const char *key)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->cells[i].key, key))
			return &r->cells[i];
	return NULL;
}

void out_rows_begin(struct xvbd_out *o, bool arr)
{
	struct out_rows *rs = &o->rows;

	if (o->depth > OUT_DEPTH_MAX) {
		o->failed = true;
		return;
	}
	rs->is_arr[o->depth] = arr;
	/* An array's object element, outside any row: a row begins. */
	if (!arr && !rs->row_depth && o->depth > 1 && rs->is_arr[o->depth - 1])
		rs->row_depth = o->depth;
}

/* RFC 4180 quoting; control bytes become \xNN like the out layer's. */
static void csv_put(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;
	const unsigned char *p;

	if (quote)
		fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"')
			fputs("\"\"", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	if (quote)
		fputc('"', f);
}

static void csv_header(struct xvbd_out *o)
{
	struct out_rows *rs = &o->rows;
	size_t i;

	if (!rs->header)
		return;
	for (i = 0; i < rs->ncolumns; i++) {
		if (i)
			fputc(',', o->stream);
		csv_put(o->stream, rs->columns[i]);
	}
	fputc('\n', o->stream);
	rs->header = false;
}

static void csv_row(struct xvbd_out *o, const struct out_row *r)
{
	struct out_rows *rs = &o->rows;
	const struct out_cell *c;
	size_t i;

	csv_header(o);
	for (i = 0; i < rs->ncolumns; i++) {
		if (i)
			fputc(',', o->stream);
		c = row_get(r, rs->columns[i]);
		if (!c)
			c = row_get(&rs->context, rs->columns[i]);
		csv_put(o->stream, c ? c->text : "");
	}
	fputc('\n', o->stream);
}

/* Prometheus keeps the row whole: its own cells, then its context. */
static int keep_row(struct out_rows *rs)
{
	struct out_row *r;
	size_t i;

	if (rs->nkept == rs->capkept) {
		size_t cap = rs->capkept ? rs->capkept * 2 : 16;
		struct out_row *kept = realloc(rs->kept, cap * sizeof(*kept));

		if (!kept)
			return -1;
		rs->kept = kept;
		rs->capkept = cap;
	}
	r = &rs->kept[rs->nkept++];
	*r = rs->row;
	memset(&rs->row, 0, sizeof(rs->row));
	for (i = 0; i < rs->context.n; i++)
		if (!row_get(r, rs->context.cells[i].key) &&
		    row_set(r, &rs->context.cells[i]))
			return -1;
	return 0;
}

void out_rows_end(struct xvbd_out *o)
{
	struct out_rows *rs = &o->rows;
	size_t i, kept = 0;

	if (rs->row_depth && o->depth == rs->row_depth) {
		if (o->mode == XVBD_OUT_CSV)
			csv_row(o, &rs->row);
		else if (keep_row(rs))
			o->failed = true;
		row_clear(&rs->row);
		rs->row_depth = 0;
		return;
	}
	/* The object that set context fields ends: they end with it. */
	for (i = 0; i < rs->context.n; i++) {
		if (rs->context.cells[i].depth >= o->depth)
			cell_free(&rs->context.cells[i]);
		else
			rs->context.cells[kept++] = rs->context.cells[i];
	}
	rs->context.n = kept;
}

void out_rows_field(struct xvbd_out *o, const char *key,
		    enum cell_kind kind, const char *text, uint64_t u,
		    double d)
{
	struct out_rows *rs = &o->rows;
	struct out_cell c = { .key = (char *)key, .text = (char *)text,
			      .kind = kind, .u = u, .d = d,
			      .depth = o->depth };

	/* Array elements are no cells; nor are fields nested in a row. */
	if (!key || rs->is_arr[o->depth])
		return;
	if (rs->row_depth && o->depth != rs->row_depth)
		return;
	if (row_set(rs->row_depth ? &rs->row : &rs->context, &c))
		o->failed = true;
}

/* Label values: backslash, double quote and newline are escaped. */
static void prom_label(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

static void prom_sample(struct xvbd_out *o, const struct out_row *r,
			const struct xvbd_out_prom_metric *m,
			const struct out_cell *v)
{
	const struct out_rows *rs = &o->rows;
	const struct out_cell *l;
	size_t i;
	bool any = false;

	fputs(m->name, o->stream);
	if (m->suffix)
		fputs(m->suffix, o->stream);
	for (i = 0; i < rs->nlabels; i++) {
		l = row_get(r, rs->label_keys[i]);
		if (!l || l->kind == C_NULL)
			continue;
		fprintf(o->stream, "%s%s=\"", any ? "," : "{",
			rs->label_keys[i]);
		prom_label(o->stream, l->text);
		fputc('"', o->stream);
		any = true;
	}
	if (any)
		fputc('}', o->stream);
	switch (m->unit) {
	case XVBD_PROM_NS_AS_S:
		fprintf(o->stream, " %" PRIu64 ".%09" PRIu64 "\n",
			v->u / NS_PER_S, v->u % NS_PER_S);
		break;
	case XVBD_PROM_SECTORS_AS_BYTES:
		fprintf(o->stream, " %" PRIu64 "\n", v->u * SECTOR_BYTES);
		break;
	case XVBD_PROM_MS_AS_S:
		fprintf(o->stream, " %.6f\n", v->d / 1000.0);
		break;
	case XVBD_PROM_FIXED6:
		fprintf(o->stream, " %.6f\n", v->d);
		break;
	default:
		fprintf(o->stream, " %s\n", v->text);
		break;
	}
}

void out_rows_finish(struct xvbd_out *o)
{
	const struct out_rows *rs = &o->rows;
	const struct xvbd_out_prom_metric *m;
	const struct out_cell *v;
	size_t i, j;

	if (o->mode == XVBD_OUT_CSV)
		csv_header(o);	/* no row: the header alone */
	if (o->mode != XVBD_OUT_PROM)
		return;
	for (i = 0; i < rs->nmetrics; i++) {
		m = &rs->metrics[i];
		if (m->type)
			fprintf(o->stream, "# HELP %s %s\n# TYPE %s %s\n",
				m->name, m->help, m->name, m->type);
		for (j = 0; j < rs->nkept; j++) {
			v = row_get(&rs->kept[j], m->key);
			/* The unit's arithmetic needs the value's kind. */
			if (!v || v->kind == C_NULL || v->kind == C_STR ||
			    ((m->unit == XVBD_PROM_NS_AS_S ||
			      m->unit == XVBD_PROM_SECTORS_AS_BYTES) &&
			     v->kind != C_UINT) ||
			    ((m->unit == XVBD_PROM_MS_AS_S ||
			      m->unit == XVBD_PROM_FIXED6) &&
			     v->kind != C_FIXED))
				continue;
			prom_sample(o, &rs->kept[j], m, v);
		}
	}
}

void out_rows_free(struct xvbd_out *o)
{
	struct out_rows *rs = &o->rows;
	size_t i;

	row_free(&rs->row);
	row_free(&rs->context);
	for (i = 0; i < rs->nkept; i++)
		row_free(&rs->kept[i]);
	free(rs->kept);
	rs->kept = NULL;
	rs->nkept = rs->capkept = 0;
}
