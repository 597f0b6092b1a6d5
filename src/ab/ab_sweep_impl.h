/*
 * ab_sweep_impl.h - what ab_sweep.c, ab_sweep_fam.c and
 * ab_sweep_render.c share.  Private to src/ab/.
 */
#ifndef XVBD_AB_SWEEP_IMPL_H
#define XVBD_AB_SWEEP_IMPL_H

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"
#include "xvbd/ab/ab_sweep.h"

/* Append the formatted text to s's own warnings; -ENOMEM. */
int ab_sweep_warn(struct xvbd_ab_sweep *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * After the k - 1 comparisons of the levels used (blocks kept): Holm
 * over levels x metrics shown, each verdict it overturns said so, and
 * the runs needed at the family's level.
 */
int ab_sweep_family(struct xvbd_ab_sweep *s, const struct xvbd_ab_level *used,
		    const struct xvbd_ab_sweep_opts *opts);
/* The geometric mean row of the rates (ab_sweep.h). */
int ab_sweep_geomean(struct xvbd_ab_sweep *s,
		     const struct xvbd_ab_level *used, const bool *shown);

/* "better", "worse", "no-difference", "weak", "unknown" (JSON words). */
const char *ab_sweep_verdict_key(enum xvbd_ab_verdict v);

#endif /* XVBD_AB_SWEEP_IMPL_H */
