/*
 * ab_compare_words.c - a metric's verdict in words (xvbd_ab_verdict_text)
 * and the numbers and intervals the comparison prints, for the text
 * table and JSON's text alike (ab_compare_render.c).  The decisions are
 * ab_verdict.c's; here they are only said:
 *  - a direction word follows the sign of the number it is printed with,
 *    and a proven one the side its interval lies on;
 *  - a number has bounded width: fixed decimals below 10^9, three
 *    significant digits above, "+inf" / "-inf" for an end no double
 *    holds;
 *  - an interval is printed whole or not at all: "+- h" when symmetric,
 *    "(lo to hi)", its pieces "(lo to hi or lo to hi)", "(lo to +inf)",
 *    "unbounded" with the reason;
 *  - a text that does not fit is refused, never cut mid-number.
 * Pure (unit-tested).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_compare_impl.h"

/* Above this a fixed-decimal number is more digits than information. */
#define FIXED_MAX	1e9

const char *xvbd_ab_direction(enum xvbd_ab_metric m, bool b_higher)
{
	switch (m) {
	case XVBD_AB_RD_LAT_MS:
	case XVBD_AB_WR_LAT_MS:
	case XVBD_AB_RD_P50_MS:
	case XVBD_AB_RD_P99_MS:
	case XVBD_AB_RD_MAX_MS:
	case XVBD_AB_WR_P50_MS:
	case XVBD_AB_WR_P99_MS:
	case XVBD_AB_WR_MAX_MS:
		return b_higher ? "B slower (higher latency)" :
				  "B faster (lower latency)";
	case XVBD_AB_GUEST_CPU:
	case XVBD_AB_DOM0_CPU:
	case XVBD_AB_BE_CPU:
		return b_higher ? "B uses more CPU" : "B uses less CPU";
	case XVBD_AB_BE_US_PER_REQ:
		return b_higher ? "B costs more CPU per request" :
				  "B costs less CPU per request";
	case XVBD_AB_RD_KIB_PER_REQ:
	case XVBD_AB_WR_KIB_PER_REQ:
		return b_higher ? "B has larger requests" :
				  "B has smaller requests";
	case XVBD_AB_SECONDS:
	case XVBD_AB_BUSY_SECONDS:
		return b_higher ? "B takes longer" : "B takes less time";
	case XVBD_AB_G_RD_CLAT:
	case XVBD_AB_G_RD_P50:
	case XVBD_AB_G_RD_P99:
	case XVBD_AB_G_RD_P999:
	case XVBD_AB_G_RD_CLAT_MAX:
	case XVBD_AB_G_WR_CLAT:
	case XVBD_AB_G_WR_P50:
	case XVBD_AB_G_WR_P99:
	case XVBD_AB_G_WR_P999:
	case XVBD_AB_G_WR_CLAT_MAX:
		return b_higher ? "B slower (higher latency in the guest)" :
				  "B faster (lower latency in the guest)";
	case XVBD_AB_BENCH_LOWER1:
	case XVBD_AB_BENCH_LOWER2:
	case XVBD_AB_BENCH_LOWER3:
	case XVBD_AB_BENCH_LOWER4:
		return b_higher ? "B worse (higher)" : "B better (lower)";
	case XVBD_AB_BENCH_HIGHER1:
	case XVBD_AB_BENCH_HIGHER2:
	case XVBD_AB_BENCH_HIGHER3:
	case XVBD_AB_BENCH_HIGHER4:
		return b_higher ? "B better (higher)" : "B worse (lower)";
	default:
		return b_higher ? "B faster" : "B slower";
	}
}

/* ---- a text built in pieces, refused whole when it does not fit ---- */

struct words {
	char *buf;
	size_t len, n;
	bool full;
};

static void add(struct words *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct words *w, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (w->full)
		return;
	va_start(ap, fmt);
	k = vsnprintf(w->buf + w->n, w->len - w->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= w->len - w->n) {
		w->full = true;
		w->buf[w->n] = '\0';
		return;
	}
	w->n += (size_t)k;
}

/* ---- numbers and intervals ---- */

/* One number of bounded width; sign: always with its sign. */
static void num(struct words *w, double x, int decimals, bool sign)
{
	if (isnan(x))
		add(w, "-");
	else if (isinf(x))
		add(w, "%sinf", x < 0 ? "-" : sign ? "+" : "");
	else if (fabs(x) < FIXED_MAX)
		add(w, sign ? "%+.*f" : "%.*f", decimals, x);
	else
		add(w, sign ? "%+.3g" : "%.3g", x);
}

static const char *ci_why(enum xvbd_ab_ci_why why)
{
	switch (why) {
	case XVBD_AB_CI_FEW_RUNS:
		return "too few runs for one at this confidence";
	case XVBD_AB_CI_NO_RATIO:
		return "a value not above 0";
	case XVBD_AB_CI_A_NEAR_0:
		return "A's mean is not told from 0";
	default:
		return NULL;
	}
}

