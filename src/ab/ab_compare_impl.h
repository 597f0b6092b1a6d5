/*
 * ab_compare_impl.h - what ab_compare.c and ab_compare_pair.c share:
 * the pairing of one ab run experiment's records, the paired test of a
 * metric, its equivalence and runs needed.  Private to src/ab/.
 */
#ifndef XVBD_AB_COMPARE_IMPL_H
#define XVBD_AB_COMPARE_IMPL_H

#include "xvbd/ab/ab.h"
#include "xvbd/ab/ab_stat.h"

/* Append the formatted text to c's warnings; -ENOMEM. */
int ab_warn(struct xvbd_ab_comparison *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Pair k: A's run ia[k] and B's run ib[k], by pair index.  n 0: none. */
struct ab_pairing {
	size_t n;
	size_t *ia, *ib;
};

/* Fill p when xvbd_ab_records_paired(); else p->n = 0. */
int ab_pairing_make(const struct xvbd_ab_record *a, size_t na,
		    const struct xvbd_ab_record *b, size_t nb,
		    struct ab_pairing *p);
void ab_pairing_free(struct ab_pairing *p);

/*
 * The paired test of mc->metric into st (whose centres and half-widths,
 * each side's own, are kept) and the ratio B/A with its interval into
 * r, lo, hi.  1 when done; 0 when fewer than 2 pairs know the metric
 * (the caller's unpaired test then stands); negative errno.
 */
int ab_metric_paired(struct xvbd_ab_metric_cmp *mc,
		     const struct xvbd_ab_summary *sa,
		     const struct xvbd_ab_summary *sb,
		     const struct ab_pairing *pg, double confidence,
		     struct xvbd_stat_cmp *st, double *r, double *lo,
		     double *hi);

/*
 * The equivalence (when c->equivalence) and the runs needed of a metric
 * whose test is done: xa, xb are its known values of A and B.
 */
int ab_metric_extras(const struct xvbd_ab_comparison *c,
		     struct xvbd_ab_metric_cmp *mc, const double *xa,
		     const double *xb, const struct xvbd_ab_summary *sa,
		     const struct xvbd_ab_summary *sb,
		     const struct ab_pairing *pg);

/* MWU's ratio B/A: the Hodges-Lehmann shift of ln(x), exponentiated. */
void ab_mwu_ratio(const double *xa, size_t na, const double *xb, size_t nb,
		  double confidence, double *r, double *lo, double *hi);

/*
 * Each run of side ("A", "B") whose I/O went elsewhere than its figures
 * say, or whose guest clock ran fast: a warning per flag
 * (src/ab/ab_account.c).
 */
int ab_account_compare(struct xvbd_ab_comparison *c, const char *side,
		       const struct xvbd_ab_record *r, size_t n);

/*
 * The runs r[n] of side ("A", "B") flagged for interference at threshold
 * (a fraction of the host's CPUs; 0: the default) into c->interf, each
 * with its warnings (src/ab_interf.c).
 */
int ab_interf_compare(struct xvbd_ab_comparison *c, const char *side,
		      const struct xvbd_ab_record *r, size_t n,
		      double threshold);

#endif /* XVBD_AB_COMPARE_IMPL_H */
