/*
 * ab_svg.c - the drawing helpers of `ab plot`'s pictures (see
 * ab_svg_impl.h).  Plain SVG 1.1: shapes and text, no script, no style
 * sheet, no external reference, so any browser shows it and it cannot
 * do anything else.  Pure.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_svg_impl.h"

void ab_svg_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 && *s != 0x7f)
				fputc(*s, f);
			break;
		}
	}
}

void ab_svg_text(FILE *f, double x, double y, const char *anchor,
		 const char *extra, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x,
		y, anchor, extra ? " " : "", extra ? extra : "");
	ab_svg_esc(f, s);
	fputs("</text>\n", f);
}

double ab_svg_width(const char *s, int size, bool bold)
{
	return (double)strlen(s) * size * (bold ? AB_SVG_CHAR_EM_BOLD :
					   AB_SVG_CHAR_EM);
}

void ab_svg_label(FILE *f, double x, double y, const char *anchor, int size,
		  bool bold, double max_px, const char *s)
{
	size_t fit = (size_t)(max_px / (size * (bold ? AB_SVG_CHAR_EM_BOLD :
						 AB_SVG_CHAR_EM)));
	size_t len = strlen(s), head;
	char attrs[64], *cut;

	snprintf(attrs, sizeof(attrs), "font-size=\"%d\"%s", size,
		 bold ? " font-weight=\"bold\"" : "");
	if (len <= fit) {
		ab_svg_text(f, x, y, anchor, attrs, s);
		return;
	}
	cut = malloc(fit + 1);
	if (!cut || fit < 4) {
		free(cut);
		return;		/* no room: no label rather than one outside */
	}
	/* the start and the end say most: labels, ids, their times */
	head = (fit - 3) / 2;
	memcpy(cut, s, head);
	memcpy(cut + head, "...", 3);
	memcpy(cut + head + 3, s + len - (fit - 3 - head), fit - 3 - head);
	cut[fit] = '\0';
	ab_svg_text(f, x, y, anchor, attrs, cut);
	free(cut);
}

double ab_svg_nice_ceil(double v)
{
	double p, m;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	if (m <= 1.0000001)
		return p;
	if (m <= 2)
		return 2 * p;
	if (m <= 5)
		return 5 * p;
	return 10 * p;
}

void ab_svg_axis(FILE *f, double x, double y0, double height, double top,
		 const char *unit)
{
	char buf[48];
	int i;

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#444\"/>\n", x, y0, x, y0 - height);
	for (i = 0; i <= 2; i++) {
		double y = y0 - height * i / 2.0;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#444\"/>\n", x - 4, y, x, y);
		snprintf(buf, sizeof(buf), "%g", top * i / 2.0);
		ab_svg_label(f, x - 6, y + 4, "end", 11, false, x - 10, buf);
	}
	/* above the axis, right-aligned to it: clear of a title beside */
	ab_svg_label(f, x - 6, y0 - height - 8, "end", 11, false, x - 10,
		     unit);
}

void ab_svg_begin(FILE *f, int width, size_t height, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" "
		"font-family=\"sans-serif\" font-size=\"13\">\n",
		width, height, width, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fputs("<title>", f);
	ab_svg_esc(f, title);
	fputs("</title>\n", f);
	ab_svg_label(f, 20, 26, "start", 16, true, width - 40, title);
}

int ab_svg_end(FILE *f, int rc, char **buf, const size_t *size, char **svg,
	       size_t *len)
{
	fputs("</svg>\n", f);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (!rc) {
		*svg = *buf;
		*len = *size;
		*buf = NULL;
	}
	return rc;
}