/* "(lo to hi)", "(lo to hi or lo to hi)": the pieces, signed. */
static void pieces(struct words *w, const struct xvbd_ab_ci *ci,
		   int decimals)
{
	size_t i;

	add(w, "(");
	for (i = 0; i < ci->npieces; i++) {
		if (i)
			add(w, " or ");
		num(w, ci->piece_lo[i], decimals, true);
		add(w, " to ");
		num(w, ci->piece_hi[i], decimals, true);
	}
	add(w, ")");
}

static bool symmetric(double v, const struct xvbd_ab_ci *ci)
{
	double h = (ci->hi - ci->lo) / 2;

	return xvbd_ab_ci_bounded(ci) && ci->npieces == 1 &&
	       fabs((ci->hi - v) - (v - ci->lo)) <= 0.1 * h + 1e-12;
}

/*
 * B - A with its set: "+187.0 +- 52.0 IO/s", "+12.3 % (+8.9 to +15.8) %",
 * "+1.5 % (-100.0 to +inf) %", "+14.6 % (unbounded: A's mean is not told
 * from 0)", "+187.0 IO/s" (none).
 */
static void signed_ci(struct words *w, double v, const struct xvbd_ab_ci *ci,
		      const char *unit, int decimals)
{
	/* "+12.3 % +- 3.4 %" reads as relative; "+187.0 +- 52.0 IO/s" */
	const char *pct = strcmp(unit, "%") ? "" : " %";

	num(w, v, decimals, true);
	if (isnan(v))
		return;
	switch (ci->shape) {
	case XVBD_AB_CI_NONE:
		add(w, " %s", unit);
		return;
	case XVBD_AB_CI_UNBOUNDED:
		add(w, " %s (unbounded: %s)", unit, ci_why(ci->why) ?
		    ci_why(ci->why) : "no finite ends");
		return;
	default:
		break;
	}
	add(w, "%s ", pct);
	if (symmetric(v, ci)) {
		add(w, "+- ");
		num(w, (ci->hi - ci->lo) / 2, decimals, false);
	} else {
		pieces(w, ci, decimals);
	}
	add(w, " %s", unit);
}

int ab_fmt_num(char *buf, size_t len, double x, int decimals, bool sign)
{
	struct words w = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	num(&w, x, decimals, sign);
	if (w.full)
		buf[0] = '\0';
	return w.full ? -ENOSPC : 0;
}

int ab_fmt_signed(char *buf, size_t len, double v,
		  const struct xvbd_ab_ci *ci, const char *unit, int decimals)
{
	struct words w = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	signed_ci(&w, v, ci, unit, decimals);
	if (w.full)
		buf[0] = '\0';
	return w.full ? -ENOSPC : 0;
}

int ab_fmt_ci(char *buf, size_t len, const struct xvbd_ab_ci *ci,
	      const char *unit, int decimals)
{
	struct words w = { .buf = buf, .len = len };
	size_t i;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (ci->shape == XVBD_AB_CI_NONE)
		return -ENOENT;
	if (ci->shape == XVBD_AB_CI_UNBOUNDED) {
		add(&w, "unbounded: %s", ci_why(ci->why) ? ci_why(ci->why) :
		    "no finite ends");
	} else {
		for (i = 0; i < ci->npieces; i++) {
			if (i)
				add(&w, " or ");
			num(&w, ci->piece_lo[i], decimals, true);
			add(&w, " to ");
			num(&w, ci->piece_hi[i], decimals, true);
		}
		add(&w, " %s", unit);
	}
	if (w.full)
		buf[0] = '\0';
	return w.full ? -ENOSPC : 0;
}

/* "1523.0 +- 40.0 (n=5)", "- (n=0)" */
int ab_fmt_centre(char *buf, size_t len, double centre, double half,
		  size_t n, int decimals)
{
	struct words w = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	num(&w, centre, decimals, false);
	/* an interval beyond any double: no "+- inf" */
	if (!isnan(centre) && isinf(half))
		add(&w, " (unbounded)");
	else if (!isnan(centre) && !isnan(half)) {
		add(&w, " +- ");
		num(&w, half, decimals, false);
	}
	add(&w, " (n=%zu)", n);
	if (w.full)
		buf[0] = '\0';
	return w.full ? -ENOSPC : 0;
}

/* ---- the verdict ---- */

/*
 * The magnitude of a proven difference with its interval, both on the
 * direction's side: "12.3 % +- 3.4 %", "12.3 % (8.9 to 15.8 %)",
 * "12.3 % (3.0 % to +inf)".
 */
static void magnitude(struct words *w, double v, const struct xvbd_ab_ci *ci,
		      const char *unit, int decimals)
{
	const char *sp = *unit ? " " : "";
	double lo = ci->lo, hi = ci->hi;

	if (v < 0) {
		v = -v;
		lo = -ci->hi;
		hi = -ci->lo;
	}
	num(w, v, decimals, false);
	add(w, "%s%s", sp, unit);
	if (ci->shape != XVBD_AB_CI_BOUNDED && ci->shape != XVBD_AB_CI_OPEN)
		return;
	if (xvbd_ab_ci_bounded(ci) && ci->npieces == 1 &&
	    fabs((hi - v) - (v - lo)) <= 0.1 * (hi - lo) / 2 + 1e-12) {
		add(w, " +- ");
		num(w, (hi - lo) / 2, decimals, false);
		add(w, "%s%s", sp, unit);
		return;
	}
	add(w, " (");
	num(w, lo, decimals, false);
	add(w, " to ");
	num(w, hi, decimals, false);
	add(w, "%s%s)", sp, unit);
}

