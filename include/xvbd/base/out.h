/*
 * out.h - one render path for text, JSON, CSV and Prometheus (iproute2
 * style).
 *
 * Commands describe their output once, through these calls; the same
 * calls give JSON (yajl, one document, not beautified), text, or rows:
 *  - an object prints as aligned "label  value  note" lines,
 *  - an array of objects prints as an aligned table with a header row,
 *  - an array of scalars prints as "- value" lines,
 *  - nested containers print under a "label:" line, indented.
 * In the row modes (CSV, the Prometheus textfile format) each object that
 * is an element of an array is a row; its fields are the row's cells,
 * and the fields of the objects around it are cells of every row inside
 * them (a sample's time in each of its rows).  Arrays inside a row are
 * left out.
 * Text is buffered until xvbd_out_finish(), which also reports whether
 * writing stdout failed.  Strings are sanitized: bytes outside printable
 * ASCII become "\xNN" (xenstore values may be guest-written).
 * key is NULL for the top level and for array elements.
 */
#ifndef XVBD_OUT_H
#define XVBD_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct xvbd_out;

/* Text label for a key (table headers, key-value lines). */
struct xvbd_out_label {
	const char *key;
	const char *label;
};

enum xvbd_out_mode {
	XVBD_OUT_TEXT,
	XVBD_OUT_JSON,
	XVBD_OUT_CSV,		/* RFC 4180, a row per line */
	XVBD_OUT_PROM,		/* node_exporter's textfile format */
};

/* xvbd_out_new(stream, json): text or JSON. */
struct xvbd_out *xvbd_out_new(FILE *stream, bool json);
struct xvbd_out *xvbd_out_new_mode(FILE *stream, enum xvbd_out_mode mode);
enum xvbd_out_mode xvbd_out_mode(const struct xvbd_out *o);
/*
 * CSV: the columns, by field key, in order (the array must outlive the
 * out handle); header: print them as the first line.  A row's field that
 * is no column is left out; a column the row lacks is an empty cell.
 */
void xvbd_out_csv_columns(struct xvbd_out *o, const char *const *keys,
			  size_t n, bool header);
/*
 * Prometheus: each metric family is read from one field of the rows
 * that have it known (a null or absent field: no sample), labelled with
 * the label_keys the row has, in that order.  Families print in the
 * order given, each with its HELP and TYPE lines, after all rows.
 */
enum xvbd_out_prom_unit {
	XVBD_PROM_AS_IS,	/* the field's digits */
	XVBD_PROM_NS_AS_S,	/* an integer of ns as seconds, exactly */
	XVBD_PROM_SECTORS_AS_BYTES,	/* x 512 */
	XVBD_PROM_MS_AS_S,	/* a fixed value in ms as seconds, 6 decimals */
	XVBD_PROM_FIXED6,	/* a fixed value with 6 decimals */
};
struct xvbd_out_prom_metric {
	const char *key;	/* the field it is read from */
	const char *name, *type, *help;
	enum xvbd_out_prom_unit unit;
	/*
	 * A histogram's samples: "_bucket", "_sum", "_count" appended to
	 * name; the entries after the first of a family have no type (and
	 * no help): they continue it without HELP and TYPE lines.
	 */
	const char *suffix;
};
void xvbd_out_prom_metrics(struct xvbd_out *o,
			   const struct xvbd_out_prom_metric *metrics,
			   size_t nmetrics, const char *const *label_keys,
			   size_t nlabels);
/* NULL-terminated; the array must outlive the out handle. */
void xvbd_out_labels(struct xvbd_out *o, const struct xvbd_out_label *labels);
/*
 * Text: a value of a "label: value" line or an item of a "- item" list
 * longer than cols goes on under itself, broken between words (a word
 * longer than the line stays whole); tables are the caller's to fit.
 * 0 (the default): never.
 */
void xvbd_out_wrap(struct xvbd_out *o, int cols);
/* How much the reader asked to see (-v), for renderers that say more. */
void xvbd_out_set_verbose(struct xvbd_out *o, int level);
int xvbd_out_verbose(const struct xvbd_out *o);

void xvbd_out_obj_begin(struct xvbd_out *o, const char *key);
void xvbd_out_obj_end(struct xvbd_out *o);
void xvbd_out_arr_begin(struct xvbd_out *o, const char *key);
void xvbd_out_arr_end(struct xvbd_out *o);

void xvbd_out_str(struct xvbd_out *o, const char *key, const char *value);
void xvbd_out_uint(struct xvbd_out *o, const char *key, uint64_t value);
/* known == false -> null / "-" */
void xvbd_out_uint_opt(struct xvbd_out *o, const char *key, bool known,
		       uint64_t value);
void xvbd_out_bool(struct xvbd_out *o, const char *key, bool value);
void xvbd_out_bool_opt(struct xvbd_out *o, const char *key, bool known,
		       bool value);
void xvbd_out_null(struct xvbd_out *o, const char *key);
/* Bytes: a number in JSON, "1.5G" in text. */
void xvbd_out_size_opt(struct xvbd_out *o, const char *key, bool known,
		       uint64_t bytes);
/*
 * A fractional number with a fixed count of decimals, the same digits in
 * text and JSON ("12.50"); known == false -> null / "-".
 */
void xvbd_out_fixed_opt(struct xvbd_out *o, const char *key, bool known,
			double value, int decimals);
/*
 * A number of any magnitude (a p-value of 3e-18): JSON carries it to
 * full precision (%.17g), the text form to 3 significant digits; known
 * == false or not finite -> null / "-".
 */
void xvbd_out_double_opt(struct xvbd_out *o, const char *key, bool known,
			 double value);
/* Text-only annotation of the field just emitted (JSON ignores it). */
void xvbd_out_note(struct xvbd_out *o, const char *note);
/*
 * For output whose text form must differ from the JSON form (a text
 * cell "1523 +- 40 (n=5)" against three JSON numbers), iproute2's
 * print_* split: the caller emits the text fields or the JSON fields.
 */
bool xvbd_out_is_json(const struct xvbd_out *o);
/* Text mode (not JSON, not rows): the human form of a field. */
bool xvbd_out_is_text(const struct xvbd_out *o);

/*
 * Render/flush, once (later calls only return the first one's result).
 * 0 on success (also when nothing was emitted), -1 if the document is
 * incomplete, the calls were misused, or writing failed.
 */
int xvbd_out_finish(struct xvbd_out *o);
/*
 * The same with the command's exit code.  In JSON mode a failure (rc not
 * 0) is always one object on stdout, for scripts and Ansible's from_json:
 * "failed": true, "msg" (the first error xvbd printed, xvbd_err_first())
 * and "rc", added to the command's own top-level object when it finished
 * one, around its top-level array ("result") when it finished that, else
 * alone with "changed": false (a half-written document is dropped: the
 * command changed nothing it could report).  Text mode: as finish.
 * This is the one place that writes the failure object.
 */
int xvbd_out_finish_rc(struct xvbd_out *o, int rc);
/*
 * Also on success, add "failed": false, "msg" (msg, or "") and "rc": 0
 * to the top-level object (apply: the shape Ansible reads every time).
 */
void xvbd_out_status_always(struct xvbd_out *o, const char *msg);
void xvbd_out_free(struct xvbd_out *o);

#endif /* XVBD_OUT_H */
