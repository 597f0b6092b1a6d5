/*
 * ab_plot_impl.h - the two-label picture's parts (ab_plot.c: the rows of
 * the metrics; ab_plot_cdf.c: the rows of the latency distributions).
 * Private to src/ab/.
 */
#ifndef XVBD_AB_PLOT_IMPL_H
#define XVBD_AB_PLOT_IMPL_H

#include <stddef.h>
#include <stdio.h>

#include "xvbd/ab/ab.h"

#define ROW_H		190
#define PLOT_H		130	/* inside a row, above the axis */
#define PLOT_COLOUR_A	"#1f77b4"
#define PLOT_COLOUR_B	"#d95f02"

/* Rows of latency distributions a and b have between them (0..2). */
size_t ab_plot_cdf_rows(const struct xvbd_ab_record *a, size_t na,
			const struct xvbd_ab_record *b, size_t nb);
/* Draw them from y down.  0 or -ENOMEM. */
int ab_plot_cdf(FILE *f, const struct xvbd_ab_record *a, size_t na,
		const struct xvbd_ab_record *b, size_t nb, double y);

#endif /* XVBD_AB_PLOT_IMPL_H */