/* The interval lies wholly on the side of sign dir (or is absent). */
static bool on_side(const struct xvbd_ab_ci *ci, int dir)
{
	if (ci->shape == XVBD_AB_CI_NONE)
		return true;
	if (ci->shape == XVBD_AB_CI_UNBOUNDED || ci->npieces != 1)
		return false;
	return dir > 0 ? ci->lo > 0 : ci->hi < 0;
}

/*
 * Which number a verdict's words name: the % where it has an interval
 * of its own (a % without one, A's mean not told from 0, would say more
 * than is known) or neither has one, else B - A.  want: a sign the
 * number must have, with its interval on that side (proven verdicts);
 * 0 any.  False when neither qualifies.
 */
static bool pick(const struct xvbd_ab_metric_cmp *mc, int want, bool *pct)
{
	const struct xvbd_stat_cmp_view *s = &mc->s;
	bool pct_ok = !isnan(s->pct) &&
		      (s->pct_ci.shape == XVBD_AB_CI_BOUNDED ||
		       s->pct_ci.shape == XVBD_AB_CI_OPEN ||
		       s->diff_ci.shape == XVBD_AB_CI_NONE);

	if (want && !(ab_sign(s->pct) == want && on_side(&s->pct_ci, want) &&
		      s->pct_ci.npieces <= 1))
		pct_ok = false;
	if (pct_ok) {
		*pct = true;
		return true;
	}
	*pct = false;
	return !isnan(s->diff) && (!want || (ab_sign(s->diff) == want &&
					     on_side(&s->diff_ci, want)));
}

static void proven(struct words *w, const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	bool pct;

	add(w, "%s", xvbd_ab_direction(mc->metric, mc->direction > 0));
	if (!pick(mc, mc->direction, &pct))
		return;
	add(w, " by ");
	if (pct)
		magnitude(w, mc->s.pct, &mc->s.pct_ci, "%", 1);
	else
		magnitude(w, mc->s.diff, &mc->s.diff_ci, xvbd_q_unit(info->q),
			  info->decimals);
}

static void weak(struct words *w, const struct xvbd_ab_metric_cmp *mc)
{
	const struct xvbd_ab_metric_info *info = &xvbd_ab_metrics[mc->metric];
	size_t at;
	double v;
	bool pct;

	if (mc->weak == XVBD_AB_WEAK_PAIRS)
		add(w, "weak: %zu pair%s (%d needed)", mc->npairs,
		    mc->npairs == 1 ? "" : "s", XVBD_AB_MIN_RUNS);
	else
		add(w, "weak: %zu and %zu runs (%d per side needed)", mc->na,
		    mc->nb, XVBD_AB_MIN_RUNS);
	if (pick(mc, 0, &pct)) {
		v = pct ? mc->s.pct : mc->s.diff;
		add(w, ": B-A ");
		at = w->n;
		signed_ci(w, v, pct ? &mc->s.pct_ci : &mc->s.diff_ci,
			  pct ? "%" : xvbd_q_unit(info->q),
			  pct ? 1 : info->decimals);
		/*
		 * The word follows the number just printed, as printed: none
		 * beside a +0.0 (a real difference too small to show).
		 */
		v = w->full ? 0 : strtod(w->buf + at, NULL);
		if (v > 0 || v < 0)
			add(w, ", B %s", v > 0 ? "higher" : "lower");
	}
	add(w, ", not proven");
}

int xvbd_ab_verdict_text(const struct xvbd_ab_comparison *c,
			 const struct xvbd_ab_metric_cmp *mc, char *buf,
			 size_t len)
{
	struct words w = { .buf = buf, .len = len };

	if (!c || !mc || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	switch (mc->verdict) {
	case XVBD_AB_V_BETTER:
	case XVBD_AB_V_WORSE:
		proven(&w, mc);
		break;
	case XVBD_AB_V_NO_DIFF:
		add(&w, "no difference proven at %g %%", c->confidence * 100);
		if (mc->holm && c->family_levels > 1)
			add(&w, " after Holm's adjustment over %zu tests (%zu "
			    "levels x metrics; p %.2g, adjusted %.2g)",
			    c->family, c->family_levels, mc->s.p,
			    mc->s.p_adj);
		else if (mc->holm)
			add(&w, " after Holm's adjustment over %zu metrics (p "
			    "%.2g, adjusted %.2g)", c->family, mc->s.p,
			    mc->s.p_adj);
		break;
	case XVBD_AB_V_WEAK:
		weak(&w, mc);
		break;
	case XVBD_AB_V_UNKNOWN:
		add(&w, "%s", mc->unknown_why ? mc->unknown_why : "unknown");
		break;
	}
	if (w.full) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}
