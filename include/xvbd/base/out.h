/*
 * out.h - one render path for text and JSON (iproute2 style).
 *
 * Commands describe their output once, through these calls; the same
 * calls give either JSON (yajl, one document, not beautified) or text:
 *  - an object prints as aligned "label  value  note" lines,
 *  - an array of objects prints as an aligned table with a header row,
 *  - an array of scalars prints as "- value" lines,
 *  - nested containers print under a "label:" line, indented.
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

struct xvbd_out *xvbd_out_new(FILE *stream, bool json);
/* NULL-terminated; the array must outlive the out handle. */
void xvbd_out_labels(struct xvbd_out *o, const struct xvbd_out_label *labels);

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

/*
 * Render/flush.  0 on success (also when nothing was emitted), -1 if the
 * document is incomplete, the calls were misused, or writing failed.
 */
int xvbd_out_finish(struct xvbd_out *o);
void xvbd_out_free(struct xvbd_out *o);

#endif /* XVBD_OUT_H */
