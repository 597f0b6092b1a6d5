/*
 * ab_stat_fieller.c - Fieller's confidence set for the ratio of two
 * independent means with unequal variances (see ab_stat.h): the ratios r
 * for which Welch's t of mean B - r mean A is not rejected,
 *	(mb - r ma)^2 <= t_{df(r)}^2 (vb + r^2 va),
 * va, vb the squared standard errors, df(r) the Welch-Satterthwaite
 * degrees of freedom of that combination.
 *
 * With a t that moves with r the set need not be one interval: near r =
 * 0 the combination is mostly B's own mean, with B's few degrees of
 * freedom, and ratios there can pass while ratios between them and the
 * estimate do not (A = 4, 3, 4, 8, 5 against B = 5, 6 at 95 %: -105 to
 * -80 % and -30.9 to +126.1 %).  So the whole line is searched.
 *
 * The search runs in an angle phi instead of r: with r = k tan(phi),
 * k = sqrt(vb / va), the statistic's square root is |zb cos(phi) - za
 * sin(phi)| (za, zb each side's own t of its mean against 0) and the
 * degrees of freedom are 1 / (cos^4(phi) / dfb + sin^4(phi) / dfa): the
 * line becomes the bounded (-pi/2, pi/2), infinity its ends, and both
 * sides of the inequality are smooth and monotone between a few known
 * points (the statistic's zero, at the estimate, and its peak; 0, the
 * df's peak at tan^2 = dfa / dfb, and the ends).  Between those points
 * the values at a cell's ends bound the whole cell, so a cell is
 * certainly in or out, or split; the few left undecided straddle the
 * set's ends, which a regula falsi then finds.  Pure.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ab_stat_impl.h"

/* Cells narrower than this (radians) are decided by their ends. */
#define FIELLER_CELL_MIN	1e-7
#define FIELLER_ROOT_ITER_MAX	200
#define FIELLER_CRIT_MAX	8

struct fieller {
	double za, zb;		/* each side's t of its mean against 0 */
	double dfa, dfb;
	double q;		/* (1 + confidence) / 2 */
	double k;		/* r = k tan(phi) */
};

/* The statistic's root minus the critical value at phi: <= 0 inside. */
static double fieller_d(const struct fieller *f, double phi, double *lhs,
			double *crit)
{
	double c = cos(phi), s = sin(phi), c4, s4, df;

	if (fabs(phi) >= M_PI_2) {
		c = 0;
		s = phi > 0 ? 1 : -1;
	}
	c4 = c * c * c * c;
	s4 = s * s * s * s;
	df = 1 / (c4 / f->dfb + s4 / f->dfa);
	*lhs = fabs(f->zb * c - f->za * s);
	*crit = xvbd_stat_t_quantile(f->q, df);
	return *lhs - *crit;
}

/* A set's ends as the search finds them, in phi, left to right. */
struct fieller_walk {
	const struct fieller *f;
	double roots[2 * XVBD_STAT_SET_MAX + 2];
	size_t nroots;
	bool overflow;
};

/* The end between a (inside or out) and b (the other): regula falsi. */
static double fieller_root(const struct fieller *f, double a, double da,
			   double b, double db)
{
	double l, t, m, dm;
	int i, side = 0;

	for (i = 0; i < FIELLER_ROOT_ITER_MAX; i++) {
		m = (a * db - b * da) / (db - da);
		if (!(m > fmin(a, b) && m < fmax(a, b)))
			m = 0.5 * (a + b);
		dm = fieller_d(f, m, &l, &t);
		if (dm == 0 || fabs(b - a) <= 4 * DBL_EPSILON * fabs(m))
			return m;
		if ((dm > 0) == (db > 0)) {
			b = m;
			db = dm;
			/* Illinois: halve the stale end's weight */
			if (side == 1)
				da /= 2;
			side = 1;
		} else {
			a = m;
			da = dm;
			if (side == -1)
				db /= 2;
			side = -1;
		}
	}
	return 0.5 * (a + b);
}

static void walk_root(struct fieller_walk *w, double a, double da, double b,
		      double db)
{
	if (w->nroots == sizeof(w->roots) / sizeof(w->roots[0])) {
		w->overflow = true;
		return;
	}
	w->roots[w->nroots++] = fieller_root(w->f, a, da, b, db);
}

/*
 * Cell [a, b] with both sides monotone on it: decided by its ends, or
 * split.  A sign change across an undecided narrow cell is an end of
 * the set.
 */
