/*
 * ab_verdict.h - one metric's verdict as decisions, apart from its words
 * (src/ab/ab_verdict.c, ab_compare_pair.c; the words ab_compare_words.c):
 * the scale a verdict is on and its direction, why it is weak, its
 * intervals as confidence sets, what the runs needed say, and the
 * function every comparison of run summaries calls.  The metric's
 * comparison that holds them is struct xvbd_ab_metric_cmp (ab.h).
 */
#ifndef XVBD_AB_VERDICT_H
#define XVBD_AB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "xvbd/ab/ab_stat.h"

/*
 * The scale a metric's test is on, which is the scale of its direction
 * and of every number printed with it.
 */
enum xvbd_ab_scale {
	XVBD_AB_SCALE_DIFF,	/* B - A: Welch, Mann-Whitney (a rank test,
				   its direction U's), paired differences
				   where a value is not above 0 */
	XVBD_AB_SCALE_RATIO,	/* ln(B / A): the paired t of the pairs'
				   log-ratios; centres geometric means */
};

/* Why a verdict is weak: what the test used, not the records given. */
enum xvbd_ab_weak {
	XVBD_AB_WEAK_NO,
	XVBD_AB_WEAK_RUNS,	/* fewer than 3 runs with the metric on a
				   side (na, nb) */
	XVBD_AB_WEAK_PAIRS,	/* fewer than 3 pairs with it on both sides
				   (npairs) */
};
#define XVBD_AB_MIN_RUNS	3

/*
 * A confidence set of B - A (in the metric's unit) or of B/A - 1 (in %):
 * one interval, or with Fieller's interval of a ratio up to
 * XVBD_STAT_SET_MAX pieces.  An end beyond what a double holds is
 * infinite.  shape:
 *	NONE		no interval: why says (too few runs for the
 *			confidence, no ratio)
 *	BOUNDED		lo, hi finite; npieces > 1: the pieces, with gaps
 *			(lo, hi their outer ends)
 *	OPEN		one interval with an infinite end ("to +inf")
 *	UNBOUNDED	a set that holds +-inf (Fieller's when A's mean is
 *			not told from 0): no finite description
 */
enum xvbd_ab_ci_shape {
	XVBD_AB_CI_NONE,
	XVBD_AB_CI_BOUNDED,
	XVBD_AB_CI_OPEN,
	XVBD_AB_CI_UNBOUNDED,
};
enum xvbd_ab_ci_why {
	XVBD_AB_CI_WHY_NONE,
	XVBD_AB_CI_FEW_RUNS,	/* too few runs for one at this confidence */
	XVBD_AB_CI_NO_RATIO,	/* a value not above 0: no ratio */
	XVBD_AB_CI_A_NEAR_0,	/* A's mean not told from 0 (Fieller) */
};
struct xvbd_ab_ci {
	enum xvbd_ab_ci_shape shape;
	enum xvbd_ab_ci_why why;
	double lo, hi;			/* NAN when NONE or UNBOUNDED */
	size_t npieces;			/* BOUNDED, OPEN: >= 1 */
	double piece_lo[XVBD_STAT_SET_MAX], piece_hi[XVBD_STAT_SET_MAX];
};
/* Both ends finite: what JSON gives as numbers (both, or neither). */
bool xvbd_ab_ci_bounded(const struct xvbd_ab_ci *ci);

/* What the runs needed say (JSON runs_needed_status). */
enum xvbd_ab_runs {
	XVBD_AB_RUNS_UNKNOWN,	/* no variance to size from, or unknown */
	XVBD_AB_RUNS_SETTLED,	/* better or worse: none needed */
	XVBD_AB_RUNS_RULED_OUT,	/* the interval already excludes
				   +-min_effect: the runs made rule it out */
	XVBD_AB_RUNS_NEEDED,	/* runs_needed runs per side, or pairs */
	XVBD_AB_RUNS_BEYOND,	/* more than XVBD_STAT_RUNS_NEEDED_MAX */
};

struct xvbd_ab_comparison;
struct xvbd_ab_metric_cmp;

/*
 * One metric's decision from its values: the seam every comparison of
 * run summaries goes through (xvbd_ab_compare for each metric of two
 * labels, and any other: a level of a sweep against another, a metric
 * from the guest's side).  The test, the verdict, its direction and
 * scale, why it is weak, the intervals, the equivalence and the runs
 * needed; no words (xvbd_ab_verdict_text, the render).  a[na], b[nb]:
 * each run's value, NAN where the run does not know it; with npairs,
 * pair k is a[ia[k]] with b[ib[k]], which c->test PAIRED uses.  The
 * options are c's (confidence, test, equivalence, min_effect, power);
 * out->metric names the metric (its sense and words).  Values within
 * XVBD_AB_SAME_REL of each other count as one value: run summaries are
 * quotients of integer counters, and the same rate over different
 * lengths rounds differently (1.6 and 1.5999999999999999 MB/s), while
 * no counter resolves a real difference that small unless it counted
 * 10^12 events.
 */
#define XVBD_AB_SAME_REL	1e-12
struct xvbd_ab_values {
	const double *a, *b;
	size_t na, nb;
	const size_t *ia, *ib;
	size_t npairs;
};
int xvbd_ab_metric_decide(const struct xvbd_ab_comparison *c,
			  const struct xvbd_ab_values *v,
			  struct xvbd_ab_metric_cmp *out);
/*
 * The verdict in words, as JSON's text gives it ("B faster by 12.3 % +-
 * 3.4 %"; "weak: 2 pairs (3 needed): B-A +9.5 % (-99.9 % to +inf), B
 * higher, not proven"): a direction word always follows the sign of the
 * number it names, and an interval end is a number of bounded width or
 * +-inf.  -ENOSPC, with buf empty, when len cannot hold it (never cut
 * mid-number; XVBD_AB_VERDICT_TEXT_MAX always can).
 */
#define XVBD_AB_VERDICT_TEXT_MAX	256
int xvbd_ab_verdict_text(const struct xvbd_ab_comparison *c,
			 const struct xvbd_ab_metric_cmp *mc, char *buf,
			 size_t len);
#endif /* XVBD_AB_VERDICT_H */
