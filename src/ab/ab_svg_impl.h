/*
 * ab_svg_impl.h - what the two pictures of `ab plot` (ab_plot.c: two
 * labels; ab_plot_levels.c: a metric against a sweep's levels) draw
 * with: escaped text, axes, a round top for them.  Plain SVG 1.1 into a
 * stdio stream.  Private to src/ab/.
 */
#ifndef XVBD_AB_SVG_IMPL_H
#define XVBD_AB_SVG_IMPL_H

#include <stdbool.h>
#include <stdio.h>

/* Text content and attribute values: the five XML specials escaped,
 * control bytes dropped (XML 1.0 allows none). */
void ab_svg_esc(FILE *f, const char *s);
/* <text> at x, y; extra: more attributes or NULL; s escaped. */
void ab_svg_text(FILE *f, double x, double y, const char *anchor,
		 const char *extra, const char *s);
/*
 * A label that stays inside max_px: <text> at x, y in a font of size px
 * (bold or not), its middle cut to "..." when the text is wider than
 * that at AB_SVG_CHAR_EM of the size per character (0.62, bold 0.68:
 * wider than DejaVu Sans' and Liberation Sans' ASCII on average, which
 * tests/svg-fit.sh takes as 0.6 and 0.65).
 */
#define AB_SVG_CHAR_EM		0.62
#define AB_SVG_CHAR_EM_BOLD	0.68
void ab_svg_label(FILE *f, double x, double y, const char *anchor, int size,
		  bool bold, double max_px, const char *s);
/* How wide ab_svg_label draws s at size (its estimate, in px). */
double ab_svg_width(const char *s, int size, bool bold);
/* 1, 2 or 5 times a power of ten, at least v (axis tops). */
double ab_svg_nice_ceil(double v);
/* A y axis at x from y0 up height: ticks 0, top/2, top, and the unit. */
void ab_svg_axis(FILE *f, double x, double y0, double height, double top,
		 const char *unit);
/* The document's head (its size, white ground) and its title. */
void ab_svg_begin(FILE *f, int width, size_t height, const char *title);
/*
 * The document's end: f (an open_memstream of *buf, *size) closed; when
 * rc and the close are fine, the picture handed to *svg, *len.  Returns
 * rc, or -ENOMEM when the stream failed.
 */
int ab_svg_end(FILE *f, int rc, char **buf, const size_t *size, char **svg,
	       size_t *len);

#endif /* XVBD_AB_SVG_IMPL_H */
