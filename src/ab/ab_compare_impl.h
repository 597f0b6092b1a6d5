/*
 * ab_compare_impl.h - what the comparison's files share (ab_compare.c,
 * ab_verdict.c, ab_compare_pair.c, ab_compare_words.c): the pairing of
 * one ab run experiment's records, confidence sets, the paired test of a
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

/* Confidence sets (ab_verdict.c): none, from two ends, mapped. */
void ab_ci_none(struct xvbd_ab_ci *ci, enum xvbd_ab_ci_why why);
void ab_ci_ends(struct xvbd_ab_ci *ci, double lo, double hi,
		enum xvbd_ab_ci_why why);
void ab_ci_map(struct xvbd_ab_ci *ci, double (*f)(double), double scale);
int ab_sign(double x);
/* Every value above 0: the ratios exist. */
bool ab_all_positive(const double *x, size_t n);

/*
 * The paired t of one metric on its np pairs (pa[k], pb[k]) into mc: on
 * the log-ratios where every value is above 0 (scale RATIO: geometric
 * means, B - A at A's, the raw differences beside), else on the
 * differences.  1 when done; 0 when fewer than 2 pairs (the caller's
 * Welch then stands); negative errno.
 */
int ab_metric_paired(const struct xvbd_ab_comparison *c,
		     struct xvbd_ab_metric_cmp *mc, const double *pa,
		     const double *pb, size_t np, bool *significant);

/*
 * The equivalence (when c->equivalence) and the runs needed of a metric
 * whose test is judged: xa, xb its known values of A and B, pa, pb its
 * np pairs.
 */
int ab_metric_extras(const struct xvbd_ab_comparison *c,
		     struct xvbd_ab_metric_cmp *mc, const double *xa,
		     const double *xb, const double *pa, const double *pb,
		     size_t np);
/* A verdict's JSON word: "better", "worse", "no-difference", ... */
const char *ab_verdict_name(enum xvbd_ab_verdict v);
/* What the runs needed say, from the verdict and the numbers. */
enum xvbd_ab_runs ab_runs_status(const struct xvbd_ab_comparison *c,
				 const struct xvbd_ab_metric_cmp *mc);

/*
 * The text table's cells (ab_compare_words.c), numbers of bounded width,
 * intervals whole: B - A with its set ("+187.0 +- 52.0 IO/s"), a centre
 * ("1523.0 +- 40.0 (n=5)").  -ENOSPC, buf empty, when it does not fit.
 */
int ab_fmt_signed(char *buf, size_t len, double v,
		  const struct xvbd_ab_ci *ci, const char *unit, int decimals);
int ab_fmt_centre(char *buf, size_t len, double centre, double half,
		  size_t n, int decimals);
/* One number of bounded width: fixed decimals below 1e9, 3 digits
 * above, "+inf"; sign: with its sign always. */
int ab_fmt_num(char *buf, size_t len, double x, int decimals, bool sign);
/* A set alone: "-0.8 to +1.1 %", its pieces joined by "or",
 * "unbounded: <why>"; -ENOENT (buf empty) for none. */
int ab_fmt_ci(char *buf, size_t len, const struct xvbd_ab_ci *ci,
	      const char *unit, int decimals);

struct xvbd_out;
/*
 * The text tables' cells (ab_compare_text.c), for the two labels' table
 * and the sweep's: a centre "1523.0 +-2.6%" (" n=3" when n is not every
 * run, "-" unknown); B-A % "+12.3% +-1.2", "+12.3% [+8.0,+20.1]", pieces
 * joined by "u"; a metric with its unit "read_iops IO/s".  snprintf's
 * return.
 */
int ab_cell_centre(char *buf, size_t len, double centre, double half,
		   size_t n, size_t runs, int decimals);
int ab_cell_pct(char *buf, size_t len, double v, const struct xvbd_ab_ci *ci);
int ab_cell_metric(char *buf, size_t len, int m);
/*
 * No data on either side: unknown on both, or 0 in every run (all_zero).
 * The text table leaves such a metric out and names it in one line:
 * none[m] and zero[m] as KEY, nothing when there is none.
 */
bool ab_metric_no_data(const struct xvbd_ab_metric_cmp *mc);
bool ab_metric_all_zero(const struct xvbd_ab_metric_cmp *mc);
void ab_no_data_line(struct xvbd_out *o, const char *key,
		     const bool *none, const bool *zero);
/*
 * The verdict in words with the p that decided it (Holm's when the
 * comparison is adjusted): "B faster (p=5.6e-07)", "no difference proven
 * (p=0.31)", "weak: 5 and 2 runs, not proven", why it is unknown.
 */
void ab_verdict_short(char *buf, size_t len,
		      const struct xvbd_ab_comparison *c,
		      const struct xvbd_ab_metric_cmp *mc);
/* The paired metrics whose raw mean goes the other way, as warnings. */
void ab_raw_notes(struct xvbd_out *o, const struct xvbd_ab_comparison *c,
		  const bool *shown);
/* The two labels' text form, inside the comparison's object. */
void ab_compare_text(struct xvbd_out *o, const struct xvbd_ab_comparison *c,
		     const bool *shown);

/*
 * JSON of a set (ab_compare_render.c): KEY_lo and KEY_hi, both numbers or
 * both null; with shape, KEY_interval its shape's name.
 */
void ab_ci_json(struct xvbd_out *o, const char *key,
		const struct xvbd_ab_ci *ci, int d, bool shape);
const char *ab_ci_shape_name(const struct xvbd_ab_ci *ci);
/* "settled", "ruled-out", "needed", "beyond-cap", "unknown" */
const char *ab_runs_status_name(enum xvbd_ab_runs r);

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