static void walk_cell(struct fieller_walk *w, double a, double b, double da,
		      double db, double la, double lb, double ta, double tb)
{
	double m, dm, lm, tm;

	if (fmin(la, lb) - fmax(ta, tb) > 0 || fmax(la, lb) - fmin(ta, tb) <= 0)
		return;		/* wholly out or wholly in: no end here */
	if (b - a < FIELLER_CELL_MIN) {
		if ((da <= 0) != (db <= 0))
			walk_root(w, a, da, b, db);
		return;
	}
	m = 0.5 * (a + b);
	dm = fieller_d(w->f, m, &lm, &tm);
	walk_cell(w, a, m, da, dm, la, lm, ta, tm);
	walk_cell(w, m, b, dm, db, lm, lb, tm, tb);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The points between which both sides of the inequality are monotone. */
static size_t fieller_crit(const struct fieller *f, double *p)
{
	double phi0 = atan2(f->zb, f->za), star = atan(sqrt(f->dfa / f->dfb));
	double cand[] = { phi0, phi0 - M_PI, phi0 + M_PI, phi0 - M_PI_2,
			  phi0 + M_PI_2, star, -star, 0 };
	size_t n = 0, i;

	p[n++] = -M_PI_2;
	/* the statistic's zero and peaks, folded into the range */
	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (cand[i] > -M_PI_2 && cand[i] < M_PI_2 && n + 1 <
		    FIELLER_CRIT_MAX + 2)
			p[n++] = cand[i];
	p[n++] = M_PI_2;
	qsort(p, n, sizeof(*p), cmp_double);
	return n;
}

static void set_add(struct xvbd_stat_set *s, double lo, double hi)
{
	if (s->n == XVBD_STAT_SET_MAX) {
		/* more pieces than kept: the last one grows (a superset) */
		s->hi[s->n - 1] = hi;
		return;
	}
	s->lo[s->n] = lo;
	s->hi[s->n] = hi;
	s->n++;
}

static double phi_to_r(const struct fieller *f, double phi)
{
	if (phi <= -M_PI_2)
		return -INFINITY;
	if (phi >= M_PI_2)
		return INFINITY;
	return f->k * tan(phi);
}

/* Both variances above 0: the search in phi. */
static void fieller_search(const struct fieller *f, struct xvbd_stat_set *s)
{
	double p[FIELLER_CRIT_MAX + 2], d[FIELLER_CRIT_MAX + 2];
	double l[FIELLER_CRIT_MAX + 2], t[FIELLER_CRIT_MAX + 2], start;
	struct fieller_walk w = { .f = f };
	size_t n = fieller_crit(f, p), i;
	bool in;

	for (i = 0; i < n; i++)
		d[i] = fieller_d(f, p[i], &l[i], &t[i]);
	for (i = 0; i + 1 < n; i++) {
		if (p[i + 1] <= p[i])
			continue;
		walk_cell(&w, p[i], p[i + 1], d[i], d[i + 1], l[i], l[i + 1],
			  t[i], t[i + 1]);
	}
	/* from -pi/2, where d[0] says whether infinity is in the set */
	in = d[0] <= 0;
	start = -M_PI_2;
	for (i = 0; i < w.nroots; i++) {
		if (in)
			set_add(s, phi_to_r(f, start), phi_to_r(f, w.roots[i]));
		start = w.roots[i];
		in = !in;
	}
	if (in)
		set_add(s, phi_to_r(f, start), INFINITY);
	/*
	 * The ends found disagree with infinity's own test (a piece missed
	 * as narrower than a cell): say unbounded rather than too little.
	 */
	if (w.overflow || in != (d[0] <= 0))
		s->unbounded = true;
}

/* One side constant: the t is the other side's, and the set closed form. */
static void fieller_one_var(double ma, double mb, double va, double vb,
			    double ta, double tb, struct xvbd_stat_set *s)
{
	double h, x, y;

	if (va == 0) {
		/* |mb - r ma| <= tb sqrt(vb) */
		h = tb * sqrt(vb);
		x = (mb - h) / ma;
		y = (mb + h) / ma;
		set_add(s, fmin(x, y), fmax(x, y));
		return;
	}
	/* (mb - r ma)^2 <= ta^2 r^2 va, bounded: ma^2 > ta^2 va */
	h = ta * sqrt(va);
	x = mb / (ma + copysign(h, ma));
	y = mb / (ma - copysign(h, ma));
	set_add(s, fmin(x, y), fmax(x, y));
}

int xvbd_stat_fieller_set(const double *a, size_t na, const double *b,
			  size_t nb, double confidence,
			  struct xvbd_stat_set *out)
{
	double ma, mb, va, vb, ta, tb;
	struct fieller f;

	if (!a || !b || !out || na < 2 || nb < 2 ||
	    ab_stat_check_conf(confidence) || !ab_stat_finite_all(a, na) ||
	    !ab_stat_finite_all(b, nb))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ma = xvbd_stat_mean(a, na);
	mb = xvbd_stat_mean(b, nb);
	va = xvbd_stat_var(a, na) / (double)na;
	vb = xvbd_stat_var(b, nb) / (double)nb;
	f.dfa = (double)(na - 1);
	f.dfb = (double)(nb - 1);
	f.q = (1 + confidence) / 2;
	ta = xvbd_stat_t_quantile(f.q, f.dfa);
	tb = xvbd_stat_t_quantile(f.q, f.dfb);
	/*
	 * Infinity is in the set exactly when A's own interval holds 0 (the
	 * limit |r| -> inf, at A's na - 1 degrees of freedom).
	 */
	out->unbounded = !(ma * ma > ta * ta * va);
	if (out->unbounded && (va == 0 || vb == 0))
		return 0;	/* nothing finite to say */
	if (va == 0 && vb == 0) {
		set_add(out, mb / ma, mb / ma);
		return 0;
	}
	if (va == 0 || vb == 0) {
		fieller_one_var(ma, mb, va, vb, ta, tb, out);
		return 0;
	}
	f.za = ma / sqrt(va);
	f.zb = mb / sqrt(vb);
	f.k = sqrt(vb / va);
	fieller_search(&f, out);
	return 0;
}

int xvbd_stat_fieller(const double *a, size_t na, const double *b,
		      size_t nb, double confidence, double *lo, double *hi)
{
	struct xvbd_stat_set s;
	int rc;

	if (!lo || !hi)
		return -EINVAL;
	*lo = *hi = NAN;
	rc = xvbd_stat_fieller_set(a, na, b, nb, confidence, &s);
	if (rc || s.unbounded || !s.n)
		return rc;
	*lo = s.lo[0];
	*hi = s.hi[s.n - 1];
	return 0;
}
