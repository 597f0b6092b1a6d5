/*
 * ab_stat_impl.h - what the statistics' files share beyond ab_stat.h:
 * the t distribution's upper tail and the incomplete beta function
 * (ab_stat_dist.c), and the checks every test makes of its input.
 * Private to src/ab/.
 */
#ifndef XVBD_AB_STAT_IMPL_H
#define XVBD_AB_STAT_IMPL_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "xvbd/ab/ab_stat.h"

/* P(T > t) for t >= 0, T Student's t on df > 0. */
double ab_stat_t_upper(double t, double df);
/*
 * Regularised incomplete beta I_x(a, b), with y = 1 - x passed by the
 * caller, who can often compute it without cancellation.
 */
double ab_stat_ibeta(double a, double b, double x, double y);

static inline bool ab_stat_finite_all(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

static inline int ab_stat_check_conf(double confidence)
{
	return isfinite(confidence) && confidence > 0 && confidence < 1 ?
	       0 : -EINVAL;
}

#endif /* XVBD_AB_STAT_IMPL_H */
