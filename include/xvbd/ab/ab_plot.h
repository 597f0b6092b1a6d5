/*
 * ab_plot.h - `xvbd ab plot`: two labels' runs as a plain SVG picture
 * (src/ab_plot.c, pure: the command writes the file).
 *
 * One row per metric: on the left every run summary of A and of B as a
 * dot, side by side, with each label's centre (mean, or median with
 * Mann-Whitney U) as a bar; on the right the time series of one run of
 * each label, the rate of every interval recomputed from the raw
 * counters (xvbd_ab_interval_get()), with gaps where an interval was
 * left out.  SVG 1.1, no script, no external reference; every text is
 * escaped.  Rates start at 0 on every axis.
 */
#ifndef XVBD_AB_PLOT_H
#define XVBD_AB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "xvbd/ab/ab.h"

struct xvbd_ab_plot_opts {
	const bool *metrics;		/* [XVBD_AB_NMETRICS]; NULL: all */
	enum xvbd_ab_test test;		/* which centre to draw */
	size_t series_a, series_b;	/* index of the run drawn over time */
};

/*
 * The picture of records a[0..na-1] (label A) against b[0..nb-1] (label
 * B), na, nb >= 1.  *svg malloc'd, NUL-terminated, *len bytes.
 * Metrics unknown or 0 in every run of both labels are left out.
 */
int xvbd_ab_plot_svg(const struct xvbd_ab_record *a, size_t na,
		     const struct xvbd_ab_record *b, size_t nb,
		     const struct xvbd_ab_plot_opts *opts, char **svg,
		     size_t *len);

#endif /* XVBD_AB_PLOT_H */
